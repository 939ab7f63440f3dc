#!/usr/bin/env python3
"""Set `fvk bench --json` results beside the PyTorch baseline (bench/torch_pad_bench.py).

    python3 bench/report.py --ours fvk_bench.json --torch torch_pad_bench.json \
        --out-md docs/bench_h200.md --out-png docs/bench_h200.png --title "fvk vs PyTorch, H200"

Records are matched on (shape_set, op, mode, dtype). Our backward reflect / replicate come in two
algorithms (deterministic, atomic); each gets its own row against the same PyTorch record. A record
missing on either side, or one PyTorch refused (its `error`), shows as a dash and is listed below
the table; nothing is dropped. Needs numpy and matplotlib, not torch.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterable

SET_ORDER = ("image", "audio", "small", "rank5")
OP_ORDER = ("pad", "pad_backward", "masked_fill")
MODE_ORDER = ("constant", "reflect", "replicate", None)
ALGO_ORDER = (None, "deterministic", "atomic")
DTYPE_ORDER = ("bool", "u8", "i8", "f16", "bf16", "i16", "u16", "f32", "i32", "u32", "f64", "i64",
               "u64")
# Kernel families, one group of bars each in the chart.
FAMILIES = (("pad", "constant"), ("pad", "reflect"), ("pad", "replicate"),
            ("pad_backward", "constant"), ("pad_backward", "reflect"),
            ("pad_backward", "replicate"), ("masked_fill", None))

COLORS = {"ours": "#1f5fa8", "ours_atomic": "#7fb3e0", "torch": "#e8731a"}
SERIES_LABEL = {"ours": "fvk (ours)", "ours_atomic": "fvk atomic scatter (ours)",
                "torch": "PyTorch CUDA"}

Key = tuple  # (shape_set, op, mode, dtype)


def _rank(value: Any, order: Iterable[Any]) -> tuple[int, str]:
    order = tuple(order)
    return (order.index(value), "") if value in order else (len(order), str(value))


def sort_key(key: Key, algorithm: str | None = None) -> tuple:
    shape_set, op, mode, dtype = key
    return (_rank(shape_set, SET_ORDER), _rank(op, OP_ORDER), _rank(mode, MODE_ORDER),
            _rank(algorithm, ALGO_ORDER), _rank(dtype, DTYPE_ORDER))


def load(path: Path | None, label: str) -> dict[str, Any]:
    """The JSON document, or an empty one when no path was given."""
    if path is None:
        return {"results": []}
    with open(path) as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("results", []), list):
        raise SystemExit(f"report: {path}: expected an object with a 'results' list ({label})")
    return doc


def record_key(r: dict[str, Any]) -> Key | None:
    if not all(isinstance(r.get(k), str) for k in ("shape_set", "op", "dtype")):
        return None
    return (r["shape_set"], r["op"], r.get("mode"), r["dtype"])


def rate(r: dict[str, Any] | None) -> float | None:
    """GB/s of a record: its gbps, else bytes / gpu_ns; None for errors and missing data."""
    if not r or r.get("error"):
        return None
    g = r.get("gbps")
    if isinstance(g, (int, float)) and math.isfinite(g) and g > 0:
        return float(g)
    b, ns = r.get("bytes"), r.get("gpu_ns")
    if isinstance(b, (int, float)) and isinstance(ns, (int, float)) and ns > 0 and b > 0:
        return b / ns
    return None


def gpu_ns(r: dict[str, Any] | None) -> float | None:
    if not r or r.get("error"):
        return None
    ns = r.get("gpu_ns")
    return float(ns) if isinstance(ns, (int, float)) and math.isfinite(ns) and ns > 0 else None


def roofline(doc: dict[str, Any]) -> float | None:
    g = doc.get("copy_roofline_gbps")
    return float(g) if isinstance(g, (int, float)) and g > 0 else None


def series_of(r: dict[str, Any]) -> str:
    return "ours_atomic" if r.get("algorithm") == "atomic" else "ours"


class Comparison:
    """Our records and PyTorch's, indexed by key."""

    def __init__(self, ours: dict[str, Any], torch: dict[str, Any]):
        self.ours_doc, self.torch_doc = ours, torch
        self.ours_roof, self.torch_roof = roofline(ours), roofline(torch)
        self.ours: dict[Key, list[dict[str, Any]]] = defaultdict(list)
        self.torch: dict[Key, dict[str, Any]] = {}
        self.warnings: list[str] = []
        for i, r in enumerate(ours.get("results", [])):
            k = record_key(r) if isinstance(r, dict) else None
            if k is None:
                self.warnings.append(f"ours: results[{i}] lacks shape_set/op/dtype; skipped")
                continue
            if any(o.get("algorithm") == r.get("algorithm") for o in self.ours[k]):
                self.warnings.append(f"ours: duplicate {fmt_key(k)} {r.get('algorithm')}; "
                                     "first kept")
                continue
            self.ours[k].append(r)
        for i, r in enumerate(torch.get("results", [])):
            k = record_key(r) if isinstance(r, dict) else None
            if k is None:
                self.warnings.append(f"torch: results[{i}] lacks shape_set/op/dtype; skipped")
                continue
            if k in self.torch:
                self.warnings.append(f"torch: duplicate {fmt_key(k)}; first kept")
                continue
            self.torch[k] = r

    def keys(self) -> list[Key]:
        return sorted(set(self.ours) | set(self.torch), key=sort_key)

    def shape_sets(self) -> list[str]:
        return sorted({k[0] for k in self.keys()}, key=lambda s: _rank(s, SET_ORDER))

    def rows(self) -> list[dict[str, Any]]:
        """One row per our record (or per missing one), each beside its PyTorch record."""
        out = []
        for k in self.keys():
            t = self.torch.get(k)
            mine: list[tuple[str | None, dict[str, Any] | None]] = [
                (r.get("algorithm"), r) for r in self.ours.get(k, [])]
            if mine and k[1] == "pad_backward" and k[2] in ("reflect", "replicate"):
                have = {a for a, _ in mine}  # both algorithms expected: show a gap as a row
                mine += [(a, None) for a in ("deterministic", "atomic") if a not in have]
            mine = sorted(mine, key=lambda ar: _rank(ar[0], ALGO_ORDER)) or [(None, None)]
            for algorithm, o in mine:
                out.append(self._row(k, algorithm, o, t))
        return out

    def _row(self, k: Key, algorithm: str | None, o: dict[str, Any] | None,
             t: dict[str, Any] | None) -> dict[str, Any]:
        og, tg = rate(o), rate(t)
        ons, tns = gpu_ns(o), gpu_ns(t)
        ob, tb = o.get("bytes") if o else None, t.get("bytes") if t else None
        recounted = None
        if ons and isinstance(ob, int) and isinstance(tb, int) and tb > 0 and ob != tb:
            # Both sides on one byte count (PyTorch's: the minimum traffic), so the GB/s columns
            # compare; our contract may count more (reflect/replicate forward count 2 * n_out * B).
            og, recounted = tb / ons, (ob, tb)
        copy = o.get("copy_gbps") if o else None
        if recounted and o.get("must_move_bytes") == tb and o.get("must_move_copy_gbps"):
            # our GB/s is on the must-move count now: against the copy of that many bytes (a copy
            # of the contract's count is not the same size; runs before it was timed lack it)
            copy = o["must_move_copy_gbps"]
        mismatch = []
        if o is not None and t is not None:
            fields = ("shape",) if k[1] == "masked_fill" else ("shape", "pads")
            mismatch = [f for f in fields
                        if o.get(f) is not None and t.get(f) is not None and o.get(f) != t.get(f)]
        ratio = tns / ons if ons and tns else (og / tg if og and tg else None)
        return {
            "key": k, "ours": o, "torch": t, "ours_gbps": og, "torch_gbps": tg,
            "algorithm": algorithm, "recounted": recounted, "mismatch": mismatch,
            # the time ratio: like for like whatever each side counted as bytes; none when the
            # two records are not the same case
            "ratio": None if mismatch else ratio,
            "ours_frac": og / self.ours_roof if og and self.ours_roof else None,
            "torch_frac": tg / self.torch_roof if tg and self.torch_roof else None,
            "ours_same_size_frac": (og / copy if og and isinstance(copy, (int, float)) and copy > 0
                                    else None),
        }


