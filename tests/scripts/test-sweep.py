#!/usr/bin/python3
"""Tests of scripts/sweep with a tiny fake command instead of the simulator (a few seconds, no build needed).

Usage: python3 tests/scripts/test-sweep.py [-v]     (exit status 0 when every test passes)

Covers: grid expansion order, result extraction (JSON keys, table statistics, where, skip, regex), resume skipping
finished points (executions counted), failed points recorded with exit code and stderr tail and kept until
--retry-failed, timeouts, SIGINT and SIGKILL half-way then resumed giving the identical CSV, --run-point and
--collect, malformed specs, and --slurm --dry-run (array range, per-point command). Hostile inputs, each a one-line
error and never a traceback or a hang: --out naming a file, spec files that are binary, empty, folders, devices,
FIFOs, lists, deeply nested or hold huge numbers, NaN, NUL; inputs that are devices or FIFOs; numeric keys out of
range; placeholder values that look like shell code (never run, whatever the quoting around the placeholder);
paths that a Slurm batch script cannot hold; point files edited by hand. The YAML tests are skipped when
python3-yaml is missing.
"""
import csv
import glob
import json
import os
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True  # keep scripts/ free of __pycache__
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import mlnet_sweep_spec  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stand_in_shared  # noqa: E402
SWEEP = os.path.join(ROOT, "scripts", "sweep")
VERBOSE = "-v" in sys.argv

# The fake point: appends its name to runs.log beside the spec (to count executions), sleeps SLEEP seconds, writes
# result.json, a whitespace table and a line on stdout; fails with exit status 3 when a is "bad".
FAKE = r'''
import json, os, sys, time
a, b, log = sys.argv[1], sys.argv[2], sys.argv[3]
with open(log, "a") as f:
    f.write("%s,%s\n" % (a, b))
time.sleep(float(os.environ.get("SLEEP", "0")))
if a == "bad":
    sys.stderr.write("fake: cannot handle a=bad\nfake: giving up\n")
    sys.exit(3)
value = len(a) * 10 + int(b)
with open("result.json", "w") as f:
    json.dump({"value": value, "nested": {"list": [value, value + 1]}, "flag": True}, f)
with open("table.txt", "w") as f:
    f.write("id size kind\n")
    f.write("# a comment, not a row\n")
    for i in range(1, 11):
        f.write("%d %d %s\n" % (i, i * int(b), "even" if i % 2 == 0 else "odd"))
print("fake finished, %d cycles" % value)
print("fake finished, %d cycles" % (value + 5))
'''


def spec_dict(**overrides):
    spec = {
        "command": ["{python}", "{spec_dir}/fake.py", "{a}", "{b}", "{spec_dir}/runs.log"],
        "axes": {"a": ["x", "yy"], "b": [1, 2, 3]},
        "collect": {
            "value": {"file": "result.json", "key": "value"},
            "second": {"file": "result.json", "key": "nested.list.1"},
            "flag": {"file": "result.json", "key": "flag"},
            "rows": {"file": "table.txt", "stat": "count", "skip": 1},
            "size_p50": {"file": "table.txt", "column": 2, "stat": "p50", "skip": 1},
            "size_p90": {"file": "table.txt", "column": 2, "stat": "p90", "skip": 1},
            "size_median": {"file": "table.txt", "column": 2, "stat": "median", "skip": 1},
            "size_mean": {"file": "table.txt", "column": 2, "stat": "mean", "skip": 1},
            "even_sum": {"file": "table.txt", "column": 2, "stat": "sum", "skip": 1, "where": {"3": "even"}},
            "first_cycles": {"file": "stdout.txt", "regex": r"finished, (\d+) cycles"},
            "max_cycles": {"file": "stdout.txt", "regex": r"finished, (\d+) cycles", "stat": "max"},
        },
    }
    spec.update(overrides)
    return spec


class Sandbox:
    """A temporary folder with the fake command, a spec and an output folder."""

    def __init__(self, spec, name="grid.json"):
        self.dir = tempfile.mkdtemp(prefix="test-sweep-")
        with open(os.path.join(self.dir, "fake.py"), "w") as f:
            f.write(FAKE)
        self.spec = os.path.join(self.dir, name)
        with open(self.spec, "w") as f:
            f.write(spec if isinstance(spec, str) else json.dumps(spec, indent=1))
        self.out = os.path.join(self.dir, "out")

    def sweep(self, *args, env=None, check=None, timeout=120, memory=None, spec=None):
        """memory: an address-space limit (bytes), so that an unbounded read fails at once instead of taking the
        machine's memory; timeout: a hang fails the test instead of stopping it."""
        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

        command = [sys.executable, SWEEP, spec or self.spec, "--out", self.out] + list(args)
        try:
            result = subprocess.run(command, capture_output=True, text=True, env=dict(os.environ, **(env or {})),
                                    timeout=timeout, preexec_fn=limit if memory else None)
        except subprocess.TimeoutExpired:
            raise AssertionError("sweep %s still running after %d s" % (" ".join(args), timeout)) from None
        if VERBOSE:
            sys.stderr.write(result.stderr)
        if check is not None and result.returncode != check:
            raise AssertionError("sweep %s exited %d, expected %d\nstdout:\n%s\nstderr:\n%s" % (
                " ".join(args), result.returncode, check, result.stdout, result.stderr))
        return result

    def start(self, *args, env=None):
        return subprocess.Popen([sys.executable, SWEEP, self.spec, "--out", self.out] + list(args),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                env=dict(os.environ, **(env or {})))

    def runs(self):
        try:
            with open(os.path.join(self.dir, "runs.log")) as f:
                return f.read().splitlines()
        except FileNotFoundError:
            return []

    def csv(self):
        with open(os.path.join(self.out, "results.csv"), newline="") as f:
            return list(csv.DictReader(f))

    def csv_text(self):
        with open(os.path.join(self.out, "results.csv"), newline="") as f:
            return f.read()

    def status(self, name):
        with open(os.path.join(self.out, name, "status.json")) as f:
            return json.load(f)

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def equal(actual, expected, what=""):
    if actual != expected:
        raise AssertionError("%s: expected %r, found %r" % (what or "value", expected, actual))


