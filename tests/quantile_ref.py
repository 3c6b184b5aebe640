#!/usr/bin/env python3
"""quantile_ref.py - checks gpustat quantile, median and mode against an
independent reference: numpy.quantile's methods written from numpy's
definitions (virtual index, _get_indexes, fix_gamma, _lerp) in exact
rationals (fractions.Fraction of q's decimal text, as gpustat takes it:
"0.1" is one tenth), rounded once to a double by float(Fraction); mode
against collections.Counter.

Usage: quantile_ref.py GPUSTAT TMPDIR. Prints "ok NAME" or "FAIL NAME: WHY"
per check (tests/test_quantile.sh counts them).

Rules of gpustat that numpy leaves open, as documented there: NaNs are left
out (numpy.nanquantile), but no data at all is an error (exit 1), as numpy
raises; -0 counts as +0; an element method gives the element (integers
printed exactly); an interpolation with an infinite neighbour gives that
infinity (-inf with +inf: nan), with g = 0 x_lo.
"""
import math
import random
import struct
import subprocess
import sys
from collections import Counter
from fractions import Fraction as F

G, T = sys.argv[1], sys.argv[2]
random.seed(18)

INT_TYPES = {"u8": "B", "i8": "b", "u16": "H", "i16": "h", "u32": "I",
             "i32": "i", "u64": "Q", "i64": "q"}
FLOAT_TYPES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8}
METHODS = ["inverted_cdf", "averaged_inverted_cdf", "closest_observation",
           "interpolated_inverted_cdf", "hazen", "weibull", "linear",
           "median_unbiased", "normal_unbiased", "lower", "higher",
           "midpoint", "nearest"]
ELEMENT = {"inverted_cdf", "closest_observation", "lower", "higher", "nearest"}
HF = {"interpolated_inverted_cdf": (F(0), F(1)), "hazen": (F(1, 2), F(1, 2)),
      "weibull": (F(0), F(0)), "median_unbiased": (F(1, 3), F(1, 3)),
      "normal_unbiased": (F(3, 8), F(3, 8))}

checks = 0


def report(name, good, why=""):
    global checks
    checks += 1
    print(("ok " + name) if good else ("FAIL %s: %s" % (name, why)))


# ---- values of each type: (python value or None for NaN, raw bytes) -------

def int_range(t):
    bits = int(t[1:]) if t[0] == "u" else int(t[1:])
    if t[0] == "u":
        return 0, (1 << bits) - 1
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


def float_of_bits(t, b):
    if t == "f16":
        return struct.unpack("<e", struct.pack("<H", b))[0]
    if t == "bf16":
        return struct.unpack("<f", struct.pack("<I", b << 16))[0]
    if t == "f32":
        return struct.unpack("<f", struct.pack("<I", b))[0]
    return struct.unpack("<d", struct.pack("<Q", b))[0]


def bits_of_float(t, x):
    if t == "f16":
        return struct.unpack("<H", struct.pack("<e", x))[0]
    if t == "bf16":
        return struct.unpack("<I", struct.pack("<f", x))[0] >> 16
    if t == "f32":
        return struct.unpack("<I", struct.pack("<f", x))[0]
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def gen(t, n, special=True, pool=None):
    """n values of type t: random ones, repeats, extremes, and for floats
    NaN, infinities, -0 and subnormals."""
    out = []
    if t in INT_TYPES:
        lo, hi = int_range(t)
        small = [random.randint(lo, hi) for _ in range(pool or 7)]
        for _ in range(n):
            r = random.random()
            out.append(random.choice(small) if r < 0.3 else
                       random.choice([lo, hi, 0]) if r < 0.35 and special else
                       random.randint(lo, hi))
        return out
    nbits = FLOAT_TYPES[t] * 8
    small = [random.uniform(-100, 100) for _ in range(pool or 7)]
    for _ in range(n):
        r = random.random()
        if special and r < 0.04:
            x = random.choice([math.nan, math.inf, -math.inf, -0.0, 0.0])
        elif r < 0.3:
            x = random.choice(small)
        elif r < 0.5:
            x = random.gauss(0, 1e3)
        else:
            b = random.getrandbits(nbits)
            x = float_of_bits(t, b)
        x = float_of_bits(t, bits_of_float(t, x))   # rounded to the type
        out.append(x)
    return out


