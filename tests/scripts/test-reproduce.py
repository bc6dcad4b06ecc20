#!/usr/bin/python3
"""Tests of scripts/reproduce and scripts/mlnet_plots.py on small hand-made datasets laid out as scripts/sweep
writes them (one folder per point of the real scenario specs), so no simulator and no build are needed; the whole
file runs in seconds.

Usage: tests/scripts/test-reproduce.py [-v] [unittest options]   (exit status 0: every test passed)

Covers: --list, an unknown NAME (exit 1 with a suggestion), a missing binary (exit 2 naming scripts/build),
failed simulations (stand-in tools run through the real sweep; exit 3 naming the points), --no-run without
results (exit 3), a malformed result file (exit 2 naming file and line), a point whose inputs changed since it
ran (exit 2 naming the point and the input), every figure family (FCT, queue CDF,
iteration time, per-collective time, PFC timeline, training queue CDF from .gz samples, incast victim, rate
traces, Themis utilisation) rendered from fake runs (PNG and PDF written, no temporaries left, CSV numbers
checked against hand-computed values), an incomplete grid (figure written, the absent point reported), the
plotting module's pause timeline, CDF thinning, collective spans and size labels, and hostile input, each a
one-line error and never a traceback or a hang: --out or --runs naming a file, point files edited by hand, result
files that are deeply nested, devices, folders, empty, or hold NaN, huge numbers or values of the wrong type."""
import csv
import gzip
import importlib.machinery
import importlib.util
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import unittest
import warnings

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = os.path.join(ROOT, "scripts")
sys.path.insert(0, SCRIPTS)
import mlnet_plots as mp  # noqa: E402

_loader = importlib.machinery.SourceFileLoader("mlnet_sweep", os.path.join(SCRIPTS, "sweep"))
sweep = importlib.util.module_from_spec(importlib.util.spec_from_loader("mlnet_sweep", _loader))
_loader.exec_module(sweep)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

# The scenario specs these tests read name inputs in ../shared next to the checkout (as scripts/reproduce finds
# them): empty stand-ins take their place (the runs here are fake), so nothing outside the repository is read.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stand_in_shared  # noqa: E402
SHARED = stand_in_shared.install()


def run(*args, env=None, memory=None):
    """memory: an address-space limit (bytes), so that an unbounded read fails at once instead of taking the
    machine's memory."""
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    with tempfile.TemporaryDirectory(prefix="mpl-") as config:  # matplotlib's cache, off the user's home
        try:
            return subprocess.run([sys.executable, os.path.join(SCRIPTS, "reproduce")] + list(args),
                                  capture_output=True, text=True, timeout=120, preexec_fn=limit if memory else None,
                                  env=dict(os.environ, MPLCONFIGDIR=config, **(env or {})))
        except subprocess.TimeoutExpired:
            raise AssertionError("reproduce %s still running after 120 s" % " ".join(args)) from None


def fct_line(src, dst, size, fct, ideal):
    return "%08x %08x 10000 100 %d 2000000000 %d %d\n" % (0x0b000001 + src * 0x100, 0x0b000001 + dst * 0x100,
                                                         size, fct, ideal)


def read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(f))


class FakeRuns:
    """The point folders of a real scenario spec, each marked done, filled by the caller."""

    def __init__(self, spec_relpath, root):
        with warnings.catch_warnings():
            # sweep's spec reader leaves its file to the garbage collector; not what these tests are about.
            warnings.simplefilter("ignore", ResourceWarning)
            self.spec = sweep.Spec(os.path.join(ROOT, spec_relpath))
        self.dir = os.path.join(root, "runs")
        self.points = self.spec.points

    def write(self, point, name, text):
        folder = os.path.join(self.dir, point.name)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, name), "w") as f:
            f.write(text)

    def finish(self, point, inputs=None):
        # What the sweep records when it starts a point: its command and the digests of the spec's inputs.
        _, command, env = self.spec.command_for(point, self.dir)
        self.write(point, "point.json", json.dumps({"command": command, "env": env,
                                                    "inputs": inputs or self.spec.input_digests()}))
        self.write(point, "status.json", json.dumps({"state": "done", "exit_code": 0, "error": ""}))


