#!/usr/bin/env python3
"""zerosign_ref.py GPUSTAT DIR PART - the sign of zero sums and scans,
for tests/test_zerosign.sh; python3's standard library alone, numpy (where
python3 has it) as a second reference beside it.

Each column is a leading run of -0 (of random length, across chunks and
threads' slices) and then small integers, +0, -0 and, for stats, NaNs; or
(a negative run in a check's name) zeros of both signs and then only -0. The
answer is derived by rule: a sum's value is the exact sum of its terms
(fractions.Fraction) rounded once to the type (struct packs with IEEE's
round to nearest even), and a zero sum is -0 only when it has terms and every
one is -0 (IEEE 754: x + y of opposite signs that cancel is +0 in round to
nearest; -0 + -0 is -0), as numpy's cumsum gives; an exclusive scan's first
prefix (no terms) is +0. Where numpy imports, each expectation is also
computed by numpy (float64 cumsum, rounded to the type) and the two must
agree. Prints "ok NAME", "FAIL NAME: why" and last "checks N".
PART: sum, scan or carry (scans continued from a state: --carry-in).
"""
import json
import math
import os
import random
import struct
import subprocess
import sys
from fractions import Fraction

try:
    import numpy as np
except ImportError:
    np = None

G, T, PART = sys.argv[1], sys.argv[2], sys.argv[3]
# ZS_ARGS: more options for every run (--backend cuda, --devices 0,0);
# ZS_CASES: inputs per part
EXTRA = os.environ.get("ZS_ARGS", "").split()
CASES = int(os.environ.get("ZS_CASES", "60"))
rng = random.Random(3001)
CODE = {"f16": "e", "f32": "f", "f64": "d"}	# struct's codes
NPT = {"f16": "<f2", "f32": "<f4", "f64": "<f8"}
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


def isnegzero(v):
    return v == 0 and math.copysign(1.0, v) < 0


def column(n, run_len, nan):
    """n values: run_len -0 first, then ints, zeros of both signs, NaNs."""
    v = [-0.0] * n
    for i in range(run_len, n):
        pick = rng.randrange(5)
        v[i] = float(rng.randint(-3, 3)) if pick == 0 else \
            0.0 if pick == 1 else -0.0
        if nan and rng.random() < 0.05:
            v[i] = math.nan
    if nan and run_len > 2:		# NaNs inside the run: stats skip them
        for _ in range(2):
            v[rng.randrange(run_len)] = math.nan
    return v


def late(n, head, nan):
    """n values: zeros of both signs (a +0 first) for head, then -0 only:
    a zero sum whose -0 terms come after a +0, in later chunks."""
    v = [0.0] + [rng.choice([0.0, -0.0]) for _ in range(head - 1)]
    v += [-0.0] * (n - head)
    if nan:
        for _ in range(2):
            v[rng.randrange(n)] = math.nan
    return v[:n]