def contains(text, part, what="output"):
    if part not in text:
        raise AssertionError("%s does not contain %r:\n%s" % (what, part, text))


def wait_for_runs(box, count, limit=30.0):
    deadline = time.monotonic() + limit
    while len(box.runs()) < count:
        if time.monotonic() > deadline:
            raise AssertionError("only %d of %d points started in %.0f s" % (len(box.runs()), count, limit))
        time.sleep(0.02)


def leftovers(out):
    """Half-written files and folders of unfinished points."""
    found = []
    for name in os.listdir(out):
        path = os.path.join(out, name)
        if ".tmp." in name or name.endswith(".part"):
            found.append(path)
        if os.path.isdir(path) and not name.startswith(".") and name != "slurm":
            if not os.path.exists(os.path.join(path, "status.json")):
                found.append(path + "/ (no status.json)")
            found += [os.path.join(path, n) for n in os.listdir(path) if ".tmp." in n or n.endswith(".part")]
    return found


# ---------------------------------------------------------------------------------------------------- tests

def test_grid_order_and_results():
    box = Sandbox(spec_dict(axes={"a": ["x", "yy"], "pair": [{"b": 1, "c": "one"}, {"b": 3, "c": "three"}],
                                  "d": [True, 0.5]},
                            command=["{python}", "{spec_dir}/fake.py", "{a}", "{b}", "{spec_dir}/runs.log", "{c}",
                                     "{d}"]))
    try:
        dry = box.sweep("--dry-run", check=0).stdout.splitlines()
        names = [line.split(":")[0] for line in dry]
        equal(names, ["0 a=x,b=1,c=one,d=true", "1 a=x,b=1,c=one,d=0.5", "2 a=x,b=3,c=three,d=true",
                      "3 a=x,b=3,c=three,d=0.5", "4 a=yy,b=1,c=one,d=true", "5 a=yy,b=1,c=one,d=0.5",
                      "6 a=yy,b=3,c=three,d=true", "7 a=yy,b=3,c=three,d=0.5"], "grid order (first axis slowest)")
        box.sweep("-j", "3", check=0)
        rows = box.csv()
        equal([(r["a"], r["b"], r["c"], r["d"]) for r in rows],
              [(a, b, c, d) for a in ("x", "yy") for b, c in (("1", "one"), ("3", "three")) for d in ("true", "0.5")],
              "CSV rows in grid order")
        with open(os.path.join(box.out, "results.csv")) as f:
            header = f.readline().strip().split(",")
        equal(header, ["a", "b", "c", "d", "value", "second", "flag", "rows", "size_p50", "size_p90",
                       "size_median", "size_mean", "even_sum", "first_cycles", "max_cycles", "status", "exit_code",
                       "error"], "CSV header")
        row = rows[2]  # a=x, b=3: value 13, sizes 3, 6, ..., 30
        expected = {"value": "13", "second": "14", "flag": "true", "rows": "10", "size_p50": "15",
                    "size_p90": "27", "size_median": "16.5", "size_mean": "16.5", "even_sum": "90",
                    "first_cycles": "13", "max_cycles": "18", "status": "done", "exit_code": "0", "error": ""}
        for key, value in expected.items():
            equal(row[key], value, "results.csv %s" % key)
        equal(len(box.runs()), 8, "executions")
        point = os.path.join(box.out, "a=x,b=3,c=three,d=true")
        for name in ("point.json", "status.json", "stdout.txt", "stderr.txt", "result.json", "table.txt"):
            if not os.path.isfile(os.path.join(point, name)):
                raise AssertionError("%s missing in the point folder" % name)
        equal(leftovers(box.out), [], "leftovers")
    finally:
        box.close()


def test_resume_skips_finished_points():
    box = Sandbox(spec_dict())
    try:
        box.sweep("-j", "2", check=0)
        equal(len(box.runs()), 6, "executions of the first run")
        first = box.csv_text()
        box.sweep("-j", "2", check=0)
        equal(len(box.runs()), 6, "executions after a rerun of a finished sweep")
        equal(box.csv_text(), first, "results.csv after the rerun")
        shutil.rmtree(os.path.join(box.out, "a=yy,b=2"))
        os.remove(os.path.join(box.out, "a=x,b=3", "status.json"))  # as if killed before it finished
        with open(os.path.join(box.out, "a=x,b=3", "stale.txt"), "w") as f:
            f.write("from the unfinished attempt\n")
        box.sweep(check=0)
        equal(sorted(box.runs()[6:]), ["x,3", "yy,2"], "points run again")
        equal(os.path.exists(os.path.join(box.out, "a=x,b=3", "stale.txt")), False,
              "files of an unfinished attempt are removed before a point runs again")
        equal(box.csv_text(), first, "results.csv after the partial rerun")
        # Extending an axis runs only the new points; the CSV keeps grid order.
        with open(box.spec, "w") as f:
            json.dump(spec_dict(axes={"a": ["x", "yy"], "b": [1, 2, 3, 4]}), f)
        box.sweep(check=0)
        equal(sorted(box.runs()[8:]), ["x,4", "yy,4"], "points of the extended axis")
        equal([(r["a"], r["b"]) for r in box.csv()], [(a, str(b)) for a in ("x", "yy") for b in range(1, 5)],
              "rows of the extended grid")
    finally:
        box.close()