class Case(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="test-reproduce-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.out = os.path.join(self.dir, "out")

    def assertFigure(self, name):
        for ext in ("png", "pdf", "csv"):
            path = os.path.join(self.out, "%s.%s" % (name, ext))
            self.assertTrue(os.path.getsize(path) > 0, path)
        with open(os.path.join(self.out, name + ".png"), "rb") as f:
            self.assertEqual(f.read(8), PNG_MAGIC)
        with open(os.path.join(self.out, name + ".pdf"), "rb") as f:
            self.assertEqual(f.read(5), b"%PDF-")
        self.assertEqual([n for n in os.listdir(self.out) if ".tmp." in n], [])  # no temporaries left
        return read_csv(os.path.join(self.out, name + ".csv"))

    def reproduce(self, name, runs, *extra):
        result = run(name, "--no-run", "--runs", runs.dir, "--out", self.out, *extra)
        self.assertEqual(result.returncode, 0, result.stderr)
        return result


class CommandLine(Case):
    def test_list(self):
        result = run("--list")
        self.assertEqual(result.returncode, 0, result.stderr)
        for name in ("hpcc-fct-small", "hpcc-fct", "roce-cc-training-small", "roce-cc-training"):
            self.assertIn("  %s " % name, result.stdout)

    def test_unknown_name(self):
        result = run("hpcc-fct-smal")
        self.assertEqual(result.returncode, 1)
        self.assertIn("no figure named 'hpcc-fct-smal'", result.stderr)
        self.assertIn("did you mean hpcc-fct-small", result.stderr)
        self.assertEqual(run().returncode, 1)  # no NAME at all

    def test_missing_binary(self):
        result = run("hpcc-fct-small", "--runs", os.path.join(self.dir, "runs"), "--out", self.out,
                     env={"BUILD_DIR": os.path.join(self.dir, "no-build")})
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("no-build/bin/mlnet-trafficgen is missing: build the project with scripts/build",
                      result.stderr)
        self.assertFalse(os.path.exists(self.out))

    def test_failed_points(self):
        # Stand-ins for the tools: the traffic generator succeeds, mlnet-flows fails like a run that cannot finish.
        bin_dir = os.path.join(self.dir, "build", "bin")
        os.makedirs(bin_dir)
        for tool, body in (("mlnet-trafficgen", "echo 1 > flows.txt"),
                           ("mlnet-flows", "echo 'fake mlnet-flows: 1 of 1 flows unfinished' >&2; exit 3")):
            path = os.path.join(bin_dir, tool)
            with open(path, "w") as f:
                f.write("#!/bin/sh\n%s\n" % body)
            os.chmod(path, 0o755)
        shared = os.path.join(self.dir, "shared")
        for name in ("hpcc-fat-tree-320hosts.txt", "flow-size-cdf/WebSearch_distribution.txt",
                     "flow-size-cdf/FbHdp_distribution.txt"):
            os.makedirs(os.path.dirname(os.path.join(shared, "workloads", name)), exist_ok=True)
            open(os.path.join(shared, "workloads", name), "w").close()
        result = run("hpcc-fct-small", "--runs", os.path.join(self.dir, "runs"), "--out", self.out,
                     env={"BUILD_DIR": os.path.join(self.dir, "build"), "MLNET_SHARED_DIR": shared})
        self.assertEqual(result.returncode, 3, result.stderr)
        self.assertIn("4 point(s) of scenarios/hpcc-fct/small.yaml failed", result.stderr)
        self.assertIn("exit status 3", result.stderr)
        self.assertIn("unfinished", result.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.out, "hpcc-fct-small.png")))

    def test_no_results(self):
        result = run("roce-cc-training-small", "--no-run", "--runs", os.path.join(self.dir, "empty"), "--out",
                     self.out)
        self.assertEqual(result.returncode, 3, result.stderr)
        self.assertIn("no finished point", result.stderr)


