#!/usr/bin/python3
"""Golden-data test of the `fvk pad` CLI against numpy.

For each case: write a seeded random input .npy, compute the expected result with np.pad, run
    FVK pad IN.npy OUT.npy --mode constant|reflect|replicate --pad=L,R[,L,R...] [--value=V]
and compare the output's dtype, shape and bytes exactly. Pads are in torch order: (left, right)
pairs starting from the last dimension. An error case checks that a too-large reflect pad is refused
with a non-zero exit; Fortran-order inputs (read as strided views and realized on the device by the
planner) must give exactly what numpy gives for pad and masked-fill.

Run with a python that has numpy (/usr/bin/python3 here):
    /usr/bin/python3 tests/golden/golden_cli_test.py --fvk build/tools/fvk/fvk
Prints one line per case, then "N passed, M failed"; exits non-zero on any failure.
"""

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

# name, numpy dtype, input shape, CLI mode, torch-order pads, fill value (constant only)
CASES = [
    ("u1_r1_constant", "u1", (10,), "constant", (2, 3), 7),
    ("i1_r2_reflect", "i1", (3, 4), "reflect", (1, 2, 2, 1), None),
    ("b1_r2_constant", "b1", (4, 5), "constant", (1, 1, 0, 2), 1),
    ("i2_r3_replicate", "i2", (2, 3, 4), "replicate", (3, 0, 1, 1, 2, 2), None),
    ("u2_r1_reflect_at_limit", "u2", (7,), "reflect", (6, 6), None),
    ("f2_r2_constant_negative", "f2", (5, 6), "constant", (2, 2, 1, 0), -1.5),
    ("f2_r3_reflect", "f2", (2, 3, 5), "reflect", (2, 4, 1, 2), None),
    ("i4_r4_reflect", "i4", (2, 3, 2, 5), "reflect", (4, 1, 1, 1, 2, 0, 1, 1), None),
    ("i4_r2_constant_negative", "i4", (3, 8), "constant", (0, 5, 3, 0), -123456),
    ("u4_r3_replicate_size1", "u4", (3, 1, 4), "replicate", (0, 3, 2, 2), None),
    ("f4_r3_constant_float", "f4", (4, 3, 5), "constant", (1, 2, 3, 4, 0, 1), -2.25),
    ("f4_r2_reflect", "f4", (6, 7), "reflect", (3, 2, 5, 4), None),
    ("f4_r3_last_dim_only", "f4", (2, 3, 4), "replicate", (1, 1), None),
    ("i8_r2_constant_big", "i8", (3, 3), "constant", (1, 1, 2, 0), -9000000000),
    ("u8_r1_zero_pad", "u8", (5,), "constant", (0, 0), 0),
    ("f8_r4_replicate", "f8", (2, 2, 3, 3), "replicate", (1, 2, 0, 0, 3, 1, 1, 1), None),
    ("f8_r1_reflect_specials", "f8", (6,), "reflect", (2, 3), None),
    ("f8_r2_constant_fraction", "f8", (2, 2), "constant", (1, 1, 1, 1), 0.1),
    ("i2_r2_empty_dim_constant", "i2", (0, 3), "constant", (1, 1, 2, 0), -4),
]

NP_MODE = {"constant": "constant", "reflect": "reflect", "replicate": "edge"}


def random_array(rng, dtype, shape):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dt)
    a = (rng.standard_normal(size=shape) * 100).astype(dt)
    flat = a.reshape(-1)
    specials = [-0.0, np.inf, -np.inf, np.nan]
    flat[: min(len(specials), flat.size)] = specials[: flat.size]  # bit patterns must survive untouched
    return a