def test_failed_point_is_recorded_and_kept():
    box = Sandbox(spec_dict(axes={"a": ["x", "bad"], "b": [1, 2]}))
    try:
        result = box.sweep("-j", "2", check=1)
        contains(result.stderr, "FAILED a=bad,b=1", "sweep's stderr")
        status = box.status("a=bad,b=1")
        equal(status["state"], "failed", "state")
        equal(status["exit_code"], 3, "exit_code in status.json")
        contains(status["stderr_tail"], "fake: cannot handle a=bad", "stderr_tail")
        rows = {(r["a"], r["b"]): r for r in box.csv()}
        equal(rows[("bad", "1")]["status"], "failed", "CSV status")
        equal(rows[("bad", "1")]["exit_code"], "3", "CSV exit_code")
        contains(rows[("bad", "1")]["error"], "exit status 3: fake: cannot handle a=bad | fake: giving up", "error")
        equal(rows[("bad", "1")]["value"], "", "result of a failed point")
        equal(rows[("x", "1")]["status"], "done", "a good point's status")
        equal(len(box.runs()), 4, "executions")
        result = box.sweep(check=1)
        equal(len(box.runs()), 4, "executions after a rerun without --retry-failed")
        contains(result.stderr, "2 failed point(s) kept", "rerun's stderr")
        box.sweep("--retry-failed", check=1)
        equal(sorted(box.runs()[4:]), ["bad,1", "bad,2"], "points run again by --retry-failed")
    finally:
        box.close()


def test_missing_result_and_timeout_fail_the_point():
    spec = spec_dict(axes={"a": ["x"], "b": [1]}, timeout=1)
    spec["collect"]["missing"] = {"file": "result.json", "key": "nested.nothing"}
    box = Sandbox(spec)
    try:
        box.sweep(check=1)
        row = box.csv()[0]
        equal(row["status"], "failed", "status with a missing key")
        equal(row["exit_code"], "0", "exit code with a missing key")
        contains(row["error"], "result missing: result.json: no 'nothing' in nested", "error")
        started = time.monotonic()
        box.sweep("--retry-failed", env={"SLEEP": "30"}, check=1)
        if time.monotonic() - started > 20:
            raise AssertionError("the timeout did not stop the point")
        row = box.csv()[0]
        contains(row["error"], "timed out after 1 s", "error of a timed-out point")
    finally:
        box.close()


def interrupted_then_resumed(signum):
    reference = Sandbox(spec_dict(axes={"a": ["x", "yy"], "b": [1, 2, 3, 4]}))
    box = Sandbox(spec_dict(axes={"a": ["x", "yy"], "b": [1, 2, 3, 4]}))
    try:
        reference.sweep("-j", "2", check=0)
        proc = box.start("-j", "2", env={"SLEEP": "0.6"})
        wait_for_runs(box, 5)  # half way: some points done, two running
        proc.send_signal(signum)
        code = proc.wait(timeout=60)
        if signum == signal.SIGINT:
            equal(code, 130, "exit status after SIGINT")
            equal(leftovers(box.out), [], "leftovers after SIGINT")
            equal(sum(r["status"] == "pending" for r in box.csv()) > 0, True, "pending rows after SIGINT")
        else:
            equal(code, -signal.SIGKILL, "exit status after SIGKILL")
        started_before = len(box.runs())
        box.sweep("-j", "2", env={"SLEEP": "0.6"}, check=0)
        equal(box.csv_text(), reference.csv_text(), "results.csv of the resumed run vs an uninterrupted one")
        equal(leftovers(box.out), [], "leftovers after the resumed run")
        done_before = 8 - (len(box.runs()) - started_before)
        if done_before < 3:
            raise AssertionError("the resumed run reran finished points (%d runs in all)" % len(box.runs()))
    finally:
        reference.close()
        box.close()


def test_sigint_then_resume_gives_identical_csv():
    interrupted_then_resumed(signal.SIGINT)


def test_sigkill_then_resume_gives_identical_csv():
    interrupted_then_resumed(signal.SIGKILL)


def test_run_point_and_collect():
    box = Sandbox(spec_dict())
    try:
        box.sweep("--run-point", "4", check=0)
        equal(box.runs(), ["yy,2"], "the one point run")
        box.sweep("--run-point", "4", check=0)
        equal(box.runs(), ["yy,2"], "a done point is not run again")
        box.sweep("--collect", check=1)  # pending points: incomplete
        rows = box.csv()
        equal([r["status"] for r in rows], ["pending"] * 4 + ["done", "pending"], "statuses")
        equal(rows[4]["value"], "22", "the point's result")
        box.sweep(check=0)
        equal(len(box.runs()), 6, "executions after the local run")
        local = box.csv_text()
        box.sweep("--collect", check=0)
        equal(box.csv_text(), local, "--collect after the local run")
        box.sweep("--collect", "--timing", check=0)
        row = box.csv()[0]
        if not row["host"] or float(row["wall_s"]) <= 0:
            raise AssertionError("timing columns empty: %r" % row)
        result = box.sweep("--run-point", "9", check=2)
        contains(result.stderr, "the grid has points 0 to 5", "error")
        result = box.sweep("--run-point", "1", "--spec-hash", "0123456789abcdef", check=2)
        contains(result.stderr, "changed since the job array was submitted", "error")
    finally:
        box.close()


def test_changed_command_is_refused():
    box = Sandbox(spec_dict(axes={"a": ["x"], "b": [1]}))
    try:
        box.sweep(check=0)
        spec = spec_dict(axes={"a": ["x"], "b": [1]})
        spec["command"] = spec["command"] + ["extra"]
        with open(box.spec, "w") as f:
            json.dump(spec, f)
        result = box.sweep(check=2)
        contains(result.stderr, "was run with another command", "error")
    finally:
        box.close()


