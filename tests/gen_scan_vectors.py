#!/usr/bin/env python3
"""Generate tests/scan_vectors.h: test vectors for the reduce and scan CPU
kernels (tests/unit_reduce.c, tests/unit_scan.c).

Expected values are exact rationals (fractions.Fraction) rounded once to the
output format, to nearest even, by round_bits() below, which is checked
against numpy's own float64 -> float32/float16 conversions of exact doubles.
Prefixes with NaN, or with +inf and -inf, are NaN; with one infinity, that
infinity.

Run: python3 tests/gen_scan_vectors.py > tests/scan_vectors.h
Deterministic (fixed seed); needs numpy only to regenerate, never to test.
"""
import math
import struct
from fractions import Fraction

import numpy as np

rng = np.random.default_rng(777)

# significand bits, emin, emax, width
FMT = {"f16": (11, -14, 15, 16), "bf16": (8, -126, 127, 16),
       "f32": (24, -126, 127, 32), "f64": (53, -1022, 1023, 64)}
ENUM = {"u8": "GS_U8", "i8": "GS_I8", "u16": "GS_U16", "i16": "GS_I16",
        "u32": "GS_U32", "i32": "GS_I32", "u64": "GS_U64", "i64": "GS_I64",
        "f16": "GS_F16", "bf16": "GS_BF16", "f32": "GS_F32", "f64": "GS_F64"}
OPS = {"sum": "OP_SUM", "prod": "OP_PROD", "min": "OP_MIN", "max": "OP_MAX"}


def inf_bits(t, neg):
    p, _, emax, w = FMT[t]
    return (int(neg) << (w - 1)) | (((1 << (w - p)) - 1) << (p - 1))


def nan_bits(t):
    p, _, _, _ = FMT[t]
    return inf_bits(t, False) | (1 << (p - 2))


def round_bits(q, t, neg_zero=False):
    """Fraction q rounded to nearest even into format t, as bits."""
    p, emin, emax, w = FMT[t]
    neg = q < 0 or (q == 0 and neg_zero)
    a = abs(q)
    sign = int(neg) << (w - 1)
    if a == 0:
        return sign
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    qe = max(e - (p - 1), emin - (p - 1))
    scaled = a / Fraction(2) ** qe
    m = scaled.numerator // scaled.denominator
    r = scaled - m
    if r > Fraction(1, 2) or (r == Fraction(1, 2) and m % 2 == 1):
        m += 1
    if m == 1 << p:
        m >>= 1
        qe += 1
    if m < 1 << (p - 1):
        return sign | m
    be = qe + p - 1 + emax
    if be >= 2 * emax + 1:
        return sign | inf_bits(t, False)
    return sign | (be << (p - 1)) | (m - (1 << (p - 1)))


def bits_value(b, t):
    """The value of bits b of float type t: Fraction, or 'nan'/'inf'/'-inf'."""
    p, emin, emax, w = FMT[t]
    neg = b >> (w - 1)
    be = (b >> (p - 1)) & ((1 << (w - p)) - 1)
    m = b & ((1 << (p - 1)) - 1)
    if be == (1 << (w - p)) - 1:
        return "nan" if m else ("-inf" if neg else "inf")
    if be == 0:
        v = Fraction(m) * Fraction(2) ** (emin - (p - 1))
    else:
        v = Fraction(m | (1 << (p - 1))) * Fraction(2) ** (be - emax - (p - 1))
    return -v if neg else v


def check_rounding():
    xs = rng.standard_normal(2000) * np.exp2(rng.integers(-160, 140, 2000))
    xs = np.concatenate([xs, [1 + 2.0**-24, 1 + 3 * 2.0**-24, 2049.0,
                              65520.0, 65519.99, 2.0**-25, 3 * 2.0**-26]])
    for x in xs:
        f = Fraction(float(x))
        assert round_bits(f, "f32") == int(np.float32(x).view(np.uint32))
        assert round_bits(f, "f16") == int(np.float16(x).view(np.uint16))
        assert round_bits(f, "f64") == struct.unpack("<Q", struct.pack("<d", x))[0]
        assert bits_value(round_bits(f, "f64"), "f64") == f


