#!/usr/bin/env python3
"""Tables the A/B runs of bench/ab_compare.sh: per set and kernel/dtype, each variant's fraction of
the same-run copy and its time relative to the first variant, both from the best round (a round
that hit one of the device's slow stretches must not decide an A/B)."""
import json
import pathlib
import re
import sys


def main(folder, variants):
    runs = {}
    for path in sorted(pathlib.Path(folder).glob("*_r*.json")):
        m = re.fullmatch(r"(.+)_r(\d+)\.json", path.name)
        if not m or m.group(1) not in variants:
            continue
        for row in json.loads(path.read_text())["results"]:
            # A portable build's row (a variant run with FVK_DISABLE_FEATURES) pairs with its fast build's.
            key = (row["shape_set"], row["kernel"].replace("_portable", ""), row["dtype"])
            runs.setdefault(key, {}).setdefault(m.group(1), []).append(row)
    print("| set | kernel | dtype | " + " | ".join(f"{v} of copy" for v in variants) + " | " +
          " | ".join(f"{v} time / {variants[0]}" for v in variants[1:]) + " |")
    print("| --- | --- | --- | " + " | ".join("---:" for _ in range(2 * len(variants) - 1)) + " |")
    for key in sorted(runs):
        per = runs[key]
        if not all(v in per for v in variants):
            continue
        frac = {v: max(r["roofline_fraction"] for r in per[v]) for v in variants}
        ns = {v: min(r["gpu_ns"] for r in per[v]) for v in variants}
        cells = [f"{frac[v]:.0%}" for v in variants] + [f"{ns[v] / ns[variants[0]]:.2f}" for v in variants[1:]]
        print(f"| {key[0]} | `{key[1]}` | {key[2]} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
