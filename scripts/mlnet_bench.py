"""What the benchmark scripts share: a child run measured on its own (CPU seconds and peak memory from wait4,
so a shared machine's other load does not enter the figure)."""
import os
import subprocess


def run_measured(cmd, cwd, env=None):
    """Runs cmd in cwd with stdout.txt and stderr.txt there; returns (exit status, CPU seconds, peak RSS MB,
    stdout) of that child alone."""
    with open(os.path.join(cwd, "stdout.txt"), "w") as out, open(os.path.join(cwd, "stderr.txt"), "w") as err:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
    with open(os.path.join(cwd, "stdout.txt"), errors="replace") as f:
        text = f.read()
    return os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0, text