class Prefix:
    """An exact running sum/product/min/max with IEEE special values."""

    def __init__(self, op):
        self.op = op
        self.nan = self.pinf = self.ninf = self.zero = False
        self.neg = False
        self.allneg = None	# sum: every term -0 (None: no terms)
        self.v = Fraction(1) if op == "prod" else Fraction(0)
        self.key = None		# min/max: (value, sign) with -0 < +0

    def add(self, x):
        if x == "nan":
            self.nan = True
            return
        if self.op == "sum":
            self.allneg = (self.allneg is not False and
                           isinstance(x, tuple) and x == (0, True))
            if x in ("inf", "-inf"):
                self.pinf |= x == "inf"
                self.ninf |= x == "-inf"
            else:
                self.v += x[0]
        elif self.op == "prod":
            if x in ("inf", "-inf"):
                self.pinf = True	# "an infinite factor"
                self.neg ^= x == "-inf"
            else:
                self.neg ^= x[1]
                if x[0] == 0:
                    self.zero = True
                else:
                    self.v *= abs(x[0])
        else:
            k = {"inf": (math.inf, 0), "-inf": (-math.inf, 0)}.get(x)
            if k is None:
                k = (x[0], 0 if x[1] else 1)
            if self.key is None or (k < self.key if self.op == "min" else k > self.key):
                self.key = k

    def bits(self, t):
        if self.op == "sum":
            if self.nan or (self.pinf and self.ninf):
                return nan_bits(t)
            if self.pinf or self.ninf:
                return inf_bits(t, self.ninf)
            # a sum of -0 terms only is -0, as IEEE addition gives
            return round_bits(self.v, t, neg_zero=bool(self.allneg))
        if self.op == "prod":
            if self.nan or (self.zero and self.pinf):
                return nan_bits(t)
            if self.pinf:
                return inf_bits(t, self.neg)
            if self.zero:
                return int(self.neg) << (FMT[t][3] - 1)
            return round_bits(-self.v if self.neg else self.v, t)
        if self.nan:
            return nan_bits(t)
        if self.key is None:
            return inf_bits(t, self.op == "max")
        v, s = self.key
        if v in (math.inf, -math.inf):
            return inf_bits(t, v < 0)
        return round_bits(v, t, neg_zero=(v == 0 and s == 0))


def elem(b, t):
    v = bits_value(b, t)
    if isinstance(v, str):
        return v
    return (v, bool(b >> (FMT[t][3] - 1)))


def to_bits(vals, t):
    """Python floats -> element bits of t (rounded by numpy; bf16 by us)."""
    out = []
    for x in vals:
        if t == "bf16":
            if math.isnan(x):
                out.append(0x7fc0)
            elif math.isinf(x):
                out.append(inf_bits("bf16", x < 0))
            else:
                out.append(round_bits(Fraction(x), "bf16", math.copysign(1, x) < 0))
        elif t == "f64":
            out.append(struct.unpack("<Q", struct.pack("<d", x))[0])
        else:
            npt = np.float32 if t == "f32" else np.float16
            ut = np.uint32 if t == "f32" else np.uint16
            out.append(int(np.array([x], dtype=npt).view(ut)[0]))
    return out


def scan_expect(op, excl, tin, tout, bits):
    pre = Prefix(op)
    out = []
    for b in bits:
        if excl:
            out.append(pre.bits(tout))
        pre.add(elem(b, tin))
        if not excl:
            out.append(pre.bits(tout))
    return out, pre


# ---- data sets -------------------------------------------------------------

def mixed(n, lo, hi):
    return list(rng.standard_normal(n) * np.exp2(rng.integers(lo, hi, n)))


def datasets():
    d = []
    # cancellation beyond the double range and back
    d.append(("cancel", "f64", [1e308, 1.0, -1e308, 1e308, 1e308, 3.5,
                                -1e308, -1e308, 1e-300, -1.0, -3.5, 2.0**-1074]))
    # f32 data whose naive float sum goes wrong (2^24 + 1 + 1 ...)
    d.append(("naive32", "f32", [2.0**24] + [1.0] * 40 + [-2.0**24] +
              [0.1] * 30 + [1e8, -1e8] + [3e-5] * 20))
    # f16 output ties: 2048 + 1 is a midpoint, + 2^-30 is above it
    d.append(("ties16", "f32", [2048.0, 1.0, 1.0, 1.0, 2.0**-30, -2.0**-30,
                                -1.0, 2.0**-30, 1.0, 65504.0, 16.0, -16.0,
                                -65504.0, 2.0**-25, 2.0**-25, 2.0**-24]))
    # f64 input, f32 output: a f32 midpoint plus a part only the exact sum sees
    d.append(("dbl32", "f64", [1.0, 2.0**-24, 2.0**-80, -2.0**-80, -2.0**-80,
                               2.0**-24, 3.0 * 2.0**-24, 1e-200, -1e-200]))
    # random mixed magnitudes across block boundaries (fast path)
    d.append(("rand32", "f32", mixed(2100, -20, 20)))
    d.append(("rand64", "f64", mixed(2100, -30, 30)))
    # a tiny value early: the exact prefix needs more than a pair of doubles
    # (slow path) until it cancels out, then the fast path again
    d.append(("tiny64", "f64", [1e-300] + mixed(1100, -5, 5) + [-1e-300] +
              mixed(1000, -5, 5)))
    d.append(("specials", "f32", [1.0, float("inf"), 2.0, float("-inf"), 1.0,
                                  float("nan"), 3.0]))
    d.append(("posinf", "f32", [1.0, 3e38, 3e38, -3e38, float("inf"), -1.0]))
    d.append(("rand16", "f16", mixed(1300, -6, 6)))
    d.append(("randbf", "bf16", mixed(1100, -30, 30)))
    d.append(("zeros", "f32", [-0.0, 0.0, -0.0, 1.0, -1.0, -0.0, 2.0**-149,
                               -2.0**-149]))
    return d