class FctFigures(Case):
    """hpcc-fct-small from fake runs: per CC 40 flows of 1, 2, ..., 40 KB, CC number f (1..4 in axis order) with
    slowdown f for the odd sizes and 2f for the even ones. 20 bins hold two consecutive sizes each; of two values
    the nearest-rank p50 is the smaller and the p95 the larger."""

    def make(self, skip=None):
        runs = FakeRuns("scenarios/hpcc-fct/small.yaml", self.dir)
        for i, point in enumerate(runs.points):
            if point.params["cc"] == skip:
                continue
            factor = i + 1  # dcqcn 1, dctcp 2, timely 3, hpcc 4 (the spec's axis order)
            lines = []
            for k in range(40):
                slowdown = factor * (1 + (k % 2))  # odd flows of a bin are twice as slow
                lines.append(fct_line(k % 16, (k + 1) % 16, 1000 * (k + 1), 1000 * slowdown, 1000))
            runs.write(point, "fct.txt", "".join(lines))
            runs.write(point, "qlen.txt", "".join("%d 30 1 %d\n" % (2000000000 + j, q * factor)
                                                  for j, q in enumerate([0, 0, 1000, 2000, 4000])))
            runs.finish(point)
        return runs

    def test_slowdown_figure(self):
        rows = self.assertFigure_after(self.make(), "hpcc-fct-small")
        self.assertEqual(len(rows), 4 * 20)
        by_cc = {}
        for r in rows:
            by_cc.setdefault(r["cc"], []).append(r)
        self.assertEqual(sorted(by_cc), ["dcqcn", "dctcp", "hpcc", "timely"])
        for factor, cc in enumerate(("dcqcn", "dctcp", "timely", "hpcc"), 1):
            first = by_cc[cc][0]
            self.assertEqual((first["count"], first["size_max"], first["flows"]), ("2", "2000", "40"))
            self.assertEqual(float(first["p95"]), 2 * factor)
            self.assertEqual(float(first["p50"]), factor)
            self.assertEqual(float(first["mean"]), 1.5 * factor)

    def test_queue_figure(self):
        rows = self.assertFigure_after(self.make(), "hpcc-queues-small")
        hpcc = [r for r in rows if r["cc"] == "hpcc"][0]
        # Samples 0, 0, 4000, 8000, 16000: two of five empty; nearest-rank p50 is the third value.
        self.assertEqual((hpcc["samples"], hpcc["zero_fraction"], hpcc["p50_bytes"], hpcc["max_bytes"]),
                         ("5", "0.4", "4000", "16000"))

    def test_stale_point_is_refused(self):
        # A point that ran before an input of the spec changed: --no-run must not plot it as current.
        runs = self.make()
        point = runs.points[0]
        inputs = dict(runs.spec.input_digests())
        name = sorted(inputs)[0]
        inputs[name] = "0" * 64
        runs.finish(point, inputs)
        result = run("hpcc-fct-small", "--no-run", "--runs", runs.dir, "--out", self.out)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("point %s" % point.name, result.stderr)
        self.assertIn("ran with other inputs: %s has changed" % name, result.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.out, "hpcc-fct-small.png")))

    def test_incomplete_grid(self):
        runs = self.make(skip="timely")
        result = self.reproduce("hpcc-fct-small", runs)
        self.assertIn("1 of 4 points absent", result.stderr)
        rows = self.assertFigure("hpcc-fct-small")
        self.assertEqual(sorted({r["cc"] for r in rows}), ["dcqcn", "dctcp", "hpcc"])

    def test_malformed_result(self):
        runs = self.make()
        runs.write(runs.points[0], "fct.txt", "not an fct line\n")
        result = run("hpcc-fct-small", "--no-run", "--runs", runs.dir, "--out", self.out)
        self.assertEqual(result.returncode, 2)
        self.assertIn("fct.txt:1: expected 8 fields", result.stderr)

    def assertFigure_after(self, runs, name):
        self.reproduce(name, runs)
        return self.assertFigure(name)


