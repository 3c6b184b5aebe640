#!/usr/bin/env python3
"""Generate tests/kernel_vectors.h: test vectors for the hist, stats and dot
CPU kernels (tests/unit_hist.c, unit_stats.c, unit_dot.c).

Expected values are computed independently of gpustat:
  - hist: numpy.histogram itself (numpy 2.x). For each value we record the
    bin numpy puts it in (one histogram call per value; the whole-array
    counts are checked to agree), or -1 below, -2 above, -3 NaN. bf16, which
    numpy lacks, is histogrammed as the float32 values it widens to.
  - stats, dot: exact rationals (fractions.Fraction), rounded once to f64 by
    Python's correctly rounded int/int division; integers as exact decimals.

Run: python3 tests/gen_kernel_vectors.py > tests/kernel_vectors.h
Deterministic (fixed seed); needs numpy only to regenerate, never to test.
"""
import math
import struct
import sys
import warnings
from fractions import Fraction

import numpy as np

rng = np.random.default_rng(20240611)
warnings.simplefilter("ignore")

NP = {"u8": np.uint8, "i8": np.int8, "u16": np.uint16, "i16": np.int16,
      "u32": np.uint32, "i32": np.int32, "u64": np.uint64, "i64": np.int64,
      "f16": np.float16, "f32": np.float32, "f64": np.float64}
ENUM = {"u8": "GS_U8", "i8": "GS_I8", "u16": "GS_U16", "i16": "GS_I16",
        "u32": "GS_U32", "i32": "GS_I32", "u64": "GS_U64", "i64": "GS_I64",
        "f16": "GS_F16", "bf16": "GS_BF16", "f32": "GS_F32", "f64": "GS_F64"}
UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def bf16_bits(x):
    """Round float32 values to bf16 (nearest even), as raw uint16 bits."""
    b = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    nan = np.isnan(np.asarray(x, dtype=np.float32))
    r = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
    r = np.where(nan, (b >> 16) | 0x40, r)
    return r.astype(np.uint16)


def bf16_to_f32(bits):
    return (np.asarray(bits, dtype=np.uint32) << 16).view(np.float32)


def raw_bits(t, arr):
    """Element bit patterns as Python ints."""
    if t == "bf16":
        return [int(v) for v in arr]
    a = np.asarray(arr, dtype=NP[t])
    return [int(v) for v in a.view(UINT[a.itemsize])]


def values(t, arr):
    """numpy array of the real values (bf16 widened to float32)."""
    if t == "bf16":
        return bf16_to_f32(arr)
    return np.asarray(arr, dtype=NP[t])


def hexd(x):
    x = float(x)
    if math.isnan(x):
        return "NAN"
    if math.isinf(x):
        return "INFINITY" if x > 0 else "-INFINITY"
    return x.hex()


def c_u64_list(xs):
    out, line = [], "\t"
    for x in xs:
        s = "0x%xu," % x
        if len(line) + len(s) > 72:
            out.append(line)
            line = "\t"
        line += s
    out.append(line)
    return "\n".join(out)


def c_list(xs):
    out, line = [], "\t"
    for x in xs:
        s = "%s," % x
        if len(line) + len(s) > 72:
            out.append(line)
            line = "\t"
        line += s
    out.append(line)
    return "\n".join(out)


# ---- hist ------------------------------------------------------------------

def near(t, xs):
    """xs, and their neighbours one ulp away, in type t."""
    out = []
    dt = np.float32 if t in ("f32", "bf16") else NP.get(t, np.float64)
    for x in xs:
        v = dt(x)
        out += [v, np.nextafter(v, dt(-np.inf)), np.nextafter(v, dt(np.inf))]
    return out


def hist_case_values(t, n, lo, hi, extra):
    """Random values over a range a bit wider than [lo, hi], the edges, their
    neighbours, lo and hi themselves, and extra."""
    w = hi - lo if hi > lo else 1.0
    r = rng.uniform(lo - 0.1 * w, hi + 0.1 * w, n)
    edges = np.linspace(lo, hi, 9)
    if t in ("f16", "f32", "f64", "bf16"):
        v = list(r) + near(t, list(edges) + [lo, hi]) + extra
        if t == "bf16":
            return bf16_bits(np.array(v, dtype=np.float32))
        return np.array(v, dtype=NP[t])
    info = np.iinfo(NP[t])
    v = [min(max(round(x), info.min), info.max) for x in r]
    v += [int(x) for x in extra]
    for e in list(edges) + [lo, hi]:
        for d in (-1, 0, 1):
            x = math.floor(e) + d
            if info.min <= x <= info.max:
                v.append(x)
    return np.array(v, dtype=NP[t])


