#!/usr/bin/env python3
"""Tests for bench/torch_pad_bench.py (logic, and its torch path against a stand-in torch) and
bench/report.py (fixtures in, markdown and PNG out). No GPU or torch needed:

    python3 -m unittest discover -s bench -p 'test_*.py' -v
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import report  # noqa: E402
import torch_pad_bench as tpb  # noqa: E402

FIXTURES = HERE / "fixtures"
OURS = FIXTURES / "ours_sample.json"
TORCH = FIXTURES / "torch_pad_bench_sample.json"


class CaseLogic(unittest.TestCase):
    def test_padded_shape_torch_order(self):
        self.assertEqual(tpb.padded_shape((2, 3, 4), (1, 2)), (2, 3, 7))
        self.assertEqual(tpb.padded_shape((2, 3, 4), (1, 2, 3, 0)), (2, 6, 7))
        self.assertEqual(tpb.padded_shape((4, 16, 64, 64, 64), (2,) * 6), (4, 16, 68, 68, 68))
        with self.assertRaises(ValueError):
            tpb.padded_shape((3,), (1,))
        with self.assertRaises(ValueError):
            tpb.padded_shape((3,), (1, 1, 1, 1))

    def test_bytes_formulas(self):
        n_in, n_out = 16 * 64 * 512 * 512, 16 * 64 * 518 * 518
        shape, pads = tpb.SHAPE_SETS["image"]
        for op, mode in (("pad", "reflect"), ("pad_backward", "replicate"),
                         ("pad", "constant"), ("pad_backward", "constant")):
            c = tpb.Case("image", op, mode, "f32", shape, pads)
            self.assertEqual(c.bytes_moved, (n_in + n_out) * 4)
        c = tpb.Case("image", "masked_fill", None, "f16", shape, pads)
        self.assertEqual(c.bytes_moved, 2 * n_in * 2 + n_in)
        self.assertEqual(c.out_shape, shape)
        bw = tpb.Case("image", "pad_backward", "reflect", "f64", shape, pads)
        self.assertEqual(bw.read_bytes, n_out * 8)  # grad_out is what is read
        self.assertEqual(bw.out_bytes, n_in * 8)

    def test_matrix(self):
        cases = tpb.case_matrix(tpb.SHAPE_SETS)
        per_set = 3 * 5 + 4 + 2 * 4 + 5
        self.assertEqual(len(cases), 4 * per_set)
        self.assertEqual(len(set(cases)), len(cases))
        keys = {(c.op, c.mode, c.dtype) for c in cases}
        self.assertIn(("pad_backward", "reflect", "f64"), keys)
        self.assertIn(("pad_backward", "constant", "u8"), keys)
        self.assertNotIn(("pad_backward", "constant", "bf16"), keys)
        self.assertIn(("masked_fill", None, "i64"), keys)
        self.assertEqual(len(tpb.case_matrix(["small"], ["masked_fill"])), 5)
        with self.assertRaises(ValueError):
            tpb.case_matrix(["nope"])

    def test_rotation(self):
        l2 = 50 * 2**20
        self.assertEqual(tpb.rotation_count(10 * 2**30, l2), 1)
        self.assertEqual(tpb.rotation_count(l2, l2), 2)
        self.assertEqual(tpb.rotation_count(1, l2), tpb.MAX_BUFFERS)
        small = tpb.Case("small", "pad", "constant", "f32", *tpb.SHAPE_SETS["small"])
        k = tpb.rotation_count(small.read_bytes, l2)
        self.assertGreaterEqual(k * small.read_bytes, 2 * l2)
        self.assertLess((k - 1) * small.read_bytes, 2 * l2)

    def test_record_csv_table(self):
        c = tpb.Case("audio", "pad", "reflect", "bf16", *tpb.SHAPE_SETS["audio"])
        r = tpb.make_record(c, [300.0, 100.0, 200.0], 2, copy_roofline_gbps=4000.0)
        self.assertEqual(r["gpu_ns"], 200.0)
        self.assertEqual(r["gpu_ns_min"], 100.0)
        self.assertAlmostEqual(r["gbps"], c.bytes_moved / 200.0)
        self.assertAlmostEqual(r["roofline_fraction"], r["gbps"] / 4000.0)
        self.assertEqual(r["padded_shape"], [64, 1, 481024])
        e = tpb.make_record(c, None, 1, 4000.0, error="RuntimeError: no")
        self.assertIsNone(e["gbps"])
        self.assertEqual(set(r), set(tpb.RECORD_FIELDS))
        json.dumps([r, e])
        with tempfile.TemporaryDirectory() as d:
            p = Path(d) / "x.csv"
            tpb.write_csv(p, [r, e])
            with open(p) as f:
                rows = list(csv.DictReader(f))
        self.assertEqual(rows[0]["shape"], "64x1x480000")
        self.assertEqual(rows[1]["error"], "RuntimeError: no")
        table = tpb.format_table([r, e])
        self.assertIn("RuntimeError: no", table)

    def test_dry_run_without_torch(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(tpb.main(["--dry-run", "--sets", "small,rank5"]), 0)
        self.assertIn(f"{2 * 32} cases", out.getvalue())


def fake_torch(fail: set[str]):
    """A stand-in torch module: every call returns a mock; selected ops raise like torch does."""
    t = mock.MagicMock(name="torch")
    t.cuda.is_available.return_value = True
    t.cuda.Event.return_value.elapsed_time.return_value = 0.25  # ms
    props = t.cuda.get_device_properties.return_value
    props.name, props.major, props.minor = "Fake H200", 9, 0
    props.multi_processor_count, props.total_memory, props.L2_cache_size = 132, 141 << 30, 50 << 20
    t.__version__, t.version.cuda = "2.11.0", "12.8"

    def pad(x, pads, mode="constant", value=None):
        if mode in fail:
            raise RuntimeError(f'"{mode}_pad_out_template" not implemented for \'Byte\'\nmore')
        return mock.MagicMock()

    t.nn.functional.pad.side_effect = pad
    t.ops.aten.reflection_pad2d_backward.side_effect = NotImplementedError("no backward here")
    return t


class TorchPathWithStandIn(unittest.TestCase):
    def test_main_writes_json_csv_and_records_errors(self):
        t = fake_torch({"replicate"})
        with tempfile.TemporaryDirectory() as d, mock.patch.dict(sys.modules, {"torch": t}), \
                contextlib.redirect_stdout(io.StringIO()) as out:
            rc = tpb.main(["--out", d, "--sets", "small,image", "--reps", "3", "--warmup", "1",
                           "--roofline-gib", "0.001"])
            self.assertEqual(rc, 0)
            doc = json.loads((Path(d) / "torch_pad_bench.json").read_text())
            with open(Path(d) / "torch_pad_bench.csv") as f:
                rows = list(csv.DictReader(f))
        self.assertEqual(len(doc["results"]), 64)
        self.assertEqual(len(rows), 64)
        self.assertAlmostEqual(doc["copy_roofline_gbps"], 2 * int(0.001 * 2**30) / 250000.0)
        by = {(r["shape_set"], r["op"], r["mode"], r["dtype"]): r for r in doc["results"]}
        ok = by[("small", "pad", "constant", "f32")]
        self.assertEqual(ok["gpu_ns"], 250000.0)
        self.assertGreater(ok["n_buffers"], 100)  # small data rotates through many copies
        self.assertEqual(by[("image", "pad", "constant", "f32")]["n_buffers"], 1)
        bad = by[("small", "pad", "replicate", "u8")]
        self.assertIsNone(bad["gbps"])
        self.assertEqual(bad["error"], "RuntimeError: \"replicate_pad_out_template\" not "
                                       "implemented for 'Byte'")
        self.assertTrue(by[("image", "pad_backward", "reflect", "f32")]["error"]
                        .startswith("NotImplementedError"))
        self.assertIsNone(by[("small", "pad_backward", "replicate", "f32")]["error"])
        self.assertEqual(by[("small", "masked_fill", None, "u8")]["pads"], [])  # as fvk bench
        self.assertIn("small  masked_fill", out.getvalue())
        # constant backward is aten.constant_pad_nd with the pads negated
        neg = [c.args[1] for c in t.ops.aten.constant_pad_nd.call_args_list]
        self.assertEqual(sorted(set(map(tuple, neg))), [(-3, -3, -3, -3), (-1, -1, -1, -1)])
        bw = t.ops.aten.replication_pad2d_backward.call_args_list
        self.assertEqual({tuple(c.args[2]) for c in bw}, {(1, 1, 1, 1), (3, 3, 3, 3)})


def write_json(d: Path, name: str, doc) -> Path:
    p = d / name
    p.write_text(json.dumps(doc))
    return p


class Report(unittest.TestCase):
    def run_report(self, *args: str) -> tuple[str, Path]:
        d = Path(tempfile.mkdtemp())
        md, png = d / "docs" / "b.md", d / "docs" / "b.png"
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            rc = report.main([*args, "--out-md", str(md), "--out-png", str(png), "--title", "T"])
        self.assertEqual(rc, 0)
        self.assertGreater(png.stat().st_size, 10_000)
        self.assertEqual(png.read_bytes()[:8], b"\x89PNG\r\n\x1a\n")
        return md.read_text(), d

    def test_fixtures(self):
        text, _ = self.run_report("--ours", str(OURS), "--torch", str(TORCH))
        self.assertIn("![GB/s per kernel family](b.png)", text)
        self.assertIn("| image | pad_backward/reflect (atomic) | f32 |", text)
        self.assertIn("| image | pad_backward/reflect (deterministic) | f32 |", text)
        self.assertIn("no `fvk bench` record for the atomic algorithm", text)
        self.assertIn("no PyTorch record", text)
        self.assertIn("not implemented for 'Byte'", text)
        self.assertIn("differ in shape for rank5 masked_fill/- u8", text)
        self.assertNotIn("differ in pads", text)  # masked_fill has no pads on either side
        self.assertIn("recomputed on PyTorch's byte count", text)
        self.assertIn("| small | pad/constant | i32 |", text)  # ours only
        table = [ln for ln in text.splitlines() if ln.startswith("| image | pad/constant | f32")]
        self.assertEqual(len(table), 1)
        cells = [c.strip() for c in table[0].split("|")[1:-1]]
        ours, torch = (json.loads(p.read_text()) for p in (OURS, TORCH))
        o = next(r for r in ours["results"] if (r["shape_set"], r["op"], r["mode"], r["dtype"]) ==
                 ("image", "pad", "constant", "f32"))
        t = next(r for r in torch["results"] if (r["shape_set"], r["op"], r["mode"], r["dtype"])
                 == ("image", "pad", "constant", "f32"))
        self.assertEqual(cells[5], f"{t['gpu_ns'] / o['gpu_ns']:.2f}×")
        self.assertEqual(cells[6], f"{100 * o['gbps'] / ours['copy_roofline_gbps']:.0f}%")
        self.assertEqual(cells[7], f"{100 * t['gbps'] / torch['copy_roofline_gbps']:.0f}%")
        self.assertEqual(cells[10], f"{100 * o['gbps'] / o['copy_gbps']:.0f}%")
        # the atomic backward: our contract counts more bytes; the table puts both on torch's
        key = ("image", "pad_backward", "reflect", "f32")
        oa = next(r for r in ours["results"] if r.get("algorithm") == "atomic" and
                  (r["shape_set"], r["op"], r["mode"], r["dtype"]) == key)
        ta = next(r for r in torch["results"] if (r["shape_set"], r["op"], r["mode"], r["dtype"])
                  == key)
        self.assertGreater(oa["bytes"], ta["bytes"])
        row = next(ln for ln in text.splitlines()
                   if ln.startswith("| image | pad_backward/reflect (atomic) | f32 |"))
        cells = [c.strip() for c in row.split("|")[1:-1]]
        self.assertTrue(cells[3].startswith(report.fmt_gbps(ta["bytes"] / oa["gpu_ns"]) + "<sup>"))
        self.assertEqual(cells[5], f"{ta['gpu_ns'] / oa['gpu_ns']:.2f}×")

    def test_family_table(self):
        # Two forward rows and a deterministic backward row of one set. Each cell is min / geomean /
        # max of (PyTorch's bytes, else ours) / our time / the same-size copy's rate, which differs
        # here from the copy roofline and from our own byte count.
        d = Path(tempfile.mkdtemp())
        ours = write_json(d, "o.json", {"copy_roofline_gbps": 1000.0, "results": [
            {"shape_set": "image", "op": "pad", "mode": "constant", "dtype": "f32", "kernel": "a",
             "bytes": 800, "gpu_ns": 1.0, "copy_gbps": 500.0},
            {"shape_set": "image", "op": "pad", "mode": "reflect", "dtype": "f32", "kernel": "b",
             "bytes": 900, "gpu_ns": 2.0, "copy_gbps": 400.0},
            {"shape_set": "image", "op": "pad_backward", "mode": "reflect", "dtype": "f32",
             "algorithm": "deterministic", "kernel": "c", "bytes": 300, "gpu_ns": 1.0,
             "copy_gbps": 600.0}]})
        torch = write_json(d, "t.json", {"copy_roofline_gbps": 1000.0, "results": [
            {"shape_set": "image", "op": "pad", "mode": "reflect", "dtype": "f32",
             "bytes": 600, "gpu_ns": 3.0}]})
        text, _ = self.run_report("--ours", str(ours), "--torch", str(torch))
        lines = text.splitlines()
        table = [ln for ln in lines[lines.index("## By family"):] if ln.startswith("| ")]
        self.assertEqual(table[0], "| family | image |")
        fwd = [800 / 1.0 / 500.0, 600 / 2.0 / 400.0]  # 1.6; 0.75 on PyTorch's count
        self.assertEqual(table[2], f"| pad forward | {min(fwd):.2f} / {math.sqrt(fwd[0] * fwd[1]):.2f} / "
                                   f"{max(fwd):.2f} |")
        self.assertEqual(table[3], "| deterministic backward | 0.50 / 0.50 / 0.50 |")

    def test_recounted_row_takes_the_copy_of_its_count(self):
        # Our contract counts 900 bytes, PyTorch 600 (the bytes that must move): recounted on 600,
        # the row divides by the copy of 600 bytes where the record has it, else by copy_gbps.
        d = Path(tempfile.mkdtemp())
        row = {"shape_set": "image", "op": "pad", "mode": "reflect", "dtype": "f32", "kernel": "b",
               "bytes": 900, "gpu_ns": 2.0, "copy_gbps": 400.0}
        torch = write_json(d, "t.json", {"copy_roofline_gbps": 1000.0, "results": [
            {"shape_set": "image", "op": "pad", "mode": "reflect", "dtype": "f32",
             "bytes": 600, "gpu_ns": 3.0}]})
        for extra, copy in (({}, 400.0), ({"must_move_bytes": 600, "must_move_copy_gbps": 375.0}, 375.0),
                            ({"must_move_bytes": 700, "must_move_copy_gbps": 375.0}, 400.0)):
            ours = write_json(d, "o.json", {"copy_roofline_gbps": 1000.0, "results": [{**row, **extra}]})
            text, _ = self.run_report("--ours", str(ours), "--torch", str(torch))
            line = next(ln for ln in text.splitlines() if ln.startswith("| image | pad/reflect | f32 |"))
            cells = [c.strip() for c in line.split("|")[1:-1]]
            self.assertEqual(cells[10], f"{100 * 600 / 2.0 / copy:.0f}%", extra)

    def test_one_side_only_and_sparse_records(self):
        d = Path(tempfile.mkdtemp())
        ours = write_json(d, "o.json", {"results": [
            {"shape_set": "small", "op": "pad", "mode": "reflect", "dtype": "f32",
             "bytes": 1000, "gpu_ns": 10.0},                      # no gbps: computed
            {"shape_set": "weird", "op": "copy", "mode": None, "dtype": "u8", "gbps": 5.0},
            {"op": "pad"},                                        # no key: skipped, warned
            {"shape_set": "small", "op": "pad", "mode": "reflect", "dtype": "f32", "gbps": 1.0},
        ]})
        text, _ = self.run_report("--ours", str(ours))
        self.assertIn("| small | pad/reflect | f32 | 100 | —", text)
        self.assertIn("| weird | copy | u8 | 5.0 |", text)
        self.assertIn("lacks shape_set/op/dtype", text)
        self.assertIn("duplicate small pad/reflect f32", text)
        torch = write_json(d, "t.json", {"copy_roofline_gbps": None, "results": [
            {"shape_set": "audio", "op": "masked_fill", "mode": None, "dtype": "u8",
             "gbps": None, "gpu_ns": None, "error": "RuntimeError: x"}]})
        text, _ = self.run_report("--torch", str(torch))
        self.assertIn("RuntimeError: x", text)

    def test_empty_results(self):
        d = Path(tempfile.mkdtemp())
        ours = write_json(d, "o.json", {"results": []})
        with self.assertRaises(SystemExit):
            with contextlib.redirect_stderr(io.StringIO()):
                report.main(["--ours", str(ours), "--out-md", str(d / "a.md"),
                             "--out-png", str(d / "a.png")])


class IngestRun(unittest.TestCase):
    """bench/ingest_run.sh in a scratch git repository holding only what it uses: a card's first
    run makes its page, a later one keeps the previous files under the OLD suffix and the page's
    hand-written sections, and a refused run moves nothing."""

    GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.repo = Path(self.tmp.name) / "repo"
        (self.repo / "bench").mkdir(parents=True)
        (self.repo / "docs" / "data").mkdir(parents=True)
        for f in ("ingest_run.sh", "report.py"):
            (self.repo / "bench" / f).write_bytes((HERE / f).read_bytes())
        self.git("init", "-q")
        self.git("add", "-A")
        self.git("commit", "-qm", "scratch")
        self.run_dir = Path(self.tmp.name) / "run"
        self.run_dir.mkdir()
        r = self.run_dir
        (r / "ours.json").write_bytes(OURS.read_bytes())
        (r / "torch_pad_bench.json").write_bytes(TORCH.read_bytes())
        (r / "bench.txt").write_text("set kernel dtype\nimage pad_const_b1 u8 1.0\n\n"
                                     "100 ops per batch, small set: GPU time per op\nmasked_fill_b4 f32 0.3\n")
        (r / "small_batch.json").write_text("{}")
        (r / "selftest.txt").write_text("0 rows failed\n")
        (r / "cost_table.json").write_text("{}")
        (r / "judge.txt").write_text("wrote 1 entry\n")

    def tearDown(self):
        self.tmp.cleanup()

    def git(self, *args) -> str:
        return subprocess.run(self.GIT + list(args), cwd=self.repo, check=True, capture_output=True,
                              text=True).stdout

    def ingest(self, *args):
        return subprocess.run(["bash", str(self.repo / "bench" / "ingest_run.sh"), *args],
                              cwd=self.repo, capture_output=True, text=True)

    def assert_refused(self, args, message):
        p = self.ingest(str(self.run_dir), *args)
        self.assertEqual(p.returncode, 2)
        self.assertIn(message, p.stderr)

    def test_first_run_then_a_later_one(self):
        data = self.repo / "docs" / "data"
        p = self.ingest(str(self.run_dir), "-", "h100")
        self.assertEqual(p.returncode, 0, p.stderr)
        page = self.repo / "docs" / "bench_h100.md"
        self.assertTrue(page.read_text().startswith("# fvk vs PyTorch: padding kernels on NVIDIA H100"))
        self.assertTrue((self.repo / "docs" / "bench_h100.png").stat().st_size > 0)
        self.assertEqual((data / "h100_ours.json").read_bytes(), OURS.read_bytes())
        self.assertEqual((data / "h100_small_batch.txt").read_text(),
                         "100 ops per batch, small set: GPU time per op\nmasked_fill_b4 f32 0.3\n")
        self.assertFalse((self.repo / "docs" / "bench_h100.gen.md").exists())
        self.assertIn("docs/data/h100_judge.txt", self.git("diff", "--cached", "--name-only"))
        # A card's first run again is refused: its files exist and need an OLD.
        self.assertEqual(self.ingest(str(self.run_dir), "-", "h100").returncode, 2)
        page.write_text(page.read_text() + "\n## Against the targets\n\nhand-written\n")
        self.git("add", "-A")
        self.git("commit", "-qm", "first run")

        (self.run_dir / "selftest.txt").write_text("second run\n")
        p = self.ingest(str(self.run_dir), "abc1234", "h100")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual((data / "h100_selftest_abc1234.txt").read_text(), "0 rows failed\n")
        self.assertEqual((data / "h100_selftest.txt").read_text(), "second run\n")
        for n in ("ours_abc1234.json", "torch_abc1234.json", "bench_abc1234.txt", "small_batch_abc1234.json",
                  "small_batch_abc1234.txt", "cost_table_abc1234.json", "judge_abc1234.txt"):
            self.assertTrue((data / f"h100_{n}").is_file(), n)
        text = page.read_text()
        self.assertTrue(text.endswith("## Against the targets\n\nhand-written\n"))
        self.assertEqual(text.count("## Against the targets"), 1)
        self.assertIn("## Results", text)
        self.git("add", "-A")
        self.git("commit", "-qm", "second run")

        # The same OLD again would overwrite its archive: refused, and nothing moves.
        p = self.ingest(str(self.run_dir), "abc1234", "h100")
        self.assertEqual(p.returncode, 2)
        self.assertIn("exists already", p.stderr)
        self.assertEqual(self.git("status", "--porcelain"), "")

    def test_refusals_move_nothing(self):
        self.assertEqual(self.ingest(str(self.run_dir), "-", "h100").returncode, 0)
        self.git("add", "-A")
        self.git("commit", "-qm", "first run")
        self.assert_refused([], "usage:")
        self.assert_refused(["abc1234", "h300"], "DEV must be h200 or h100")
        # The page lacks the section a later run keeps.
        self.assert_refused(["abc1234", "h100"], "no '## Against the targets' section")
        (self.run_dir / "judge.txt").unlink()
        self.assert_refused(["abc1234", "h200"], "judge.txt is missing")
        (self.run_dir / "cost_table.json").unlink()
        (self.run_dir / "bench.txt").write_text("no batch table\n")
        self.assert_refused(["abc1234", "h200"], "no small-batch table")
        (self.run_dir / "torch_pad_bench.json").unlink()
        self.assert_refused(["abc1234", "h200"], "torch_pad_bench.json is missing")
        self.assertEqual(self.git("status", "--porcelain"), "")


if __name__ == "__main__":
    unittest.main()