def np_pad_width(rank, pads):
    width = [(0, 0)] * rank
    for p in range(len(pads) // 2):
        width[rank - 1 - p] = (pads[2 * p], pads[2 * p + 1])
    return width


def run_fvk(fvk, args):
    try:
        proc = subprocess.run([fvk] + args, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return None, "timed out after 300 s"
    return proc.returncode, (proc.stdout + proc.stderr).strip()


def pad_args(in_path, out_path, mode, pads, value):
    args = ["pad", in_path, out_path, "--mode", mode, "--pad=" + ",".join(str(p) for p in pads)]
    if value is not None:
        args.append("--value=" + str(value))
    return args


def check_case(fvk, tmp, rng, case):
    name, dtype, shape, mode, pads, value = case
    x = random_array(rng, dtype, shape)
    in_path = os.path.join(tmp, name + "_in.npy")
    out_path = os.path.join(tmp, name + "_out.npy")
    np.save(in_path, x)
    width = np_pad_width(x.ndim, pads)
    if mode == "constant":
        expected = np.pad(x, width, mode="constant", constant_values=np.array(value).astype(x.dtype))
    else:
        expected = np.pad(x, width, mode=NP_MODE[mode])

    rc, output = run_fvk(fvk, pad_args(in_path, out_path, mode, pads, value))
    if rc != 0:
        return f"fvk exited {rc}: {output}"
    try:
        got = np.load(out_path)
    except Exception as e:  # noqa: BLE001 - any unreadable output is a failure
        return f"cannot load output: {e}"
    if got.dtype != expected.dtype:
        return f"dtype {got.dtype}, expected {expected.dtype}"
    if got.shape != expected.shape:
        return f"shape {got.shape}, expected {expected.shape}"
    if got.tobytes() != expected.tobytes():
        diff = np.flatnonzero(got.reshape(-1).view(np.uint8 if got.itemsize == 1 else f"u{got.itemsize}")
                              != expected.reshape(-1).view(np.uint8 if got.itemsize == 1 else f"u{got.itemsize}"))
        first = diff[0] if diff.size else 0
        return (f"{diff.size} elements differ; first at flat index {first}: "
                f"got {got.reshape(-1)[first]!r}, expected {expected.reshape(-1)[first]!r}")
    return None


def check_error_reflect_too_large(fvk, tmp, rng):
    in_path = os.path.join(tmp, "err_reflect_in.npy")
    np.save(in_path, rng.standard_normal(3).astype(np.float32))
    rc, output = run_fvk(fvk, pad_args(in_path, os.path.join(tmp, "err_reflect_out.npy"), "reflect", (3, 0), None))
    if rc is None or rc <= 0:
        return f"expected a non-zero exit (not a crash), got {rc}: {output}"
    if "reflect" not in output.lower():
        return f"message does not mention 'reflect': {output}"
    return None


def check_fortran_order_pad(fvk, tmp, rng):
    x = np.asfortranarray(random_array(rng, "f4", (3, 4, 5)))
    in_path = os.path.join(tmp, "fortran_pad_in.npy")
    out_path = os.path.join(tmp, "fortran_pad_out.npy")
    np.save(in_path, x)
    with open(in_path, "rb") as f:
        if b"'fortran_order': True" not in f.read(256):
            return "test setup: numpy did not write a Fortran-order file"
    pads = (2, 1, 0, 3)
    rc, output = run_fvk(fvk, pad_args(in_path, out_path, "reflect", pads, None))
    if rc != 0:
        return f"fvk exited {rc}: {output}"
    expected = np.pad(x, np_pad_width(x.ndim, pads), mode="reflect")
    got = np.load(out_path)
    if got.shape != expected.shape or got.dtype != expected.dtype:
        return f"got {got.dtype}{got.shape}, expected {expected.dtype}{expected.shape}"
    if np.ascontiguousarray(got).tobytes() != np.ascontiguousarray(expected).tobytes():
        return "bytes differ from np.pad on the Fortran-order array"
    return None


def check_fortran_order_masked_fill(fvk, tmp, rng):
    x = np.asfortranarray(random_array(rng, "i2", (5, 7)))
    mask = np.asfortranarray(rng.integers(0, 2, size=(5, 7)).astype(np.bool_))
    paths = [os.path.join(tmp, f"fortran_mf_{n}.npy") for n in ("in", "mask", "out")]
    np.save(paths[0], x)
    np.save(paths[1], mask)
    rc, output = run_fvk(fvk, ["masked-fill", paths[0], paths[1], paths[2], "--value=-3"])
    if rc != 0:
        return f"fvk exited {rc}: {output}"
    expected = np.where(mask, np.int16(-3), x)
    got = np.load(paths[2])
    if got.shape != expected.shape or np.ascontiguousarray(got).tobytes() != np.ascontiguousarray(expected).tobytes():
        return "result differs from np.where(mask, value, x) on Fortran-order arrays"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fvk", required=True, help="path of the fvk executable")
    parser.add_argument("--seed", type=int, default=20240229)
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args()
    if not os.access(args.fvk, os.X_OK):
        print(f"--fvk {args.fvk}: not an executable file", file=sys.stderr)
        return 2

    rng = np.random.default_rng(args.seed)
    tmp = tempfile.mkdtemp(prefix="fvk_golden_")
    passed = failed = 0
    checks = [(c[0], lambda c=c: check_case(args.fvk, tmp, rng, c)) for c in CASES]
    checks.append(("error_reflect_pad_too_large", lambda: check_error_reflect_too_large(args.fvk, tmp, rng)))
    checks.append(("fortran_order_pad", lambda: check_fortran_order_pad(args.fvk, tmp, rng)))
    checks.append(("fortran_order_masked_fill", lambda: check_fortran_order_masked_fill(args.fvk, tmp, rng)))
    for name, check in checks:
        problem = check()
        if problem is None:
            passed += 1
            print(f"PASS {name}")
        else:
            failed += 1
            print(f"FAIL {name}: {problem}")
    if args.keep:
        print(f"files kept in {tmp}")
    else:
        for entry in os.listdir(tmp):
            os.remove(os.path.join(tmp, entry))
        os.rmdir(tmp)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
