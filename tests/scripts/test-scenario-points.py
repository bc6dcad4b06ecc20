#!/usr/bin/python3
"""Runs single points of the scenario bundles' run-point scripts with the built simulators and checks what they
leave against closed forms, so a broken run-point (an argument, a system JSON it writes, a file it renames) fails
here rather than half-way through a sweep.

Usage: tests/scripts/test-scenario-points.py BIN_DIR [-v] [unittest options]   (BIN_DIR: the build's bin/)

Covers: scenarios/themis/run-point, analytical, 64 MiB, ascending order on Ring 8 x Switch 8 (each NPU sends
2 (n-1)/n of its bytes on the first dimension and 1/8 of that on the second, exactly), Themis on the same
network (more bytes on the faster second dimension, and a shorter all-reduce), and a bad argument (exit 1)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = None


def run_point(script, folder, *args):
    return subprocess.run([os.path.join(ROOT, script), BIN] + [str(a) for a in args], cwd=folder,
                          capture_output=True, text=True, timeout=120)


class ThemisPoint(unittest.TestCase):
    SIZE = 64 << 20

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="test-scenario-points-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)

    def point(self, scheduling):
        folder = os.path.join(self.dir, scheduling)
        os.makedirs(folder)
        result = run_point("scenarios/themis/run-point", folder, "2d-100-200", scheduling, self.SIZE, "analytical")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertFalse(os.path.exists(os.path.join(folder, "trace")))  # the traces are removed
        with open(os.path.join(folder, "allreduce.json")) as f:
            return json.load(f)

    def test_ascending_bytes_per_dimension(self):
        record = self.point("ascending")
        self.assertEqual((record["model"], record["size_bytes"]), ("analytical", self.SIZE))
        first = 2 * 7 * self.SIZE // 8  # reduce-scatter and all-gather over 8 NPUs
        self.assertEqual(record["bytes_sent_per_dim"], [first, first // 8])
        self.assertEqual((record["topology"], record["npus_count"], record["bandwidth_gbps"]),
                         (["Ring", "Switch"], [8, 8], [100.0, 200.0]))

    def test_themis_moves_bytes_to_the_fast_dimension(self):
        ascending, themis = self.point("ascending"), self.point("themis")
        self.assertGreater(themis["bytes_sent_per_dim"][1], ascending["bytes_sent_per_dim"][1])
        self.assertLess(themis["duration_ns"], ascending["duration_ns"])

    def test_bad_scheduling(self):
        result = run_point("scenarios/themis/run-point", self.dir, "2d-100-200", "random", self.SIZE, "analytical")
        self.assertEqual(result.returncode, 1)
        self.assertIn("scheduling 'random'", result.stderr)


if __name__ == "__main__":
    if len(sys.argv) < 2 or not os.path.isdir(sys.argv[1]):
        sys.exit("usage: test-scenario-points.py BIN_DIR [unittest options]")
    BIN = os.path.abspath(sys.argv.pop(1))
    unittest.main()