def hist_expect(t, raw, bins, lo, hi):
    v = values(t, raw)
    idx = []
    for x in v:
        a = np.array([x], dtype=v.dtype)
        try:
            c, _ = np.histogram(a, bins=bins, range=(lo, hi))
        except (IndexError, ValueError):
            idx.append(None)	# numpy itself fails on this value
            continue
        nz = np.nonzero(c)[0]
        if len(nz):
            idx.append(int(nz[0]))
        elif np.isnan(x):
            idx.append(-3)
        else:
            lo_w = lo - 0.5 if lo == hi else lo
            if v.dtype.kind == "f":
                below = x < v.dtype.type(lo_w)
            else:
                below = float(int(x)) < lo_w
            idx.append(-1 if below else -2)
    keep = [i for i, k in enumerate(idx) if k is not None]
    raw = np.asarray(raw)[keep]
    idx = [idx[i] for i in keep]
    counts, edges = np.histogram(values(t, raw), bins=bins, range=(lo, hi))
    mine = np.bincount([i for i in idx if i >= 0], minlength=bins)
    assert (mine == counts).all(), (t, bins, lo, hi)
    return raw, idx, edges


def hist_cases():
    specials = [np.nan, np.inf, -np.inf, -0.0, 0.0]
    return [
        ("f32", 10, 0.0, 1.0, 400, specials),
        ("f32", 7, 0.1, 0.7, 400, specials + [-np.nan]),
        ("f32", 10, 1.0, 1.00001, 200, [1.000005, 1.00001]),
        ("f32", 4, 2.0, 2.0, 100, [1.5, 2.5, 2.0]),
        ("f32", 1, -3.5, 7.25, 100, specials),
        ("f32", 50000, -1.0, 3.0, 3000, specials),
        ("f16", 13, 0.1, 0.9, 400, specials),
        ("f16", 1500, 0.0, 1.0, 3000, specials),
        ("f16", 2001, -1000.0, 1000.0, 2000, [65504.0, -65504.0]),
        ("f64", 1, -2.5, 3.25, 200, specials),
        ("f64", 100000, -1e3, 1e3, 3000, specials),
        ("f64", 9, -1e-300, 1e-300, 300, [5e-324, -5e-324]),
        ("bf16", 9, -3.0, 5.0, 400, specials),
        ("u8", 40, 0.5, 200.5, 500, [0, 255]),
        ("i8", 17, -100.5, -3.25, 400, [-128, 127]),
        ("i16", 17, -100.5, -3.25, 400, [-32768, 32767]),
        ("u16", 3, 0.0, 65535.0, 400, [0, 65535]),
        ("i32", 33, -1e9, 1e9, 400, [-2**31, 2**31 - 1]),
        ("u32", 1000, 0.0, 4294967295.0, 1000, [0, 2**32 - 1]),
        ("i64", 1000, -2.0**60, 2.0**60, 400,
         [2**53 + 1, -2**53 - 1, -2**63, 2**63 - 1, 2**60, -2**60]),
        ("u64", 7, 0.0, 2.0**64, 300, [2**64 - 1, 2**63, 0]),
    ]


