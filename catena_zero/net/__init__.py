"""The network: hex-grid input features, the residual tower, and the evaluation function for search.

``features`` (planes and globals from states; the versioned ``InputLayout``), ``model``
(``CatenaNet``: hex convolutions, masked batch norm, global pooling, the heads), ``folded`` (the
inference-only forward with batch norms folded in), ``inference`` (``NetEvaluator``: a network as
a batched ``EvalFn``), ``device`` (the device and torch's threads per process).
"""

from .device import set_torch_threads
from .inference import NetEvaluator
from .features import (
    NUM_GLOBALS,
    NUM_PLANES,
    Features,
    encode,
    pad_features,
    score_scale,
    transform_features,
)
from .model import (
    PAD_LOGIT,
    CatenaNet,
    NetOutput,
    WeightsMismatch,
    deepened,
    model_from_config,
    model_from_weights,
    num_parameters,
)

__all__ = [
    "NUM_GLOBALS",
    "NUM_PLANES",
    "PAD_LOGIT",
    "CatenaNet",
    "Features",
    "NetEvaluator",
    "NetOutput",
    "encode",
    "WeightsMismatch",
    "model_from_config",
    "deepened",
    "model_from_weights",
    "num_parameters",
    "pad_features",
    "score_scale",
    "set_torch_threads",
    "transform_features",
]
