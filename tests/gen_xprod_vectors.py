#!/usr/bin/env python3
"""Generate xprod_vectors.h (make writes it into build/tests/): exact expected results for tests/unit_xprod.c.

Each case is a list of double factors; its expected results are the exact
product (fractions.Fraction) rounded once, to nearest even, into f64, f32,
f16 and bf16 by round_frac below, which works on rationals and shares no
code with src/numerics (f64 is cross-checked against float(Fraction), a
correct rounding too). The IEEE special cases follow IEEE multiplication:
NaN for a NaN factor or 0 * inf, else a zero or an infinity whose sign is
the XOR of the factors' signs. A second table gives doubles and their f16
rounding (cross-checked against numpy's float16 where numpy is present,
whose double-to-half conversion rounds once). The Makefile runs this
before it builds unit_xprod (a few seconds; the standard library only).

    python3 tests/gen_xprod_vectors.py > build/tests/xprod_vectors.h
"""
import math
import random
import struct
from fractions import Fraction

FMTS = {  # name: (significand bits p, emin, width)
    "f64": (53, -1022, 64),
    "f32": (24, -126, 32),
    "f16": (11, -14, 16),
    "bf16": (8, -126, 16),
}
NAMES = ("f64", "f32", "f16", "bf16")


def dbits(v):
    return struct.unpack("<Q", struct.pack("<d", v))[0]


def bdbl(u):
    return struct.unpack("<d", struct.pack("<Q", u))[0]


def fields(fmt):
    p, emin, width = FMTS[fmt]
    ebits = width - p
    bias = (1 << (ebits - 1)) - 1
    return p, emin, width, ebits, bias


def special(fmt, neg, kind):
    p, _, width, ebits, _ = fields(fmt)
    top = ((1 << ebits) - 1) << (p - 1)
    if kind == "nan":
        return top | 1 << (p - 2)
    return int(neg) << (width - 1) | (top if kind == "inf" else 0)


def round_frac(x, fmt, neg):
    """|x| (a Fraction), with sign neg, rounded to nearest even into fmt."""
    p, emin, width, _, bias = fields(fmt)
    sign = int(neg) << (width - 1)
    if x == 0:
        return sign
    e = x.numerator.bit_length() - x.denominator.bit_length()
    while Fraction(2) ** e > x:
        e -= 1
    while Fraction(2) ** (e + 1) <= x:
        e += 1
    lsb = max(e, emin) - (p - 1)
    scaled = x / Fraction(2) ** lsb
    n = scaled.numerator // scaled.denominator
    rest = scaled - n
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and n % 2):
        n += 1
    if n == 1 << p:
        n, lsb = n >> 1, lsb + 1
    if lsb + p - 1 > bias:
        return special(fmt, neg, "inf")
    if n < 1 << (p - 1):
        return sign | n
    return sign | (lsb + p - 1 + bias) << (p - 1) | (n - (1 << (p - 1)))


def expect(factors):
    neg = sum(dbits(v) >> 63 for v in factors) % 2 == 1
    nan = any(math.isnan(v) for v in factors)
    inf = any(math.isinf(v) for v in factors)
    zero = any(v == 0 for v in factors)
    out = []
    for f in NAMES:
        if nan or (inf and zero):
            out.append(special(f, neg, "nan"))
        elif inf or zero:
            out.append(special(f, neg, "inf" if inf else "zero"))
        else:
            q = Fraction(1)
            for v in factors:
                q *= abs(Fraction(v))
            out.append(round_frac(q, f, neg))
    if not (nan or (inf and zero) or inf or zero):
        want = float(math.prod(Fraction(v) for v in factors)) \
            if out[0] & 0x7ff0000000000000 != 0x7ff0000000000000 else None
        assert want is None or dbits(want) == out[0], factors
    return out


def factor(rng, scale):
    """A double: random significands at exponents that make products land
    in every format's range, small integers (ties), the double's extremes
    and subnormals, now and then a zero, inf or NaN."""
    k = rng.random()
    s = -1.0 if rng.random() < 0.5 else 1.0
    if k < 0.03:
        return rng.choice([0.0, -0.0, math.inf, -math.inf, math.nan])
    if k < 0.35:
        return s * math.ldexp(1 + rng.random(), rng.randint(-scale, scale))
    if k < 0.65:
        return s * rng.randint(1, 1 << rng.choice([4, 8, 12, 13, 25, 27]))
    if k < 0.8:
        return s * bdbl(rng.getrandbits(52) | rng.randint(1, 2046) << 52)
    if k < 0.9:
        return s * bdbl(rng.getrandbits(rng.randint(1, 52)))  # subnormal
    return s * math.ldexp(1 + rng.getrandbits(rng.randint(1, 12)) / 4096,
                          rng.randint(-1074, 1023))


