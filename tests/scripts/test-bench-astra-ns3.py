#!/usr/bin/python3
"""scripts/bench-astra-ns3 on the built simulators: the inputs it writes are ASTRA-sim's (the 128-node Clos's
shape), --compat=astra-ns3 reproduces the peer's published times on the two small cases, and the side-by-side
columns tell agreement from disagreement, with a stand-in peer that prints the published finish times and
writes an fct.txt of its own.

Usage: tests/scripts/test-bench-astra-ns3.py BIN_DIR"""
import os
import stat
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = None
CASES = "ar1m-switch,ar1m-ring"
PUBLISHED = {"ar1m-switch": 154096, "ar1m-ring": 1172456}


def bench(*args):
    env = dict(os.environ, BUILD_DIR=os.path.dirname(os.path.abspath(BIN)))
    return subprocess.run([os.path.join(ROOT, "scripts", "bench-astra-ns3")] + list(args), env=env,
                          capture_output=True, text=True, timeout=300)


def rows(out):
    table = {}
    for line in out.splitlines():
        cols = line.split()
        if cols and cols[0] in PUBLISHED:
            table[cols[0]] = cols
    return table


class BenchAstraNs3(unittest.TestCase):
    def test_compat_reproduces_the_published_times(self):
        with tempfile.TemporaryDirectory() as d:
            r = bench("--cases", CASES, "--keep", d)
            self.assertEqual(r.returncode, 0, r.stderr)
            table = rows(r.stdout)
            for name, ns in PUBLISHED.items():
                self.assertEqual(int(table[name][1]), ns)  # the peer's, as published
                self.assertEqual(int(table[name][4]), ns)  # ours under --compat=astra-ns3
                self.assertEqual(table[name][5], "1.000")
                self.assertLess(int(table[name][2]), ns)  # our default credits receives earlier
            with open(os.path.join(d, "inputs", "clos.txt")) as f:
                lines = f.read().splitlines()
            self.assertEqual(lines[0], "144 16 192")  # its 128_nodes_16_switch_topology.txt
            self.assertEqual(len(lines), 2 + 192)
            self.assertEqual(lines[2], "0 128 200Gbps 0.005ms 0")
            self.assertEqual(lines[-1], "135 143 200Gbps 0.0125ms 0")

    def test_side_by_side_tells_agreement_apart(self):
        with tempfile.TemporaryDirectory() as d:
            peer = os.path.join(d, "peer")
            # Prints the published finish of the case its topology names; its fct.txt holds one made-up line.
            with open(peer, "w") as f:
                f.write("#!/bin/sh\n"
                        "for a; do case $a in --network-configuration=*) conf=${a#*=};; esac; done\n"
                        "if grep -q ring.txt \"$conf\"; then t=1172456; else t=154096; fi\n"
                        "for r in 0 1 2 3 4 5 6 7; do echo \"sys[$r] finished, $t cycles\"; done\n"
                        "echo '0b000001 0b000101 10000 100 1 0 1 1' > \"$(dirname \"$conf\")/fct.txt\"\n")
            os.chmod(peer, os.stat(peer).st_mode | stat.S_IXUSR)
            r = bench("--cases", CASES, "--side-by-side", peer, "--keep", os.path.join(d, "runs"))
            self.assertEqual(r.returncode, 0, r.stderr)
            for name in PUBLISHED:
                cols = rows(r.stdout)[name]
                self.assertEqual(cols[6:8], ["same", "differ"])  # every rank's finish agrees, fct.txt does not
            r = bench("--cases", "nope")
            self.assertEqual(r.returncode, 2)
            self.assertIn("--cases: unknown nope", r.stderr)


if __name__ == "__main__":
    BIN = sys.argv.pop(1)
    unittest.main()