def emit_hist(out):
    names = []
    for n, (t, bins, lo, hi, nval, extra) in enumerate(hist_cases()):
        raw = hist_case_values(t, nval, lo, hi, extra)
        raw, idx, edges = hist_expect(t, raw, bins, lo, hi)
        name = "hv%d" % n
        out.append("static const uint64_t %s_bits[] = {\n%s\n};" %
                   (name, c_u64_list(raw_bits(t, raw))))
        out.append("static const int32_t %s_bin[] = {\n%s\n};" %
                   (name, c_list(idx)))
        # edges: all for few bins, else a sample
        if bins <= 256:
            ei = list(range(bins + 1))
        else:
            ei = sorted(set([0, 1, bins - 1, bins] +
                            [int(i) for i in rng.integers(0, bins + 1, 200)]))
        out.append("static const uint64_t %s_ei[] = {\n%s\n};" %
                   (name, c_u64_list(ei)))
        out.append("static const double %s_ev[] = {\n%s\n};" %
                   (name, c_list(hexd(edges[i]) for i in ei)))
        names.append("\t{ %s, %d, %s, %s, %d, %s_bits, %s_bin, %d, %s_ei, %s_ev },"
                      % (ENUM[t], bins, hexd(lo), hexd(hi), len(raw), name,
                         name, len(ei), name, name))
    out.append("static const struct hist_vec hist_vecs[] = {\n%s\n};" %
               "\n".join(names))


# ---- stats and dot -----------------------------------------------------------

def rnd_values(t, n, kind):
    if t in ("f16", "f32", "f64", "bf16"):
        if kind == "wide":	# huge cancellation: exactness matters
            big = {"f16": 3e4, "bf16": 1e30, "f32": 1e30, "f64": 1e300}[t]
            v = list(rng.standard_normal(n))
            v += [big, -big, big * 0.5, -big * 0.5, 1e-3, -1e-3, 3.0]
            v += [5e-324 if t == "f64" else 1e-40, -0.0, 0.0]
            if t in ("f16",):
                v += [6e-8, 1e-5]
        elif kind == "special":
            v = list(rng.standard_normal(n)) + [np.nan, -0.0, 0.0, np.nan]
        elif kind == "inf":
            v = list(rng.standard_normal(n)) + [np.inf, np.nan]
        elif kind == "bothinf":
            v = list(rng.standard_normal(n)) + [np.inf, -np.inf]
        elif kind == "allnan":
            v = [np.nan] * n
        else:
            v = list(rng.standard_normal(n) * 100)
        v = [v[i] for i in rng.permutation(len(v))]
        if t == "bf16":
            return bf16_bits(np.array(v, dtype=np.float32))
        return np.array(v, dtype=NP[t])
    info = np.iinfo(NP[t])
    if kind == "wide":
        v = [int(x) for x in rng.integers(info.min, info.max, n,
                                          dtype=NP[t], endpoint=True)]
        v += [info.min, info.max, info.max, info.min]
    else:
        v = [int(x) for x in rng.integers(max(info.min, -1000),
                                          min(info.max, 1000), n)]
    return np.array(v, dtype=NP[t])


def fsum_exact(vals):
    """Exact sum of reals, with IEEE-like NaN/inf rules."""
    if any(math.isnan(v) for v in vals):
        return math.nan
    pinf = any(v == math.inf for v in vals)
    ninf = any(v == -math.inf for v in vals)
    if pinf and ninf:
        return math.nan
    if pinf or ninf:
        return math.inf if pinf else -math.inf
    return sum((Fraction(v) for v in vals), Fraction(0))


def to_f64(x):
    """Round an exact rational once to the nearest double (int / int is
    correctly rounded in Python); overflow gives an infinity."""
    if isinstance(x, float):
        return x
    try:
        return x.numerator / x.denominator
    except OverflowError:
        return math.inf if x > 0 else -math.inf


def f64_bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def fkey(v):
    return (v, math.copysign(1.0, v))


def stats_expect(t, col):
    """count, nan, min, max, s1, s2 of one column: floats as f64 bit
    patterns, integers as exact decimal strings."""
    if t in ("f16", "f32", "f64", "bf16"):
        v = [float(x) for x in values(t, col)]
        good = [x for x in v if not math.isnan(x)]
        mn = min(good, key=fkey) if good else 0.0
        mx = max(good, key=fkey) if good else 0.0
        s1 = to_f64(fsum_exact(good))
        if any(math.isinf(x) for x in good):
            s2 = math.inf
        else:
            s2 = to_f64(sum((Fraction(x) ** 2 for x in good), Fraction(0)))
        return (len(v), len(v) - len(good), "%#xu" % f64_bits(mn),
                "%#xu" % f64_bits(mx), "%#xu" % f64_bits(s1),
                "%#xu" % f64_bits(s2), '""', '""')
    v = [int(x) for x in col]
    return (len(v), 0, "%du" % (min(v) & (2**64 - 1)),
            "%du" % (max(v) & (2**64 - 1)), "0", "0",
            '"%d"' % sum(v), '"%d"' % sum(x * x for x in v))


