"""fixref.py - gen_fixtures.py's reference arithmetic and printing, from
first principles (the standard library; numpy only to cross-check a
histogram where it is installed): the element types, exact rounding into
f16/bf16/f32/f64, the exact sums, products, moments, scans and histograms
the fixtures expect, and each command's output as docs/OUTPUT.md writes it.
"""
import bisect
import math
import struct
from fractions import Fraction as F

INF = float('inf')
NAN = float('nan')

# ---- element types -------------------------------------------------------

INT_TYPES = ['u8', 'i8', 'u16', 'i16', 'u32', 'i32', 'u64', 'i64']
FLOAT_TYPES = ['f16', 'bf16', 'f32', 'f64']
TYPES = INT_TYPES + FLOAT_TYPES
STRUCT = {'u8': 'B', 'i8': 'b', 'u16': 'H', 'i16': 'h', 'u32': 'I',
          'i32': 'i', 'u64': 'Q', 'i64': 'q', 'f16': 'e', 'f32': 'f',
          'f64': 'd'}
SIZE = {'u8': 1, 'i8': 1, 'u16': 2, 'i16': 2, 'u32': 4, 'i32': 4, 'u64': 8,
        'i64': 8, 'f16': 2, 'bf16': 2, 'f32': 4, 'f64': 8}
# precision (bits, implicit one included), emin, emax
FMT = {'f16': (11, -14, 15), 'bf16': (8, -126, 127), 'f32': (24, -126, 127),
       'f64': (53, -1022, 1023)}
NPY_DESCR = {'u8': '|u1', 'i8': '|i1', 'u16': '<u2', 'i16': '<i2',
             'u32': '<u4', 'i32': '<i4', 'u64': '<u8', 'i64': '<i8',
             'f16': '<f2', 'f32': '<f4', 'f64': '<f8'}


def is_float(t):
    return t in FLOAT_TYPES


def is_signed(t):
    return t[0] != 'u'


def int_range(t):
    bits = SIZE[t] * 8
    if is_signed(t):
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


def scan_default_out(t):
    if is_float(t):
        return t
    return 'i64' if is_signed(t) else 'u64'


def encode(t, vals, big=False):
    """Bytes of vals as type t (floats must already be representable)."""
    e = '>' if big else '<'
    if t == 'bf16':
        out = bytearray()
        for v in vals:
            b = struct.pack('>f', v)
            hi = b[:2] if not math.isnan(v) else b'\x7f\xc0'
            out += hi if big else hi[::-1]
        return bytes(out)
    return struct.pack(e + STRUCT[t] * len(vals), *vals)


# ---- exact rounding ------------------------------------------------------

def round_frac(q, t):
    """The Fraction q rounded once, to nearest even, into float type t;
    returned as a Python float (exact: every such value is a double)."""
    p, emin, emax = FMT[t]
    if q == 0:
        return 0.0
    neg = q < 0
    a, b = abs(q.numerator), q.denominator
    e = a.bit_length() - b.bit_length()
    if (a << max(0, -e)) < (b << max(0, e)):
        e -= 1			# now 2^e <= a/b < 2^(e+1)
    if e > emax:
        return -INF if neg else INF
    qe = max(e, emin) - (p - 1)	# weight of the last kept bit
    num, den = (a, b << qe) if qe >= 0 else (a << -qe, b)
    m, r = divmod(num, den)
    if 2 * r > den or (2 * r == den and m & 1):
        m += 1
    if m.bit_length() + qe > emax + 1:
        return -INF if neg else INF
    v = math.ldexp(m, qe)
    return -v if neg else v


def to_f64(x):
    """An exact int or Fraction rounded to double."""
    return round_frac(F(x), 'f64')