SCANS = [  # (data set, op, output types)
    ("cancel", "sum", ["f64", "f32"]),
    ("naive32", "sum", ["f32", "f16", "bf16", "f64"]),
    ("ties16", "sum", ["f16", "bf16", "f32"]),
    ("dbl32", "sum", ["f32", "f16", "f64"]),
    ("rand32", "sum", ["f32", "f16"]),
    ("rand64", "sum", ["f64"]),
    ("tiny64", "sum", ["f64", "f32"]),
    ("specials", "sum", ["f32"]),
    ("posinf", "sum", ["f32", "f64"]),
    ("rand16", "sum", ["f16"]),
    ("randbf", "sum", ["bf16"]),
    ("zeros", "sum", ["f32"]),
    ("naive32", "prod", ["f32", "f64"]),
    ("specials", "prod", ["f32"]),
    ("zeros", "prod", ["f32"]),
    ("rand16", "prod", ["f16"]),
    ("zeros", "min", ["f32"]),
    ("zeros", "max", ["f32"]),
    ("rand32", "min", ["f32"]),
    ("specials", "max", ["f32"]),
]

# float reductions: sums and products rounded once to f64
REDUCES = [("rand32", "sum"), ("rand64", "sum"), ("rand16", "sum"),
           ("randbf", "sum"), ("cancel", "sum"), ("naive32", "sum"),
           ("specials", "sum"), ("naive32", "prod"), ("zeros", "prod"),
           ("prod64", "prod"), ("prod32", "prod"), ("specials", "prod"),
           ("zeros", "min"), ("zeros", "max"), ("rand32", "min"),
           ("randbf", "max"), ("specials", "min")]


def c_array(name, vals, width):
    suffix = "ull" if width > 32 else "u"
    lines = []
    for i in range(0, len(vals), 8):
        lines.append("\t" + ",".join("0x%x%s" % (v, suffix) for v in vals[i:i + 8]) + ",")
    return "static const uint64_t %s[] = {\n%s\n};\n" % (name, "\n".join(lines))


def main():
    check_rounding()
    data = {name: (t, to_bits(v, t)) for name, t, v in datasets()}
    data["prod64"] = ("f64", to_bits(list(rng.uniform(0.5, 2.0, 60)) +
                                     [-0.1, 3.0, 1e-300, 1e280, -7.0], "f64"))
    data["prod32"] = ("f32", to_bits(list(rng.uniform(0.9, 1.1, 300)), "f32"))
    print("/* Generated by tests/gen_scan_vectors.py -- do not edit. */")
    print("#ifndef SCAN_VECTORS_H\n#define SCAN_VECTORS_H\n")
    print("#include <stdbool.h>\n#include <stddef.h>\n#include <stdint.h>\n")
    print('#include "gs.h"\n')
    print("/* Element bit patterns of the input and of every expected output. */")
    print("struct scan_vec {\n\tconst char *name;\n\tenum gs_type in, out;\n"
          "\tenum gs_op op;\n\tbool exclusive;\n\tsize_t n;\n"
          "\tconst uint64_t *bits, *expect;\n};\n")
    print("/* A float reduction and its result as f64 bits. */")
    print("struct red_vec {\n\tconst char *name;\n\tenum gs_type in;\n"
          "\tenum gs_op op;\n\tsize_t n;\n\tconst uint64_t *bits;\n"
          "\tuint64_t expect;\n};\n")
    for name, (t, bits) in data.items():
        print(c_array("in_" + name, bits, FMT[t][3]))
    entries = []
    for name, op, outs in SCANS:
        t, bits = data[name]
        for tout in outs:
            # exclusive is the inclusive scan shifted: once per data set
            for excl in (False, True) if tout == outs[0] else (False,):
                cname = "out_%s_%s_%s_%d" % (name, op, tout, excl)
                exp, _ = scan_expect(op, excl, t, tout, bits)
                print(c_array(cname, exp, FMT[tout][3]))
                entries.append('\t{ "%s %s -> %s%s", %s, %s, %s, %s, %d, in_%s, %s },'
                               % (name, op, tout, " excl" if excl else "", ENUM[t],
                                  ENUM[tout], OPS[op], "true" if excl else "false",
                                  len(bits), name, cname))
    print("static const struct scan_vec scan_vecs[] = {\n%s\n};\n" % "\n".join(entries))
    entries = []
    for name, op in REDUCES:
        t, bits = data[name]
        _, pre = scan_expect(op, False, t, "f64", bits)
        entries.append('\t{ "%s %s", %s, %s, %d, in_%s, 0x%xull },'
                       % (name, op, ENUM[t], OPS[op], len(bits), name, pre.bits("f64")))
    print("static const struct red_vec red_vecs[] = {\n%s\n};\n" % "\n".join(entries))
    print("#endif")


main()