def stats_cases():
    return [
        ("f32", 1, 300, "wide"), ("f32", 3, 200, "special"),
        ("f32", 1, 100, "inf"), ("f32", 2, 100, "bothinf"),
        ("f32", 1, 20, "allnan"), ("f16", 1, 300, "wide"),
        ("f16", 2, 200, "special"), ("bf16", 1, 300, "wide"),
        ("bf16", 1, 100, "special"), ("f64", 1, 300, "wide"),
        ("f64", 3, 200, "special"), ("f64", 1, 100, "inf"),
        ("f64", 9, 90, "plain"),
        ("f32", 11, 50, "plain"),
        ("u8", 1, 300, "wide"), ("i8", 2, 300, "wide"),
        ("u16", 1, 300, "wide"), ("i16", 3, 300, "wide"),
        ("u32", 1, 300, "wide"), ("i32", 1, 300, "wide"),
        ("u64", 1, 300, "wide"), ("i64", 2, 300, "wide"),
        ("i64", 1, 300, "plain"), ("u64", 9, 30, "wide"),
    ]


def emit_stats(out):
    names, exps = [], []
    for n, (t, C, nrec, kind) in enumerate(stats_cases()):
        raw = rnd_values(t, nrec * C, kind)
        nrec = len(raw) // C
        raw = raw[:nrec * C]
        name = "sv%d" % n
        out.append("static const uint64_t %s_bits[] = {\n%s\n};" %
                   (name, c_u64_list(raw_bits(t, raw))))
        rows = []
        for c in range(C):
            e = stats_expect(t, np.asarray(raw)[c::C])
            rows.append("\t{ %du, %du, %s, %s, %s, %s, %s, %s }," % e)
        out.append("static const struct stats_exp %s_exp[] = {\n%s\n};" %
                   (name, "\n".join(rows)))
        names.append("\t{ %s, %d, %d, %s_bits, %s_exp }," %
                     (ENUM[t], C, nrec, name, name))
    out.append("static const struct stats_vec stats_vecs[] = {\n%s\n};" %
               "\n".join(names))


def dot_expect(t, a, b):
    if t in ("f16", "f32", "f64", "bf16"):
        x = [float(v) for v in values(t, a)]
        y = [float(v) for v in values(t, b)]
        finite = all(math.isfinite(u) and math.isfinite(w)
                     for u, w in zip(x, y))
        if finite:
            r = to_f64(sum((Fraction(u) * Fraction(w) for u, w in zip(x, y)),
                           Fraction(0)))
        else:	# NaN, inf*0 and inf-inf make NaN, as IEEE says
            r = fsum_exact([u * w for u, w in zip(x, y)
                            if not (math.isfinite(u) and math.isfinite(w))])
        return "%#xu" % f64_bits(r), '""'
    return "0", '"%d"' % sum(int(u) * int(w) for u, w in zip(a, b))


# factor pairs planted at elements 5, 5 + 4C, ... of a and b for some cases
# (for --pairs only a counts: a[5] meets its neighbour in the pair)
DOT_SPECIAL = {
    "infzero": [(np.inf, 0.0)],			# inf * 0: NaN
    "neginf": [(np.inf, -2.0)],			# -inf
    "infinf": [(np.inf, 1.0), (-np.inf, 1.0)],	# inf - inf: NaN
    "subn": [(1e-45, 1e-45), (-1e-40, 3e-39)],	# products below 2^-149
}