def fmt_key(k: Key) -> str:
    return f"{k[0]} {k[1]}/{k[2] or '-'} {k[3]}"


def fmt_gbps(g: float | None) -> str:
    if g is None:
        return "—"
    return f"{g:,.0f}" if g >= 100 else f"{g:.1f}" if g >= 1 else f"{g:.3f}"


def fmt_pct(f: float | None) -> str:
    return "—" if f is None else f"{100 * f:.0f}%" if f >= 0.1 else f"{100 * f:.1f}%"


def fmt_us(r: dict[str, Any] | None) -> str:
    ns = r.get("gpu_ns") if r and not r.get("error") else None
    if not isinstance(ns, (int, float)) or ns <= 0:
        return "—"
    return f"{ns / 1e3:,.1f}" if ns >= 1e4 else f"{ns / 1e3:.2f}"


def geomean(xs: list[float]) -> float | None:
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def op_label(op: str, mode: str | None, algorithm: str | None) -> str:
    s = op if mode is None else f"{op}/{mode}"
    return f"{s} ({algorithm})" if algorithm and op == "pad_backward" and mode != "constant" else s


def describe_rotation(doc: dict[str, Any]) -> str:
    """How PyTorch's inputs met the L2 (torch_pad_bench.py --rotate), for the header line."""
    config = doc.get("config") or {}
    rotate = config.get("rotate") if isinstance(config, dict) else None
    if rotate is None:
        return ""
    if str(rotate) == "1":
        return "; `--rotate 1`: one set of inputs, warm in L2 where it fits, as ours"
    return f"; `--rotate {rotate}`: inputs rotated through copies, cold in L2"