def sqrt_round(q):
    """sqrt of the Fraction q >= 0, correctly rounded to double."""
    if q == 0:
        return 0.0
    a, b = q.numerator, q.denominator
    k = max(0, (122 - (a.bit_length() - b.bit_length())) // 2 + 1)
    n, rem = divmod(a << (2 * k), b)	# floor(q * 4^k) >= 2^120
    r = math.isqrt(n)
    if rem == 0 and r * r == n:
        return round_frac(F(r, 1 << k), 'f64')
    # the root lies strictly between r and r+1; r has > 60 bits, so no
    # rounding boundary does, and r + 1/2 rounds like the root
    return round_frac(F(2 * r + 1, 1 << (k + 1)), 'f64')


def representable(t, x):
    """Round a Python float to type t (for generating data)."""
    if math.isnan(x) or math.isinf(x):
        return x
    return round_frac(F(x), t)


# ---- printing (docs/OUTPUT.md) -------------------------------------------

def fmt_f(x):
    if math.isnan(x):
        return 'nan'
    if math.isinf(x):
        return 'inf' if x > 0 else '-inf'
    # Python's repr is the shortest round trip; gpustat prints it without a
    # trailing ".0" (docs/OUTPUT.md)
    s = repr(float(x))
    return s[:-2] if s.endswith('.0') else s


def fmt(v):
    return str(v) if isinstance(v, int) else fmt_f(v)


def fmt_json(v):
    if isinstance(v, int):
        return str(v)
    if math.isnan(v) or math.isinf(v):
        return '"%s"' % fmt_f(v)
    return fmt_f(v)


def jlist(vs):
    return '[' + ','.join(fmt_json(v) for v in vs) + ']'


def colnames(name, c):
    return [name] if c == 1 else ['%s_%d' % (name, i) for i in range(c)]


def table(rows, header, fmtname):
    """rows: lists of strings; header: list of names."""
    if fmtname == 'text':
        return ''.join('\t'.join(r) + '\n' for r in rows)
    sep = '\t' if fmtname == 'tsv' else ','
    return ''.join(sep.join(r) + '\n' for r in [header] + rows)


# ---- the computations -----------------------------------------------------

def columns(vals, c):
    return [vals[i::c] for i in range(c)]


def special_sum(terms):
    """terms: exact Fractions or non-finite floats. Rounded to double."""
    nan = any(isinstance(x, float) and math.isnan(x) for x in terms)
    pinf = any(x == INF for x in terms)
    ninf = any(x == -INF for x in terms)
    if nan or (pinf and ninf):
        return NAN
    if pinf or ninf:
        return INF if pinf else -INF
    return to_f64(sum(terms, F(0)))


def exact_terms(vals):
    return [F(v) if math.isfinite(v) else v for v in vals]


def all_negzero(vals):
    """IEEE addition keeps -0 only when every term is -0 (gpustat's rule;
    numpy's cumsum agrees, its sum starts from +0)."""
    return bool(vals) and all(v == 0 and math.copysign(1.0, v) < 0
                              for v in vals)


def col_sum(t, vals):
    if not is_float(t):
        return sum(vals)
    if all_negzero(vals):
        return -0.0
    return special_sum(exact_terms(vals))


def col_dot(t, a, b):
    if not is_float(t):
        return sum(x * y for x, y in zip(a, b))
    terms = []
    for x, y in zip(a, b):
        if math.isfinite(x) and math.isfinite(y):
            terms.append(F(x) * F(y))
        else:
            terms.append(x * y)	# IEEE: inf*0 = nan, signs of inf
    return special_sum(terms)


def neg_zero_key(v):
    """Order -0.0 below +0.0 so min/max do not depend on order."""
    return (v, 0 if math.copysign(1.0, v) < 0 else 1)


def col_minmax(t, vals, op):
    if is_float(t) and any(math.isnan(v) for v in vals):
        return NAN
    f = min if op == 'min' else max
    return f(vals, key=neg_zero_key) if is_float(t) else f(vals)


def float_prod(vals):
    if any(math.isnan(v) for v in vals):
        return NAN
    zero = any(v == 0 for v in vals)
    inf = any(math.isinf(v) for v in vals)
    neg = sum(1 for v in vals if math.copysign(1.0, v) < 0) % 2 == 1
    if zero and inf:
        return NAN
    if inf:
        return -INF if neg else INF
    p = F(1)
    for v in vals:
        p *= F(v)
    return math.copysign(round_frac(p, 'f64'), -1.0 if neg else 1.0)


def col_reduce(t, vals, op):
    if op == 'sum':
        return col_sum(t, vals)
    if op == 'prod':
        return float_prod(vals) if is_float(t) else math.prod(vals)
    if op in ('min', 'max'):
        return col_minmax(t, vals, op)
    bits = SIZE[t] * 8
    mask = (1 << bits) - 1
    acc = {'and': mask, 'or': 0, 'xor': 0}[op]
    for v in vals:
        v &= mask
        acc = acc & v if op == 'and' else acc | v if op == 'or' else acc ^ v
    if is_signed(t) and acc >> (bits - 1):
        acc -= 1 << bits
    return acc


STATS = ['count', 'nan', 'min', 'max', 'sum', 'mean', 'pvar', 'svar',
         'pstdev', 'sstdev']


def col_stats(t, vals):
    nan = sum(1 for v in vals if is_float(t) and math.isnan(v))
    ok = [v for v in vals if not (is_float(t) and math.isnan(v))]
    n = len(ok)
    r = {'count': len(vals), 'nan': nan}
    if n == 0:
        r.update(min=NAN, max=NAN, sum=0 if not is_float(t) else 0.0,
                 mean=NAN, pvar=NAN, svar=NAN, pstdev=NAN, sstdev=NAN)
        return r
    r['min'] = col_minmax(t, ok, 'min')
    r['max'] = col_minmax(t, ok, 'max')
    r['sum'] = col_sum(t, ok)
    if is_float(t) and any(math.isinf(v) for v in ok):
        # numpy: mean follows the infinities, the variance is inf - inf
        r['mean'] = r['sum']
        r.update(pvar=NAN, svar=NAN, pstdev=NAN, sstdev=NAN)
        return r
    s1 = sum((F(v) for v in ok), F(0))
    s2 = sum((F(v) * F(v) for v in ok), F(0))
    r['mean'] = -0.0 if all_negzero(ok) else to_f64(s1 / n)
    m2 = n * s2 - s1 * s1
    r['pvar'] = to_f64(m2 / (n * n))
    r['pstdev'] = sqrt_round(m2 / (n * n))
    if n > 1:
        r['svar'] = to_f64(m2 / (n * (n - 1)))
        r['sstdev'] = sqrt_round(m2 / (n * (n - 1)))
    else:
        r['svar'] = r['sstdev'] = NAN
    return r


class ScanOverflow(Exception):
    pass


def out_convert(v, out):
    """An exact prefix (int, Fraction or non-finite float) into type out."""
    if isinstance(v, float) and (not math.isfinite(v) or v == 0):
        return v if is_float(out) else 0	# min/max keep -0.0
    if is_float(out):
        return round_frac(F(v), out)
    lo, hi = int_range(out)
    if v != int(v) or not lo <= v <= hi:
        raise ScanOverflow
    return int(v)


def scan_col(t, vals, op, exclusive, out):
    """Outputs of one column, or ScanOverflow."""
    res = []
    state = None		# None: nothing seen yet
    specials = set()	# for float sum/prod
    for v in vals:
        if exclusive:
            res.append(scan_value(t, op, state, specials, out))
        state = scan_step(t, op, state, specials, v)
        if not exclusive:
            res.append(scan_value(t, op, state, specials, out))
    return res


def scan_step(t, op, state, specials, v):
    if op in ('min', 'max'):
        if state is None:
            return v
        return col_minmax(t, [state, v], op)
    if is_float(t) and not math.isfinite(v):
        assert op == 'sum', 'non-finite products are not tested in scans'
        specials.add('nan' if math.isnan(v) else ('+' if v > 0 else '-'))
        v = 0
    if state is None:
        state = F(0) if op == 'sum' else F(1)
    return state + F(v) if op == 'sum' else state * F(v)


def scan_value(t, op, state, specials, out):
    if state is None:
        if op in ('min', 'max'):
            raise AssertionError('exclusive min/max is not tested')
        state = F(0) if op == 'sum' else F(1)
    if op == 'sum' and specials:
        if 'nan' in specials or {'+', '-'} <= specials:
            return NAN
        return INF if '+' in specials else -INF
    return out_convert(state, out)


def scan(t, vals, c, op='sum', exclusive=False, out=None):
    out = out or scan_default_out(t)
    cols = [scan_col(t, col, op, exclusive, out) for col in columns(vals, c)]
    flat = [cols[j][i] for i in range(len(vals) // c) for j in range(c)]
    return encode(out, flat)


# ---- histograms -----------------------------------------------------------

def bin_type(t):
    return {'f16': 'f16', 'bf16': 'f32', 'f32': 'f32'}.get(t, 'f64')


def hist_edges(t, lo, hi, n):
    step = (hi - lo) / n	# numpy.linspace, computed in double
    edges = [float(i) * step + lo for i in range(n + 1)]
    edges[-1] = hi
    bt = bin_type(t)
    if bt != 'f64':
        edges = [round_frac(F(e), bt) for e in edges]
    return edges


def hist_ranged_col(t, vals, edges):
    n = len(edges) - 1
    counts = [0] * n
    below = above = nan = 0
    for v in vals:
        x = float(v)	# integers compare as doubles, as numpy does
        if math.isnan(x):
            nan += 1
        elif x < edges[0]:
            below += 1
        elif x > edges[-1]:
            above += 1
        else:
            counts[min(bisect.bisect_right(edges, x) - 1, n - 1)] += 1
    return counts, below, above, nan


def numpy_check(t, vals, lo, hi, n, counts):
    try:
        import numpy as np
    except ImportError:
        return
    dt = {'bf16': 'float32'}.get(t, None)
    arr = np.array(vals, dtype=dt or np.dtype(NPY_DESCR[t]).newbyteorder('='))
    ref, _ = np.histogram(arr[~np.isnan(arr.astype(np.float64))]
                          if is_float(t) else arr, bins=n, range=(lo, hi))
    assert list(ref) == counts, (t, lo, hi, n, list(ref), counts)


def auto_range(vals):
    lo = float(min(v for v in vals if not math.isnan(v)))
    hi = float(max(v for v in vals if not math.isnan(v)))
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return lo, hi


# ---- output formatting per command ---------------------------------------

def out_values(cmd, t, name, results, count, fmtname, op=None):
    """sum, dot, reduce: results is one value per column."""
    c = len(results)
    if fmtname in ('text', 'tsv', 'csv'):
        return table([[fmt(v) for v in results]], colnames(name, c), fmtname)
    if fmtname == 'json':
        opk = '"op":"%s",' % op if cmd == 'reduce' else ''
        return ('{"command":"%s",%s"type":"%s","columns":%d,"count":%d,'
                '"result":%s}\n' % (cmd, opk, t, c, count, jlist(results)))
    return bin_values(t, results)


def bin_values(t, results):
    if is_float(t):
        return struct.pack('<%dd' % len(results), *results)
    code = 'q' if is_signed(t) else 'Q'
    return struct.pack('<%d%s' % (len(results), code), *results)


def fits_binary(t, results):
    if is_float(t):
        return True
    lo, hi = int_range('i64' if is_signed(t) else 'u64')
    return all(lo <= v <= hi for v in results)


def out_stats(t, cols, fmtname):
    c = len(cols)
    if fmtname in ('text', 'tsv', 'csv'):
        rows = [[k] + [fmt(s[k]) for s in cols] for k in STATS]
        return table(rows, ['stat'] + colnames('value', c), fmtname)
    if fmtname == 'json':
        body = ','.join('"%s":%s' % (k, jlist([s[k] for s in cols]))
                        for k in STATS)
        return '{"command":"stats","type":"%s","columns":%d,%s}\n' % (
            t, c, body)
    flat = [to_f64(s[k]) if isinstance(s[k], int) else s[k]
            for k in STATS for s in cols]
    return struct.pack('<%dd' % len(flat), *flat)


def out_hist_values(t, cols, nonzero, fmtname):
    """Per-value bins: cols[c] is a dict value -> count."""
    lo, hi = int_range(t)
    values = [v for v in range(lo, hi + 1)
              if not nonzero or any(col.get(v, 0) for col in cols)]
    c = len(cols)
    if fmtname in ('text', 'tsv', 'csv'):
        rows = [[str(v)] + [str(col.get(v, 0)) for col in cols]
                for v in values]
        return table(rows, ['value'] + colnames('count', c), fmtname)
    if fmtname == 'json':
        counts = '[' + ','.join(jlist([col.get(v, 0) for v in values])
                                for col in cols) + ']'
        return ('{"command":"hist","type":"%s","columns":%d,"values":%s,'
                '"counts":%s}\n' % (t, c, jlist(values), counts))
    flat = [col.get(v, 0) for v in values for col in cols]
    return struct.pack('<%dQ' % len(flat), *flat)


def out_hist_ranged(t, lo, hi, edges, res, fmtname):
    """res[c] = (counts, below, above, nan)."""
    c = len(res)
    n = len(edges) - 1
    if fmtname in ('text', 'tsv', 'csv'):
        rows = [[fmt_f(edges[i]), fmt_f(edges[i + 1])] +
                [str(r[0][i]) for r in res] for i in range(n)]
        return table(rows, ['lo', 'hi'] + colnames('count', c), fmtname)
    if fmtname == 'json':
        counts = '[' + ','.join(jlist(r[0]) for r in res) + ']'
        return ('{"command":"hist","type":"%s","columns":%d,"bins":%d,'
                '"range":%s,"edges":%s,"counts":%s,"below":%s,"above":%s,'
                '"nan":%s}\n' % (t, c, n, jlist([lo, hi]), jlist(edges),
                                 counts, jlist([r[1] for r in res]),
                                 jlist([r[2] for r in res]),
                                 jlist([r[3] for r in res])))
    flat = [r[0][i] for i in range(n) for r in res]
    return struct.pack('<%dQ' % len(flat), *flat)


def hist_note(res):
    b = sum(r[1] for r in res)
    a = sum(r[2] for r in res)
    n = sum(r[3] for r in res)
    if a == b == n == 0:
        return '-'
    return 'gpustat: note: not in any bin: %d below, %d above, %d nan' % (
        b, a, n)
