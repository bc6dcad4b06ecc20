#!/usr/bin/python3
"""scripts/check-fast-forward and mlnet-ns3 --fast-forward on a 4-stage pipeline of 16 MiB activations (long
messages on one leaf: steady for most of their time): fast-forward skips most of the step, the iteration time
within 0.5 % and every FCT within 1 %, summary.json's fast_forward block and timeline.json's network track say what
was skipped, --check passes, --json reports the same figures, a cable-delay ensemble moves the step by whole
cable crossings (1 ps a cable, by less than 1 ns), and a bad option is refused.

Usage: tests/scripts/test-check-fast-forward.py BIN_DIR"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = None
NETWORK = {"topology": {"builder": "clos", "leaves": 1, "hosts-per-leaf": 4, "spines": 1, "rate": "100Gbps",
                        "delay": "1us"},
           "congestion-control": {"algorithm": "none"}}


def check(*args, cwd=None):
    return subprocess.run([os.path.join(ROOT, "scripts", "check-fast-forward"),
                           "--binary", os.path.join(BIN, "mlnet-ns3")] + list(args),
                          capture_output=True, text=True, timeout=600, cwd=cwd)


class CheckFastForward(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        d = cls.dir.name
        subprocess.run([os.path.join(BIN, "mlnet-tracegen"), "--pattern", "pipeline", "--npus", "4", "--size",
                        str(16 << 20), "--microbatches", "2", "--compute-us", "50", "--output",
                        os.path.join(d, "pipe", "t")], check=True, capture_output=True)
        with open(os.path.join(d, "net.json"), "w") as f:
            json.dump(NETWORK, f)
        cls.args = ["--", "--workload-configuration=" + os.path.join(d, "pipe", "t"),
                    "--system-configuration=" + os.path.join(ROOT, "scenarios", "packet", "system.json"),
                    "--network-configuration=" + os.path.join(d, "net.json")]

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def test_skips_most_of_the_step_within_the_bounds(self):
        out = os.path.join(self.dir.name, "runs")
        r = check("--check", "--json", "--output", out, *self.args)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        result = json.loads(r.stdout)
        self.assertLess(abs(result["iteration"]), 0.005)
        self.assertLess(abs(result["fct_max"]), 0.01)
        self.assertGreater(result["skipped_fraction"], 0.5)
        self.assertGreaterEqual(result["jumps"], 1)
        self.assertEqual(result["beyond_bounds"], [])
        with open(os.path.join(out, "ff-0", "summary.json")) as f:
            ff = json.load(f)["fast_forward"]
        self.assertEqual(ff["jumps"], result["jumps"])
        self.assertGreater(ff["skipped_message_bytes"], 16 << 20)
        with open(os.path.join(out, "full-0", "summary.json")) as f:
            self.assertNotIn("fast_forward", json.load(f))
        with open(os.path.join(out, "ff-0", "timeline.json")) as f:
            spans = [e for e in json.load(f)["traceEvents"] if e.get("cat") == "network"]
        self.assertEqual(len(spans), ff["jumps"])
        self.assertAlmostEqual(sum(e["dur"] for e in spans) * 1000, ff["skipped_ns"], delta=len(spans))

    def test_a_delay_ensemble_moves_the_step_by_whole_cable_crossings(self):
        # With no congestion control and no queue shared, every cable crossed on the step's critical path adds
        # the offset once: 1 ns more per cable moves the end by a whole even number of ns (two cables a
        # message), and 2 ns by exactly twice that.
        out = os.path.join(self.dir.name, "delay")
        r = check("--json", "--ensemble", "2", "--perturb", "delay", "--output", out, *self.args)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        result = json.loads(r.stdout)
        ends = {}
        for name, offset in [("full-0", None), ("delay-plus-1ns", 1000), ("delay-plus-2ns", 2000)]:
            with open(os.path.join(out, name, "summary.json")) as f:
                s = json.load(f)
            self.assertEqual(s["inputs"].get("link_delay_offset_ps"), offset)
            ends[name] = s["iteration_time_ns"]
        one = ends["delay-plus-1ns"] - ends["full-0"]
        self.assertGreater(one, 0)
        self.assertEqual(one % 2, 0)
        self.assertEqual(ends["delay-plus-2ns"] - ends["full-0"], 2 * one)
        spread = result["ensemble_spread"]
        self.assertEqual(spread["perturb"], "delay")
        self.assertAlmostEqual(spread["iteration"], 2 * one / ends["full-0"])
        # Every run of the ensemble is kept, the spread is their largest move, and the figures beyond all of them
        # are among those judged.
        self.assertEqual([e["label"] for e in result["ensemble"]], ["delay-plus-1ns", "delay-plus-2ns"])
        self.assertAlmostEqual(result["ensemble"][0]["iteration"], one / ends["full-0"])
        for figure in ["iteration", "collective_max", "ecn_marks", "paused_ns"]:
            self.assertEqual(spread[figure], max(abs(e[figure]) for e in result["ensemble"]))
        self.assertEqual(result["judged"][:1], ["iteration"])  # a pipeline: no collective to judge
        self.assertNotIn("collective_max", result["judged"])
        self.assertTrue(set(result["beyond_spread"]) <= set(result["judged"]))
        self.assertEqual("iteration" in result["beyond_spread"], abs(result["iteration"]) > spread["iteration"])
        # A figure is beyond every run exactly when no run moved it as far.
        self.assertEqual(set(result["runs_as_far"]), set(result["judged"]))
        for figure, runs in result["runs_as_far"].items():
            self.assertEqual(figure in result["beyond_spread"], runs == 0)
        r = check("--ensemble", "1", "--perturb", "delay", *self.args)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"beyond them all +(iteration|none) of 1 figure judged .*about 1 figure in 2\)")
        self.assertRegex(r.stdout, r"runs as far +iteration [01] of 1\n")
        # --perturb delay-ps: 1 ps more per cable, which on this uncontended step moves the end by the cables
        # crossed, picoseconds, where 1 ns moved it by whole nanoseconds.
        out = os.path.join(self.dir.name, "delay-ps")
        r = check("--json", "--ensemble", "1", "--perturb", "delay-ps", "--output", out, *self.args)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        result = json.loads(r.stdout)
        self.assertEqual([e["label"] for e in result["ensemble"]], ["delay-plus-1ps"])
        self.assertEqual(result["ensemble_spread"]["perturb"], "delay-ps")
        with open(os.path.join(out, "delay-plus-1ps", "summary.json")) as f:
            s = json.load(f)
        self.assertEqual(s["inputs"].get("link_delay_offset_ps"), 1)
        self.assertLessEqual(abs(s["iteration_time_ns"] - ends["full-0"]), 1)
        self.assertLess(abs(s["iteration_time_ns"] - ends["full-0"]), one)

    def test_the_table_names_every_figure(self):
        with tempfile.TemporaryDirectory() as tmp:
            r = subprocess.run([os.path.join(ROOT, "scripts", "check-fast-forward"),
                                "--binary", os.path.join(BIN, "mlnet-ns3")] + self.args,
                               capture_output=True, text=True, timeout=600, env=dict(os.environ, TMPDIR=tmp))
            self.assertEqual(os.listdir(tmp), [], "runs without --output leave nothing behind")
        self.assertEqual(r.returncode, 0, r.stderr)
        for label in ["iteration time", "collectives", "FCTs", "ecn_marks", "paused_ns", "cost", "skipped",
                      "bounds"]:
            self.assertIn(label, r.stdout)

    def test_a_relative_binary_is_taken_from_where_it_was_given(self):
        script = os.path.join(ROOT, "scripts", "check-fast-forward")
        r = subprocess.run([script, "--binary", "mlnet-ns3", "--json"] + self.args, capture_output=True, text=True,
                           timeout=600, cwd=BIN)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = subprocess.run([script, "--binary", "no-such-binary"] + self.args, capture_output=True, text=True,
                           timeout=60, cwd=BIN)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no-such-binary: no such executable", r.stderr)
        self.assertNotIn("Traceback", r.stderr)

    def test_refuses_a_run_without_its_inputs(self):
        r = check("--", "--cc=dcqcn")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("--workload-configuration", r.stderr)


if __name__ == "__main__":
    BIN = os.path.abspath(sys.argv.pop(1))
    unittest.main()
