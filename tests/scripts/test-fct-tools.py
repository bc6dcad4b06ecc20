#!/usr/bin/python3
"""Tests of scripts/fct-slowdown, scripts/compare-fct and their shared module scripts/mlnet_fct.py on hand-made
fct files whose answers follow from the definitions by hand (docs/fct-analysis.md). No simulator is needed; the
whole file runs in a few seconds.

Usage: tests/scripts/test-fct-tools.py [-v] [unittest options]   (exit status 0: every test passed)"""
import csv
import io
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import unittest
from fractions import Fraction

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = os.path.join(ROOT, "scripts")
sys.path.insert(0, SCRIPTS)
import mlnet_fct  # noqa: E402

IDEAL = 1000


def fct_line(src, dst, size, slowdown, sport=10000, start=2000000000, ideal=IDEAL):
    """One fct.txt line between hosts src and dst whose slowdown is `slowdown` (fct = slowdown * ideal)."""
    return "%08x %08x %d 100 %d %d %d %d\n" % (0x0b000001 + src * 0x100, 0x0b000001 + dst * 0x100, sport, size,
                                               start, round(slowdown * ideal), ideal)


# 20 flows: sizes 100 (x3), 200 (x4), 300 (x3), 400 (x5), 500 (x5), in a scrambled order as a simulator writes
# them (completion order). With 4 bins the cuts are the sizes of ranks 5, 10, 15, 20: 200, 300, 400, 500, so the
# first bin takes all seven flows up to 200 B (35% of the flows, not 25%: size 200 straddles the 25% cut).
# Slowdowns: bin 1 holds 1..7, bin 2 holds 1.5, 2, 3, bin 3 holds 0.5, 1, 1, 2, 4, bin 4 holds five 5s.
BINNED_FLOWS = [(500, 5), (100, 3), (400, 1), (300, 3), (200, 7), (100, 1), (400, 4), (500, 5), (200, 2),
                (300, 1.5), (400, 0.5), (200, 6), (500, 5), (100, 5), (400, 2), (200, 4), (300, 2), (500, 5),
                (400, 1), (500, 5)]
# Bin rows: (pct_lo, pct_hi, size_min, size_max, count, mean, p50, p95, p99) with nearest-rank quantiles:
# n = 7: p50 = x4, p95 = x7 (ceil 6.65), p99 = x7; n = 3: p50 = x2, p95 = p99 = x3; n = 5: p50 = x3, p95 = x5.
BINNED_EXPECTED = [(0, 35, 100, 200, 7, 4, 4, 7, 7),
                   (35, 50, 300, 300, 3, 6.5 / 3, 2, 3, 3),
                   (50, 75, 400, 400, 5, 1.7, 1, 4, 4),
                   (75, 100, 500, 500, 5, 5, 5, 5, 5)]


def run(script, *args, scripts=SCRIPTS, cwd=None, timeout=120, memory=None):
    """memory: an address-space limit (bytes) for the script, so that a script reading without bound fails fast
    instead of taking the machine's memory."""
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    command = [sys.executable, os.path.join(scripts, script)] + list(args) if script else list(args)
    with tempfile.TemporaryDirectory(prefix="mpl-") as config:  # matplotlib's cache, off the user's home
        try:
            return subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                                  env=dict(os.environ, MPLCONFIGDIR=config), cwd=cwd,
                                  preexec_fn=limit if memory else None)
        except subprocess.TimeoutExpired:
            raise AssertionError("%s still running after %d s" % (" ".join(command)[:200], timeout)) from None


def read_csv(path_or_text, text=False):
    stream = io.StringIO(path_or_text) if text else open(path_or_text)
    with stream:
        return list(csv.DictReader(stream))


