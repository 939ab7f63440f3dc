#!/usr/bin/env bash
# Runs on the GPU machine (see docs/benchmarks.md): selftest, Judge, our benchmark and PyTorch's on
# the same device in one go. Results land in $OUT (or ./gpu-out).
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-gpu-out}"; mkdir -p "$out"
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
export LD_LIBRARY_PATH="$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if ! .gpu/fvk devices > "$out/devices.txt" 2>&1; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  .gpu/fvk devices > "$out/devices.txt" 2>&1
fi
cat "$out/devices.txt"
what="${1:-all}"
case "$what" in *selftest*|all) .gpu/fvk selftest > "$out/selftest.txt" 2>&1; echo "selftest exit $?"; tail -3 "$out/selftest.txt";; esac
case "$what" in *bench*|all) .gpu/fvk bench --json "$out/ours.json" --csv "$out/ours.csv" --batch 100 --batch-json "$out/small_batch.json" > "$out/bench.txt" 2>&1; echo "bench exit $?"; tail -3 "$out/bench.txt";; esac
case "$what" in *torch*|all) PYTHONUNBUFFERED=1 python3 bench/torch_pad_bench.py --rotate 1 --out "$out" > "$out/torch.txt" 2>&1; echo "torch exit $?"; tail -3 "$out/torch.txt";; esac
case "$what" in *judge*|all) .gpu/fvk judge --out "$out/cost_table.json" > "$out/judge.txt" 2>&1; echo "judge exit $?"; tail -3 "$out/judge.txt";; esac
