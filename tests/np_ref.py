"""np_ref.py - numpy's histogram, histogram2d, linspace and quantile
written again with python's standard library, step for step as numpy 2
computes them, so that the tests hold gpustat to numpy's answers where
numpy is missing (CI). Where numpy is present the references cross-check
these functions against numpy itself (np_cross below).

Arithmetic: python floats are IEEE doubles. numpy's float32 and float16
operations are correctly rounded (float16 is computed in float32 and
rounded again, and 24 >= 2 * 11 + 2 bits makes that double rounding
harmless), and a double holds 53 >= 2 * 24 + 2 bits, so an operation
computed in doubles and rounded to the type (rnd) is numpy's result for
+, -, * and /. Types are named as gpustat's -t names them: f16, f32,
f64, and "int" for any integer type (numpy computes its edges in f64).
"""
import ast
import math
import struct
import warnings
from bisect import bisect_right

PACK = {"f16": "e", "f32": "f", "f64": "d"}


def rnd(x, t):
    """x rounded to float type t (an overflow to the infinity)."""
    if t not in ("f16", "f32"):
        return float(x)
    c = "<" + PACK[t]
    try:
        return struct.unpack(c, struct.pack(c, x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def next_in(t, x, up):
    """The next value of float type t after x (x of t, finite) upward or
    downward."""
    if t == "f64":
        return math.nextafter(x, math.inf if up else -math.inf)
    c, u = ("<e", "<H") if t == "f16" else ("<f", "<I")
    b = struct.unpack(u, struct.pack(c, x))[0]
    neg = b >> (15 if t == "f16" else 31)
    if x == 0:
        b = 1 if up else (1 << (15 if t == "f16" else 31)) | 1
    else:
        b += 1 if up != bool(neg) else -1
    return struct.unpack(c, struct.pack(u, b))[0]


def ftype(t):
    """The float type numpy computes edges of data of type t in."""
    return t if t in ("f16", "f32") else "f64"


# ---- linspace -------------------------------------------------------------

def linspace(start, stop, num, t):
    """np.linspace(start, stop, num) computed in float type t (start and
    stop already of t): delta = stop - start, step = delta / (num - 1),
    y = arange(num) * step (y / div * delta when step is 0: subnormals),
    y += start, the last set to stop."""
    div = num - 1
    delta = rnd(stop - start, t)
    y = [rnd(i, t) for i in range(num)]
    if div > 0:
        step = rnd(delta / div, t)
        if step == 0:
            y = [rnd(rnd(v / div, t) * delta, t) for v in y]
        else:
            y = [rnd(v * step, t) for v in y]
    else:
        y = [rnd(v * delta, t) for v in y]
    y = [rnd(v + start, t) for v in y]
    if num > 1:
        y[-1] = stop
    return y


# ---- histogramdd (histogram2d) ------------------------------------------

def outer_edges(vals, t, rng):
    """histograms._get_outer_edges: (first, last, their type): a given
    range as python numbers (f64, numpy's weak scalars), no data (0, 1),
    else the data's min and max in its type; equal ends widened by 0.5
    in that type. Raises ValueError where numpy does."""
    if rng is not None:
        lo, hi, et = rng[0], rng[1], "f64"
        if lo > hi or not (math.isfinite(lo) and math.isfinite(hi)):
            raise ValueError("range")
    elif not vals:
        lo, hi, et = 0, 1, "f64"
    else:
        if any(isinstance(v, float) and math.isnan(v) for v in vals):
            raise ValueError("nan in the data")
        lo, hi, et = min(vals), max(vals), ftype(t)
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise ValueError("autodetected range is not finite")
    if lo == hi:	# an integer (int64 or python's) becomes a double
        lo, hi = rnd(lo - 0.5, et), rnd(hi + 0.5, et)
    return lo, hi, et


def dd_edges(vals, t, n, rng):
    """histogramdd's edges of one axis: np.linspace(smin, smax, n + 1),
    in the type of smin and smax (the data's float type, else f64)."""
    lo, hi, et = outer_edges(vals, t, rng)
    return linspace(rnd(lo, et), rnd(hi, et), n + 1, et), et


def dd_bin(v, edges):
    """histogramdd's bin of v: searchsorted(edges, v, side='right'), the
    last edge into the last bin; None outside or NaN (numpy's outliers).
    v is the value as numpy compares it with the edges (an integer as its
    nearest double)."""
    v = float(v)
    if math.isnan(v):
        return None
    i = bisect_right(edges, v)
    if v == edges[-1]:
        i -= 1
    n = len(edges) - 1
    return i - 1 if 1 <= i <= n else None


def histogram2d(xs, ys, t, bins, rng=None, ws=None):
    """np.histogram2d(xs, ys, bins, range=rng, weights=ws): (H as lists
    [x][y], xedges, yedges, the edges' type, each point's (ix, iy) or
    None). Counts are ints; weights sum in input order in doubles (numpy's
    bincount)."""
    nx, ny = bins
    rx = rng[0] if rng else None
    ry = rng[1] if rng else None
    xe, et = dd_edges(xs, t, nx, rx)
    ye, et2 = dd_edges(ys, t, ny, ry)
    # a width past the type's largest (f16) makes delta and step inf and
    # edge 0 NaN (0 * inf); numpy's searchsorted then puts the data's max,
    # the last edge, before edge 0, and ravel_multi_index raises
    if any(math.isnan(e) or math.isinf(e) for e in xe + ye):
        raise ValueError("edges that are not finite")
    h = [[0.0 if ws is not None else 0 for _ in range(ny)]
         for _ in range(nx)]
    where = []
    for k, (x, y) in enumerate(zip(xs, ys)):
        i, j = dd_bin(x, xe), dd_bin(y, ye)
        where.append((i, j) if i is not None and j is not None else None)
        if where[-1]:
            h[i][j] += 1 if ws is None else float(ws[k])
    return h, xe, ye, (et, et2), where


def dd_density(h, xe, ye, et):
    """histogramdd's density: hist / dx / dy / hist.sum(), widths of the
    edges' type (np.diff); the sum exact (numpy's of counts is; of float
    weights numpy's pairwise sum is within its rounding of it)."""
    dx = [rnd(xe[i + 1] - xe[i], et[0]) for i in range(len(xe) - 1)]
    dy = [rnd(ye[i + 1] - ye[i], et[1]) for i in range(len(ye) - 1)]
    s = float(math.fsum(v for r in h for v in r))
    return [[float(c) / dx[i] / dy[j] / s for j, c in enumerate(r)]
            for i, r in enumerate(h)]


# ---- histogram (1-d, numpy's uniform-bin path) ------------------------

def histogram(vals, t, n, rng=None, typed=False):
    """np.histogram(a, n, range=rng) of values of type t (f16, f32, f64
    or int): (edges, each value's bin or None). rng of python floats is
    weak (edges computed in f64 and cast to the data's float type, the
    bounds cast to it), typed=True makes it scalars of the data's type,
    as its min and max are (a float type's edges computed in it).

    Each value: kept when first <= x <= last; f = (x - first) / (last -
    first) * n truncated; n to n - 1; one down when x < edges[i], one up
    when x >= edges[i + 1] and i is not the last bin. Integers are kept
    by exact comparison, then binned as doubles (numpy's f64 edges)."""
    bt = ftype(t)
    if rng is None:
        lo, hi, et = outer_edges(vals, t, None)
    else:
        lo, hi = rng
        et = bt if typed else "f64"
        if lo == hi:
            lo, hi = rnd(lo - 0.5, et), rnd(hi + 0.5, et)
    edges = [rnd(e, bt) for e in linspace(rnd(lo, et), rnd(hi, et), n + 1,
                                          et)]
    if isinstance(lo, int):	# int64 scalars: exact bounds and width
        first, last, denom, xt = lo, hi, float(hi - lo), "f64"
    else:	# _unsigned_subtract(last_edge, first_edge) in their type
        first, last, denom, xt = rnd(lo, bt), rnd(hi, bt), rnd(hi - lo, et), bt
    qt = bt if et == bt else "f64"	# an array of bt / an f64 scalar
    out = []
    for x in vals:
        if not first <= x <= last:
            out.append(None)
            continue
        x = float(x)
        f = rnd(rnd(rnd(x - first, xt) / denom, qt) * n, qt)
        i = int(f)
        if i == n:
            i -= 1
        if x < edges[i]:
            i -= 1
        if x >= edges[i + 1] and i != n - 1:
            i += 1
        out.append(i)
    return edges, out


def density(counts, edges, t):
    """np.histogram's density: n / np.diff(edges) (of t, as f64) /
    n.sum()."""
    db = [rnd(edges[i + 1] - edges[i], t) for i in range(len(edges) - 1)]
    s = sum(counts)
    return [c / d / s for c, d in zip(counts, db)]


# ---- quantile -------------------------------------------------------------

ELEMENT = ("inverted_cdf", "closest_observation", "lower", "higher",
           "nearest")
HF = {"interpolated_inverted_cdf": (0.0, 1.0), "hazen": (0.5, 0.5),
      "weibull": (0.0, 0.0), "median_unbiased": (1 / 3.0, 1 / 3.0),
      "normal_unbiased": (3 / 8.0, 3 / 8.0)}


def _lerp(a, b, t):
    d = b - a
    return b - d * (1 - t) if t >= 0.5 else a + d * t


def _round_half_even(v):
    f = math.floor(v)
    r = v - f
    return f + 1 if r > 0.5 or r == 0.5 and f % 2 else f


def _terms(xs, q, method):
    """numpy's quantile of sorted xs as (element, None, None) or the
    (a, b, g) it interpolates between."""
    n = len(xs)
    if method in ELEMENT:
        if method == "lower":
            i = math.floor((n - 1) * q)
        elif method == "higher":
            i = math.ceil((n - 1) * q)
        elif method == "nearest":
            i = _round_half_even((n - 1) * q)
        else:
            v = n * q - 1 - (0.5 if method == "closest_observation" else 0)
            prev = math.floor(v)
            g = v - prev
            take = g == 0 and (method == "inverted_cdf" or prev % 2 == 1)
            i = max(prev if take else prev + 1, 0)
        return xs[int(i)], None, None
    if method == "linear":
        v = (n - 1) * q
    elif method == "averaged_inverted_cdf":
        v = n * q - 1
    elif method == "midpoint":
        v = 0.5 * (math.floor((n - 1) * q) + math.ceil((n - 1) * q))
    else:
        alpha, beta = HF[method]
        v = n * q + (alpha + q * (1 - alpha - beta)) - 1
    if v >= n - 1:
        lo = hi = -1
    elif v < 0:
        lo = hi = 0
    else:
        lo = math.floor(v)
        hi = lo + 1
    g = v - lo
    if method == "averaged_inverted_cdf":
        g = 0.5 if g == 0 else 1.0
    elif method == "midpoint":
        g = 0.0 if v % 1 == 0 else 0.5
    return float(xs[lo]), float(xs[hi]), g


def quantile(xs, q, method="linear"):
    """np.quantile(xs, q, method=method) of sorted xs (no NaN, at least
    one) and a python float q, in doubles as numpy 2 computes it: the
    element itself for the element methods (an int stays an int), else
    _lerp of the neighbours (a + d * g, or b - d * (1 - g) from g = 0.5)
    with g = the virtual index less the index taken (the last for an
    index past n - 1, the first below 0). Python floats give numpy's NaN
    for inf - inf and inf * 0 too."""
    a, b, g = _terms(xs, q, method)
    return a if b is None else _lerp(a, b, g)


def quantile_inf(xs, q, method="linear"):
    """What gpustat gives (man/gpustat.1) where numpy's _lerp meets an
    infinite neighbour and makes NaN: x_lo at g = 0, x_hi at g = 1, else
    the infinity (-inf with +inf: NaN); None where no infinity is met."""
    a, b, g = _terms(xs, q, method)
    if b is None or not (math.isinf(a) or math.isinf(b)):
        return None
    if g == 0 or a == b:
        return a
    if g == 1:
        return b
    if math.isinf(a) and math.isinf(b):
        return math.nan
    return a if math.isinf(a) else b


# ---- npy ------------------------------------------------------------------

NPY_CODES = {"f2": "e", "f4": "f", "f8": "d", "i1": "b", "u1": "B",
             "i2": "h", "u2": "H", "i4": "i", "u4": "I", "i8": "q",
             "u8": "Q", "b1": "?"}


def _code(descr):
    order = "<" if descr[0] in "<|" else ">"
    return order, NPY_CODES[descr[1:]]


def _npy_header(buf):
    """(header dict, body) of a .npy."""
    if buf[:6] != b"\x93NUMPY":
        raise ValueError("not a .npy")
    if buf[6] == 1:
        hl, at = struct.unpack("<H", buf[8:10])[0], 10
    else:
        hl, at = struct.unpack("<I", buf[8:12])[0], 12
    return (ast.literal_eval(buf[at:at + hl].decode("latin1")),
            buf[at + hl:])


def npy_array(buf):
    """A plain .npy's (descr, shape, values in C order, data bytes)."""
    hdr, body = _npy_header(buf)
    count = math.prod(hdr["shape"])
    order, c = _code(hdr["descr"])
    vals = list(struct.unpack(order + str(count) + c,
                              body[:count * struct.calcsize(c)]))
    return hdr["descr"], hdr["shape"], vals, body


def npy_load(buf):
    """A structured .npy's (field names, shape, rows as tuples)."""
    hdr, body = _npy_header(buf)
    descr, count = hdr["descr"], math.prod(hdr["shape"])
    names = [d[0] for d in descr]
    # a byte order per field: unpack field by field
    sizes = [struct.calcsize(_code(d[1])[1]) for d in descr]
    rec = sum(sizes)
    rows = []
    for r in range(count):
        at, row = r * rec, []
        for d, s in zip(descr, sizes):
            order, c = _code(d[1])
            row.append(struct.unpack(order + c, body[at:at + s])[0])
            at += s
        rows.append(tuple(row))
    return names, hdr["shape"], rows


# ---- checks ---------------------------------------------------------------

def same_bits(a, b):
    """Doubles bit for bit (every NaN one value); ints by value."""
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return struct.pack("<d", a) == struct.pack("<d", b)


def isclose(a, b, rtol, atol, equal_nan=False):
    """np.isclose(a, b): |a - b| <= atol + rtol * |b|; infinities equal
    when the same; NaN equal only with equal_nan."""
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return equal_nan and math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= atol + rtol * abs(b)


def np_cross():
    """numpy where python3 has it, else None: the references then also
    check these functions against numpy itself."""
    try:
        import numpy
    except ImportError:
        return None
    # its warnings (inf - inf in a lerp, overflowing f16 edges) would read
    # as failures: the checks compare its values
    numpy.seterr(all="ignore")
    warnings.simplefilter("ignore")
    return numpy