class Case(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="test-fct-tools-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)

    def write(self, name, lines):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.writelines(lines)
        return path

    def assertNumber(self, cell, expected, msg=None):
        # The CSVs carry 6 significant digits.
        self.assertAlmostEqual(float(cell), float(expected), delta=1e-5 * max(1.0, abs(float(expected))), msg=msg)

    def assertRows(self, rows, expected, columns):
        self.assertEqual(len(rows), len(expected), rows)
        for row, want in zip(rows, expected):
            for column, value in zip(columns, want):
                self.assertNumber(row[column], value, "%s in %s" % (column, row))


class Quantiles(unittest.TestCase):
    def test_nearest_rank(self):
        values = list(range(1, 21))
        # Element ceil(p * n): p50 of 20 values is the 10th (not the 11th, not 10.5), p95 the 19th (a float
        # 0.95 * 20 = 19.000000000000004 would give the 20th), p99 the 20th, p0 the first.
        self.assertEqual(mlnet_fct.quantile(values, mlnet_fct.percent(50)), 10)
        self.assertEqual(mlnet_fct.quantile(values, mlnet_fct.percent(95)), 19)
        self.assertEqual(mlnet_fct.quantile(values, mlnet_fct.percent(99)), 20)
        self.assertEqual(mlnet_fct.quantile(values, mlnet_fct.percent(10)), 2)
        self.assertEqual(mlnet_fct.quantile(values, 0), 1)
        self.assertEqual(mlnet_fct.quantile(values, 1), 20)
        self.assertEqual(mlnet_fct.quantile([7], mlnet_fct.percent(99)), 7)
        self.assertEqual(mlnet_fct.percent(99.9), Fraction(999, 1000))

    def test_distinct_sizes_give_equal_bins(self):
        # 41 distinct sizes in 20 bins: bin i ends at rank ceil(41 i / 20), so the counts are 3, 2, 2, ... with
        # every bin holding floor or ceil of 41 / 20 flows.
        bins = mlnet_fct.size_bins(range(1, 42), 20)
        edges = [-(-41 * i // 20) for i in range(1, 21)]
        self.assertEqual([b.size_max for b in bins], edges)
        self.assertEqual([b.count for b in bins], [e - p for e, p in zip(edges, [0] + edges[:-1])])
        self.assertEqual(sum(b.count for b in bins), 41)
        self.assertEqual(mlnet_fct.bin_index(bins, 0), 0)
        self.assertEqual(mlnet_fct.bin_index(bins, 41), 19)
        self.assertIsNone(mlnet_fct.bin_index(bins, 42))

    def test_one_size_is_one_bin(self):
        bins = mlnet_fct.size_bins([4000000] * 240, 20)
        self.assertEqual([(b.size_min, b.size_max, b.count, b.pct_lo, b.pct_hi) for b in bins],
                         [(4000000, 4000000, 240, 0, 100)])


class FctSlowdown(Case):
    def test_bins_and_quantiles(self):
        path = self.write("fct.txt", [fct_line(i % 16, (i + 1) % 16, s, k) for i, (s, k) in enumerate(BINNED_FLOWS)])
        out = os.path.join(self.dir, "slowdown.csv")
        result = run("fct-slowdown", path, "--bins", "4", "--out", out)
        self.assertEqual(result.returncode, 0, result.stderr)
        columns = ["pct_lo", "pct_hi", "size_min", "size_max", "count", "mean", "p50", "p95", "p99"]
        rows = read_csv(out)
        self.assertEqual(list(rows[0].keys()), ["bin"] + columns[:5] + ["mean", "p50", "p95", "p99"])
        self.assertRows(rows, BINNED_EXPECTED, columns)
        # Five bins: the fifth cut (rank 20) repeats the fourth's size 500, so that bin is empty and dropped.
        result = run("fct-slowdown", path, "--bins", "5")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertRows(read_csv(result.stdout, text=True), BINNED_EXPECTED, columns)
        # Twenty bins: one per distinct size, 100 B alone holding the first 15%.
        result = run("fct-slowdown", path)
        self.assertEqual([(r["pct_lo"], r["pct_hi"], r["count"]) for r in read_csv(result.stdout, text=True)],
                         [("0", "15", "3"), ("15", "35", "4"), ("35", "50", "3"), ("50", "75", "5"),
                          ("75", "100", "5")])
        # --clip counts the slowdown 0.5 of bin 3 as 1: mean (1 + 1 + 1 + 2 + 4) / 5.
        result = run("fct-slowdown", path, "--bins", "4", "--clip")
        self.assertNumber(read_csv(result.stdout, text=True)[2]["mean"], 1.8)

    def test_quantiles_of_twenty(self):
        slowdowns = [13, 2, 20, 7, 1, 19, 8, 11, 3, 16, 5, 14, 9, 17, 4, 12, 6, 18, 10, 15]
        path = self.write("fct.txt", [fct_line(1, 2, 1000 + i, k) for i, k in enumerate(slowdowns)])
        result = run("fct-slowdown", path, "--bins", "1")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertRows(read_csv(result.stdout, text=True), [(20, 1019, 10.5, 10, 19, 20)],
                        ["count", "size_max", "mean", "p50", "p95", "p99"])


class CompareFct(Case):
    # Ref lines: A (1->2), two identical flows D1 (sport 10000) and D2 (10001), C (starts at ...100), E (ref only).
    REF = [fct_line(1, 2, 1000, 5),
           fct_line(3, 4, 5000, 2, sport=10000, ideal=500),
           fct_line(3, 4, 5000, 4, sport=10001, ideal=500),
           fct_line(5, 6, 7000, 4, start=2000000100),
           fct_line(7, 8, 9000, 1)]
    # Ours, in completion order: D2 (sport 10007, FCT 0.9 of ref), C one ns later than ref's (1.1), D1 (10005,
    # 1.1), A (1.0), a flow only ours has, a third copy of D (sport 10009: no partner left) and a flow larger
    # than any of ref's (so in no bin).
    OURS = [fct_line(3, 4, 5000, 1800 / 520, sport=10007, ideal=520),
            fct_line(5, 6, 7000, 4.4, sport=10002, start=2000000101),
            fct_line(3, 4, 5000, 1100 / 520, sport=10005, ideal=520),
            fct_line(1, 2, 1000, 5),
            fct_line(9, 10, 9000, 1),
            fct_line(3, 4, 5000, 3000 / 520, sport=10009, ideal=520),
            fct_line(11, 12, 20000, 3, ideal=3000)]

    def compare(self, *extra):
        ours, ref = self.write("ours.txt", self.OURS), self.write("ref.txt", self.REF)
        prefix = os.path.join(self.dir, "out", "cmp")
        result = run("compare-fct", ours, ref, "--out-prefix", prefix, "--bins", "5", *extra)
        self.assertEqual(result.returncode, 0, result.stderr)
        return result, prefix

    def test_matching_duplicates_and_unmatched(self):
        result, prefix = self.compare()
        flows = read_csv(prefix + "-flows.csv")
        self.assertEqual([(f["ours_line"], f["ref_line"]) for f in flows], [("1", "3"), ("2", "4"), ("3", "2"),
                                                                           ("4", "1")])
        self.assertEqual([f["src_node"] for f in flows], ["3", "5", "3", "1"])
        for f, want in zip(flows, [0.9, 1.1, 1.1, 1.0]):
            self.assertNumber(f["fct_ratio"], want)
        self.assertEqual((flows[1]["ours_start_ns"], flows[1]["ref_start_ns"]), ("2000000101", "2000000100"))
        unmatched = read_csv(prefix + "-unmatched.csv")
        self.assertEqual([(u["side"], u["line"], u["sport"]) for u in unmatched],
                         [("ours", "5", "10000"), ("ours", "6", "10009"), ("ours", "7", "10000"),
                          ("ref", "5", "10000")])
        self.assertIn("matched 4 pairs (1 of them with different starts", result.stdout)
        self.assertIn("unmatched: 3 of mlnet-sim, 1 of reference", result.stdout)
        # FCT ratios 0.9, 1.0, 1.1, 1.1 (nearest rank: p10 = x1, p50 = x2, p90 = x4).
        ratios = {r["metric"]: r for r in read_csv(prefix + "-ratios.csv")}
        self.assertRows([ratios["fct"]], [(4, 0.9, 0.9, 1.0, 1.1, 1.1, 1.1, 1.025)],
                        ["count", "min", "p10", "p50", "p90", "p99", "max", "mean"])
        # Ideal FCTs: A and C agree, D's are 520 vs 500: 1.0, 1.0, 1.04, 1.04.
        self.assertRows([ratios["ideal_fct"]], [(4, 1.0, 1.0, 1.04, 1.04, 1.02)],
                        ["count", "min", "p50", "p90", "max", "mean"])

    def test_bins_cut_on_ref(self):
        result, prefix = self.compare()
        # Ref sizes 1000, 5000, 5000, 7000, 9000 in 5 bins: cuts at ranks 1..5 = 1000, 5000, 5000, 7000, 9000, the
        # repeated 5000 merging two bins; ours has three 5000 B flows and one of 20000 B beyond the last bin.
        bins = read_csv(prefix + "-bins.csv")
        self.assertEqual([(b["size_min"], b["size_max"], b["ref_count"], b["ours_count"]) for b in bins],
                         [("1000", "1000", "1", "1"), ("5000", "5000", "2", "3"), ("7000", "7000", "1", "1"),
                          ("9000", "9000", "1", "1")])
        self.assertEqual([(b["pct_lo"], b["pct_hi"]) for b in bins], [("0", "20"), ("20", "60"), ("60", "80"),
                                                                      ("80", "100")])
        # 5000 B: ref slowdowns 2, 4 (p50 = 2), ours 1100/520, 1800/520, 3000/520 (p50 = 1800/520).
        self.assertNumber(bins[1]["ref_p50"], 2)
        self.assertNumber(bins[1]["ours_p50"], 1800 / 520)
        self.assertNumber(bins[1]["p50_ratio"], 1800 / 520 / 2)
        self.assertNumber(bins[1]["ours_p99"], 3000 / 520)
        self.assertIn("1 flows of mlnet-sim are larger than reference's largest (9000 B)", result.stdout)

    def test_exact_starts(self):
        result, prefix = self.compare("--start-tolerance", "0")
        self.assertEqual(len(read_csv(prefix + "-flows.csv")), 3)
        unmatched = read_csv(prefix + "-unmatched.csv")
        self.assertEqual([(u["side"], u["line"]) for u in unmatched],
                         [("ours", "2"), ("ours", "5"), ("ours", "6"), ("ours", "7"), ("ref", "4"), ("ref", "5")])
        self.assertIn("starting 1 ns or more apart", result.stderr)

    def test_same_file_and_plot(self):
        ref = self.write("ref.txt", self.REF)
        prefix = os.path.join(self.dir, "same")
        result = run("compare-fct", ref, ref, "--out-prefix", prefix, "--plot")
        self.assertEqual(result.returncode, 0, result.stderr)
        ratios = read_csv(prefix + "-ratios.csv")
        self.assertEqual({(r["min"], r["max"]) for r in ratios}, {("1", "1")})
        with open(prefix + "-slowdown.png", "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        with open(prefix + "-slowdown.pdf", "rb") as f:
            self.assertEqual(f.read(5), b"%PDF-")

    def test_nothing_matches(self):
        ours = self.write("ours.txt", [fct_line(1, 2, 1000, 2)])
        ref = self.write("ref.txt", [fct_line(1, 2, 1001, 2)])
        result = run("compare-fct", ours, ref, "--out-prefix", os.path.join(self.dir, "x"))
        self.assertEqual(result.returncode, 2)
        self.assertIn("no flow of %s matches" % ours, result.stderr)


class MalformedInput(Case):
    GOOD = fct_line(1, 2, 1000, 2)

    def check(self, bad_line, message):
        # Line 2 is blank (skipped but counted), line 4 is the bad one.
        path = self.write("bad.txt", [self.GOOD, "\n", self.GOOD, bad_line, self.GOOD])
        for script, args in (("fct-slowdown", [path]), ("compare-fct", [self.write("ok.txt", [self.GOOD]), path,
                                                                        "--out-prefix",
                                                                        os.path.join(self.dir, "o")])):
            result = run(script, *args)
            self.assertEqual(result.returncode, 2, "%s: %s" % (script, result.stderr))
            self.assertIn("%s:4: %s" % (path, message), result.stderr)
            self.assertEqual(result.stdout, "")

    def test_field_count(self):
        self.check("0b000101 0b000201 10000 100 1000 2000000000 2000\n", "expected 8 fields")

    def test_address(self):
        self.check("host1 0b000201 10000 100 1000 2000000000 2000 1000\n",
                   "sip 'host1' is not a hex IPv4 address")

    def test_number(self):
        self.check("0b000101 0b000201 10000 100 1e3 2000000000 2000 1000\n", "size '1e3' is not an unsigned integer")
        self.check("0b000101 0b000201 10000 100 1000 -5 2000 1000\n", "start_ns '-5' is not an unsigned integer")
        self.check("0b000101 0b000201 70000 100 1000 5 2000 1000\n", "sport 70000 is not a UDP port")

    def test_zero_ideal(self):
        self.check("0b000101 0b000201 10000 100 1000 5 2000 0\n", "ideal_fct_ns 0")

    def test_empty_and_missing_files(self):
        empty = self.write("empty.txt", ["\n"])
        result = run("fct-slowdown", empty)
        self.assertEqual(result.returncode, 2)
        self.assertIn("%s: no flows" % empty, result.stderr)
        result = run("fct-slowdown", os.path.join(self.dir, "missing.txt"))
        self.assertEqual(result.returncode, 2)
        self.assertIn("missing.txt: cannot read", result.stderr)

    def test_usage(self):
        result = run("fct-slowdown", self.write("ok.txt", [self.GOOD]), "--bins", "0")
        self.assertEqual(result.returncode, 1)
        self.assertEqual(run("compare-fct", "only-one.txt").returncode, 1)

    def assertRefused(self, result, *parts):
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertNotIn("Traceback", result.stderr)
        for part in parts:
            self.assertIn(part, result.stderr)

    def test_huge_number(self):
        # Python's int() refuses strings of more than 4300 digits; such a field is a malformed line like any other.
        self.check("0b000101 0b000201 10000 100 %s 5 2000 1000\n" % ("9" * 5000),
                   "size 999999999999999999999999... is too large; expected an unsigned 64-bit integer")
        self.check("0b000101 0b000201 10000 100 18446744073709551616 5 2000 1000\n",
                   "size 18446744073709551616 is too large")

    def test_device_and_folder(self):
        # /dev/zero is one endless line: refused by kind before reading (the memory limit makes an unbounded read
        # fail at once instead of taking the machine's memory).
        for script, args in (("fct-slowdown", ["/dev/zero"]),
                             ("compare-fct", ["/dev/zero", self.write("ok.txt", [self.GOOD]), "--out-prefix",
                                              os.path.join(self.dir, "o")])):
            self.assertRefused(run(script, *args, timeout=60, memory=1 << 30),
                               "/dev/zero: is a character device; expected a whitespace-separated text table")
        self.assertRefused(run("fct-slowdown", self.dir), "%s: is a folder; expected" % self.dir)

    def test_overlong_line(self):
        path = self.write("long.txt", [self.GOOD, "x" * 100000])
        self.assertRefused(run("fct-slowdown", path), "%s:2: a line longer than 65536 characters" % path)


class HostileOptions(Case):
    """Options that used to hang, write where they should not, or overwrite their own inputs."""

    def flows(self, name="fct.txt", count=40):
        return self.write(name, [fct_line(i % 16, (i + 1) % 16, 1000 + 7 * i, 1 + i / 10) for i in range(count)])

    def test_huge_bins_refused_at_once(self):
        # --bins 1000000000 looped a billion times over 40 flows; now it is refused, naming the flag and the limit.
        path = self.flows()
        for script, args in (("fct-slowdown", [path]),
                             ("compare-fct", [path, path, "--out-prefix", os.path.join(self.dir, "c")])):
            result = run(script, *args, "--bins", "1000000000", timeout=30)
            self.assertEqual(result.returncode, 1, result.stderr)
            self.assertIn("%s: --bins 1000000000: more than the limit of 10000; expected a number of bins from 1 to "
                          "10000" % script, result.stderr)

    def test_bins_at_the_limit(self):
        # 10000 bins of 40 flows: one bin per distinct size, computed in one pass over the flows.
        path = self.flows()
        result = run("fct-slowdown", path, "--bins", "10000", timeout=30)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(len(read_csv(result.stdout, text=True)), 40)
        # The function itself takes any count, in one pass over the flows (a child process: a loop over the bins
        # would not end).
        result = run(None, sys.executable, "-c", "import sys; sys.path.insert(0, %r); import mlnet_fct; "
                     "print([b.size_max for b in mlnet_fct.size_bins(range(1, 41), 10 ** 12)])" % SCRIPTS, timeout=30)
        self.assertEqual(result.stdout.strip(), str(list(range(1, 41))), result.stderr)

    def test_default_prefix_is_under_results(self):
        # A copy of the scripts in a scratch "repository": the default tables must land in its results/compare-fct/,
        # not in the folder compare-fct was started from.
        repo = os.path.join(self.dir, "repo")
        os.makedirs(os.path.join(repo, "scripts"))
        for name in ("compare-fct", "mlnet_fct.py", "mlnet_io.py"):
            if os.path.exists(os.path.join(SCRIPTS, name)):
                shutil.copy(os.path.join(SCRIPTS, name), os.path.join(repo, "scripts", name))
        cwd = os.path.join(self.dir, "elsewhere")
        os.makedirs(cwd)
        path = self.flows()
        result = run("compare-fct", path, path, scripts=os.path.join(repo, "scripts"), cwd=cwd)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(os.listdir(cwd), [])
        folder = os.path.join(repo, "results", "compare-fct")
        self.assertEqual(sorted(os.listdir(folder)), ["compare-fct-%s.csv" % n for n in ("bins", "flows", "ratios",
                                                                                         "unmatched")])
        # A prefix naming a folder (or ending in /) puts the tables into it.
        result = run("compare-fct", path, path, "--out-prefix", cwd + "/")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("compare-fct-bins.csv", os.listdir(cwd))

    def test_output_over_input_is_refused(self):
        ours, ref = self.flows("ours-bins.csv"), self.flows("ref.txt")
        with open(ours) as f:
            before = f.read()
        with open(ref) as f:
            ref_before = f.read()
        prefix = os.path.join(self.dir, "ours")
        result = run("compare-fct", ours, ref, "--out-prefix", prefix)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("compare-fct: --out-prefix %s: %s-bins.csv: would overwrite OURS (%s); expected an output apart "
                      "from the inputs" % (prefix, prefix, ours), result.stderr)
        with open(ours) as f:
            self.assertEqual(f.read(), before)
        self.assertFalse(os.path.exists(prefix + "-ratios.csv"))  # refused before anything was written
        # REF through a hard link under another name is the same file.
        link = os.path.join(self.dir, "link-flows.csv")
        os.link(ref, link)
        result = run("compare-fct", ours, ref, "--out-prefix", os.path.join(self.dir, "link"))
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("would overwrite REF (%s)" % ref, result.stderr)
        # fct-slowdown --out naming its own input.
        result = run("fct-slowdown", ref, "--out", os.path.join(self.dir, ".", "ref.txt"))
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("would overwrite FCT.txt", result.stderr)
        with open(ref) as f:
            self.assertEqual(f.read(), ref_before)

    def test_unusable_output_paths(self):
        path = self.flows()
        blocker = self.write("file", ["x\n"])
        result = run("compare-fct", path, path, "--out-prefix", os.path.join(blocker, "p"))
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("--out-prefix %s/p: %s: exists and is not a folder" % (blocker, blocker), result.stderr)
        result = run("fct-slowdown", path, "--out", self.dir)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("--out %s: is a folder; expected a file to write" % self.dir, result.stderr)


if __name__ == "__main__":
    unittest.main()