def test_changed_input_is_refused():
    box = Sandbox(spec_dict(axes={"a": ["x"], "b": [1, 2]}, inputs=["network.json", "{spec_dir}/fake.py"]))
    try:
        network = os.path.join(box.dir, "network.json")
        with open(network, "w") as f:
            f.write('{"rate": "100Gbps"}\n')
        box.sweep(check=0)
        recorded = json.load(open(os.path.join(box.out, "a=x,b=1", "point.json")))
        if sorted(recorded["inputs"]) != ["network.json", "{spec_dir}/fake.py"]:
            raise AssertionError("point.json inputs: %r" % recorded["inputs"])
        box.sweep(check=0)  # unchanged: the finished points are kept
        with open(network, "w") as f:
            f.write('{"rate": "400Gbps"}\n')
        result = box.sweep(check=2)
        contains(result.stderr, "ran with other inputs: network.json has changed", "error")
        contains(result.stderr, "delete %s" % os.path.join(box.out, "a=x,b=1"), "error")
        os.remove(network)
        result = box.sweep(check=2)
        contains(result.stderr, "input 'network.json': %s: cannot read: No such file" % network, "error")
    finally:
        box.close()


def test_shell_command_and_vars():
    spec = {"command": "{python} {script} {a} {b} {log} > shell-out.txt && echo 'spaced {{braces}}' >> shell-out.txt",
            "axes": {"a": ["with space", "plain"], "b": [7]},
            "vars": {"script": "{spec_dir}/fake.py", "log": "{spec_dir}/runs.log"},
            "env": {"SLEEP": "0"},
            "collect": {"value": {"file": "result.json", "key": "value"},
                        "lines": {"file": "shell-out.txt", "stat": "count"}}}
    box = Sandbox(spec)
    try:
        box.sweep(check=0)
        rows = box.csv()
        equal([(r["a"], r["value"], r["lines"]) for r in rows], [("with space", "107", "3"), ("plain", "57", "3")],
              "shell command results")
        names = sorted(n for n in os.listdir(box.out) if n.startswith("a="))
        equal(len(names), 2, "point folders")
        if not any(n.startswith("a=with_space,b=7-") for n in names):
            raise AssertionError("a value with a space should give a sanitised name with a hash: %r" % names)
        with open(os.path.join(box.out, "a=plain,b=7", "shell-out.txt")) as f:
            contains(f.read(), "spaced {braces}", "shell-out.txt")
    finally:
        box.close()


def test_malformed_specs():
    cases = [
        ({"command": "echo {a}", "axes": {"a": []}}, "grid.json: axes.a: expected a non-empty list of values"),
        ({"command": "echo {a} {zz}", "axes": {"a": [1]}}, "command: placeholder {zz} is not defined"),
        ({"command": "echo {a}", "axes": {"a": [1]}, "colect": {}}, "unknown key 'colect' (did you mean 'collect'?)"),
        ({"command": "echo {a}"}, "'axes' is required"),
        ({"axes": {"a": [1]}}, "'command' is required"),
        ({"command": "echo {a}", "axes": {}}, "axes: expected a non-empty mapping"),
        ({"command": "echo {a}", "axes": {"a": [1, 1]}}, "axes.a: duplicate value 1"),
        ({"command": "echo {a}", "axes": {"a": [1], "p": [{"a": 2}]}}, "parameter 'a' is already set by axis 'a'"),
        ({"command": "echo {a}", "axes": {"a": [1]}, "collect": {"r": {"file": "f", "column": 2}}},
         "collect.r: 'stat' is required"),
        ({"command": "echo {a}", "axes": {"a": [1]}, "collect": {"r": {"file": "f", "stat": "p200", "column": 1}}},
         "collect.r.stat: expected one of count"),
        ({"command": "echo {a}", "axes": {"a": [1]}, "collect": {"r": {"key": "x"}}}, "collect.r: 'file' is required"),
        ({"command": "echo {a}", "axes": {"a": [1]}, "collect": {"a": {"file": "f", "key": "x"}}},
         "collect.a: column 'a' is already a parameter"),
        ({"command": "echo {a", "axes": {"a": [1]}}, "command: unmatched '{'"),
        ({"command": "echo {a}", "axes": {"out": [1]}}, "axes.out: parameter name 'out' is a built-in"),
        ({"command": "echo {a}", "axes": {"a": [1]}, "timeout": 0}, "timeout: expected a number of seconds above 0"),
        ({"command": "echo {a}", "axes": {"a": [1]}, "slurm": {"array": "0-3"}}, "slurm.array: --array is set by"),
        ({"command": "echo {a}", "axes": {"a": [[1, 2]]}}, "axes.a: expected strings, numbers or booleans"),
        ({"command": "echo {a}", "axes": {"a": [1]}, "inputs": "net.json"}, "inputs: expected a list of file paths"),
        ({"command": "echo {a}", "axes": {"a": [1]}, "inputs": ["{a}.json"]}, "inputs: placeholder {a} is not defined"),
        ('{"command": "echo {a}", "axes": {"a": [1]}, "axes": {"a": [2]}}', "duplicate key 'axes'"),
        ('{"command": "echo {a}", "axes": {"a": [1]},}', "grid.json:1: invalid JSON"),
    ]
    for spec, message in cases:
        box = Sandbox(spec)
        try:
            result = box.sweep("--dry-run")
            equal(result.returncode, 2, "exit status for %r" % (spec,))
            contains(result.stderr, message, "error for %r" % (spec,))
            contains(result.stderr, box.spec, "error for %r" % (spec,))
        finally:
            box.close()


def test_yaml_spec_with_lines():
    try:
        import yaml  # noqa: F401
    except ImportError:
        print("  skipped: python3-yaml is not installed")
        return
    good = ("command: [\"{python}\", \"{spec_dir}/fake.py\", \"{a}\", \"{b}\", \"{spec_dir}/runs.log\"]\n"
            "axes:\n  a: [x]\n  b: [1, 2]\n"
            "collect:\n  value: {file: result.json, key: value}\n")
    box = Sandbox(good, name="grid.yaml")
    try:
        box.sweep(check=0)
        equal([r["value"] for r in box.csv()], ["11", "12"], "YAML spec results")
    finally:
        box.close()
    bad = "command: \"echo {a}\"\naxes:\n  a: [1]\n  b: []\n"
    box = Sandbox(bad, name="grid.yaml")
    try:
        result = box.sweep("--dry-run", check=2)
        contains(result.stderr, "grid.yaml:4: axes.b: expected a non-empty list of values", "YAML error")
    finally:
        box.close()
    box = Sandbox("command: x\naxes:\n  a: [1]\n  a: [2]\n", name="grid.yaml")
    try:
        contains(box.sweep("--dry-run", check=2).stderr, "grid.yaml:4: duplicate key 'a'", "YAML error")
    finally:
        box.close()