def encode(t, vals):
    if t in INT_TYPES:
        return struct.pack("<%d%s" % (len(vals), INT_TYPES[t]), *vals)
    if t == "f16":
        return struct.pack("<%de" % len(vals), *vals)
    if t == "bf16":
        return b"".join(struct.pack("<H", bits_of_float(t, x)) for x in vals)
    return struct.pack("<%d%s" % (len(vals), "f" if t == "f32" else "d"), *vals)


def is_nan(x):
    return isinstance(x, float) and math.isnan(x)


# ---- the reference --------------------------------------------------------

def floor(x):
    return math.floor(x)


def lerp(xs, lo, hi, g):
    a, b = xs[lo], xs[hi]
    if lo == hi or g == 0:
        return float(a)
    if g == 1:          # averaged_inverted_cdf's fix_gamma: x_hi itself
        return float(b)
    if isinstance(a, float) and math.isinf(a) or isinstance(b, float) and math.isinf(b):
        if math.isinf(a) and math.isinf(b) and a != b:
            return math.nan
        return a if math.isinf(a) else b
    fa, fb = F(a), F(b)
    return float(fa + g * (fb - fa))


def bounded(xs, v, g):
    """numpy's _get_indexes: the last element for v >= n - 1, the first for
    v < 0, else floor(v) and floor(v) + 1 with weight g."""
    n = len(xs)
    if v >= n - 1:
        return lerp(xs, n - 1, n - 1, 0)
    if v < 0:
        return lerp(xs, 0, 0, 0)
    lo = floor(v)
    return lerp(xs, lo, lo + 1, g)


def quantile(xs, q, method):
    """(value, is_element) of numpy's method over sorted xs (no NaN)."""
    n, Q = len(xs), F(q)
    if method in ("lower", "higher", "nearest", "linear", "midpoint"):
        v = (n - 1) * Q
        if method == "lower":
            return xs[floor(v)], True
        if method == "higher":
            return xs[math.ceil(v)], True
        if method == "nearest":
            return xs[round(v)], True     # Fraction rounds halves to even
        if method == "midpoint":
            m = F(floor(v) + math.ceil(v), 2)
            return bounded(xs, m, m - floor(m)), False
        return bounded(xs, v, v - floor(v)), False
    if method in ("inverted_cdf", "closest_observation"):
        idx = n * Q - 1 - (F(1, 2) if method == "closest_observation" else 0)
        prev = floor(idx)
        g = idx - prev
        take_prev = g == 0 and (method == "inverted_cdf" or prev % 2 == 1)
        res = max(prev if take_prev else prev + 1, 0)
        return xs[res], True
    if method == "averaged_inverted_cdf":
        v = n * Q - 1
        g = v - floor(v)
        return bounded(xs, v, F(1, 2) if g == 0 else F(1)), False
    alpha, beta = HF[method]
    v = n * Q + (alpha + Q * (1 - alpha - beta)) - 1
    return bounded(xs, v, v - floor(v)), False


def canon(x):
    return 0.0 if x == 0 and isinstance(x, float) else x


def same_value(tok, want, element, is_int):
    if element and is_int:
        return tok == str(want)
    try:
        got = float(tok)
    except ValueError:
        return False
    want = float(want)
    if math.isnan(want):
        return math.isnan(got)
    return struct.pack("<d", got) == struct.pack("<d", canon(want))


def run(args, data=None, path=None):
    r = subprocess.run([G] + args + ([path] if path else []), input=data,
                       capture_output=True)
    return r.returncode, r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")


# ---- checks ---------------------------------------------------------------

QS = [0, 1, 0.5, 0.25, 0.75, 0.1, 0.9, 0.99, 0.01, 1 / 3, 2 / 3, 1e-300,
      5e-324, 1 - 2 ** -53, 0.125, 0.375, 0.0625, "0.3", "0.07", "1e-1",
      ".5", "2.5E-1", "0.30000000000000000001", "1e-800", "7e-1000000",
      "0.123456789012345678901234567890123456789", "0.999999999999999999999"]
