#!/usr/bin/env bash
# Folds a GPU run of bench/gpu_run.sh (selftest, bench, torch, judge) into docs/: the previous run's
# data files keep their place under the suffix _<OLD> (the commit they measured), the new ones take
# the plain names, and docs/bench_h200.md gets the generated table (report.py) up to "## Against the
# targets", keeping the hand-written sections from there on (update those by hand afterwards).
#   bench/ingest_h200.sh RUN_DIR OLD     RUN_DIR: gpu_run.sh's output folder; OLD: e.g. c9a1083
set -euo pipefail
run="$(realpath "$1")"; old="$2"
cd "$(dirname "$0")/.."
data=docs/data
for f in ours.json bench.txt small_batch.json selftest.txt torch_pad_bench.json; do
  [ -f "$run/$f" ] || { echo "ingest_h200: $run/$f is missing" >&2; exit 2; }
done
keep() {  # keep() NAME: moves docs/data/h200_NAME to h200_<stem>_OLD.<ext>
  local f="$data/h200_$1"
  if [ -f "$f" ]; then git mv -f "$f" "${f%.*}_${old}.${f##*.}"; fi
}
for n in ours.json torch.json bench.txt small_batch.json small_batch.txt selftest.txt; do keep "$n"; done
cp "$run/ours.json" "$data/h200_ours.json"
cp "$run/torch_pad_bench.json" "$data/h200_torch.json"
cp "$run/bench.txt" "$data/h200_bench.txt"
cp "$run/small_batch.json" "$data/h200_small_batch.json"
sed -n '/ops per batch/,$p' "$run/bench.txt" > "$data/h200_small_batch.txt"
cp "$run/selftest.txt" "$data/h200_selftest.txt"
if [ -f "$run/cost_table.json" ]; then
  keep cost_table.json; keep judge.txt
  cp "$run/cost_table.json" "$data/h200_cost_table.json"
  cp "$run/judge.txt" "$data/h200_judge.txt"
fi
gen=docs/bench_h200.gen.md  # beside the page, so the image's link is the page's
trap 'rm -f "$gen"' EXIT
/usr/bin/python3 bench/report.py --ours "$data/h200_ours.json" --torch "$data/h200_torch.json" \
  --out-md "$gen" --out-png docs/bench_h200.png
/usr/bin/python3 - "$gen" docs/bench_h200.md <<'PY'
import sys
gen, doc = open(sys.argv[1]).read(), open(sys.argv[2]).read()
k = "## Against the targets"
head = gen[: gen.index(k)] if k in gen else gen
open(sys.argv[2], "w").write(head.rstrip("\n") + "\n\n" + doc[doc.index(k):])
PY
rm -f "$gen"
git add "$data"/h200_* docs/bench_h200.md docs/bench_h200.png
git status --short