def test_scenario_specs_name_existing_inputs():
    # Every spec shipped in scenarios/ parses, and each input it lists from the repository exists: a renamed
    # config cannot leave a spec hashing a file that is gone. Its inputs from ../shared (benchmark data beside the
    # checkout) are empty stand-ins here, so the test reads nothing outside the repository.
    saved = os.environ.get("MLNET_SHARED_DIR")
    stand_in_shared.install()
    try:
        check_scenario_specs()
    finally:
        if saved is None:
            del os.environ["MLNET_SHARED_DIR"]
        else:
            os.environ["MLNET_SHARED_DIR"] = saved


def check_scenario_specs():
    specs = sorted(glob.glob(os.path.join(ROOT, "scenarios", "*", "*.yaml")))
    if len(specs) < 7:
        raise AssertionError("expected the scenario specs, found %r" % specs)
    for path in specs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ResourceWarning)
            spec = mlnet_sweep_spec.Spec(path)
        if not spec.inputs:
            raise AssertionError("%s lists no inputs" % path)
        spec.input_digests()


def test_slurm_dry_run():
    spec = spec_dict(axes={"a": ["x", "bad"], "b": [1, 2, 3]}, slurm={"time": "00:05:00", "partition": "debug"})
    box = Sandbox(spec)
    try:
        out = box.sweep("--slurm", "--dry-run", check=0).stdout
        contains(out, "#SBATCH --array=0-5\n", "batch script")
        contains(out, "#SBATCH --time=00:05:00", "batch script")
        contains(out, "#SBATCH --partition=debug", "batch script")
        contains(out, "#SBATCH --output=%s/slurm/%%A_%%a.out" % box.out, "batch script")
        contains(out, "--run-point \"$SLURM_ARRAY_TASK_ID\"", "batch script")
        contains(out, "--out %s" % box.out, "batch script")
        contains(out, "#   4 a=bad,b=2: %s %s/fake.py bad 2 %s/runs.log" % (sys.executable, box.dir, box.dir),
                 "per-point commands")
        contains(out, "--collect", "collecting job")
        equal(box.runs(), [], "executions by a dry run")
        equal(os.path.exists(os.path.join(box.out, "slurm", "sweep.sbatch")), False, "a dry run writes no script")
        box.sweep("-j", "2", check=1)  # 0-2 done, 3-5 failed
        contains(box.sweep("--slurm", "--dry-run", check=1).stderr, "nothing to submit", "every point finished")
        out = box.sweep("--slurm", "--dry-run", "--retry-failed", "-j", "2", check=0).stdout
        contains(out, "#SBATCH --array=3-5%2\n", "array of the failed points, 2 at once")
        shutil.rmtree(os.path.join(box.out, "a=x,b=2"))
        out = box.sweep("--slurm", "--dry-run", "--retry-failed", check=0).stdout
        contains(out, "#SBATCH --array=1,3-5\n", "array with a gap")
    finally:
        box.close()


# ---------------------------------------------------------------------------------------------------- hostile input

def refused(result, *parts, code=2):
    """A one-line refusal: the exit status, no traceback, and each part in the message."""
    if result.returncode != code or "Traceback" in result.stderr:
        raise AssertionError("expected exit %d without a traceback, found %d:\n%s" % (code, result.returncode,
                                                                                   result.stderr))
    for part in parts:
        contains(result.stderr, part, "error")


def have_yaml():
    try:
        import yaml  # noqa: F401
    except ImportError:
        print("  skipped the YAML cases: python3-yaml is not installed")
        return False
    return True


def test_out_naming_a_file_is_refused():
    box = Sandbox(spec_dict(axes={"a": ["x"], "b": [1]}))
    try:
        with open(box.out, "w") as f:
            f.write("not a folder\n")
        for args in ((), ("--dry-run",), ("--collect",), ("--run-point", "0"), ("--slurm", "--dry-run")):
            refused(box.sweep(*args), "sweep: --out %s: exists and is not a folder; expected a folder" % box.out)
        box.out = os.path.join(box.out, "below")
        refused(box.sweep(), "sweep: --out %s: cannot make the folder: Not a directory" % box.out)
        equal(box.runs(), [], "executions")
    finally:
        box.close()


