#!/usr/bin/env python3
"""PyTorch CUDA baseline for the fvk padding kernels.

Times torch.nn.functional.pad (constant / reflect / replicate), the pad backwards and masked_fill
on the shape sets `fvk bench` uses, with CUDA events, and writes one record per
(shape_set, op, mode, dtype) to JSON and CSV. `bench/report.py` sets the result beside ours.

    python3 bench/torch_pad_bench.py --out bench-out [--sets image,audio,small,rank5] [--reps 20]
    python3 bench/torch_pad_bench.py --dry-run          # the case matrix and byte counts, no torch

Everything above `# --- torch ---` is plain Python (no torch import) so the case matrix, shapes and
byte counts can be tested on a machine without torch (bench/test_bench_scripts.py).

What is timed, per case:
  pad            F.pad(x, pads, mode, value)                (constant value: 0.5, or 1 for ints)
  pad_backward   constant: aten.constant_pad_nd(grad_out, -pads), the op autograd itself runs for
                 constant_pad_nd's backward (all pads negative: a narrow + contiguous copy);
                 reflect / replicate: aten.{reflection,replication}_pad{1,2,3}d_backward(grad_out,
                 input, pads) called directly, so no autograd overhead is timed
  masked_fill    x.masked_fill(mask, value), mask a random bool tensor of x's shape

Bytes are the minimum traffic (our contracts' bytes_moved, except the atomic backward's, which
counts its CAS traffic; report.py recounts ours on these numbers):
  pad, pad_backward   (n_in + n_out) * B     (n_in: unpadded elements, n_out: padded elements)
  masked_fill         2 * n * B + n          (read x, write out, read a 1-byte bool mask)
so GB/s = bytes / gpu_ns is comparable between implementations even where one moves more
(torch's reflect/replicate backward zero-fills grad_input and scatters with atomics).

Cache: each timed repetition reads inputs that have not been touched for at least 2x the L2 size of
traffic. The inputs are replicated into n_buffers copies, with n_buffers the smallest count whose
combined input bytes reach 2 x L2 (1 for large shapes), and the repetitions rotate through them;
while rotating, outputs are kept alive so every repetition also writes fresh memory.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import math
import statistics
import sys
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

# Shape sets: the names are the keys shared with `fvk bench --json`. Pads are in
# torch.nn.functional.pad order (last dimension first: left, right, then the dimension before).
SHAPE_SETS: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {
    "image": ((16, 64, 512, 512), (3, 3, 3, 3)),
    "audio": ((64, 1, 480000), (512, 512)),  # reflect: STFT centering (n_fft 1024)
    "small": ((8, 3, 32, 32), (1, 1, 1, 1)),
    "rank5": ((4, 16, 64, 64, 64), (2, 2, 2, 2, 2, 2)),
}

DTYPE_BYTES: dict[str, int] = {"u8": 1, "f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i64": 8}
INT_DTYPES = frozenset({"u8", "i64"})

OPS = ("pad", "pad_backward", "masked_fill")
PAD_MODES = ("constant", "reflect", "replicate")

# Dtypes per (op, mode); mode None stands for masked_fill. The order here is the output order.
DTYPES: dict[tuple[str, str | None], tuple[str, ...]] = {
    ("pad", "constant"): ("u8", "f16", "bf16", "f32", "i64"),
    ("pad", "reflect"): ("u8", "f16", "bf16", "f32", "i64"),
    ("pad", "replicate"): ("u8", "f16", "bf16", "f32", "i64"),
    ("pad_backward", "constant"): ("u8", "f16", "f32", "i64"),
    ("pad_backward", "reflect"): ("f32", "f16", "bf16", "f64"),
    ("pad_backward", "replicate"): ("f32", "f16", "bf16", "f64"),
    ("masked_fill", None): ("u8", "f16", "bf16", "f32", "i64"),
}

DEFAULT_L2_BYTES = 50 * 1024 * 1024  # H100/H200; the real value comes from the device when known
MAX_BUFFERS = 8192  # small u8 needs ~4300 copies of 24 KiB to fill 2 x 50 MiB
ROOFLINE_GIB = 1.0  # fvk bench copies 1 GiB (2 GiB moved) when the device allows

RECORD_FIELDS = (
    "shape_set", "op", "mode", "dtype", "shape", "pads", "padded_shape", "gpu_ns", "gpu_ns_min",
    "reps", "n_buffers", "bytes", "gbps", "roofline_fraction", "error",
)


def fill_value(dtype: str) -> float | int:
    """The pad / masked_fill value: 0.5 for floating dtypes, 1 for integer ones."""
    return 1 if dtype in INT_DTYPES else 0.5


def padded_shape(shape: Sequence[int], pads: Sequence[int]) -> tuple[int, ...]:
    """Output shape of F.pad(x, pads): pads pair up from the last dimension backwards."""
    if len(pads) % 2 or len(pads) // 2 > len(shape):
        raise ValueError(f"pads {tuple(pads)} do not fit shape {tuple(shape)}")
    out = list(shape)
    for i in range(len(pads) // 2):
        out[len(shape) - 1 - i] += pads[2 * i] + pads[2 * i + 1]
    if any(d < 0 for d in out):
        raise ValueError(f"pads {tuple(pads)} make shape {tuple(shape)} negative")
    return tuple(out)


def numel(shape: Sequence[int]) -> int:
    return math.prod(shape)


@dataclasses.dataclass(frozen=True)
class Case:
    shape_set: str
    op: str  # "pad" | "pad_backward" | "masked_fill"
    mode: str | None  # "constant" | "reflect" | "replicate" | None (masked_fill)
    dtype: str
    shape: tuple[int, ...]  # the unpadded (forward input) shape, for every op
    pads: tuple[int, ...]

    @property
    def width(self) -> int:
        return DTYPE_BYTES[self.dtype]

    @property
    def out_shape(self) -> tuple[int, ...]:
        """Padded shape (pad's output, pad_backward's grad_out); masked_fill keeps the shape."""
        return self.shape if self.op == "masked_fill" else padded_shape(self.shape, self.pads)

    @property
    def bytes_moved(self) -> int:
        n_in, n_out = numel(self.shape), numel(self.out_shape)
        if self.op == "masked_fill":
            return 2 * n_in * self.width + n_in
        return (n_in + n_out) * self.width  # pad reads n_in writes n_out; backward the reverse

    @property
    def read_bytes(self) -> int:
        """Bytes one repetition reads: what has to rotate to keep L2 cold."""
        if self.op == "masked_fill":
            return numel(self.shape) * (self.width + 1)
        if self.op == "pad_backward":
            return numel(self.out_shape) * self.width
        return numel(self.shape) * self.width

    @property
    def out_bytes(self) -> int:
        n = numel(self.shape if self.op == "pad_backward" else self.out_shape)
        return n * self.width


def case_matrix(sets: Iterable[str], ops: Iterable[str] = OPS) -> list[Case]:
    """Every (shape_set, op, mode, dtype) to time, in output order."""
    ops = tuple(ops)
    cases = []
    for name in sets:
        if name not in SHAPE_SETS:
            raise ValueError(f"unknown shape set {name!r}; known: {', '.join(SHAPE_SETS)}")
        shape, pads = SHAPE_SETS[name]
        for (op, mode), dtypes in DTYPES.items():
            if op in ops:
                cases.extend(Case(name, op, mode, dt, shape, pads) for dt in dtypes)
    return cases


def rotation_count(read_bytes: int, l2_bytes: int, max_buffers: int = MAX_BUFFERS) -> int:
    """Smallest number of input copies whose combined size reaches 2 x L2 (at least 1)."""
    if read_bytes <= 0:
        return 1
    return max(1, min(max_buffers, math.ceil(2 * l2_bytes / read_bytes)))


def gbps(nbytes: int, ns: float | None) -> float | None:
    """Bytes per nanosecond is GB/s (1e9 bytes per second)."""
    return nbytes / ns if ns else None


def make_record(case: Case, samples_ns: Sequence[float] | None, n_buffers: int,
                copy_roofline_gbps: float | None, error: str | None = None) -> dict[str, Any]:
    ns = statistics.median(samples_ns) if samples_ns else None
    rate = gbps(case.bytes_moved, ns)
    return {
        "shape_set": case.shape_set,
        "op": case.op,
        "mode": case.mode,
        "dtype": case.dtype,
        "shape": list(case.shape),
        "pads": [] if case.op == "masked_fill" else list(case.pads),
        "padded_shape": list(case.out_shape),
        "gpu_ns": ns,
        "gpu_ns_min": min(samples_ns) if samples_ns else None,
        "reps": len(samples_ns) if samples_ns else 0,
        "n_buffers": n_buffers,
        "bytes": case.bytes_moved,
        "gbps": rate,
        "roofline_fraction": rate / copy_roofline_gbps if rate and copy_roofline_gbps else None,
        "error": error,
    }


def write_csv(path: Path, records: Sequence[dict[str, Any]]) -> None:
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=RECORD_FIELDS, extrasaction="ignore")
        w.writeheader()
        for r in records:
            row = dict(r)
            for k in ("shape", "pads", "padded_shape"):
                row[k] = "x".join(str(v) for v in r[k])
            row["mode"] = r["mode"] or ""
            row["error"] = r["error"] or ""
            w.writerow(row)


def format_table(records: Sequence[dict[str, Any]]) -> str:
    head = (f"{'set':<6} {'op':<13} {'mode':<10} {'dtype':<5} {'gpu_us':>10} {'GB/s':>8} "
            f"{'%copy':>6}  note")
    lines = [head, "-" * len(head)]
    for r in records:
        us = f"{r['gpu_ns'] / 1e3:10.1f}" if r["gpu_ns"] else f"{'-':>10}"
        rate = f"{r['gbps']:8.1f}" if r["gbps"] else f"{'-':>8}"
        frac = f"{100 * r['roofline_fraction']:5.1f}%" if r["roofline_fraction"] else f"{'-':>6}"
        note = (r["error"] or "")[:60]
        lines.append(f"{r['shape_set']:<6} {r['op']:<13} {r['mode'] or '-':<10} {r['dtype']:<5} "
                     f"{us} {rate} {frac}  {note}")
    return "\n".join(lines)


def short_error(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:300]


# --- torch ----------------------------------------------------------------------------------------


def _torch():
    import torch  # noqa: PLC0415 (kept out of module scope so the logic above imports without it)

    return torch


def torch_dtype(name: str):
    torch = _torch()
    return {"u8": torch.uint8, "f16": torch.float16, "bf16": torch.bfloat16,
            "f32": torch.float32, "f64": torch.float64, "i64": torch.int64}[name]


def random_tensor(shape: Sequence[int], dtype: str, device):
    torch = _torch()
    if dtype == "u8":
        return torch.randint(0, 256, tuple(shape), dtype=torch.uint8, device=device)
    if dtype == "i64":
        return torch.randint(-(2**40), 2**40, tuple(shape), dtype=torch.int64, device=device)
    return torch.randn(tuple(shape), dtype=torch.float32, device=device).to(torch_dtype(dtype))


def time_cuda(fns: Sequence[Callable[[], Any]], reps: int, warmup: int,
              keep_outputs: bool) -> list[float]:
    """Median-ready per-repetition GPU times in ns; repetition i runs fns[i % len(fns)].

    A GPU sleep queued ahead of the timed loop lets the CPU enqueue every repetition before the GPU
    reaches the first start event, so launch latency is not in the measurement.
    """
    torch = _torch()
    k = len(fns)
    for i in range(warmup + k):  # every buffer once: the timed loop then starts cold
        fns[i % k]()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    kept = []
    sleep = getattr(torch.cuda, "_sleep", None)
    if sleep is not None:
        sleep(min(2_000_000_000, 2_000_000 * reps))  # ~1 ms per rep at ~2 GHz
    first = (warmup + k) % k
    for i in range(reps):
        starts[i].record()
        out = fns[(first + i) % k]()
        ends[i].record()
        if keep_outputs:
            kept.append(out)
    torch.cuda.synchronize()
    del kept
    return [s.elapsed_time(e) * 1e6 for s, e in zip(starts, ends)]


def build_fns(case: Case, n_buffers: int, device) -> list[Callable[[], Any]]:
    """One closure per rotation buffer, each running the op once on its own inputs."""
    torch = _torch()
    F = torch.nn.functional
    value = fill_value(case.dtype)
    pads = list(case.pads)
    fns: list[Callable[[], Any]] = []
    if case.op == "pad":
        for _ in range(n_buffers):
            x = random_tensor(case.shape, case.dtype, device)
            if case.mode == "constant":
                fns.append(lambda x=x: F.pad(x, pads, mode="constant", value=value))
            else:
                fns.append(lambda x=x: F.pad(x, pads, mode=case.mode))
    elif case.op == "pad_backward":
        if case.mode == "constant":
            neg = [-p for p in pads]
            for _ in range(n_buffers):
                g = random_tensor(case.out_shape, case.dtype, device)
                fns.append(lambda g=g: torch.ops.aten.constant_pad_nd(g, neg, 0))
        else:
            dims = len(pads) // 2
            stem = "reflection" if case.mode == "reflect" else "replication"
            backward = getattr(torch.ops.aten, f"{stem}_pad{dims}d_backward")
            inp = torch.empty(case.shape, dtype=torch_dtype(case.dtype), device=device)
            for _ in range(n_buffers):
                g = random_tensor(case.out_shape, case.dtype, device)
                fns.append(lambda g=g: backward(g, inp, pads))
    elif case.op == "masked_fill":
        for _ in range(n_buffers):
            x = random_tensor(case.shape, case.dtype, device)
            mask = torch.randint(0, 2, case.shape, dtype=torch.uint8, device=device).bool()
            fns.append(lambda x=x, mask=mask: x.masked_fill(mask, value))
    else:
        raise ValueError(f"unknown op {case.op!r}")
    return fns


def measure_copy_roofline(gib: float, reps: int, warmup: int, device) -> dict[str, Any]:
    """dst.copy_(src) of a large buffer, counting read + write bytes."""
    torch = _torch()
    n = int(gib * 2**30)
    src = torch.ones(n, dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    samples = time_cuda([lambda: dst.copy_(src)], reps, warmup, keep_outputs=False)
    ns = statistics.median(samples)
    return {"bytes": 2 * n, "gpu_ns": ns, "gbps": 2 * n / ns, "reps": reps}


def run_case(case: Case, args, l2_bytes: int, roofline: float | None, device) -> dict[str, Any]:
    torch = _torch()
    k = rotation_count(case.read_bytes, l2_bytes) if args.rotate == "auto" else int(args.rotate)
    fns = []
    try:
        fns = build_fns(case, k, device)
        samples = time_cuda(fns, args.reps, args.warmup, keep_outputs=k > 1)
        return make_record(case, samples, k, roofline)
    except (RuntimeError, NotImplementedError, TypeError, ValueError, AttributeError) as exc:
        return make_record(case, None, k, roofline, error=short_error(exc))
    finally:
        del fns
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


def device_info(device) -> dict[str, Any]:
    torch = _torch()
    p = torch.cuda.get_device_properties(device)
    return {
        "name": p.name,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "capability": f"{p.major}.{p.minor}",
        "multi_processor_count": p.multi_processor_count,
        "total_memory": p.total_memory,
        "l2_cache_bytes": getattr(p, "L2_cache_size", None),
    }


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=Path("bench-out"),
                    help="output folder for torch_pad_bench.json / .csv (default: bench-out)")
    ap.add_argument("--sets", default=",".join(SHAPE_SETS),
                    help=f"comma-separated shape sets (default: {','.join(SHAPE_SETS)})")
    ap.add_argument("--ops", default=",".join(OPS), help="comma-separated ops (default: all)")
    ap.add_argument("--reps", type=int, default=20, help="timed repetitions per case (median)")
    ap.add_argument("--warmup", type=int, default=5, help="untimed calls before timing")
    ap.add_argument("--rotate", default="auto",
                    help="input copies to rotate through: 'auto' (reach 2 x L2) or a count")
    ap.add_argument("--roofline-gib", type=float, default=ROOFLINE_GIB,
                    help="copy roofline buffer size in GiB; read + write are counted (default 1)")
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--dry-run", action="store_true",
                    help="print the case matrix with shapes and bytes; do not import torch")
    args = ap.parse_args(argv)
    args.sets = [s for s in args.sets.split(",") if s]
    args.ops = [o for o in args.ops.split(",") if o]
    for o in args.ops:
        if o not in OPS:
            ap.error(f"unknown op {o!r}; known: {', '.join(OPS)}")
    for s in args.sets:
        if s not in SHAPE_SETS:
            ap.error(f"unknown shape set {s!r}; known: {', '.join(SHAPE_SETS)}")
    if args.rotate != "auto" and not (args.rotate.isdigit() and int(args.rotate) >= 1):
        ap.error("--rotate takes 'auto' or a positive count")
    if args.reps < 1:
        ap.error("--reps must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    cases = case_matrix(args.sets, args.ops)
    if args.dry_run:
        for c in cases:
            print(f"{c.shape_set:<6} {c.op:<13} {c.mode or '-':<10} {c.dtype:<5} "
                  f"{'x'.join(map(str, c.shape)):>18} -> {'x'.join(map(str, c.out_shape)):<18} "
                  f"bytes={c.bytes_moved:>12} "
                  f"buffers={rotation_count(c.read_bytes, DEFAULT_L2_BYTES)}")
        print(f"{len(cases)} cases")
        return 0

    try:
        torch = _torch()
    except ImportError as exc:
        print(f"torch_pad_bench: cannot import torch ({exc}); --dry-run works without it",
              file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("torch_pad_bench: CUDA is not available", file=sys.stderr)
        return 2
    device = torch.device(args.device)
    torch.cuda.set_device(device)
    torch.manual_seed(0)
    info = device_info(device)
    l2_bytes = info["l2_cache_bytes"] or DEFAULT_L2_BYTES

    roof = measure_copy_roofline(args.roofline_gib, args.reps, args.warmup, device)
    torch.cuda.empty_cache()  # the roofline buffers are gone with the call
    print(f"{info['name']}: copy roofline {roof['gbps']:.1f} GB/s "
          f"({args.roofline_gib:g} GiB dst.copy_(src), read + write)", flush=True)

    records = []
    for i, case in enumerate(cases, 1):
        rec = run_case(case, args, l2_bytes, roof["gbps"], device)
        records.append(rec)
        state = f"{rec['gbps']:.1f} GB/s" if rec["gbps"] else rec["error"]
        print(f"[{i}/{len(cases)}] {case.shape_set} {case.op} {case.mode or '-'} {case.dtype}: "
              f"{state}", flush=True)

    args.out.mkdir(parents=True, exist_ok=True)
    doc = {
        "tool": "torch_pad_bench",
        "device": info,
        "copy_roofline_gbps": roof["gbps"],
        "copy_roofline": roof,
        "config": {"reps": args.reps, "warmup": args.warmup, "rotate": args.rotate,
                   "l2_bytes": l2_bytes, "statistic": "median", "timer": "cuda events"},
        "shape_sets": {k: {"shape": list(SHAPE_SETS[k][0]), "pads": list(SHAPE_SETS[k][1])}
                       for k in args.sets},
        "results": records,
    }
    json_path, csv_path = args.out / "torch_pad_bench.json", args.out / "torch_pad_bench.csv"
    json_path.write_text(json.dumps(doc, indent=1) + "\n")
    write_csv(csv_path, records)
    print()
    print(format_table(records))
    print(f"\nwrote {json_path} and {csv_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
