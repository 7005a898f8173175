"""The network: hex-grid input features, the residual tower, and the evaluation function for search."""

from .evaluator import NetEvaluator
from .features import NUM_GLOBALS, NUM_PLANES, Features, encode, score_scale, transform_features
from .model import CatenaNet, NetOutput, model_from_config, num_parameters

__all__ = [
    "NUM_GLOBALS",
    "NUM_PLANES",
    "CatenaNet",
    "Features",
    "NetEvaluator",
    "NetOutput",
    "encode",
    "model_from_config",
    "num_parameters",
    "score_scale",
    "transform_features",
]
