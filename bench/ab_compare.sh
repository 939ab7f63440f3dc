#!/usr/bin/env bash
# A/B of kernel variants on the GPU machine: runs `fvk bench` of each packed variant in turn, round
# after round, so that every variant meets the same device state (clocks, memory placement drift).
# Usage (on the GPU machine, from the repo root):
#   bash bench/ab_compare.sh ROUNDS SETS KERNEL_FILTER VARIANT...
# A VARIANT is a folder holding an fvk binary (bench/pack_for_gpu.sh makes .gpu/; copy builds of
# other commits next to it), optionally followed by :NAME=VALUE to run it with that environment
# variable set. Results: $OUT/<variant>_r<round>.json; compare with bench/ab_report.py.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-gpu-out}"; mkdir -p "$out"
rounds="$1"; sets="$2"; filter="$3"; shift 3
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
export LD_LIBRARY_PATH="$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if ! .gpu/fvk devices > /dev/null 2>&1; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
for r in $(seq 1 "$rounds"); do
  for v in "$@"; do
    dir="${v%%:*}"; env=(); name="$(basename "$dir")"
    if [[ "$v" == *:* ]]; then env=("${v#*:}"); name="$name-${v#*=}"; fi
    start=$SECONDS
    env "${env[@]}" "$dir/fvk" bench --sets "$sets" --kernel "$filter" --json "$out/${name}_r$r.json" > /dev/null 2>&1
    echo "round $r $name exit $? in $((SECONDS - start)) s"
  done
done