# decimals at the virtual index's integers and halves for n = 10 and 20
DECIMAL_EDGES = sorted({"%g" % (i / 100) for i in range(101)} |
                       {"0.%03d" % i for i in range(0, 1000, 25)})


def check_quantiles(name, t, vals, cols, qs, methods, extra=()):
    # each q as the decimal typed: a float by its repr
    qs = [q if isinstance(q, str) else repr(q) for q in qs]
    path = "%s/%s.bin" % (T, name)
    with open(path, "wb") as f:
        f.write(encode(t, vals))
    colvals = [sorted(canon(x) for x in vals[k::cols] if not is_nan(x))
               for k in range(cols)]
    for method in methods:
        rc, out, err = run(["quantile", "-t", t, "-c", str(cols), "--method",
                            method, "-q", ",".join(qs)]
                           + list(extra), path=path)
        lines = out.splitlines()
        tag = "%s %s" % (name, method)
        if not vals:    # no data: numpy raises; one error line, exit 1
            report(tag, rc == 1 and not out and err.count("\n") == 1 and
                   ": no data: " in err, "rc %d: %r %r" % (rc, out[:80], err))
            continue
        if rc != 0 or len(lines) != len(qs):
            report(tag, False, "rc %d, %d lines: %s" % (rc, len(lines), err.strip()[:200]))
            continue
        bad = []
        for q, line in zip(qs, lines):
            toks = line.split("\t")
            for k in range(cols):
                xs = colvals[k]
                if not xs:
                    want, el = math.nan, False
                else:
                    want, el = quantile(xs, q, method)
                if k >= len(toks) or not same_value(toks[k], want, el, t in INT_TYPES):
                    bad.append("q=%r col %d: got %s want %r" % (
                        q, k, toks[k] if k < len(toks) else "-", want))
        report(tag, not bad, "; ".join(bad[:3]))


def check_mode(name, t, vals, cols, extra=()):
    path = "%s/%s.mode" % (T, name)
    with open(path, "wb") as f:
        f.write(encode(t, vals))
    rc, out, err = run(["mode", "-t", t, "-c", str(cols)] + list(extra), path=path)
    lines = out.splitlines()
    if not vals:    # no data: numpy raises; one error line, exit 1
        report("mode " + name, rc == 1 and not out and err.count("\n") == 1
               and ": no data: " in err, "rc %d: %r %r" % (rc, out[:80], err))
        return
    # a line per mode: [column<TAB>]value<TAB>count
    got = [[] for _ in range(cols)]
    for line in lines:
        toks = line.split("\t")
        k = int(toks.pop(0)) if cols > 1 else 0
        got[k].append(toks)
    if rc != 0 or any(len(tk) != 2 for g in got for tk in g):
        report("mode " + name, False, "rc %d: %s" % (rc, err.strip()[:200]))
        return
    bad = []
    for k in range(cols):
        c = Counter(canon(x) for x in vals[k::cols] if not is_nan(x))
        rows = got[k]
        if not c:
            if rows != [["nan", "0"]]:
                bad.append("col %d: %r for no value" % (k, rows))
            continue
        best = max(c.values())
        modes = sorted(v for v, n in c.items() if n == best)
        if len(rows) != len(modes) or any(r[1] != str(best) for r in rows) or not all(
                same_value(r[0], m, True, t in INT_TYPES) for r, m in zip(rows, modes)):
            bad.append("col %d: got %r, want %r x %d" % (k, rows[:4], modes[:4], best))
    report("mode " + name, not bad, "; ".join(bad))


def large():
    """Many elements (several chunks and threads, deep radix passes)."""
    for t in ("f64", "i64", "u32", "f32", "f16"):
        vals = gen(t, 150001, pool=50)
        qs = [0, 0.5, 0.9, 0.999, 1 / 3, 1]
        for extra in ((), ("--chunk-size", "64K", "-j", "2")):
            check_quantiles("large-%s%s" % (t, "-chunks" if extra else ""), t,
                            vals, 1, qs, ["linear", "nearest", "median_unbiased"], extra)
        check_mode("large-" + t, t, vals, 1)


def passes(t, path, cols=1):
    """How many passes gpustat quantile ran (-v says each pass's backend)."""
    rc, out, err = run(["quantile", "-v", "-t", t, "-c", str(cols), "-q", "0.5,0.9"],
                       path=path)
    return err.count("backend:")