def summary(iteration_ns, paused_ns=0, collectives=(), background=None):
    """A summary.json with the keys the training figures read."""
    tier = {"ports": 8, "max_queue_bytes": 4000, "p99_queue_bytes": 1000}
    return json.dumps({
        "completed": True, "iteration_time_ns": iteration_ns, "end_ns": iteration_ns,
        "ranks": [{"rank": r, "finish_ns": iteration_ns, "exposed_comm_ns": iteration_ns // 10} for r in range(2)],
        "collectives": list(collectives),
        "network": {"pause_frames": 2 if paused_ns else 0, "paused_ns": paused_ns, "ecn_marks": 5, "timeouts": 0,
                    "queues_per_tier": {"leaf": tier, "spine": tier}},
        "background": background,
    })


def all_reduces(offset_ns):
    """Two ranks, two all-reduces; rank 1 starts each 100 ns later and ends `offset_ns` later than rank 0."""
    records = []
    for k, node in enumerate((5, 7)):
        start = 1000000 * (k + 1)
        for rank in range(2):
            end = start + 500000 + rank * offset_ns
            records.append({"rank": rank, "node": node, "type": "ALL_REDUCE", "size_bytes": 25000000,
                            "communicator": 0, "start_ns": start + rank * 100, "end_ns": end,
                            "duration_ns": end - start - rank * 100})
    return records


class TrainingFigures(Case):
    CC_ORDER = ("none", "dcqcn", "dctcp", "timely", "hpcc")

    def make(self):
        runs = FakeRuns("scenarios/roce-cc-training/small.yaml", self.dir)
        for point in runs.points:
            p = point.params
            factor = self.CC_ORDER.index(p["cc"]) + 1
            base = 20000000 if p["workload"] == "resnet50-dp" else 3000000
            iteration = base + factor * 1000000 + (2000000 if p["background"] != "none" else 0)
            paused = 0
            pfc = ""
            if p["background"] != "none" and p["cc"] in ("none", "dcqcn"):
                # Port (40, 1) paused 1 ms with a refresh in between, port (41, 2) from 2 ms to the end.
                pfc = "1000000 40 1 1 1\n1500000 40 1 1 1\n2000000 40 1 1 0\n2000000 41 1 2 1\n"
                paused = 1000000 + (iteration - 2000000)
            background = {"fct_slowdown": {"p50": 1.5, "p95": 4, "p99": 9}} if p["background"] != "none" else None
            runs.write(point, "summary.json", summary(iteration, paused, all_reduces(1000 * factor), background))
            runs.write(point, "pfc.txt", pfc)
            # Queue samples 0, 0, 1000 f, 2000 f, 3000 f (f the CC's number), gzip-compressed as run-point keeps them.
            samples = "".join("%d 40 1 %d\n" % (t, q) for t, q in enumerate((0, 0, 1000 * factor, 2000 * factor,
                                                                             3000 * factor)))
            with gzip.open(os.path.join(runs.dir, point.name, "qlen.txt.gz"), "wt") as f:
                f.write(samples)
            runs.finish(point)
        return runs

    def test_queue_figure(self):
        runs = self.make()
        self.reproduce("roce-cc-queues-small", runs)
        rows = self.assertFigure("roce-cc-queues-small")
        self.assertEqual(len(rows), len(runs.points))  # a row per (workload, background, CC): one seed
        timely = [r for r in rows if (r["workload"], r["background"], r["cc"]) == ("dlrm-a2a", "none", "timely")][0]
        # Nearest rank: p50 is the third of five samples, 1000 x 4.
        self.assertEqual((timely["samples"], timely["zero_fraction"], timely["p50_bytes"], timely["max_bytes"]),
                         ("5", "0.4", "4000", "12000"))

    def test_queue_figure_on_runs_without_samples(self):
        runs = self.make()
        os.remove(os.path.join(runs.dir, runs.points[0].name, "qlen.txt.gz"))
        result = run("roce-cc-queues-small", "--no-run", "--runs", runs.dir, "--out", self.out)
        self.assertEqual(result.returncode, 2)
        self.assertIn("qlen.txt.gz is missing: the point ran before", result.stderr)

    def test_iteration_figure(self):
        runs = self.make()
        self.reproduce("roce-cc-training-small", runs)
        rows = self.assertFigure("roce-cc-training-small")
        self.assertEqual(len(rows), len(runs.points))  # a row per (workload, background, CC): one seed
        row = [r for r in rows if (r["workload"], r["background"], r["cc"]) == ("resnet50-dp", "websearch30",
                                                                                 "hpcc")][0]
        self.assertEqual(float(row["iteration_ms"]), 27.0)   # 20 + 5 + 2 ms
        self.assertAlmostEqual(float(row["vs_pfc_only"]), 27.0 / 23.0, places=5)
        self.assertEqual(float(row["exposed_comm_ms"]), 2.7)
        self.assertEqual(float(row["background_fct_p99_slowdown"]), 9)
        quiet = [r for r in rows if r["background"] == "none"][0]
        self.assertEqual(quiet["background_fct_p99_slowdown"], "")

    def test_collective_figure(self):
        runs = self.make()
        self.reproduce("roce-cc-collectives-small", runs)
        rows = self.assertFigure("roce-cc-collectives-small")
        # resnet50-dp only: 2 backgrounds x 5 CCs x 2 collectives.
        self.assertEqual(len(rows), 20)
        row = [r for r in rows if r["cc"] == "timely" and r["collective"] == "2"][0]
        # First start 2 ms, last end 2.5 ms + 4 us (rank 1, factor 4).
        self.assertAlmostEqual(float(row["span_ms"]), 0.504, places=6)
        self.assertAlmostEqual(float(row["start_ms"]), 2.0, places=6)

    def test_pause_figure(self):
        runs = self.make()
        self.reproduce("roce-cc-pauses-small", runs)
        rows = self.assertFigure("roce-cc-pauses-small")
        self.assertEqual([r["cc"] for r in rows], list(self.CC_ORDER))
        dcqcn = rows[1]
        # Port 40: 1 ms (the refresh changes nothing); port 41: from 2 ms to the end of the 24 ms step.
        self.assertEqual((dcqcn["pause_frames"], dcqcn["max_ports_paused"]), ("3", "1"))
        self.assertAlmostEqual(float(dcqcn["paused_port_ms"]), 1 + 22, places=6)
        self.assertAlmostEqual(float(dcqcn["summary_paused_ms"]), 1 + 22, places=6)
        self.assertEqual(float(rows[2]["paused_port_ms"]), 0)


class IncastFigures(Case):
    """incast-victim and incast-rates from fake runs: 4 incast flows to host 0 (slowdowns 1..4 times the CC's
    number f), one victim from host 12 to host 2 with slowdown 1.5 f, and rate changes of two flows."""

    def make(self):
        runs = FakeRuns("scenarios/incast-victim/sweep.yaml", self.dir)
        for f, point in enumerate(runs.points, 1):
            lines = [fct_line(4 + k, 0, 1000000, 100 * (k + 1) * f, 100) for k in range(4)]
            lines.append(fct_line(12, 2, 5000000, 150 * f, 100))
            runs.write(point, "fct.txt", "".join(lines))
            runs.write(point, "pfc.txt", "2000001000 20 1 1 1\n2000002000 20 1 1 0\n" * f)
            runs.write(point, "report.json", json.dumps({"ecn_marks": 10 * f}))
            rates = "" if point.params["cc"] == "none" else (
                "2000000500 4 0 50000000000 0\n2000001500 12 4 25000000000 0\n2000002500 4 0 10000000000 0\n")
            runs.write(point, "rates.txt", rates)
            runs.finish(point)
        return runs

    def test_victim_figure(self):
        self.reproduce("incast-victim", self.make())
        rows = self.assertFigure("incast-victim")
        self.assertEqual([r["cc"] for r in rows], ["none", "dcqcn", "dctcp", "timely", "hpcc"])
        hpcc = rows[-1]
        self.assertEqual((hpcc["victim_src"], hpcc["victim_dst"], hpcc["incast_flows"]), ("12", "2", "4"))
        self.assertEqual((float(hpcc["victim_slowdown"]), float(hpcc["incast_max_slowdown"])), (7.5, 20))
        self.assertEqual(float(hpcc["incast_median_slowdown"]), 10)  # nearest rank: the 2nd of 5, 10, 15, 20
        self.assertEqual((hpcc["pause_frames"], hpcc["ecn_marks"]), ("5", "50"))

    def test_rates_figure(self):
        self.reproduce("incast-rates", self.make())
        rows = self.assertFigure("incast-rates")
        dcqcn = [r for r in rows if r["cc"] == "dcqcn"]
        self.assertEqual([(r["flow"], r["role"], r["rate_changes"], r["last_rate_gbps"]) for r in dcqcn],
                         [("0", "incast", "2", "10"), ("4", "victim", "1", "25")])
        self.assertEqual([r for r in rows if r["cc"] == "none"], [])


class ThemisFigure(Case):
    """themis from fake runs: every network with bandwidths 1 and 3 GB/s and 1,000 ns all-reduces; ascending
    sends (1,000 + 2 k) B per dimension, Themis twice that (k the network's index), so Themis' utilisation is
    twice ascending's."""

    def make(self, skip=None):
        runs = FakeRuns("scenarios/themis/sweep.yaml", self.dir)
        networks = list(dict.fromkeys(p.params["network"] for p in runs.points))
        for point in runs.points:
            if point.name == skip:
                continue
            k = networks.index(point.params["network"])
            per_dim = (1000 + 2 * k) * (2 if point.params["scheduling"] == "themis" else 1)
            runs.write(point, "allreduce.json", json.dumps({
                "model": point.params["model"], "size_bytes": point.params["size"], "duration_ns": 1000,
                "bytes_sent_per_dim": [per_dim, per_dim], "topology": ["Ring", "Switch"], "npus_count": [8, 8],
                "bandwidth_gbps": [1, 3]}))
            runs.finish(point)
        return runs, networks

    def test_utilisation(self):
        runs, networks = self.make()
        self.reproduce("themis", runs)
        rows = self.assertFigure("themis")
        self.assertEqual(len(rows), len(runs.points))
        capacity = 1000 * 4 * 1073741824 / 1e9  # 1,000 ns at 1 + 3 GB/s of 2^30 bytes
        for row in rows:
            k = networks.index(row["network"])
            factor = 2 if row["scheduling"] == "themis" else 1
            self.assertAlmostEqual(float(row["utilisation"]), 2 * (1000 + 2 * k) * factor / capacity, places=5)
            self.assertAlmostEqual(float(row["improvement_over_ascending"]), factor, places=5)
            self.assertEqual(row["bandwidth_gbps"], "1;3")

    def test_missing_point(self):
        runs, _ = self.make(skip="network=2d-100-200,scheduling=ascending,model=packet,size=67108864")
        result = self.reproduce("themis", runs)
        self.assertIn("1 of 30 points absent", result.stderr)
        rows = self.assertFigure("themis")
        lonely = [r for r in rows if r["network"] == "2d-100-200" and r["model"] == "packet"]
        self.assertEqual([(r["scheduling"], r["improvement_over_ascending"]) for r in lonely], [("themis", "")])


class HostileInput(Case):
    """The themis figure's fake runs (no shared inputs needed) made hostile one way at a time."""

    def assertRefused(self, result, *parts):
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertNotIn("Traceback", result.stderr)
        for part in parts:
            self.assertIn(part, result.stderr)

    def test_out_and_runs_naming_files(self):
        runs, _ = ThemisFigure.make(self)
        blocker = os.path.join(self.dir, "a-file")
        with open(blocker, "w") as f:
            f.write("not a folder\n")
        self.assertRefused(run("themis", "--no-run", "--runs", runs.dir, "--out", blocker),
                           "reproduce: --out %s: exists and is not a folder; expected a folder" % blocker)
        self.assertRefused(run("themis", "--no-run", "--runs", blocker, "--out", self.out),
                           "reproduce: --runs %s: exists and is not a folder" % blocker)
        # Refused before any simulation: not a word about the missing binaries.
        result = run("themis", "--runs", runs.dir, "--out", blocker,
                     env={"BUILD_DIR": os.path.join(self.dir, "no-build")})
        self.assertRefused(result, "--out %s: exists and is not a folder" % blocker)
        self.assertNotIn("is missing", result.stderr)
        self.assertFalse(os.path.exists(self.out))

    def test_hand_edited_point_files(self):
        runs, _ = ThemisFigure.make(self)
        point = runs.points[3]
        runs.write(point, "point.json", "[1, 2]")
        self.assertRefused(run("themis", "--no-run", "--runs", runs.dir, "--out", self.out),
                           "point %s in %s was run with another command" % (point.name, runs.dir))
        runs.finish(point)
        runs.write(point, "status.json", json.dumps({"state": "done"}))  # the other fields missing
        runs.write(runs.points[4], "status.json", "[" * 100000)  # unreadable: the point counts as not run
        result = run("themis", "--no-run", "--runs", runs.dir, "--out", self.out)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("1 of 30 points absent", result.stderr)

    def test_hostile_result_files(self):
        runs, _ = ThemisFigure.make(self)
        path = os.path.join(runs.dir, runs.points[0].name, "allreduce.json")
        os.remove(path)
        os.symlink("/dev/zero", path)
        self.assertRefused(run("themis", "--no-run", "--runs", runs.dir, "--out", self.out, memory=3 << 30),
                           "%s: is a character device; expected a JSON result file" % path)
        os.remove(path)
        with open(path, "w") as f:
            f.write("[" * 100000 + "]" * 100000)
        self.assertRefused(run("themis", "--no-run", "--runs", runs.dir, "--out", self.out),
                           "%s: JSON nested too deeply to read" % path)
        self.assertFalse(os.path.exists(self.out))

    def test_result_file_reader(self):
        # mlnet_plots.read_json and lookup, which every figure reads its JSON through.
        good = {"duration_ns": 1000, "bytes_sent_per_dim": [1, 2], "name": "x", "flag": True}
        cases = [("", "invalid JSON"), ("9" * 5000, "expected numbers of at most 4300 digits"),
                 ('{"a": 1}'.encode("utf-16").decode("latin-1"), "not UTF-8 text")]
        for text, message in cases:
            path = os.path.join(self.dir, "result.json")
            with open(path, "w", encoding="latin-1") as f:
                f.write(text)
            with self.assertRaises(mp.InputError) as caught:
                mp.read_json(path)
            self.assertIn(message, str(caught.exception))
        with self.assertRaises(mp.InputError) as caught:
            mp.read_json(self.dir)
        self.assertIn("%s: is a folder; expected a JSON result file" % self.dir, str(caught.exception))
        self.assertEqual(mp.lookup(good, "duration_ns", "r.json", "number"), 1000)
        self.assertEqual(mp.lookup(good, "bytes_sent_per_dim", "r.json", "numbers"), [1, 2])
        for document, key, kind, message in (
                (dict(good, duration_ns=float("nan")), "duration_ns", "number", "duration_ns is nan; expected a "
                                                                                "finite number"),
                (good, "flag", "number", "flag is True; expected a finite number"),
                (good, "name", "number", "name is 'x'; expected a finite number"),
                (dict(good, bytes_sent_per_dim=[1, "2"]), "bytes_sent_per_dim", "numbers",
                 "bytes_sent_per_dim.1 is '2'; expected a finite number"),
                (good, "name", "numbers", "name is 'x'; expected a list of finite numbers"),
                (good, "duration_ns", "list", "duration_ns is 1000; expected a list")):
            with self.assertRaises(mp.InputError) as caught:
                mp.lookup(document, key, "r.json", kind)
            self.assertIn("r.json: " + message, str(caught.exception))
        # A NaN duration in a run's allreduce.json stops the figure with the file and key named.
        runs, _ = ThemisFigure.make(self)
        path = os.path.join(runs.dir, runs.points[0].name, "allreduce.json")
        with open(path) as f:
            record = json.load(f)
        with open(path, "w") as f:
            json.dump(dict(record, duration_ns=float("nan")), f)
        self.assertRefused(run("themis", "--no-run", "--runs", runs.dir, "--out", self.out),
                           "%s: duration_ns is nan; expected a finite number" % path)


class PlotModule(unittest.TestCase):
    def test_paused_ports(self):
        events = [(10, 1, 1, 1, 1), (20, 2, 1, 1, 1), (25, 1, 1, 1, 1), (30, 1, 1, 1, 0), (40, 2, 1, 1, 0),
                  (50, 3, 1, 1, 1)]
        times, counts, paused = mp.paused_ports(events, 60)
        self.assertEqual(list(zip(times, counts)), [(0, 0), (10, 1), (20, 2), (30, 1), (40, 0), (50, 1), (60, 1)])
        self.assertEqual(paused, 20 + 20 + 10)

    def test_ecdf_keeps_jumps(self):
        values = [0] * 900 + list(range(1, 101))
        xs, ys = mp.ecdf_points(values, points=10)
        self.assertEqual((xs[0], ys[0]), (0, 0.9))  # the jump at 0 drawn at its full height
        self.assertEqual((xs[-1], ys[-1]), (100, 1.0))
        self.assertEqual(xs, sorted(set(xs)))

    def test_collective_spans(self):
        spans = mp.collective_spans({"collectives": all_reduces(3000)})
        self.assertEqual([(s["node"], s["ranks"], s["span_ns"]) for s in spans], [(5, 2, 503000), (7, 2, 503000)])

    def test_bytes_text(self):
        self.assertEqual([mp.bytes_text(v) for v in (999, 1000, 25000000, 2.5e9)], ["999B", "1KB", "25MB",
                                                                                   "2.5GB"])


if __name__ == "__main__":
    unittest.main()
