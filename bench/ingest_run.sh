#!/usr/bin/env bash
# Folds a GPU run of bench/gpu_run.sh (selftest, bench, torch, judge) into docs/: the previous run's
# data files keep their place under the suffix _<OLD> (the commit they measured), the new ones take
# the plain names, and docs/bench_<DEV>.md gets the generated table (report.py) up to "## Against the
# targets", keeping the hand-written sections from there on (update those by hand afterwards). A
# device's first run makes its page from the generated text alone.
#   bench/ingest_run.sh RUN_DIR OLD [DEV]   RUN_DIR: gpu_run.sh's output folder; OLD: e.g. c9a1083
#                                           (- for a device's first run); DEV: h200 (default), h100
set -euo pipefail
fail() { echo "ingest_run: $*" >&2; exit 2; }
[ $# -ge 2 ] || fail "usage: bench/ingest_run.sh RUN_DIR OLD [h200|h100]"
run="$(realpath "$1")"; old="$2"; dev="${3:-h200}"
case "$dev" in h200|h100) ;; *) fail "DEV must be h200 or h100, not '$dev'";; esac
cd "$(dirname "$0")/.."
data=docs/data page="docs/bench_$dev.md"
# Every check before anything moves, so a refused run leaves docs/ as it was.
for f in ours.json bench.txt small_batch.json selftest.txt torch_pad_bench.json; do
  [ -f "$run/$f" ] || fail "$run/$f is missing"
done
[ ! -f "$run/cost_table.json" ] || [ -f "$run/judge.txt" ] || fail "$run/judge.txt is missing (the cost table's log)"
grep -q 'ops per batch' "$run/bench.txt" || fail "$run/bench.txt has no small-batch table (fvk bench --batch)"
[ ! -f "$page" ] || grep -q '^## Against the targets' "$page" || fail "$page has no '## Against the targets' section to keep"
# The data files this run replaces (docs/data/<dev>_NAME).
names="ours.json torch.json bench.txt small_batch.json small_batch.txt selftest.txt"
[ ! -f "$run/cost_table.json" ] || names="$names cost_table.json judge.txt"
for n in $names; do
  f="$data/${dev}_$n"
  [ -f "$f" ] || continue
  [ "$old" != - ] || fail "$f exists: name the commit it measured as OLD"
  [ ! -e "${f%.*}_${old}.${f##*.}" ] || fail "${f%.*}_${old}.${f##*.} exists already"
done
gen="docs/bench_$dev.gen.md"  # beside the page, so the image's link is the page's
trap 'rm -f "$gen"' EXIT
/usr/bin/python3 bench/report.py --ours "$run/ours.json" --torch "$run/torch_pad_bench.json" \
  --out-md "$gen" --out-png "docs/bench_$dev.png" \
  --title "fvk vs PyTorch: padding kernels on NVIDIA ${dev^^}"
for n in $names; do  # the previous run's files keep their place as <dev>_<stem>_OLD.<ext>
  f="$data/${dev}_$n"
  if [ -f "$f" ]; then git mv "$f" "${f%.*}_${old}.${f##*.}"; fi
done
cp "$run/ours.json" "$data/${dev}_ours.json"
cp "$run/torch_pad_bench.json" "$data/${dev}_torch.json"
cp "$run/bench.txt" "$data/${dev}_bench.txt"
cp "$run/small_batch.json" "$data/${dev}_small_batch.json"
sed -n '/ops per batch/,$p' "$run/bench.txt" > "$data/${dev}_small_batch.txt"
cp "$run/selftest.txt" "$data/${dev}_selftest.txt"
if [ -f "$run/cost_table.json" ]; then
  cp "$run/cost_table.json" "$data/${dev}_cost_table.json"
  cp "$run/judge.txt" "$data/${dev}_judge.txt"
fi
if [ -f "$page" ]; then
  /usr/bin/python3 - "$gen" "$page" <<'PY'
import sys
gen, doc = open(sys.argv[1]).read(), open(sys.argv[2]).read()
k = "## Against the targets"
head = gen[: gen.index(k)] if k in gen else gen
open(sys.argv[2], "w").write(head.rstrip("\n") + "\n\n" + doc[doc.index(k):])
PY
else
  cp "$gen" "$page"
fi
rm -f "$gen"
git add "$data/${dev}"_* "$page" "docs/bench_$dev.png"
git status --short
