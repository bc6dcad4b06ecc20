#!/usr/bin/python3
"""A mutation fuzzer for scripts/sweep's spec reader (the sweep spec is read by Python, which libFuzzer cannot
drive). Every input is a spec file: mutated bytes of the seed specs (scenarios/*/*.yaml and the spec-shaped seeds
below) or of earlier inputs, with tokens that matter to YAML, JSON and the placeholder and shell rules spliced in.
Each must end in a SpecError (a message) or a spec whose every point renders its command and environment: any
other exception, or an input that takes more than 10 s, is a finding, kept in FINDINGS with its traceback.

Usage: fuzz-sweep-spec.py SECONDS CORPUS FINDINGS [--seed N]
Prints libFuzzer's 'stat::number_of_executed_units: N' line so that scripts/fuzz reports it like the others.
"""
import os
import random
import signal
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "scripts"))
sys.dont_write_bytecode = True

from mlnet_sweep_spec import Spec, SpecError  # noqa: E402

SEEDS = [
    b'command: "echo {x} > out.txt"\naxes: {x: [1, 2]}\ncollect: {v: {file: out.txt, column: 1, stat: mean}}\n',
    b'command: ["{bin}/mlnet-flows", "--seed={seed}", "cfg.txt"]\naxes:\n  seed: [1, 2, 3]\n  cc: [dcqcn]\n'
    b'vars: {tag: "{cc}-{seed}"}\nenv: {OMP_NUM_THREADS: 1}\ntimeout: 30\n',
    b'{"command": "sh -c \'echo \\"{a}\\" $(echo {b})\'", "axes": {"a": ["x y", "$(id)"], "b": [1]},'
    b' "slurm": {"partition": "p"}}\n',
    b'command: "run {p} {q}"\naxes:\n  pair: [{p: 1, q: a}, {p: 2, q: b}]\ninputs: ["{spec_dir}/x"]\n',
]
TOKENS = [b"{", b"}", b"{{", b"}}", b"{x}", b"{out}", b"{bin}", b"$(", b")", b"`", b"'", b'"', b"\\", b"\n",
          b"\n  - ", b": ", b"- ", b"#", b"&a ", b"*a", b"!!python/object:os.system", b"!!binary", b".nan", b".inf",
          b"-.inf", b"1e999", b"NaN", b"Infinity", b"9" * 5000, b"[" * 200, b"{" * 200, b"\x00", b"\xff\xfe",
          b"\xed\xa0\x80", b"<<", b"$((", b"${", b"timeout: ", b"axes: ", b"command: ", b"collect: ", b"vars: ",
          b"env: ", b"inputs: ", b"slurm: ", b"stat: p99.9", b"column: 0", b"skip: -1", b"where: ", b"file: ",
          b"/dev/zero", b"../" * 10, b"\t", b"\r\n", b"\ufeff".decode().encode()]


def mutate(data, rng, pool):
    data = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        choice = rng.random()
        pos = rng.randint(0, len(data))
        if choice < 0.3:
            data[pos:pos] = rng.choice(TOKENS)
        elif choice < 0.45 and data:
            end = min(len(data), pos + rng.randint(1, 16))
            del data[pos:end]
        elif choice < 0.6 and data:
            i = rng.randrange(len(data))
            data[i] = rng.randrange(256)
        elif choice < 0.75 and data:
            start = rng.randrange(len(data))
            data[pos:pos] = data[start:start + rng.randint(1, 64)]
        elif choice < 0.85:
            other = rng.choice(pool)
            cut = rng.randint(0, len(other))
            data = data[:pos] + bytearray(other[cut:cut + rng.randint(1, 200)]) + data[pos:]
        else:
            data[pos:pos] = bytes(rng.randrange(32, 127) for _ in range(rng.randint(1, 8)))
    return bytes(data[:1 << 16])


class Timeout(Exception):
    pass


def on_alarm(signum, frame):
    raise Timeout()


def run_one(path, out):
    try:
        spec = Spec(path)
    except SpecError:
        return
    for point in spec.points[:20]:
        spec.command_for(point, out)
        spec.run_environment(point, out)


def main(argv):
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    seconds, corpus, findings = float(argv[1]), argv[2], argv[3]
    rng = random.Random(int(argv[5]) if len(argv) > 5 and argv[4] == "--seed" else 1)
    os.makedirs(findings, exist_ok=True)
    pool = list(SEEDS)
    for root, _, files in os.walk(corpus):
        for name in files:
            with open(os.path.join(root, name), "rb") as f:
                pool.append(f.read(1 << 16))
    signal.signal(signal.SIGALRM, on_alarm)
    work = tempfile.mkdtemp(prefix="fuzz-sweep-spec-")
    sys.stderr = open(os.devnull, "w")  # the reader's warnings
    deadline = __import__("time").monotonic() + seconds
    executed, found = 0, 0
    clock = __import__("time").monotonic
    while clock() < deadline:
        data = mutate(rng.choice(pool), rng, pool)
        for suffix in (".yaml", ".json"):
            path = os.path.join(work, "spec" + suffix)
            with open(path, "wb") as f:
                f.write(data)
            signal.setitimer(signal.ITIMER_REAL, 10)
            try:
                run_one(path, os.path.join(work, "out"))
                signal.setitimer(signal.ITIMER_REAL, 0)
            except BaseException as e:  # noqa: B902 -- a finding is any escape, including a timeout
                signal.setitimer(signal.ITIMER_REAL, 0)
                if isinstance(e, KeyboardInterrupt):
                    raise
                found += 1
                name = os.path.join(findings, "finding-%d%s" % (found, suffix))
                with open(name, "wb") as f:
                    f.write(data)
                with open(name + ".txt", "w") as f:
                    f.write("timeout after 10 s\n" if isinstance(e, Timeout) else traceback.format_exc())
            executed += 1
        if executed % 64 == 0 and rng.random() < 0.05 and len(pool) < 4096:
            pool.append(data)  # keep some inputs that parse far enough to be worth mutating further
    print("stat::number_of_executed_units: %d" % executed)
    print("findings: %d%s" % (found, (" (in %s)" % findings) if found else ""))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