def test_hostile_spec_files():
    box = Sandbox(spec_dict())
    try:
        def spec_file(name, content):
            path = os.path.join(box.dir, name)
            with open(path, "wb") as f:
                f.write(content if isinstance(content, bytes) else content.encode())
            return path

        noise = bytes(range(256)) * 4  # not UTF-8 (0x80 cannot start a character)
        cases = [
            (spec_file("noise.json", noise), "noise.json: not UTF-8 text (byte 0x80 at offset 128); expected a sweep "
                                             "spec"),
            (spec_file("empty.json", b""), "empty.json:1: invalid JSON"),
            (spec_file("list.json", b"[1, 2]"), "list.json: expected a mapping with 'command' and 'axes' at the top, "
                                                "found a list"),
            (spec_file("deep.json", b"[" * 100000 + b"]" * 100000), "deep.json: JSON nested too deeply to read"),
            (spec_file("huge.json", ('{"command": "echo {a}", "axes": {"a": [%s]}}' % ("9" * 5000)).encode()),
             "huge.json: invalid JSON: Exceeds the limit (4300 digits)"),
            (spec_file("nul.json", b'{"command": "echo {a}", "axes": {"a": ["x\\u0000y"]}}'),
             "nul.json: axes.a.0: 'x\\x00y' holds a NUL character"),
            (spec_file("surrogate.json", b'{"command": "echo {a}", "axes": {"a": ["\\ud800"]}}'),
             "surrogate.json: axes.a.0: '\\ud800' holds an unpaired surrogate; expected Unicode text"),
        ]
        os.mkdir(os.path.join(box.dir, "folder.json"))
        cases.append((os.path.join(box.dir, "folder.json"), "folder.json: is a folder; expected a sweep spec"))
        os.symlink("/dev/zero", os.path.join(box.dir, "zero.json"))
        cases.append((os.path.join(box.dir, "zero.json"), "zero.json: is a character device; expected a sweep spec"))
        os.mkfifo(os.path.join(box.dir, "fifo.json"))
        cases.append((os.path.join(box.dir, "fifo.json"), "fifo.json: is a FIFO; expected a sweep spec"))
        if have_yaml():
            cases += [
                (spec_file("noise.yaml", noise), "noise.yaml: not UTF-8 text"),
                (spec_file("empty.yaml", b""), "empty.yaml: expected a mapping with 'command' and 'axes' at the top, "
                                               "found nothing (an empty document)"),
                (spec_file("list.yaml", b"- command\n- axes\n"), "found a list"),
                (spec_file("scalar.yaml", b"just words\n"), "found a string"),
                (spec_file("deep.yaml", b"a: " + b"[" * 100000 + b"]" * 100000), "deep.yaml: YAML nested too deeply"),
                (spec_file("huge.yaml", ("command: echo {a}\naxes: {a: [%s]}\n" % ("9" * 5000)).encode()),
                 "huge.yaml: invalid YAML: Exceeds the limit (4300 digits)"),
            ]
        if os.geteuid() != 0:  # root reads any file
            os.chmod(spec_file("locked.json", json.dumps(spec_dict())), 0)
            cases.append((os.path.join(box.dir, "locked.json"), "locked.json: cannot read: Permission denied"))
        for path, message in cases:
            refused(box.sweep("--dry-run", spec=path, timeout=30, memory=1 << 30), message)
    finally:
        box.close()


def test_inputs_hashed_by_kind_and_in_chunks():
    box = Sandbox(spec_dict(axes={"a": ["x"], "b": [1]}))
    try:
        os.mkfifo(os.path.join(box.dir, "fifo"))
        os.mkdir(os.path.join(box.dir, "folder"))
        for name, kind in (("/dev/zero", "a character device"), ("fifo", "a FIFO"), ("folder", "a folder")):
            with open(box.spec, "w") as f:
                json.dump(spec_dict(axes={"a": ["x"], "b": [1]}, inputs=[name]), f)
            path = name if name.startswith("/") else os.path.join(box.dir, name)
            refused(box.sweep("--dry-run", timeout=30, memory=1 << 30),
                    "input %r: %s: is %s; expected a regular file (the spec's inputs are hashed)" % (name, path, kind))
        equal(box.runs(), [], "executions")
        # The digest is the file's SHA-256, read in chunks, and a file beyond the limit is refused.
        import hashlib
        import mlnet_io
        data = os.urandom(3 * mlnet_io.HASH_CHUNK_BYTES + 5)
        path = os.path.join(box.dir, "input.bin")
        with open(path, "wb") as f:
            f.write(data)
        equal(mlnet_io.sha256_file(path, "a test input"), hashlib.sha256(data).hexdigest(), "digest")
        try:
            mlnet_io.sha256_file(path, "a test input", limit=2 * mlnet_io.HASH_CHUNK_BYTES)
        except mlnet_io.InputError as e:
            contains(str(e), "%s: larger than 2 MiB; expected a test input of at most 2 MiB" % path, "error")
        else:
            raise AssertionError("a file beyond the limit was hashed")
    finally:
        box.close()


def test_numeric_keys_are_finite_and_bounded():
    base = {"command": "echo {a}", "axes": {"a": [1]}}
    cases = [
        ('"timeout": NaN', "timeout: nan is not a finite number; expected a finite number"),
        ('"timeout": Infinity', "timeout: inf is not a finite number"),
        ('"timeout": -1', "timeout: expected a number of seconds above 0 and at most 2592000 (30 days), found -1"),
        ('"timeout": 1e300', "timeout: expected a number of seconds above 0 and at most 2592000 (30 days), found "
                             "1e+300"),
        ('"timeout": 100000000000000000000', "timeout: expected a number of seconds above 0 and at most 2592000 (30 "
                                             "days), found 100000000000000000000"),
        ('"timeout": true', "timeout: expected a number of seconds above 0 and at most 2592000 (30 days), found True"),
        ('"collect": {"r": {"file": "f", "stat": "sum", "column": 100000000000000000000}}',
         "collect.r.column: expected a column number from 1 to 100000, found 100000000000000000000"),
        ('"collect": {"r": {"file": "f", "stat": "count", "skip": -1}}',
         "collect.r.skip: expected a number of header lines from 0 to 1000000000, found -1"),
        ('"collect": {"r": {"file": "f", "stat": "count", "where": {"99999999999999999999": 1}}}',
         "collect.r.where: expected column numbers from 1 to 100000 as keys"),
        ('"collect": {"r": {"file": "f", "stat": "count", "where": {"\\u00b2": 1}}}',
         "collect.r.where: expected column numbers from 1 to 100000 as keys, found '\u00b2'"),
        ('"env": {"X": -Infinity}', "env.X: -inf is not a finite number"),
    ]
    for extra, message in cases:
        text = json.dumps(base)[:-1] + ", " + extra + "}"
        box = Sandbox(text)
        try:
            refused(box.sweep("--dry-run"), "grid.json: " + message)
        finally:
            box.close()
    box = Sandbox('{"command": "echo {a}", "axes": {"a": [NaN, 1]}}')
    try:
        refused(box.sweep("--dry-run"), "grid.json: axes.a.0: nan is not a finite number")
    finally:
        box.close()
    if have_yaml():
        for value in (".nan", ".inf", "-.inf"):
            box = Sandbox("command: echo {a}\naxes: {a: [1]}\ntimeout: %s\n" % value, name="grid.yaml")
            try:
                refused(box.sweep("--dry-run"), "grid.yaml:3: timeout: ", "is not a finite number")
            finally:
                box.close()


