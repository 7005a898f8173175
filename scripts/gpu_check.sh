#!/usr/bin/env bash
# GPU check (issue: "Stronger from the same CPU-hour"): on a machine with CUDA, a 3-minute quick run
# with the learner and one self-play actor on the GPU, bench_net.py on the GPU, and one line of figures.
#   bash scripts/gpu_check.sh            (from the repository root; sets up .venv with `make venv`)
# The last line reads: gpu_check: <GPU>: quick 3 min on cuda: S steps, P positions (p/s); bench_net: ...
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gpu_check: no NVIDIA GPU here (nvidia-smi finds none): nothing to check" >&2
  exit 1
fi
make venv >/dev/null
PY=.venv/bin/python
"$PY" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 'gpu_check: torch has no CUDA (CPU wheel installed?)')"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
root=$(mktemp -d)
log="$root/train.log"
.venv/bin/catena-zero train --config configs/quick.yaml --run-name gpu-check \
  --set run.root="$root" --set run.max_minutes=3 --set train.device=cuda --set net.device=cuda \
  --set run.gpus_per_actor=1 --set run.num_actors=1 | tee "$log"
run_line=$(grep '^run bound reached' "$log" | head -1)
steps=$(echo "$run_line" | sed -E 's/.*: ([0-9,]+) steps.*/\1/')
positions=$(echo "$run_line" | sed -E 's/.* ([0-9,]+) positions.*/\1/')
bench=$("$PY" scripts/bench_net.py --sections device --device cuda --nets default tiny --sides 4 6 \
        --batches 256 1024 4096 --seconds 1 | tee "$root/bench.log" | tail -1)
echo "gpu_check: $gpu: quick 3 min on cuda: $steps steps, $positions positions; $bench"