def window(factors):
    """The exact product's magnitude q as 128-bit integers fl <= q / 2^E <= ce
    (fl's top bit at 127; ce = fl + 1 unless q is exact there), and E; zeros
    where the product is not finite and nonzero."""
    if any(not math.isfinite(v) or v == 0 for v in factors):
        return 0, 0, 0
    q = abs(math.prod(Fraction(v) for v in factors))
    e = q.numerator.bit_length() - q.denominator.bit_length()
    while Fraction(2) ** e > q:
        e -= 1
    while Fraction(2) ** (e + 1) <= q:
        e += 1
    s = q / Fraction(2) ** (e - 127)
    fl = s.numerator // s.denominator
    return fl, fl + (s != fl), e - 127


def half_cases(rng):
    """Doubles around f16's boundaries: ties, subnormals, 65504..65520."""
    xs = [0.0, -0.0, 65504.0, 65519.99, 65520.0, -65520.0, 65536.0,
          math.inf, -math.inf, 2.0 ** -14, 2.0 ** -24, 2.0 ** -25,
          1.5 * 2.0 ** -25, 2.0 ** -26, 1e-300, 5e-324]
    for _ in range(700):
        e = rng.randint(-27, 17)
        m = rng.randint(1 << 10, (1 << 11) - 1)
        tie = (2 * m + 1) * 2.0 ** (e - 11)        # halfway between f16s
        xs += [tie, -tie, math.nextafter(tie, 0), math.nextafter(tie, 1e9),
               rng.uniform(-70000, 70000) * 2.0 ** rng.randint(-30, 0)]
    out = []
    for x in xs:
        h = round_frac(abs(Fraction(x)), "f16", dbits(x) >> 63) \
            if math.isfinite(x) else special("f16", x < 0, "inf")
        out.append((dbits(x), h))
    try:
        import numpy as np
        with np.errstate(over="ignore"):
            for u, h in out:
                got = np.array([bdbl(u)]).astype(np.float16).view(np.uint16)
                assert int(got[0]) == h, (hex(u), hex(int(got[0])), hex(h))
    except ImportError:
        pass
    return out


def main():
    rng = random.Random(30)
    cases = [[]]
    for i in range(900):
        n = 1 + i % 6
        scale = rng.choice([3, 12, 40, 150])
        cases.append([factor(rng, scale) for _ in range(n)])
    print("/* Generated by tests/gen_xprod_vectors.py; do not edit. Exact")
    print(" * expected results computed with fractions.Fraction. */")
    print("#ifndef XPROD_VECTORS_H\n#define XPROD_VECTORS_H\n")
    print("#include <stdint.h>\n")
    print("/* A product of n factors (f64 bits) from xp_factors[off], rounded")
    print(" * into want[] = { f64, f32, f16, bf16 }; its magnitude lies in")
    print(" * [fl, ce] * 2^e (128-bit ends, [0] the low limb; zero where it is")
    print(" * not finite and nonzero). */")
    print("struct xp_case {\n\tunsigned off, n;\n\tuint64_t want[4];")
    print("\tuint64_t fl[2], ce[2];\n\tint e;\n};\n")
    print("static const uint64_t xp_factors[] = {")
    off, rows = 0, []
    for c in cases:
        for v in c:
            print("\t0x%016xull," % dbits(v))
        w = expect(c)
        fl, ce, e = window(c)
        m = (1 << 64) - 1
        rows.append("\t{ %d, %d, { 0x%xull, 0x%xull, 0x%xull, 0x%xull },\n"
                    "\t  { 0x%xull, 0x%xull }, { 0x%xull, 0x%xull }, %d },"
                    % (off, len(c), *w, fl & m, fl >> 64, ce & m, ce >> 64, e))
        off += len(c)
    print("\t0\n};\n\nstatic const struct xp_case xp_cases[] = {")
    print("\n".join(rows))
    print("};\n\n/* A double and its f16 rounding (bits). */")
    print("static const uint64_t xp_half[][2] = {")
    for u, h in half_cases(rng):
        print("\t{ 0x%016xull, 0x%04x }," % (u, h))
    print("};\n\n#endif")


if __name__ == "__main__":
    main()