def test_grid_and_expansions_are_bounded():
    values = list(range(101))
    box = Sandbox({"command": "echo {a} {b} {c}", "axes": {"a": values, "b": values, "c": values}})
    try:
        refused(box.sweep("--dry-run", timeout=60, memory=2 << 30),
                "axes: the grid has 1030301 points; expected at most 1000000")
    finally:
        box.close()
    # Each var eight times the one before: 16 * 8^9 characters (8.6 GB) if expanded.
    spec = {"command": "echo {v9}", "axes": {"a": ["x" * 16]}, "vars": {"v1": "{a}" * 8}}
    for i in range(2, 10):
        spec["vars"]["v%d" % i] = "{v%d}" % (i - 1) * 8
    box = Sandbox(spec)
    try:
        refused(box.sweep("--dry-run", timeout=60, memory=1 << 30),
                "vars.v6: can expand to 4194304 characters; expected at most 1048576")
    finally:
        box.close()


# Values that are shell code if a shell ever parses them, and the places a placeholder can stand in a string
# command: outside quotes, inside "...", inside '...', inside $(...) inside "...", inside $(...) unquoted; the
# arithmetic and the quote inside ${...} before them must not throw the reading of the quoting off.
SHELL_VALUES = ["$(touch PWNED)", "`touch PWNED2`", "it's", 'say "hi" \\ $HOME', "two  words", "; touch PWNED3 #", ""]
SHELL_COMMAND = ("printf '%s|\\n' \"$((1))\" \"${{UNSET_IN_TEST:-it's}}\" {x} \"{x}\" '{x}' "
                 "\"$(printf '%s' '{x}')\" $(printf '%s' {x}) \"a{x}b\" 'a{x}b' > out.txt")


def test_shell_values_are_never_code():
    spec = {"command": SHELL_COMMAND, "axes": {"x": SHELL_VALUES},
            "collect": {"lines": {"file": "out.txt", "stat": "count"}}}
    box = Sandbox(spec)
    try:
        dry = box.sweep("--dry-run", check=0).stdout
        result = box.sweep()
        pwned = glob.glob(os.path.join(box.dir, "**", "PWNED*"), recursive=True)
        equal(pwned, [], "files made by a value run as a command")
        equal(result.returncode, 0, "exit status (stderr: %s)" % result.stderr)
        folders = {}
        for name in os.listdir(box.out):
            if name.startswith("x="):
                with open(os.path.join(box.out, name, "point.json")) as f:
                    folders[json.load(f)["index"]] = os.path.join(box.out, name)
        for index, value in enumerate(SHELL_VALUES):
            with open(os.path.join(folders[index], "out.txt")) as f:
                lines = f.read().split("|\n")[:-1]
            # $(...) outside double quotes splits its output into words, as the shell always does.
            expected = ["1", "it's"] + [value] * 4 + value.split() + ["a%sb" % value, "a%sb" % value]
            equal(lines, expected, "the command's arguments for %r" % value)
        # The command as recorded and printed is the same command with the values quoted: pasted into sh, it
        # writes the same file and nothing else.
        for line in dry.splitlines():
            index, rest = line.split(" ", 1)
            command = rest.split(": ", 1)[1]
            scratch = tempfile.mkdtemp(prefix="test-sweep-paste-")
            try:
                subprocess.run(["/bin/sh", "-c", command], cwd=scratch, check=True)
                with open(os.path.join(scratch, "out.txt")) as a, \
                        open(os.path.join(folders[int(index)], "out.txt")) as b:
                    equal(a.read(), b.read(), "output of the printed command %r" % command)
                equal(os.listdir(scratch), ["out.txt"], "files made by the printed command")
            finally:
                shutil.rmtree(scratch)
    finally:
        box.close()


def test_placeholders_where_no_quoting_can_hold_them():
    for command, problem in (("echo \\{x}", "follows a backslash"), ("echo 1 # {x}", "is inside a shell comment"),
                             ("cat <<EOF\n{x}\nEOF", "follows a here-document operator (<<)"),
                             ("echo ${{HOME:-{x}}}", "is inside ${...}"),
                             ("echo \"`echo {x}`\"", "is inside `...` (write $(...) instead)"),
                             ("echo $(( {x} + 1 ))", "is inside $((...))")):
        box = Sandbox({"command": command, "axes": {"x": ["$(touch PWNED)"]}})
        try:
            refused(box.sweep("--dry-run"), "grid.json: command: placeholder {x} %s" % problem)
        finally:
            box.close()
    box = Sandbox({"command": "echo {x}", "axes": {"x": [1]}, "env": {"MLNET_SWEEP_x": "2"}})
    try:
        refused(box.sweep("--dry-run"), "env.MLNET_SWEEP_x: MLNET_SWEEP_* is where a string command finds")
    finally:
        box.close()


