#!/usr/bin/env python3
"""Generate tests/xsum_vectors.h: exact expected results for tests/unit_xsum.c.

Every expected value is computed here with fractions.Fraction (exact) and
rounded by round_frac / round_sqrt below, which work on rationals and share
no code with src/numerics/xsum.c. When numpy is present the rounding is cross-checked
against float(), math.sqrt and numpy's float32/float16 conversions of
doubles (each a single correct rounding). The C test needs no Python: the
generated header is committed.

    python3 tests/gen_xsum_vectors.py > tests/xsum_vectors.h
"""
import math
import random
import struct
import sys
from fractions import Fraction

FMTS = {  # name: (significand bits p, emin, exponent bits, width)
    "f64": (53, -1022, 11, 64),
    "f32": (24, -126, 8, 32),
    "f16": (11, -14, 5, 16),
    "bf16": (8, -126, 8, 16),
}


def nan_bits(fmt):
    p, _, w, _ = FMTS[fmt]
    return ((1 << w) - 1) << (p - 1) | 1 << (p - 2)


def inf_bits(fmt, neg):
    p, _, w, width = FMTS[fmt]
    return ((1 << w) - 1) << (p - 1) | (neg << (width - 1))


def floor_log2(a):
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    return e


def encode(neg, n, lsb, fmt):
    """Bits of (-1)^neg * n * 2^lsb, n already rounded to fit."""
    p, emin, w, width = FMTS[fmt]
    sign = int(neg) << (width - 1)
    if n == 0:
        return sign
    while n >= 1 << p:
        assert n % 2 == 0
        n //= 2
        lsb += 1
    if n < 1 << (p - 1):  # subnormal
        assert lsb == emin - p + 1
        return sign | n
    exp = lsb + p - 1
    bias = (1 << (w - 1)) - 1
    if exp > bias:
        return inf_bits(fmt, neg)
    return sign | (exp + bias) << (p - 1) | (n - (1 << (p - 1)))


def round_frac(x, fmt):
    """x (a Fraction) rounded to nearest even; exact zero is +0."""
    p, emin, _, _ = FMTS[fmt]
    if x == 0:
        return 0
    neg, a = x < 0, abs(x)
    lsb = max(floor_log2(a) - p + 1, emin - p + 1)
    scaled = a / Fraction(2) ** lsb
    n = scaled.numerator // scaled.denominator
    r = scaled - n
    if r > Fraction(1, 2) or (r == Fraction(1, 2) and n % 2):
        n += 1
    return encode(neg, n, lsb, fmt)


def round_sqrt(x, fmt):
    """sqrt(x) for a Fraction x >= 0, rounded once."""
    if x == 0:
        return 0
    k = 0
    while x * Fraction(4) ** k < 2 ** 140:
        k += 1
    while x * Fraction(4) ** k >= 2 ** 142:
        k -= 1
    y = x * Fraction(4) ** k
    fl = y.numerator // y.denominator
    s = math.isqrt(fl)
    exact = s * s == fl and y == fl
    # s has about 70 bits; anything strictly between s and s + 1 rounds like
    # s + 1/2 because the rounding position is far above the units bit.
    v = Fraction(s) if exact else Fraction(2 * s + 1, 2)
    return round_frac(v / Fraction(2) ** k, fmt)


def dbits(v):
    return struct.unpack("<Q", struct.pack("<d", v))[0]


def bdbl(u):
    return struct.unpack("<d", struct.pack("<Q", u))[0]


# ---- sum cases: lists of items ('d', a) ('p', a, b) ('i', a) ('u', a) ------