def dot_cases():
    return [
        ("f32", True, 1, 300, "wide"), ("f32", False, 2, 300, "wide"),
        ("f32", True, 3, 100, "special"), ("f32", True, 1, 100, "inf"),
        ("f32", False, 4, 100, "plain"), ("f16", True, 1, 300, "wide"),
        ("bf16", False, 2, 300, "wide"), ("f64", True, 1, 300, "wide"),
        ("f64", False, 2, 200, "inf"), ("f64", True, 10, 40, "plain"),
        ("f32", True, 1, 50, "infzero"), ("f32", True, 2, 50, "neginf"),
        ("f32", False, 2, 50, "infinf"), ("f32", True, 1, 50, "subn"),
        ("f64", True, 1, 50, "infzero"), ("f64", False, 2, 50, "neginf"),
        ("f64", True, 1, 50, "infinf"),
        ("u8", True, 1, 300, "wide"), ("i8", False, 2, 300, "wide"),
        ("u16", True, 2, 300, "wide"), ("i16", True, 1, 300, "wide"),
        ("u32", True, 1, 300, "wide"), ("i32", False, 2, 300, "wide"),
        ("u64", True, 1, 300, "wide"), ("i64", True, 1, 300, "wide"),
        ("i64", False, 18, 30, "wide"),
    ]


def emit_dot(out):
    names = []
    for n, (t, two, C, nrec, kind) in enumerate(dot_cases()):
        a = rnd_values(t, nrec * C, kind)
        b = rnd_values(t, nrec * C, kind)
        m = min(len(a), len(b)) // C * C
        a, b = a[:m].copy(), b[:m].copy()
        for i, (x, y) in enumerate(DOT_SPECIAL.get(kind, [])):
            a[5 + 4 * C * i], b[5 + 4 * C * i] = x, y
        nrec = m // C
        name = "dv%d" % n
        out.append("static const uint64_t %s_a[] = {\n%s\n};" %
                   (name, c_u64_list(raw_bits(t, a))))
        out.append("static const uint64_t %s_b[] = {\n%s\n};" %
                   (name, c_u64_list(raw_bits(t, b))))
        rows = []
        if two:
            for c in range(C):
                rows.append(dot_expect(t, a[c::C], b[c::C]))
        else:
            for j in range(C // 2):
                rows.append(dot_expect(t, a[2 * j::C], a[2 * j + 1::C]))
        out.append("static const struct dot_exp %s_exp[] = {\n%s\n};" %
                   (name, "\n".join("\t{ %s, %s }," % r for r in rows)))
        names.append("\t{ %s, %s, %d, %d, %s_a, %s_b, %s_exp }," %
                      (ENUM[t], "true" if two else "false", C, nrec,
                       name, name, name))
    out.append("static const struct dot_vec dot_vecs[] = {\n%s\n};" %
               "\n".join(names))


HEADER = """/* Generated by tests/gen_kernel_vectors.py -- do not edit. */
#ifndef KERNEL_VECTORS_H
#define KERNEL_VECTORS_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "gs.h"

/* hist: element bit patterns, numpy's bin of each (-1 below, -2 above,
 * -3 NaN) and a sample of numpy's edges (index, value). */
struct hist_vec {
	enum gs_type type;
	uint64_t bins;
	double lo, hi;
	size_t n;
	const uint64_t *bits;
	const int32_t *bin;
	size_t nedges;
	const uint64_t *edge_i;
	const double *edge_v;
};

/* stats of one column: floats as f64 bit patterns of min, max and the
 * correctly rounded sums; integers: min/max as 64-bit patterns, sums exact. */
struct stats_exp {
	uint64_t count, nan, min, max, s1, s2;
	const char *s1_dec, *s2_dec;
};
struct stats_vec {
	enum gs_type type;
	unsigned columns;
	size_t nrec;
	const uint64_t *bits;
	const struct stats_exp *exp;
};

/* dot: float results as f64 bit patterns, integers as exact decimals. */
struct dot_exp {
	uint64_t f;
	const char *dec;
};
struct dot_vec {
	enum gs_type type;
	bool two_inputs;
	unsigned columns;
	size_t nrec;
	const uint64_t *a, *b;
	const struct dot_exp *exp;
};
"""


def main():
    what = sys.argv[1:] or ["hist", "stats", "dot"]
    out = [HEADER]
    if "hist" in what:
        emit_hist(out)
    if "stats" in what:
        emit_stats(out)
    if "dot" in what:
        emit_dot(out)
    out.append("\n#endif")
    print("\n".join(out))


if __name__ == "__main__":
    main()