def describe_device(doc: dict[str, Any]) -> str:
    d = doc.get("device") or {}
    if not isinstance(d, dict):
        return str(d)
    parts = [str(d.get("name", "unknown device"))]
    for k in ("driver", "torch", "cuda"):
        if d.get(k):
            parts.append(f"{k} {d[k]}")
    if d.get("vendor_id") is not None and d.get("device_id") is not None:
        try:
            parts.append(f"id {int(d['vendor_id']):#06x}:{int(d['device_id']):#06x}")
        except (TypeError, ValueError):
            parts.append(f"id {d['vendor_id']}:{d['device_id']}")
    return ", ".join(parts)


def shape_of(c: Comparison, shape_set: str) -> tuple[Any, Any]:
    for src in (c.torch.values(), (r for rs in c.ours.values() for r in rs)):
        for r in src:
            if r.get("shape_set") == shape_set and r.get("shape") is not None:
                return r.get("shape"), r.get("pads")
    return None, None


def markdown(c: Comparison, title: str, png_rel: str | None) -> str:
    rows = c.rows()
    L = [f"# {title}", ""]
    L.append(f"- **ours** (`fvk bench`): {describe_device(c.ours_doc)}; copy roofline "
             f"{fmt_gbps(c.ours_roof)} GB/s")
    L.append(f"- **PyTorch** (`bench/torch_pad_bench.py`): {describe_device(c.torch_doc)}; copy "
             f"roofline {fmt_gbps(c.torch_roof)} GB/s{describe_rotation(c.torch_doc)}")
    L.append("")
    L.append("GB/s is the minimum traffic over the median GPU time: `(n_in + n_out) * B` for pad "
             "and its backward, `2 * n * B + n` for masked_fill (B: element bytes). "
             "*ours/torch* above 1 means we are faster. The roofline columns divide each side by "
             "its own device-to-device copy rate (read + write bytes). See "
             "[benchmarks.md](benchmarks.md).")
    L.append("")
    if png_rel:
        L += [f"![GB/s per kernel family]({png_rel})", ""]

    L += ["## Shape sets", "", "| shape_set | shape | pads (torch order) |", "| --- | --- | --- |"]
    for s in c.shape_sets():
        shape, pads = shape_of(c, s)
        L.append(f"| {s} | {fmt_list(shape)} | {fmt_list(pads)} |")
    L.append("")

    L += ["## Summary", "",
          "| shape_set | rows compared | geomean ours/torch | min | max | median ours of roofline "
          "| median torch of roofline |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for s in c.shape_sets():
        sr = [r for r in rows if r["key"][0] == s]
        ratios = [r["ratio"] for r in sr if r["ratio"]]
        L.append(f"| {s} | {len(ratios)} of {len(sr)} | {fmt_ratio(geomean(ratios))} | "
                 f"{fmt_ratio(min(ratios) if ratios else None)} | "
                 f"{fmt_ratio(max(ratios) if ratios else None)} | "
                 f"{fmt_pct(median([r['ours_frac'] for r in sr]))} | "
                 f"{fmt_pct(median([r['torch_frac'] for r in sr]))} |")
    all_ratios = [r["ratio"] for r in rows if r["ratio"]]
    L.append(f"| **all** | {len(all_ratios)} of {len(rows)} | **{fmt_ratio(geomean(all_ratios))}** "
             f"| {fmt_ratio(min(all_ratios) if all_ratios else None)} | "
             f"{fmt_ratio(max(all_ratios) if all_ratios else None)} | "
             f"{fmt_pct(median([r['ours_frac'] for r in rows]))} | "
             f"{fmt_pct(median([r['torch_frac'] for r in rows]))} |")
    L.append("")

    L += families_table(c, rows)

    notes: list[str] = []

    def note(text: str) -> str:
        if text not in notes:
            notes.append(text)
        return f"<sup>{notes.index(text) + 1}</sup>"

    same_size = any(r["ours_same_size_frac"] for r in rows)
    L += ["## Results", "",
          "| shape_set | op/mode | dtype | ours GB/s | PyTorch GB/s | ours/torch "
          "| ours of roofline | torch of roofline | ours µs | torch µs "
          + ("| ours of same-size copy " if same_size else "") + "| our kernel |",
          "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
          + ("---: | " if same_size else "") + "--- |"]
    for r in rows:
        (s, op, mode, dt), o, t = r["key"], r["ours"], r["torch"]
        ours_cell, torch_cell = fmt_gbps(r["ours_gbps"]), fmt_gbps(r["torch_gbps"])
        if o is None:
            ours_cell += note("no `fvk bench` record" + (
                f" for the {r['algorithm']} algorithm" if r["algorithm"] else ""))
        elif o.get("error"):
            ours_cell += note(f"ours failed: {o['error']}")
        elif r["ours_gbps"] is None:
            ours_cell += note("our record has no gbps / gpu_ns")
        elif r["recounted"]:
            ours_cell += note("our GB/s recomputed on PyTorch's byte count (the minimum traffic) "
                              "from our time; `fvk bench` counted a different number (its "
                              "contract's bytes_moved, e.g. reflect/replicate forward's "
                              "`2 * n_out * B`, constant backward's `2 * n_in * B`)")
        if t is None:
            torch_cell += note("no PyTorch record")
        elif t.get("error"):
            torch_cell += note(f"PyTorch: {t['error']}")
        elif r["torch_gbps"] is None:
            torch_cell += note("PyTorch record has no gbps / gpu_ns")
        ratio_cell = fmt_ratio(r["ratio"])
        if r["mismatch"]:
            ratio_cell += note(f"ours and PyTorch differ in {' and '.join(r['mismatch'])} for "
                               f"{fmt_key(r['key'])}: not the same case, no ratio")
        kernel = f"`{o['kernel']}`" if o and o.get("kernel") else "—"
        extra = f"{fmt_pct(r['ours_same_size_frac'])} | " if same_size else ""
        L.append(f"| {s} | {op_label(op, mode, r['algorithm'])} | {dt} | {ours_cell} | "
                 f"{torch_cell} | {ratio_cell} | {fmt_pct(r['ours_frac'])} | "
                 f"{fmt_pct(r['torch_frac'])} | {fmt_us(o)} | {fmt_us(t)} | {extra}{kernel} |")
    L.append("")
    if notes:
        L += ["Notes:", ""]
        L += [f"{i}. {n}" for i, n in enumerate(notes, 1)]
        L.append("")
    if c.warnings:
        L += ["Input warnings:", ""] + [f"- {w}" for w in c.warnings] + [""]
    return "\n".join(L)


def family(r: dict[str, Any]) -> str:
    """The kernel family of a row, as the speed targets group them."""
    op, mode = r["key"][1], r["key"][2]
    if op == "pad":
        return "pad forward"
    if op == "pad_backward":
        return "pad_backward_const" if mode == "constant" else f"{r['algorithm'] or '?'} backward"
    return op


def families_table(c: Comparison, rows: list[dict[str, Any]]) -> list[str]:
    """min / geomean / max of *ours of same-size copy* per family and shape set: the measure of the
    speed targets (the bytes that must move, PyTorch's count where there is one, over our time,
    against the same run's copy of that size)."""
    cells: dict[tuple[str, str], list[float]] = defaultdict(list)
    order: list[str] = []
    for r in rows:
        f = family(r)
        if f not in order:
            order.append(f)
        if r["ours_same_size_frac"]:
            cells[(f, r["key"][0])].append(r["ours_same_size_frac"])
    sets = c.shape_sets()
    if not cells:
        return []

    def cell(xs: list[float]) -> str:
        return "—" if not xs else f"{min(xs):.2f} / {geomean(xs):.2f} / {max(xs):.2f}"

    L = ["## By family", "",
         "min / geomean / max of *ours of same-size copy* over each family's rows of a shape set: "
         "the bytes that must move (input read once, output written once; PyTorch's count where "
         "it has the row) over our median GPU time, divided by the rate of a copy of that size "
         "measured in the same run.", "",
         "| family | " + " | ".join(sets) + " |", "| --- | " + " | ".join("---" for _ in sets) + " |"]
    L += [f"| {f} | " + " | ".join(cell(cells[(f, s)]) for s in sets) + " |" for f in order]
    L.append("")
    return L


def fmt_ratio(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}×"


def fmt_list(v: Any) -> str:
    return "—" if v is None else "[" + ", ".join(str(x) for x in v) + "]"


def median(xs: list[float | None]) -> float | None:
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return None
    m = len(xs) // 2
    return xs[m] if len(xs) % 2 else (xs[m - 1] + xs[m]) / 2


def families_of(c: Comparison) -> list[tuple[str, str | None]]:
    seen = {(k[1], k[2]) for k in c.keys()}
    extra = sorted(seen - set(FAMILIES), key=lambda f: (_rank(f[0], OP_ORDER), str(f[1])))
    return [f for f in FAMILIES if f in seen] + extra


def family_label(op: str, mode: str | None) -> str:
    short = {"pad": "pad", "pad_backward": "pad bwd", "masked_fill": "masked_fill"}.get(op, op)
    return short if mode is None else f"{short}\n{mode}"


def chart(c: Comparison, path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    sets = c.shape_sets()
    fams = families_of(c)
    by_key: dict[Key, list[dict[str, Any]]] = defaultdict(list)
    for r in c.rows():  # the table's numbers, ours on the common byte count
        by_key[r["key"]].append(r)
    if not sets:
        raise SystemExit("report: no results to chart")
    fig, axes = plt.subplots(len(sets), 1, figsize=(18, 3.9 * len(sets) + 0.6), squeeze=False)
    bar_w, dtype_gap, fam_gap = 0.8, 0.35, 1.1
    used_series: set[str] = set()
    for ax, s in zip(axes[:, 0], sets):
        x = 0.0
        ticks, tick_labels, heights = [], [], []
        fam_spans = []
        for op, mode in fams:
            keys = sorted((k for k in c.keys() if k[0] == s and k[1] == op and k[2] == mode),
                          key=sort_key)
            if not keys:
                continue
            has_atomic = any(series_of(r) == "ours_atomic" for k in keys for r in c.ours.get(k, []))
            series = ["ours", "ours_atomic", "torch"] if has_atomic else ["ours", "torch"]
            start = x
            for k in keys:
                values = {"torch": rate(c.torch.get(k))}
                for r in by_key.get(k, []):
                    if r["ours"] is not None:
                        values[series_of(r["ours"])] = r["ours_gbps"]
                for i, name in enumerate(series):
                    xi = x + i * bar_w
                    v = values.get(name)
                    if v is not None:
                        ax.bar(xi, v, bar_w, color=COLORS[name], edgecolor="white", linewidth=0.4)
                        used_series.add(name)
                        heights.append(v)
                    else:
                        ax.text(xi, 0, "n/a", rotation=90, ha="center", va="bottom", fontsize=7.5,
                                color="#666666")
                ticks.append(x + (len(series) - 1) * bar_w / 2)
                tick_labels.append(k[3])
                x += len(series) * bar_w + dtype_gap
            fam_spans.append((start - bar_w / 2, x - dtype_gap + -bar_w / 2, op, mode))
            x += fam_gap
        top = max(heights) if heights else 1.0
        roofs = [(c.ours_roof, COLORS["ours"], "fvk copy roofline"),
                 (c.torch_roof, COLORS["torch"], "PyTorch copy roofline")]
        shown = [r for r in roofs if r[0] and r[0] <= 2.5 * top]
        ymax = max([top] + [r[0] for r in shown]) * 1.12
        ax.set_ylim(0, ymax)
        for value, color, label in shown:
            ax.axhline(value, color=color, linestyle="--", linewidth=1.2, label=label)
        hidden = [f"{label} {value:,.0f} GB/s" for value, _, label in roofs
                  if value and (value, _, label) not in shown]
        if hidden:
            ax.text(0.995, 0.97, "off scale: " + "; ".join(hidden), transform=ax.transAxes,
                    ha="right", va="top", fontsize=8.5, color="#555555")
        for i, (a, b, op, mode) in enumerate(fam_spans):
            ax.text((a + b) / 2, -0.09, family_label(op, mode), transform=ax.get_xaxis_transform(),
                    ha="center", va="top", fontsize=9, fontweight="bold")
            if i:
                ax.axvline(a - fam_gap / 2, color="#cccccc", linewidth=0.8)
        ax.set_xticks(ticks)
        ax.set_xticklabels(tick_labels, fontsize=8)
        ax.set_xlim(-bar_w, x - fam_gap + bar_w / 2)
        shape, pads = shape_of(c, s)
        ax.set_title(f"{s}   shape {fmt_list(shape)}   pads {fmt_list(pads)}", loc="left",
                     fontsize=11)
        ax.set_ylabel("GB/s")
        ax.grid(axis="y", color="#eeeeee")
        ax.set_axisbelow(True)
        ax.tick_params(axis="x", length=0)
    handles = [plt.Rectangle((0, 0), 1, 1, color=COLORS[n]) for n in COLORS if n in used_series]
    labels = [SERIES_LABEL[n] for n in COLORS if n in used_series]
    for value, color, label in ((c.ours_roof, COLORS["ours"], "fvk copy roofline"),
                                (c.torch_roof, COLORS["torch"], "PyTorch copy roofline")):
        if value:
            handles.append(plt.Line2D([0], [0], color=color, linestyle="--"))
            labels.append(f"{label} ({value:,.0f} GB/s)")
    if handles:
        fig.legend(handles, labels, loc="upper right", ncol=len(handles), fontsize=9,
                   frameon=False)
    fig.suptitle(title, x=0.01, ha="left", fontsize=13)
    fig.text(0.01, 0.005, "GB/s = minimum bytes (input read once + output written once; "
             "masked_fill + mask) / median GPU time.  n/a: not measured or unsupported.",
             fontsize=8.5, color="#555555")
    fig.tight_layout(rect=(0, 0.02, 1, 0.97), h_pad=3.0)
    np.seterr(all="ignore")
    fig.savefig(path, dpi=110)
    plt.close(fig)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ours", type=Path, help="`fvk bench --json` output")
    ap.add_argument("--torch", type=Path, help="bench/torch_pad_bench.py JSON output")
    ap.add_argument("--out-md", type=Path, default=Path("docs/bench_h200.md"))
    ap.add_argument("--out-png", type=Path, default=Path("docs/bench_h200.png"))
    ap.add_argument("--title", default="fvk vs PyTorch: padding kernels on NVIDIA H200")
    args = ap.parse_args(argv)
    if args.ours is None and args.torch is None:
        ap.error("give --ours, --torch or both")
    for p in (args.ours, args.torch):
        if p is not None and not p.is_file():
            ap.error(f"no such file: {p}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    c = Comparison(load(args.ours, "ours"), load(args.torch, "torch"))
    for w in c.warnings:
        print(f"report: warning: {w}", file=sys.stderr)
    args.out_md.parent.mkdir(parents=True, exist_ok=True)
    args.out_png.parent.mkdir(parents=True, exist_ok=True)
    chart(c, args.out_png, args.title)
    png_rel = os.path.relpath(args.out_png, args.out_md.parent)
    args.out_md.write_text(markdown(c, args.title, png_rel.replace(os.sep, "/")))
    rows = c.rows()
    both = sum(1 for r in rows if r["ratio"])
    print(f"report: {len(rows)} rows ({both} with both sides) -> {args.out_md}, {args.out_png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