def test_slurm_script_holds_no_unquoted_path():
    # A newline in the spec's folder used to end the script's comment and make the rest a command.
    root = tempfile.mkdtemp(prefix="test-sweep-slurm-")
    try:
        folder = os.path.join(root, "evil\ntouch PWNED\n")
        os.mkdir(folder)
        spec = os.path.join(folder, "grid.json")
        with open(spec, "w") as f:
            json.dump(spec_dict(axes={"a": ["x"], "b": [1]}), f)
        box = Sandbox(spec_dict(axes={"a": ["x"], "b": [1]}))
        try:
            result = box.sweep("--slurm", "--dry-run", spec=spec)
            if any(line.startswith("touch") for line in result.stdout.splitlines()):
                raise AssertionError("a line of the path became a command:\n" + result.stdout)
            refused(result, "sweep: SPEC %r: a path with a newline or another control character cannot go into a "
                            "Slurm batch script" % spec)
        finally:
            box.close()
        # Spaces and quotes in the spec's path are quoted wherever it appears.
        folder = os.path.join(root, "it's a $(dir)")
        os.mkdir(folder)
        spec = os.path.join(folder, "grid.json")
        with open(spec, "w") as f:
            json.dump(spec_dict(axes={"a": ["x"], "b": [1]}), f)
        box = Sandbox(spec_dict(axes={"a": ["x"], "b": [1]}))
        try:
            out = box.sweep("--slurm", "--dry-run", spec=spec, check=0).stdout
            quoted = shlex.quote(spec)
            contains(out, "# Slurm job array of sweep grid (%s):" % quoted, "batch script")
            contains(out, "scripts/sweep %s --out" % quoted, "batch script")
            script = out.split("\n# then,")[0].split("\n", 1)[1]
            syntax = subprocess.run(["/bin/sh", "-n"], input=script, text=True, capture_output=True)
            equal(syntax.returncode, 0, "sh -n on the batch script: %s" % syntax.stderr)
            # --out and #SBATCH values take no quoting: refused.
            box.out = os.path.join(box.dir, "it's")
            refused(box.sweep("--slurm", "--dry-run", spec=spec), "sweep: --out %s: Slurm's #SBATCH lines cannot "
                                                                  "hold a path with spaces, quotes or backslashes"
                    % shlex.quote(box.out))
        finally:
            box.close()
        box = Sandbox(spec_dict(axes={"a": ["x"], "b": [1]}, slurm={"comment": "a'b"}))
        try:
            refused(box.sweep("--slurm", "--dry-run"), "slurm.comment: expected one word without spaces, quotes")
        finally:
            box.close()
    finally:
        shutil.rmtree(root)


def test_command_killed_by_an_unnamed_signal():
    # Real-time signals have no name in Python's signal module; a command they kill is a failed point like another.
    box = Sandbox({"command": "kill -%d $$" % (signal.SIGRTMIN + 6), "axes": {"a": [1]}})
    try:
        result = box.sweep(check=1)
        if "Traceback" in result.stderr:
            raise AssertionError(result.stderr)
        equal((box.csv()[0]["exit_code"], box.csv()[0]["error"]),
              (str(128 + signal.SIGRTMIN + 6), "killed by signal %d" % (signal.SIGRTMIN + 6)), "exit code and error")
    finally:
        box.close()


def test_hand_edited_point_files():
    spec = spec_dict(axes={"a": ["x", "yy"], "b": [1]})
    spec["command"] = ["/bin/sh", "-c", "printf '1\\n%s\\n' \"$0\" > big.txt; ln -s /dev/zero zero; "
                                        "exec \"$@\"", "9" * 400] + spec["command"]
    spec["collect"] = {"value": spec["collect"]["value"],
                       "big": {"file": "big.txt", "column": 1, "stat": "mean"}}
    box = Sandbox(spec)
    try:
        # A 400-digit number has no mean (a double overflows): the point fails with the reason.
        box.sweep(check=1)
        contains(box.csv()[0]["error"], "result big: big.txt:2: '9999999999999999999999999999999999999'... is beyond "
                                        "a double's range", "error")
        # A collect rule reading a device fails the point with a message, instead of reading it forever.
        spec["collect"] = {"zero": {"file": "zero", "stat": "count"}}
        with open(box.spec, "w") as f:
            json.dump(spec, f)
        box.sweep("--retry-failed", check=1, timeout=60, memory=1 << 30)
        contains(box.csv()[0]["error"], "result zero: zero: is a character device; expected a result file", "error")
        # status.json and point.json as a person or a broken disk may leave them.
        with open(os.path.join(box.out, "a=x,b=1", "status.json"), "w") as f:
            json.dump({"state": "done"}, f)  # no exit_code, error, wall_s or host
        with open(os.path.join(box.out, "a=yy,b=1", "point.json"), "w") as f:
            json.dump([1, 2], f)
        refused(box.sweep("--collect", "--timing"), "point a=yy,b=1 in %s was run with another command" % box.out)
        shutil.rmtree(os.path.join(box.out, "a=yy,b=1"))
        refused(box.sweep("--collect", "--timing", timeout=60, memory=1 << 30),
                "sweep: a=x,b=1: result zero: zero: is a character device", code=1)
        os.remove(os.path.join(box.out, "a=x,b=1", "point.json"))
        os.symlink("/dev/zero", os.path.join(box.out, "a=x,b=1", "point.json"))
        refused(box.sweep("--collect", timeout=60, memory=1 << 30),
                "point a=x,b=1 in %s was run with another command" % box.out)
        with open(os.path.join(box.out, "a=x,b=1", "status.json"), "w") as f:
            f.write("[" * 100000)  # deeper than Python's parser: read as no status, so the point is pending
        refused(box.sweep("--collect", timeout=60), "(2 points: 0 done, 0 failed, 2 pending)", code=1)
        shutil.rmtree(os.path.join(box.out, ".locks"))
        with open(os.path.join(box.out, ".locks"), "w") as f:
            f.write("a file where the locks go\n")
        refused(box.sweep(), "sweep: %s: File exists" % os.path.join(box.out, ".locks"))
    finally:
        box.close()


def main():
    tests = [(name, fn) for name, fn in globals().items() if name.startswith("test_") and callable(fn)]
    passed = failed = 0
    for name, fn in tests:
        started = time.monotonic()
        try:
            fn()
        except Exception:
            failed += 1
            print("FAIL %s\n%s" % (name, traceback.format_exc()), flush=True)
        else:
            passed += 1
            print("ok   %s (%.1f s)" % (name, time.monotonic() - started), flush=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