def exact_sum(items):
    """Exact finite sum and flags (nan, pinf, ninf)."""
    s, nan, pinf, ninf = Fraction(0), False, False, False
    for it in items:
        if it[0] == "d":
            v = it[1]
            if math.isnan(v):
                nan = True
            elif math.isinf(v):
                pinf, ninf = pinf or v > 0, ninf or v < 0
            else:
                s += Fraction(v)
        elif it[0] == "p":
            a, b = it[1], it[2]
            if math.isnan(a) or math.isnan(b):
                nan = True
            elif math.isinf(a) or math.isinf(b):
                if a == 0 or b == 0:
                    nan = True
                elif (a < 0) != (b < 0):
                    ninf = True
                else:
                    pinf = True
            else:
                s += Fraction(a) * Fraction(b)
        else:
            s += it[1]
    return s, nan, pinf, ninf


def expected(items):
    s, nan, pinf, ninf = exact_sum(items)
    r = {}
    for f in FMTS:
        if nan or (pinf and ninf):
            r[f] = nan_bits(f)
        elif pinf or ninf:
            r[f] = inf_bits(f, ninf)
        else:
            r[f] = round_frac(s, f)
    finite = not (nan or pinf or ninf)
    dec = str(s.numerator) if finite and s.denominator == 1 else None
    sign = (s > 0) - (s < 0)
    return r, dec, sign


def D(*vs):
    return [("d", float(v)) for v in vs]


def P(*pairs):
    return [("p", float(a), float(b)) for a, b in pairs]


def rand_double(rng, emin=-1074, emax=1023):
    while True:
        e = rng.randint(emin, emax)
        v = math.ldexp(rng.getrandbits(53) | 1 << 52, e - 52) if e > -1023 \
            else math.ldexp(rng.getrandbits(52), -1074)
        if math.isfinite(v):
            return -v if rng.getrandbits(1) else v


def tie_cases(fmt):
    """Values exactly halfway between two neighbours of fmt, with the tie
    broken both ways by a tiny extra term, as sums of doubles."""
    p, emin, w, _ = FMTS[fmt]
    emax = (1 << (w - 1)) - 1
    out = []
    for E in (0, 7, -5, emin, emax):
        for k in (0, 1, 2, 3, (1 << (p - 1)) - 2, (1 << (p - 1)) - 1):
            a = math.ldexp((1 << (p - 1)) + k, E - p + 1)
            half = math.ldexp(1, E - p)
            tiny = math.ldexp(1, E - p - 40)
            for extra in ([], [tiny], [-tiny]):
                for sgn in (1, -1):
                    out.append((f"tie {fmt} E={E} k={k} extra={len(extra) and extra[0] > 0} sgn={sgn}",
                                D(*[sgn * v for v in [a, half] + extra])))
    # subnormal ties
    for k in (0, 1, 2, 5):
        a = math.ldexp(k, emin - p + 1)
        half = math.ldexp(1, emin - p)
        out.append((f"tie {fmt} subnormal k={k}", D(a, half)))
        out.append((f"tie {fmt} subnormal k={k} neg", D(-a, -half)))
    return out


