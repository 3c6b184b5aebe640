#!/usr/bin/env python3
"""zerosign_ref.py GPUSTAT DIR PART - the sign of zero sums and scans
against numpy, for tests/test_zerosign.sh.

Each input is a leading run of -0 (of random length, across chunks and
threads' slices) and then small integers, +0, -0 and, for stats, NaNs: every
prefix is exact in every float type, so numpy's float64 cumsum, rounded to
the type, is the exact answer with IEEE's sign of zero (-0 only where every
term is -0). Prints "ok NAME", "FAIL NAME: why" and last "checks N".
PART: sum, scan or carry (scans continued from a state: --carry-in).
"""
import json
import os
import subprocess
import sys

import numpy as np

G, T, PART = sys.argv[1], sys.argv[2], sys.argv[3]
# ZS_ARGS: more options for every run (--backend cuda, --devices 0,0);
# ZS_CASES: inputs per part
EXTRA = os.environ.get("ZS_ARGS", "").split()
CASES = int(os.environ.get("ZS_CASES", "60"))
rng = np.random.default_rng(3001)
FLOATS = {"f16": np.float16, "f32": np.float32, "f64": np.float64}
checks = 0


def run(args, data=None):
    p = subprocess.run([G] + args + EXTRA, input=data, capture_output=True)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def check(name, want, got):
    global checks
    checks += 1
    if want == got:
        print("ok", name)
    else:
        print(f"FAIL {name}: want {want[:48].hex()} got {got[:48].hex()}")


def column(n, run_len, nan):
    """n values: run_len -0 first, then ints, zeros of both signs, NaNs."""
    v = np.full(n, -0.0)
    rest = n - run_len
    if rest > 0:
        pick = rng.integers(0, 5, rest)
        tail = np.where(pick == 0, rng.integers(-3, 4, rest).astype(float),
                        np.where(pick == 1, 0.0, -0.0))
        if nan:
            tail = np.where(rng.random(rest) < 0.05, np.nan, tail)
        v[run_len:] = tail
    if nan and run_len > 2:		# NaNs inside the run: stats skip them
        v[rng.integers(0, run_len, 2)] = np.nan
    return v


def table(n, cols, nan=False):
    runs = [int(rng.choice([0, 1, n // 3, n - 1, n, rng.integers(0, n + 1)]))
            for _ in range(cols)]
    return np.stack([column(n, min(r, n), nan) for r in runs], axis=1), runs


def cumsum(a, exclusive):
    c = np.cumsum(a, axis=0)		# float64: exact for these values
    if exclusive:
        c = np.concatenate([np.zeros((1, a.shape[1])), c[:-1]])
    return c


def opts(n, big):
    j = ["-j", "1"] if rng.random() < 0.3 else ["-j", "3"]
    return j + ["--chunk-size", str(int(rng.choice([n // 5 + 1, n // 2 + 1, 4096])) * 8)]


def part_sum():
    for case in range(CASES):
        t = list(FLOATS)[case % 3]
        ft = FLOATS[t]
        n = int(rng.integers(1, 3000))
        cols = int(rng.integers(1, 4))
        big = case % 7 == 3
        a, runs = table(n, cols, nan=False)
        x = a.astype(ft)
        data = x.astype(x.dtype.newbyteorder(">" if big else "<")).tobytes()
        tt = (">" if big else "") + {"f16": "f2", "f32": "f4", "f64": "f8"}[t]
        o = opts(n, big)
        rc, out, err = run(["sum", "-t", tt, "-c", str(cols), "-f", "binary"]
                           + o, data)
        # cumsum adds in order (np.sum along an axis of a 2-D array starts
        # from +0, so its sum of -0 terms is +0)
        want = np.cumsum(x.astype(np.float64), axis=0)[-1].astype(
            "<f8").tobytes()
        check(f"sum {t} c{cols} n{n} runs{runs} {o}", want, out)
        # stats: the sum and mean of the non-NaN values (fields 5, 6)
        an, runs = table(n, cols, nan=True)
        x = an.astype(ft)
        rc, out, err = run(["stats", "-t", t, "-c", str(cols), "-f", "json"]
                           + o, x.tobytes())
        try:
            got = json.loads(out, parse_int=str, parse_float=str)
        except ValueError:
            check(f"stats {t} json", b"json", out + err.encode())
            continue
        for j in range(cols):
            v = x[:, j].astype(np.float64)
            v = v[~np.isnan(v)]
            s = np.cumsum(v)[-1] if v.size else 0.0
            for field in ("sum", "mean"):
                want = "-0" if s == 0 and np.signbit(s) else "not -0"
                g = got.get(field, [None] * cols)[j]
                have = "-0" if g == "-0" else "not -0"
                check(f"stats {field} {t} col{j} n{n} runs{runs} {o}",
                      want.encode(), have.encode())


def part_scan(carry):
    for case in range(CASES):
        t = list(FLOATS)[case % 3]
        ft = FLOATS[t]
        n = int(rng.integers(2, 3000))
        cols = int(rng.integers(1, 4))
        excl = case % 2 == 1
        a, runs = table(n, cols)
        x = a.astype(ft)
        o = opts(n, False)
        ex = ["--exclusive"] if excl else []
        base = ["-t", t, "-c", str(cols)] + ex
        want = cumsum(x.astype(np.float64), excl).astype(ft).tobytes()
        if not carry:
            rc, out, err = run(["scan"] + base + o, x.tobytes())
            check(f"scan {t} c{cols} excl={excl} n{n} runs{runs} {o}",
                  want, out)
            continue
        # the first k records' state, then the rest from it
        k = int(rng.integers(1, n))
        rc, st, err = run(["scan"] + base + ["-f", "state"] + o,
                          x[:k].tobytes())
        with open(f"{T}/carry.state", "wb") as f:
            f.write(st)
        rc, out, err = run(["scan"] + base + o + ["--carry-in",
                           f"{T}/carry.state"], x[k:].tobytes())
        w = cumsum(x.astype(np.float64), excl)[k:].astype(ft).tobytes()
        check(f"carry {t} c{cols} excl={excl} n{n} k{k} runs{runs} {o}",
              w, out + err.encode())


if PART == "sum":
    part_sum()
elif PART == "scan":
    part_scan(False)
else:
    part_scan(True)
print("checks", checks)