def deep():
    """64-bit keys whose wanted buckets stay large: 1.1M values sharing their
    top 32 bits (four histogram passes), their top 16 bits (a collect pass
    third), and spread out (a collect pass second)."""
    n = 1100000
    for name, width, want in (("deep4", 2.0 ** -21, 4), ("deep3", 2.0 ** -5, 3),
                              ("deep2", 2.0 ** 10, 2)):
        vals = [1.0 + random.random() * width for _ in range(n)]
        path = "%s/%s.bin" % (T, name)
        with open(path, "wb") as f:
            f.write(encode("f64", vals))
        got = passes("f64", path)
        report("%s passes" % name, got == want, "%d passes, want %d" % (got, want))
        for extra in ((), ("--chunk-size", "256K", "-j", "3")):
            check_quantiles(name + ("-chunks" if extra else ""), "f64", vals, 1,
                            [0, 0.5, 0.9, 1 / 3, 1], ["linear", "hazen", "lower"], extra)
    ivals = [(1 << 40) + random.getrandbits(20) for _ in range(n)]
    check_quantiles("deep-i64", "i64", ivals, 1, [0.5, 0.99], ["linear", "nearest"])


def narrow():
    """Many wanted buckets: digits narrower than 16 bits, more passes."""
    qs = [i / 150 for i in range(151)]
    for t, cols in (("u32", 4), ("f64", 4), ("f32", 3)):
        vals = gen(t, 12000 * cols, pool=30)
        check_quantiles("narrow-" + t, t, vals, cols, qs, ["linear", "weibull"])
    vals = gen("u16", 80 * 300)
    check_quantiles("narrow-u16-c80", "u16", vals, 80, [0.5, 0.9], ["linear"])
    path = "%s/narrow-u16-c80.bin" % T
    got = passes("u16", path, 80)
    report("narrow-u16-c80 passes", got == 2, "%d passes, want 2" % got)


def main():
    if len(sys.argv) > 3 and sys.argv[3] == "large":
        large()
        deep()
        narrow()
        print("checks %d" % checks)
        return
    types = list(INT_TYPES) + list(FLOAT_TYPES)
    for t in types:
        vals = gen(t, 1001)
        check_quantiles(t, t, vals, 1, QS, METHODS)
        check_quantiles(t + "-c2", t, gen(t, 600), 2, QS[:8], METHODS)
        check_quantiles(t + "-n1", t, gen(t, 1, special=False), 1, QS[:6], METHODS)
        check_quantiles(t + "-n2", t, gen(t, 2, special=False), 1, QS, METHODS)
        check_quantiles(t + "-empty", t, [], 1, [0.5], ["linear", "lower"])
        # boundaries of the virtual index: q = i / (n - 1) and i / n
        small = gen(t, 7, special=False)
        qs = sorted({i / 6 for i in range(7)} | {i / 7 for i in range(8)} |
                    {i / 8 for i in range(9)} | {i / 22 for i in range(23)})
        check_quantiles(t + "-edges", t, small, 1, qs, METHODS)
        for n in (10, 20) if t in ("u8", "i32", "u64", "f32", "f64") else ():
            check_quantiles("%s-decimal%d" % (t, n), t, gen(t, n, special=False),
                            1, DECIMAL_EDGES, METHODS)
        check_mode(t, t, gen(t, 3000, pool=40), 1)
        check_mode(t + "-c2", t, gen(t, 400), 2)
        check_mode(t + "-tie", t, gen(t, 6, special=False, pool=3) * 5, 1)
        check_mode(t + "-empty", t, [], 1)
        if t in FLOAT_TYPES:
            check_quantiles(t + "-allnan", t, [math.nan] * 5, 1, [0.5], ["linear", "nearest"])
            check_mode(t + "-allnan", t, [math.nan] * 3, 1)
            check_mode(t + "-zeros", t, [-0.0, 0.0, -0.0, 1.0, 1.0], 1)
            check_quantiles(t + "-inf", t, [-math.inf, -0.0, 0.0, math.inf, 1.0, math.inf],
                            1, QS, METHODS)
    print("checks %d" % checks)


main()