def sum_cases(rng):
    c = []
    big = 1.7976931348623157e308
    c.append(("empty", []))
    c.append(("one", D(1.0)))
    c.append(("cancel 1e308+1-1e308", D(1e308, 1.0, -1e308)))
    c.append(("cancel to tiny", D(1e308, 5e-324, -1e308)))
    c.append(("0.1+0.2+0.3", D(0.1, 0.2, 0.3)))
    c.append(("zeros", D(0.0, -0.0)))
    c.append(("neg zero only", D(-0.0)))
    c.append(("f64 overflow", D(big, big)))
    c.append(("f64 max + half ulp: tie to inf", D(big, math.ldexp(1, 970))))
    c.append(("f64 max + below half ulp", D(big, math.ldexp(1, 969))))
    c.append(("f64 max + half ulp - cancel", D(big, big, -big)))
    c.append(("-f64 overflow", D(-big, -big)))
    c.append(("subnormals", D(5e-324, 5e-324, 1e-320)))
    c.append(("subnormal min - min", D(5e-324, -5e-324)))
    c.append(("subnormal neg", D(-5e-324, -1e-310)))
    c.append(("subnormal to normal", D(2.2250738585072009e-308, 5e-324)))
    c.append(("f32 overflow", D(3.4028234663852886e38, 2.028240960365167e31)))
    c.append(("f16 max", D(65504.0)))
    c.append(("f16 overflow tie", D(65504.0, 16.0)))
    c.append(("f16 below tie", D(65504.0, 15.999)))
    c.append(("f16 tiny", D(2.0 ** -24, 2.0 ** -26)))
    c.append(("nan", D(1.0, float("nan"))))
    c.append(("+inf", D(1.0, float("inf"), -5.0)))
    c.append(("-inf", D(float("-inf"), 1e308)))
    c.append(("+inf-inf", D(float("inf"), float("-inf"))))
    c.append(("inf nan", D(float("inf"), float("nan"))))
    c.append(("prod inf*0", P((float("inf"), 0.0))))
    c.append(("prod -inf*2", P((float("-inf"), 2.0))))
    c.append(("prod inf*-inf", P((float("inf"), float("-inf")))))
    c.append(("prod nan*1", P((float("nan"), 1.0))))
    c.append(("prod overflow cancels", P((1e200, 1e200), (-1e200, 1e200), (3.0, 4.0))))
    c.append(("prod underflow cancels", P((1e-200, 1e-200), (1e-200, -1e-200), (0.5, 0.25))))
    one_ulp = 1 + 2.0 ** -52
    c.append(("prod low bits", P((one_ulp, one_ulp), (-(1 + 2.0 ** -51), 1.0)) +
              D(-(2.0 ** -104)) + P((2.0 ** -104, 1.0))))
    c.append(("prod low bits kept", P((one_ulp * 2.0 ** 500, one_ulp * 2.0 ** 500),
                                      (-(1 + 2.0 ** -51) * 2.0 ** 500, 2.0 ** 500))))
    c.append(("prod min subnormal^2", P((5e-324, 5e-324))))
    c.append(("prod -min subnormal^2", P((-5e-324, 5e-324))))
    c.append(("prod min^2 + 1", P((5e-324, 5e-324), (1.0, 1.0))))
    c.append(("prod max^2 - max^2 + 1", P((big, big), (big, -big), (1.0, 1.0))))
    c.append(("prod sub*big", P((5e-324, 2.0 ** 1000), (1e-300, 1e-10))))
    c.append(("prod underflow to subnormal", P((1.5 * 2.0 ** -540, 1.25 * 2.0 ** -540))))
    # integers and exact decimals
    u64max, i64min = (1 << 64) - 1, -(1 << 63)
    c.append(("u64 max x5", [("u", u64max)] * 5))
    c.append(("i64 min x3", [("i", i64min)] * 3))
    c.append(("i64 mix", [("i", -5), ("u", 3), ("i", 1)]))
    c.append(("2^63 fits u64 only", [("u", 1 << 63)]))
    c.append(("-1 fits i64 only", [("i", -1)]))
    c.append(("i64 max", [("i", (1 << 63) - 1)]))
    c.append(("u64 max", [("u", u64max)]))
    c.append(("u64 max + 1", [("u", u64max), ("i", 1)]))
    c.append(("1e300", D(1e300)))
    c.append(("-1e300", D(-1e300)))
    c.append(("max^2", P((big, big))))
    c.append(("-max^2 x3", P((big, -big), (big, -big), (big, -big))))
    c.append(("half not integer", D(0.5, 1.0)))
    c.append(("2^53+1", [("i", 1 << 53)] + D(1.0)))
    c.append(("int + frac cancels", D(0.25, 7.0, -0.25)))
    for fmt in FMTS:
        c.extend(tie_cases(fmt))
    # random
    for i in range(12):
        c.append((f"random wide {i}", D(*[rand_double(rng) for _ in range(rng.randint(1, 40))])))
    for i in range(12):
        vs = [rand_double(rng, -60, 60) for _ in range(rng.randint(1, 60))]
        vs += [-v * (1 + rng.choice([0, 2.0 ** -52, -(2.0 ** -40)])) for v in vs[: len(vs) // 2]]
        rng.shuffle(vs)
        c.append((f"random cancel {i}", D(*vs)))
    for i in range(8):
        c.append((f"random subnormal {i}", D(*[rand_double(rng, -1074, -1020) for _ in range(20)])))
    for i in range(12):
        pr = [(rand_double(rng, -600, 600), rand_double(rng, -600, 600))
              for _ in range(rng.randint(1, 40))]
        c.append((f"random dot {i}", P(*pr)))
    for i in range(6):
        pr = [(rand_double(rng), rand_double(rng)) for _ in range(30)]
        c.append((f"random dot wide {i}", P(*pr)))
    for i in range(6):
        pr = [(rand_double(rng, -8, 8), rand_double(rng, -8, 8)) for _ in range(30)]
        pr += [(-a, b) for a, b in pr[:15]]
        c.append((f"random dot cancel {i}", P(*pr)))
    for i in range(6):
        its = []
        for _ in range(30):
            k = rng.choice("dpiu")
            if k == "d":
                its.append(("d", rand_double(rng, -100, 100)))
            elif k == "p":
                its.append(("p", rand_double(rng, -100, 100), rand_double(rng, -100, 100)))
            elif k == "i":
                its.append(("i", rng.randint(-(1 << 63), (1 << 63) - 1)))
            else:
                its.append(("u", rng.getrandbits(64)))
        c.append((f"random mixed {i}", its))
    for i in range(6):
        its = [("i", rng.randint(-(1 << 63), (1 << 63) - 1)) for _ in range(20)]
        its += [("u", rng.getrandbits(64)) for _ in range(rng.randint(0, 20))]
        its += P(*[(float(rng.randint(-2 ** 53, 2 ** 53)), float(rng.randint(-2 ** 40, 2 ** 40)) * 2.0 ** rng.randint(0, 900)) for _ in range(5)])
        c.append((f"random integers {i}", its))
    return c


# ---- stats cases ------------------------------------------------------------

def stats_expected(vs):
    n = len(vs)
    s1 = sum(Fraction(v) for v in vs)
    s2 = sum(Fraction(v) * Fraction(v) for v in vs)
    num = n * s2 - s1 * s1
    pvar = num / (n * n)
    mean = round_frac(s1 / n, "f64")
    res = [mean, round_frac(pvar, "f64")]
    if n > 1:
        svar = num / (n * (n - 1))
        res += [round_frac(svar, "f64"), round_sqrt(pvar, "f64"), round_sqrt(svar, "f64")]
    else:
        res += [nan_bits("f64"), round_sqrt(pvar, "f64"), nan_bits("f64")]
    return res


def stats_cases(rng):
    c = [
        ("1 2 3 4", [1.0, 2.0, 3.0, 4.0]),
        ("one value", [5.0]),
        ("two", [1.0, 2.0]),
        ("perfect square", [1.0, 3.0]),
        ("0.1 0.2 0.3", [0.1, 0.2, 0.3]),
        ("constant", [3.3] * 7),
        ("var overflows, stdev not", [1e308, -1e308, 1e308]),
        ("tiny", [5e-324, 0.0, 1e-320]),
        ("tiny pair", [5e-324, -5e-324]),
        ("negatives", [-1.5, -2.5, -1e-3]),
        ("huge mean", [1.7976931348623157e308, 1.7976931348623157e308]),
    ]
    for i in range(6):
        c.append((f"offset normal {i}", [1e8 + rng.gauss(0, 1) for _ in range(rng.randint(2, 50))]))
    for i in range(6):
        c.append((f"random {i}", [rand_double(rng, -30, 30) for _ in range(rng.randint(1, 30))]))
    for i in range(4):
        c.append((f"random wide {i}", [rand_double(rng, -500, 500) for _ in range(rng.randint(2, 20))]))
    return c


# ---- root cases: s1 = 0 and a chosen s2, so pvar = s2/n and pstdev is its
# root; s2 = n*m^2 (+ eps) with m halfway between two doubles puts the roots
# exactly on, just above or just below a tie. ---------------------------------

def root_cases():
    c = []
    for n in (1, 3, 5, (1 << 40) + 1):
        base = [1.0, 2.0 ** -52, 2.0 ** -106]	# (1 + 2^-53)^2
        for eps in (0.0, 2.0 ** -120, -(2.0 ** -120), 5e-324, -5e-324):
            c.append((f"root tie n={n} eps={eps!r}", n, [float(n) * v for v in base] + [eps]))
        c.append((f"ratio tie n={n}", n, [float(n), float(n) * 2.0 ** -53, 5e-324]))
        c.append((f"ratio tie n={n} low", n, [float(n), float(n) * 2.0 ** -53, -5e-324]))
    return c


def root_expected(n, s2):
    pvar = s2 / n
    res = [round_frac(pvar, "f64"), nan_bits("f64"), round_sqrt(pvar, "f64"), nan_bits("f64")]
    if n > 1:
        res[1] = round_frac(s2 / (n - 1), "f64")
        res[3] = round_sqrt(s2 / (n - 1), "f64")
    return res


# ---- f16 / bf16 checksums -------------------------------------------------

def fnv_words(words):
    h = 0xcbf29ce484222325
    for w in words:
        for k in range(4):
            h ^= (w >> (8 * k)) & 0xff
            h = (h * 0x100000001b3) & 0xffffffffffffffff
    return h


def f32_word(v):
    """The float's bit pattern; every NaN as one marker."""
    if math.isnan(v):
        return 0xffffffff
    return struct.unpack("<I", struct.pack("<f", v))[0]


def half_checksums():
    f16 = [f32_word(struct.unpack("<e", struct.pack("<H", h))[0]) for h in range(65536)]
    bf = []
    for h in range(65536):
        s, e, m = h >> 15, (h >> 7) & 0xff, h & 0x7f
        if e == 255:
            v = float("nan") if m else float("inf")
        elif e == 0:
            v = float(Fraction(m) * Fraction(2) ** -133)
        else:
            v = float(Fraction(128 + m) * Fraction(2) ** (e - 134))
        bf.append(f32_word(-v if s else v))
    return fnv_words(f16), fnv_words(bf)


# ---- self checks against independent roundings ------------------------------

def self_check(rng):
    for _ in range(2000):
        x = Fraction(rand_double(rng)) * Fraction(rand_double(rng)) + Fraction(rand_double(rng, -60, 60))
        try:
            assert round_frac(x, "f64") == dbits(float(x))
        except OverflowError:
            pass
        d = rand_double(rng, -140, 140)
        assert round_sqrt(Fraction(abs(d)), "f64") == dbits(math.sqrt(abs(d)))
    try:
        import numpy as np
    except ImportError:
        return
    for _ in range(5000):
        d = rand_double(rng, -160, 140)
        with np.errstate(over="ignore"):
            assert round_frac(Fraction(d), "f32") == int(np.float32(d).view(np.uint32)), d
            d = rand_double(rng, -30, 20)
            assert round_frac(Fraction(d), "f16") == int(np.float16(d).view(np.uint16)), d


# ---- C output ------------------------------------------------------------------

def c_str(s):
    return "NULL" if s is None else '"' + s + '"'


def main():
    rng = random.Random(20240611)
    self_check(random.Random(7))
    out = []
    w = out.append
    w("/* Generated by tests/gen_xsum_vectors.py; do not edit. Exact expected")
    w(" * results computed with fractions.Fraction. */")
    w("#ifndef XSUM_VECTORS_H\n#define XSUM_VECTORS_H\n")
    w("#include <stddef.h>\n#include <stdint.h>\n")
    w("/* op 'd': add a (f64 bits); 'p': add a*b (f64 bits); 'i': add (int64_t)a;")
    w(" * 'u': add a. */")
    w("struct xv_item {\n\tchar op;\n\tuint64_t a, b;\n};\n")
    w("struct xv_case {\n\tconst char *name;\n\tunsigned off, n;")
    w("\tuint64_t f64, f32, f16, bf16;\n\tconst char *dec;\t/* exact integer, or NULL */")
    w("\tint sign;\n};\n")
    items, cases = [], []
    for name, its in sum_cases(rng):
        r, dec, sign = expected(its)
        off = len(items)
        for it in its:
            if it[0] == "d":
                items.append(("d", dbits(it[1]), 0))
            elif it[0] == "p":
                items.append(("p", dbits(it[1]), dbits(it[2])))
            else:
                items.append((it[0], it[1] & (2 ** 64 - 1), 0))
        cases.append((name, off, len(its), r, dec, sign))
    w("static const struct xv_item xv_items[] = {")
    for op, a, b in items:
        w(f"\t{{ '{op}', 0x{a:016x}ull, 0x{b:016x}ull }},")
    if not items:
        w("\t{ 0, 0, 0 },")
    w("};\n")
    w("static const struct xv_case xv_cases[] = {")
    for name, off, n, r, dec, sign in cases:
        w(f'\t{{ "{name}", {off}, {n}, 0x{r["f64"]:016x}ull, 0x{r["f32"]:08x}, '
          f'0x{r["f16"]:04x}, 0x{r["bf16"]:04x},\n\t  {c_str(dec)}, {sign} }},')
    w("};\n")
    w("struct xv_stat {\n\tconst char *name;\n\tunsigned off, n;")
    w("\tuint64_t mean, pvar, svar, pstdev, sstdev;\n};\n")
    vals, stats = [], []
    for name, vs in stats_cases(rng):
        stats.append((name, len(vals), len(vs), stats_expected(vs)))
        vals += [dbits(v) for v in vs]
    w("static const uint64_t xv_stat_vals[] = {")
    for i in range(0, len(vals), 3):
        w("\t" + " ".join(f"0x{v:016x}ull," for v in vals[i:i + 3]))
    w("};\n")
    w("static const struct xv_stat xv_stats[] = {")
    for name, off, n, r in stats:
        w(f'\t{{ "{name}", {off}, {n},\n\t  ' +
          ", ".join(f"0x{v:016x}ull" for v in r) + " },")
    w("};\n")
    w("/* s1 = 0, s2 = the sum of vals[off .. off+cnt), count n. */")
    w("struct xv_root {\n\tconst char *name;\n\tuint64_t n;\n\tunsigned off, cnt;")
    w("\tuint64_t pvar, svar, pstdev, sstdev;\n};\n")
    vals, roots = [], []
    for name, n, vs in root_cases():
        roots.append((name, n, len(vals), len(vs), root_expected(n, sum(Fraction(v) for v in vs))))
        vals += [dbits(v) for v in vs]
    w("static const uint64_t xv_root_vals[] = {")
    for i in range(0, len(vals), 3):
        w("\t" + " ".join(f"0x{v:016x}ull," for v in vals[i:i + 3]))
    w("};\n")
    w("static const struct xv_root xv_roots[] = {")
    for name, n, off, cnt, r in roots:
        w(f'\t{{ "{name}", {n}ull, {off}, {cnt},\n\t  ' +
          ", ".join(f"0x{v:016x}ull" for v in r) + " },")
    w("};\n")
    h16, hbf = half_checksums()
    w("/* FNV-1a 64 of the f32 bit patterns (little-endian words) of every f16 /")
    w(" * bf16 pattern 0..65535 converted to float, NaNs as 0xffffffff. */")
    w(f"#define XV_F16_FNV 0x{h16:016x}ull")
    w(f"#define XV_BF16_FNV 0x{hbf:016x}ull\n")
    w("#endif")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