def table(n, cols, nan=False):
    """cols columns of n values (a list of columns) and their runs (a
    negative run: late's head)."""
    runs = [rng.choice([0, 1, n // 3, n - 1, n, rng.randint(0, n)])
            for _ in range(cols)]
    runs = [-max(1, min(r, n)) if rng.random() < 0.25 else min(r, n)
            for r in runs]
    return [late(n, -r, nan) if r < 0 else column(n, r, nan)
            for r in runs], runs


def typed(col, t):
    """the column's values as the type holds them (f16 and f32 rounded)."""
    return [struct.unpack("<" + CODE[t], struct.pack("<" + CODE[t], v))[0]
            for v in col]


def pack(cols, t, big=False):
    """the records (row by row) as bytes of type t."""
    fmt = (">" if big else "<") + CODE[t] * len(cols)
    return b"".join(struct.pack(fmt, *row) for row in zip(*cols))


def exact_sum(terms):
    """the sum of terms (NaNs skipped) by rule: the exact value, -0 when
    there are terms and every one is -0, else a zero is +0."""
    terms = [v for v in terms if not math.isnan(v)]
    if terms and all(isnegzero(v) for v in terms):
        return -0.0
    return float(sum(Fraction(v) for v in terms))	# exact, one rounding


def prefixes(col, exclusive):
    """the scan of one column by rule: each prefix's exact_sum."""
    out, acc, allneg = [], Fraction(0), True
    for i, v in enumerate(col):
        if exclusive:
            out.append(-0.0 if i and allneg else float(acc))
        acc += Fraction(v)
        allneg = allneg and isnegzero(v)
        if not exclusive:
            out.append(-0.0 if allneg else float(acc))
    return out


def np_cumsum(cols, t, exclusive):
    """numpy's scan of the same values: float64 cumsum (exact here)."""
    a = np.array(cols, dtype=np.float64).T.astype(NPT[t])
    c = np.cumsum(a.astype(np.float64), axis=0)
    if exclusive:
        c = np.concatenate([np.zeros((1, a.shape[1])), c[:-1]])
    return c


def agree(name, mine, theirs):
    """the standard-library reference against numpy's, bit for bit."""
    if mine != theirs:
        print(f"FAIL reference {name}: rule {mine[:48].hex()} "
              f"numpy {theirs[:48].hex()}")


def opts(n):
    j = ["-j", "1"] if rng.random() < 0.3 else ["-j", "3"]
    return j + ["--chunk-size",
                str(rng.choice([n // 5 + 1, n // 2 + 1, 4096]) * 8)]


def part_sum():
    for case in range(CASES):
        t = list(CODE)[case % 3]
        n = rng.randint(1, 2999)
        cols = rng.randint(1, 3)
        big = case % 7 == 3
        a, runs = table(n, cols, nan=False)
        x = [typed(c, t) for c in a]
        tt = (">" if big else "") + {"f16": "f2", "f32": "f4", "f64": "f8"}[t]
        o = opts(n)
        rc, out, err = run(["sum", "-t", tt, "-c", str(cols), "-f", "binary"]
                           + o, pack(x, t, big))
        want = struct.pack(f"<{cols}d", *(exact_sum(c) for c in x))
        if np is not None:
            # cumsum adds in order (np.sum along an axis of a 2-D array
            # starts from +0, so its sum of -0 terms is +0)
            agree(f"sum {t} n{n}", want,
                  np_cumsum(x, "f64", False)[-1].astype("<f8").tobytes())
        check(f"sum {t} c{cols} n{n} runs{runs} {o}", want, out)
        # stats: the sum and mean of the non-NaN values (fields 5, 6)
        an, runs = table(n, cols, nan=True)
        x = [typed(c, t) for c in an]
        rc, out, err = run(["stats", "-t", t, "-c", str(cols), "-f", "json"]
                           + o, pack(x, t))
        try:
            got = json.loads(out, parse_int=str, parse_float=str)
        except ValueError:
            check(f"stats {t} json", b"json", out + err.encode())
            continue
        for j in range(cols):
            s = exact_sum(x[j])
            want = "-0" if isnegzero(s) else "not -0"
            if np is not None:
                v = np.array(x[j], dtype=np.float64)
                v = v[~np.isnan(v)]
                ns = np.cumsum(v)[-1] if v.size else 0.0
                agree(f"stats {t} col{j} n{n}", want.encode(),
                      ("-0" if ns == 0 and np.signbit(ns)
                       else "not -0").encode())
            for field in ("sum", "mean"):
                g = got.get(field, [None] * cols)[j]
                have = "-0" if g == "-0" else "not -0"
                check(f"stats {field} {t} col{j} n{n} runs{runs} {o}",
                      want.encode(), have.encode())


def part_scan(carry):
    for case in range(CASES):
        t = list(CODE)[case % 3]
        n = rng.randint(2, 2999)
        cols = rng.randint(1, 3)
        excl = case % 2 == 1
        a, runs = table(n, cols)
        x = [typed(c, t) for c in a]
        o = opts(n)
        ex = ["--exclusive"] if excl else []
        base = ["-t", t, "-c", str(cols)] + ex
        scan = [prefixes(c, excl) for c in x]
        k = rng.randint(1, n - 1) if carry else 0
        want = pack([c[k:] for c in scan], t)
        if np is not None:
            agree(f"scan {t} n{n} excl={excl}", want,
                  np_cumsum(x, t, excl)[k:].astype(NPT[t]).tobytes())
        if not carry:
            rc, out, err = run(["scan"] + base + o, pack(x, t))
            check(f"scan {t} c{cols} excl={excl} n{n} runs{runs} {o}",
                  want, out)
            continue
        # the first k records' state, then the rest from it
        rc, st, err = run(["scan"] + base + ["-f", "state"] + o,
                          pack([c[:k] for c in x], t))
        with open(f"{T}/carry.state", "wb") as f:
            f.write(st)
        rc, out, err = run(["scan"] + base + o + ["--carry-in",
                           f"{T}/carry.state"], pack([c[k:] for c in x], t))
        check(f"carry {t} c{cols} excl={excl} n{n} k{k} runs{runs} {o}",
              want, out + err.encode())


if PART == "sum":
    part_sum()
elif PART == "scan":
    part_scan(False)
else:
    part_scan(True)
print("checks", checks)
