#!/usr/bin/env python3
"""gen_fixtures.py - inputs and independently computed expected outputs for
tests/cli.sh.

Writes fixtures/in/* (inputs), fixtures/expected/*.out (expected stdout, or
the payload of an expected .npy) and tests/cases.txt (the case table).

Every expected value is computed here from first principles, never by
gpustat: exact sums, products and moments with fractions.Fraction, rounded
once by our own round-to-nearest-even into f16/bf16/f32/f64 (subnormals and
overflow included), square roots correctly rounded via math.isqrt with a
sticky bit, ranged histograms by numpy.histogram's rules (edges from
linspace in double, last edge = hi, cast to the bin type). Only the standard
library is needed; when numpy is installed the histogram counts are also
cross-checked against numpy.histogram. The .zst inputs are made with the
zstd command when it is present; otherwise the committed ones are kept.

Case table (tests/cases.txt), one case per line, tab-separated:
    NAME  RC  CHECK  STDERR  PROP  COMMAND
RC is the exit status ('*' = any non-zero). CHECK is how stdout is judged:
'cmp' (equal to fixtures/expected/NAME.out), 'npy:DESCR:SHAPE' (a .npy
whose payload is NAME.out), 'ofile' (the file $T/o equals NAME.out and
stdout is empty), 'empty', 'nonempty' or '-' (not checked). STDERR is a
fixed string stderr must contain (case-insensitive), '-' for none
(then stderr must be empty when RC is 0), '*' for not checked. PROP is
'RECORD:PAYLOAD' (bytes) for cases that cli.sh re-runs with other chunk
sizes and thread counts, else '-'. COMMAND is a shell command line where $G
is the gpustat binary and $T a scratch directory.

Run from anywhere: python3 tests/gen_fixtures.py (with fixref.py, the
reference arithmetic, and fixcases.py, the case table, beside it)
"""
import math
import os
import shutil
import struct
import subprocess
import sys

from fixref import *  # noqa: F401,F403 (the reference arithmetic)
from fixcases import *  # noqa: F401,F403 (the case table and the data)

# ---- cases per command and type ------------------------------------------

def prop_of(t, name, c=1):
    n = len(FILES[name][1])
    rec = SIZE[t] * c
    return (rec, n * SIZE[t])


def cases_sum():
    for t in TYPES:
        for k in ['empty', 'one', 'rand', 'mod']:
            fn = '%s_%s.bin' % (t, k)
            vals = DATA[t][k]
            res = [col_sum(t, vals)]
            prop = prop_of(t, fn) if k in ('rand', 'mod') else None
            case('sum_%s_%s' % (t, k), '$G sum -t %s %s%s' % (t, INREL, fn),
                 out_values('sum', t, 'sum', res, len(vals), 'text'),
                 prop=prop)
        vals = DATA[t]['mod']
        res = [col_sum(t, c) for c in columns(vals, 3)]
        fn = '%s_mod.bin' % t
        case('sum_%s_c3' % t, '$G sum -c 3 --type %s %s%s' % (t, INREL, fn),
             out_values('sum', t, 'sum', res, 334, 'text'),
             prop=prop_of(t, fn, 3))


def cases_stats():
    for t in TYPES:
        for k in ['empty', 'one', 'rand', 'mod']:
            fn = '%s_%s.bin' % (t, k)
            st = [col_stats(t, DATA[t][k])]
            prop = prop_of(t, fn) if k != 'empty' else None
            if k == 'empty':	# numpy: no min or max, a nan mean
                case('stats_%s_empty' % t,
                     '$G stats -t %s %s%s' % (t, INREL, fn),
                     'count\t0\nnan\t0\nmin\t\nmax\t\nsum\t0\n' +
                     ''.join('%s\tnan\n' % n for n in
                             ['mean', 'pvar', 'svar', 'pstdev', 'sstdev']),
                     err='no data: min and max have no value')
                continue
            case('stats_%s_%s' % (t, k),
                 '$G stats -t %s %s%s' % (t, INREL, fn),
                 out_stats(t, st, 'text'), prop=prop)
        fn = '%s_mod.bin' % t
        st = [col_stats(t, c) for c in columns(DATA[t]['mod'], 3)]
        case('stats_%s_c3' % t, '$G stats %s%s -t %s -c 3' % (INREL, fn, t),
             out_stats(t, st, 'text'), prop=prop_of(t, fn, 3))


def col_count(t, vals):
    """(elements, NaNs) of one column."""
    return (len(vals), sum(1 for v in vals if is_float(t) and math.isnan(v)))


def out_count(t, cols, fmtname):
    """count: one line, count and nan for each column in turn."""
    c = len(cols)
    if fmtname in ('text', 'tsv', 'csv'):
        header = []
        for name in colnames('', c):
            header += ['count' + name, 'nan' + name]
        row = [str(x) for col in cols for x in col]
        return table([row], header, fmtname)
    if fmtname == 'json':
        return ('{"command":"count","type":"%s","columns":%d,"count":%s,'
                '"nan":%s}\n' % (t, c, jlist([x[0] for x in cols]),
                                  jlist([x[1] for x in cols])))
    flat = [x for col in cols for x in col]
    return struct.pack('<%dQ' % len(flat), *flat)


def cases_count(specials):
    for t in TYPES:
        for k in ['empty', 'one', 'rand', 'mod']:
            fn = '%s_%s.bin' % (t, k)
            case('count_%s_%s' % (t, k), '$G count -t %s %s%s' % (t, INREL, fn),
                 out_count(t, [col_count(t, DATA[t][k])], 'text'),
                 prop=prop_of(t, fn) if k != 'empty' else None)
        fn = '%s_mod.bin' % t
        cols = [col_count(t, x) for x in columns(DATA[t]['mod'], 3)]
        case('count_%s_c3' % t, '$G count -c 3 -t %s %s%s' % (t, INREL, fn),
             out_count(t, cols, 'text'), prop=prop_of(t, fn, 3))
    # NaNs, and every format, per column
    for name, (t, vals) in sorted(specials.items()):
        if not is_float(t) or not any(math.isnan(v) for v in vals):
            continue
        fn = INREL + name + '.bin'
        case('count_' + name, '$G count -t %s %s' % (t, fn),
             out_count(t, [col_count(t, vals)], 'text'),
             prop=prop_of(t, name + '.bin'))
        for c in (1, 2):
            if len(vals) % c:
                continue
            cols = [col_count(t, x) for x in columns(vals, c)]
            shape = '(2,)' if c == 1 else '(%d,2)' % c
            for f in FORMATS:
                fmt_case('fmt_count_%s_c%d_%s' % (name, c, f),
                         '$G count -t %s -c %d %s' % (t, c, fn), f,
                         out_count(t, cols, f), '<u8', shape)


def cases_dot():
    for t in TYPES:
        a, b = DATA[t]['rand'], DATA[t]['rand2']
        fa, fb = INREL + t + '_rand.bin', INREL + t + '_rand2.bin'
        res = [col_dot(t, a, b)]
        case('dot_%s_rand' % t, '$G dot -t %s %s %s' % (t, fa, fb),
             out_values('dot', t, 'dot', res, 1001, 'text'),
             prop=prop_of(t, t + '_rand.bin'))
        a, b = DATA[t]['mod'], DATA[t]['mod2']
        fa, fb = INREL + t + '_mod.bin', INREL + t + '_mod2.bin'
        res = [col_dot(t, x, y) for x, y in zip(columns(a, 3), columns(b, 3))]
        case('dot_%s_c3' % t, '$G dot -t %s -c 3 %s %s' % (t, fa, fb),
             out_values('dot', t, 'dot', res, 334, 'text'),
             prop=prop_of(t, t + '_mod.bin', 3))
        x, y = columns(a, 2)
        case('dot_%s_pairs' % t, '$G dot --pairs -t %s %s' % (t, fa),
             out_values('dot', t, 'dot', [col_dot(t, x, y)], 501, 'text'),
             prop=prop_of(t, t + '_mod.bin', 2))
        e = INREL + t + '_empty.bin'
        case('dot_%s_empty' % t, '$G dot -t %s %s %s' % (t, e, e),
             out_values('dot', t, 'dot', [col_dot(t, [], [])], 0, 'text'))


def scan_case(name, t, fn, c=1, op='sum', exclusive=False, out=None,
              extra='', prop=True):
    vals = FILES[fn][1]
    opts = ' -c %d' % c if c > 1 else ''
    opts += ' --op %s' % op if op != 'sum' else ''
    opts += ' --exclusive' if exclusive else ''
    opts += ' --out-type %s' % out if out else ''
    cmd = '$G scan -t %s%s%s %s%s' % (t, opts, extra, INREL, fn)
    try:
        data = scan(t, vals, c, op, exclusive, out)
    except ScanOverflow:
        case(name, cmd, rc=1, err='gpustat: ')
        return
    case(name, cmd, data, prop=prop_of(t, fn, c) if prop else None)


def cases_scan():
    for t in TYPES:
        for k in ['empty', 'one', 'rand', 'mod']:
            scan_case('scan_%s_%s' % (t, k), t, '%s_%s.bin' % (t, k),
                      prop=k in ('rand', 'mod'))
        scan_case('scan_%s_c3' % t, t, t + '_mod.bin', c=3)
        scan_case('scan_%s_excl' % t, t, t + '_mod.bin', exclusive=True)
        scan_case('scan_%s_min' % t, t, t + '_mod.bin', op='min')
        scan_case('scan_%s_max' % t, t, t + '_rand.bin', op='max')
        scan_case('scan_%s_prod' % t, t, t + '_prod.bin', op='prod')
    scan_case('scan_f32_to_f64', 'f32', 'f32_mod.bin', out='f64')
    scan_case('scan_f32_to_f16', 'f32', 'f32_mod.bin', out='f16')
    scan_case('scan_f64_to_f32', 'f64', 'f64_rand.bin', out='f32')
    scan_case('scan_i16_to_i32', 'i16', 'i16_mod.bin', out='i32')
    scan_case('scan_u8_to_u16_overflow', 'u8', 'u8_rand.bin', out='u16')
    scan_case('scan_u8_to_f32', 'u8', 'u8_rand.bin', out='f32')
    scan_case('scan_i32_to_f64', 'i32', 'i32_rand.bin', out='f64')
    scan_case('scan_i32_prod_excl', 'i32', 'i32_prod.bin', op='prod',
              exclusive=True)
    scan_case('scan_i64_rand_overflow', 'i64', 'i64_rand.bin')
    scan_case('scan_u64_rand_overflow', 'u64', 'u64_rand.bin')


def cases_reduce():
    for t in TYPES:
        ops = ['sum', 'prod', 'min', 'max']
        if not is_float(t):
            ops += ['and', 'or', 'xor']
        for op in ops:
            k = {'sum': 'mod', 'prod': 'prod'}.get(op, 'rand')
            fn = '%s_%s.bin' % (t, k)
            vals = DATA[t][k]
            res = [col_reduce(t, vals, op)]
            case('reduce_%s_%s' % (t, op),
                 '$G reduce --op %s -t %s %s%s' % (op, t, INREL, fn),
                 out_values('reduce', t, op, res, len(vals), 'text', op),
                 prop=prop_of(t, fn))
        fn = '%s_mod.bin' % t
        res = [col_reduce(t, c, 'max') for c in columns(DATA[t]['mod'], 3)]
        case('reduce_%s_max_c3' % t,
             '$G reduce -t %s -c 3 --op=max %s%s' % (t, INREL, fn),
             out_values('reduce', t, 'max', res, 334, 'text', 'max'),
             prop=prop_of(t, fn, 3))
        fn = '%s_one.bin' % t
        case('reduce_%s_default_op' % t, '$G reduce -t %s %s%s' % (
            t, INREL, fn), out_values('reduce', t, 'sum', [col_sum(
                t, DATA[t]['one'])], 1, 'text', 'sum'))
        # empty input: numpy's identities, and no min or max (an error)
        fn = '%s_empty.bin' % t
        for op in ops:
            cmd = '$G reduce --op %s -t %s %s%s' % (op, t, INREL, fn)
            if op in ('min', 'max'):
                case('reduce_%s_%s_empty' % (t, op), cmd, rc=1,
                     err='%s%s: no data' % (INREL, fn))
            else:
                case('reduce_%s_%s_empty' % (t, op), cmd, out_values(
                    'reduce', t, op, [col_reduce(t, [], op)], 0, 'text', op))
    for t in FLOAT_TYPES:
        case('reduce_%s_and_usage' % t,
             '$G reduce --op and -t %s %s%s_mod.bin' % (t, INREL, t),
             rc=2, check='empty', err='gpustat: ')


def hist_values_case(name, t, fn, c=1, nonzero=False, fmtname='text',
                     extra='', prop=True):
    vals = FILES[fn][1]
    cols = []
    for col in columns(vals, c):
        d = {}
        for v in col:
            d[v] = d.get(v, 0) + 1
        cols.append(d)
    out = out_hist_values(t, cols, nonzero, fmtname)
    opts = (' -c %d' % c if c > 1 else '') + (' --nonzero' if nonzero else '')
    opts += ' -f %s' % fmtname if fmtname != 'text' else ''
    tt = '' if t == 'u8' and not extra else ' -t %s' % t
    cmd = '$G hist%s%s%s %s%s' % (tt, opts, extra, INREL, fn)
    if fmtname == 'npy':
        n = len(out) // 8 // c
        case(name, cmd, out, npy=('<u8', npy_shape(n, c)))
    else:
        case(name, cmd, out, prop=prop_of(t, fn, c) if prop else None)


def hist_ranged_case(name, t, fn, bins, rng, c=1, fmtname='text',
                     quiet=False, prop=True):
    vals = FILES[fn][1]
    lo, hi = rng if rng else auto_range(vals)
    edges = hist_edges(t, lo, hi, bins)
    res = [hist_ranged_col(t, col, edges) for col in columns(vals, c)]
    for col, r in zip(columns(vals, c), res):
        numpy_check(t, col, lo, hi, bins, r[0])
    out = out_hist_ranged(t, lo, hi, edges, res, fmtname)
    opts = ' --bins %d' % bins
    opts += ' --range %s:%s' % (fmt_f(lo), fmt_f(hi)) if rng else ''
    opts += ' -c %d' % c if c > 1 else ''
    opts += ' -f %s' % fmtname if fmtname != 'text' else ''
    opts += ' -q' if quiet else ''
    cmd = '$G hist -t %s%s %s%s' % (t, opts, INREL, fn)
    err = '-' if quiet else hist_note(res)
    if fmtname != 'text' and err != '-':
        err = '*'	# docs/OUTPUT.md only promises the note in text mode
    if fmtname == 'npy':
        case(name, cmd, out, npy=('<u8', npy_shape(bins, c)), err=err)
    else:
        case(name, cmd, out, err=err,
             prop=prop_of(t, fn, c) if prop else None)


def cases_hist():
    for t in ['u8', 'i8']:
        for k in ['empty', 'one', 'rand', 'mod']:
            hist_values_case('hist_%s_%s' % (t, k), t, '%s_%s.bin' % (t, k),
                             prop=k != 'empty')
        hist_values_case('hist_%s_c3' % t, t, t + '_mod.bin', c=3)
    for t in ['u16', 'i16']:
        for k in ['one', 'rand', 'mod']:
            hist_values_case('hist_%s_%s_nonzero' % (t, k), t,
                             '%s_%s.bin' % (t, k), nonzero=True)
        hist_values_case('hist_%s_c3_nonzero' % t, t, t + '_mod.bin', c=3,
                         nonzero=True)
    hist_values_case('hist_u8_nonzero', 'u8', 'u8_mod.bin', nonzero=True)
    for t in TYPES:
        signed = is_signed(t)
        rng = (-100.0, 100.0) if signed else (0.0, 200.0)
        hist_ranged_case('hist_%s_ranged' % t, t, t + '_mod.bin', 8, rng)
        hist_ranged_case('hist_%s_ranged_c3' % t, t, t + '_mod.bin', 5, rng,
                         c=3)
        hist_ranged_case('hist_%s_ranged_q' % t, t, t + '_rand.bin', 10,
                         (-1.0, 1.0) if signed else (0.0, 1e3), quiet=True)
        hist_ranged_case('hist_%s_ranged_empty' % t, t, t + '_empty.bin', 3,
                         (0.0, 1.0), prop=False)
    hist_ranged_case('hist_f64_auto', 'f64', 'f64_mod.bin', 9, None)
    hist_ranged_case('hist_i32_auto', 'i32', 'i32_mod.bin', 13, None)
    hist_ranged_case('hist_u8_auto', 'u8', 'u8_mod.bin', 5, None)
    hist_ranged_case('hist_f64_auto_const', 'f64', 'f64_const.bin', 4, None)


# ---- special data -------------------------------------------------------

def f32(x):
    return representable('f32', x)


def special_files():
    tiny = 5e-324
    specials = {
        'f64_cancel': ('f64', [1e308, 1.0, -1e308, 1e-300, 1e308, -1e308,
                               tiny, 1.7976931348623157e308]),
        'f64_nan': ('f64', [1.5, NAN, -2.25, 4.0]),
        'f64_inf': ('f64', [1.0, INF, 2.0]),
        'f64_infs': ('f64', [INF, 1.0, -INF]),
        'f64_allnan': ('f64', [NAN, NAN]),
        'f64_sub': ('f64', [tiny] * 1001),
        'f64_negzero': ('f64', [-0.0, -0.0]),
        'f64_zeros': ('f64', [0.0, -0.0, 0.0]),
        'f64_const': ('f64', [3.25] * 7),
        'f64_naive': ('f64', [1e16, 1.0, -1e16] * 300 + [0.1] * 10),
        'f32_special': ('f32', [NAN, INF, -INF, -0.0, f32(1.4e-45),
                                f32(3.4028234e38), -f32(3.4028234e38), 1.0]),
        'f32_naive': ('f32', [16777216.0] + [1.0] * 1000 + [f32(0.1)] * 999),
        'f32_edges': ('f32', edge_values('f32', 0.0, 1.0, 7)),
        'f16_edges': ('f16', edge_values('f16', 0.0, 1.0, 7)),
        'f16_max': ('f16', [65504.0] * 10 + [-65504.0] * 10 + [2.0 ** -24]),
        'bf16_special': ('bf16', [NAN, INF, -INF, -0.0, 2.0 ** -133,
                                  3.3895313892515355e38, 1.0, 0.5]),
        'u64_big': ('u64', [(1 << 64) - 1] * 1001),
        'i64_big': ('i64', [-(1 << 63)] * 1001 + [(1 << 63) - 1] * 3),
        'i64_ovf': ('i64', [1 << 62, 1 << 62, 1]),
        'u64_ovf': ('u64', [1 << 63, 1 << 63]),
        'f64_near1': ('f64', [R.uniform(0.9, 1.1) for _ in range(1001)]),
        'f32_near1': ('f32', [f32(R.uniform(0.9, 1.1)) for _ in range(1001)]),
        'i32_prodovf': ('i32', [3] * 41),
        'f32_hist_special': ('f32', [NAN, INF, -INF, -5.0, 0.0, 0.5, 1.0,
                                     4.0, 100.0, f32(3.999)]),
    }
    for name, (t, vals) in specials.items():
        raw_input(name + '.bin', t, vals)
    return specials


def edge_values(t, lo, hi, n):
    """Every bin edge in type t and both its neighbours."""
    out = []
    p = FMT[t][0]
    for e in hist_edges(t, lo, hi, n):
        ulp = math.ldexp(1.0, math.frexp(e)[1] - p) if e else 2.0 ** -24
        out += [representable(t, e - ulp), e, representable(t, e + ulp)]
    return out + [representable(t, R.random()) for _ in range(50)]


def cases_special(specials):
    for name, (t, vals) in specials.items():
        fn = INREL + name + '.bin'
        prop = prop_of(t, name + '.bin')
        case('sum_' + name, '$G sum -t %s %s' % (t, fn),
             out_values('sum', t, 'sum', [col_sum(t, vals)], len(vals),
                        'text'), prop=prop)
        case('stats_' + name, '$G stats -t %s %s' % (t, fn),
             out_stats(t, [col_stats(t, vals)], 'text'), prop=prop)
        if vals:
            for op in ('min', 'max', 'prod'):
                if op == 'prod' and name in ('i64_big', 'u64_big', 'f64_sub'):
                    continue
                case('reduce_%s_%s' % (op, name),
                     '$G reduce --op %s -t %s %s' % (op, t, fn),
                     out_values('reduce', t, op, [col_reduce(t, vals, op)],
                                len(vals), 'text', op), prop=prop)
        case('dot_self_' + name, '$G dot -t %s %s %s' % (t, fn, fn),
             out_values('dot', t, 'dot', [col_dot(t, vals, vals)], len(vals),
                        'text'))
    finite_scans = ['f64_cancel', 'f64_sub', 'f32_naive', 'f16_max',
                    'i64_ovf', 'u64_ovf', 'f64_inf', 'f64_near1',
                    'f32_near1', 'f64_naive']
    for name in finite_scans:
        t = specials[name][0]
        scan_case('scan_sp_' + name, t, name + '.bin')
    scan_case('scan_prod_f64_near1', 'f64', 'f64_near1.bin', op='prod')
    scan_case('scan_prod_f32_near1', 'f32', 'f32_near1.bin', op='prod')
    scan_case('scan_prod_i32_overflow', 'i32', 'i32_prodovf.bin', op='prod')
    scan_case('scan_min_f64_zeros', 'f64', 'f64_zeros.bin', op='min')
    scan_case('scan_max_f64_zeros', 'f64', 'f64_zeros.bin', op='max')
    hist_ranged_case('hist_f32_edges', 'f32', 'f32_edges.bin', 7, (0.0, 1.0))
    hist_ranged_case('hist_f16_edges', 'f16', 'f16_edges.bin', 7, (0.0, 1.0))
    hist_ranged_case('hist_f32_special', 'f32', 'f32_hist_special.bin', 4,
                     (0.0, 4.0))
    hist_ranged_case('hist_f32_special_json', 'f32', 'f32_hist_special.bin',
                     4, (0.0, 4.0), fmtname='json')
    hist_ranged_case('hist_f32_special_q', 'f32', 'f32_hist_special.bin', 4,
                     (0.0, 4.0), quiet=True)
    # binary results that do not fit i64/u64 are errors
    case('sum_u64_big_binary', '$G sum -t u64 -f binary %su64_big.bin' % INREL,
         rc=1, err='gpustat: ')
    case('sum_i64_big_json', '$G sum -t i64 -f json %si64_big.bin' % INREL,
         out_values('sum', 'i64', 'sum', [col_sum('i64', specials['i64_big'][1])],
                    1004, 'json'))


# ---- output formats -----------------------------------------------------

FORMATS = ['text', 'tsv', 'csv', 'json', 'binary', 'npy']


def fmt_case(name, cmd, fmtname, out, descr, shape):
    cmd = cmd + ' -f %s' % fmtname if fmtname != 'json' else \
        cmd + ' --format=json'
    if fmtname == 'npy':
        case(name, cmd, out, npy=(descr, shape))
    else:
        case(name, cmd, out)


def result_descr(t):
    return '<f8' if is_float(t) else ('<i8' if is_signed(t) else '<u8')


def cases_formats():
    for t, c in [('f32', 1), ('i16', 3), ('u8', 3), ('f64', 1), ('u64', 1)]:
        fn = '%s%s_mod.bin' % (INREL, t)
        vals = DATA[t]['mod']
        n = len(vals) // c
        copt = ' -c %d' % c if c > 1 else ''
        cols = columns(vals, c)
        cols2 = columns(DATA[t]['mod2'], c)
        sums = [col_sum(t, x) for x in cols]
        dots = [col_dot(t, x, y) for x, y in zip(cols, cols2)]
        mins = [col_reduce(t, x, 'min') for x in cols]
        sts = [col_stats(t, x) for x in cols]
        shape_c = '(%d,)' % c
        for f in FORMATS:
            fmt_case('fmt_sum_%s_c%d_%s' % (t, c, f),
                     '$G sum -t %s%s %s' % (t, copt, fn), f,
                     out_values('sum', t, 'sum', sums, n, f), result_descr(t),
                     shape_c)
            fmt_case('fmt_dot_%s_c%d_%s' % (t, c, f),
                     '$G dot -t %s%s %s %s' % (t, copt, fn,
                                               fn.replace('mod', 'mod2')), f,
                     out_values('dot', t, 'dot', dots, n, f), result_descr(t),
                     shape_c)
            fmt_case('fmt_reduce_%s_c%d_%s' % (t, c, f),
                     '$G reduce --op min -t %s%s %s' % (t, copt, fn), f,
                     out_values('reduce', t, 'min', mins, n, f, 'min'),
                     result_descr(t), shape_c)
            fmt_case('fmt_stats_%s_c%d_%s' % (t, c, f),
                     '$G stats -t %s%s %s' % (t, copt, fn), f,
                     out_stats(t, sts, f), '<f8',
                     '(10,)' if c == 1 else '(10,%d)' % c)
    for f in FORMATS:
        hist_values_case('fmt_hist_u8_%s' % f, 'u8', 'u8_mod.bin', fmtname=f)
        hist_values_case('fmt_hist_i8_c3_%s' % f, 'i8', 'i8_mod.bin', c=3,
                         fmtname=f)
        if f in ('text', 'tsv', 'csv', 'json'):	# binary: all bins?
            hist_values_case('fmt_hist_u16_nz_%s' % f, 'u16', 'u16_mod.bin',
                             nonzero=True, fmtname=f)
        hist_ranged_case('fmt_hist_f32_%s' % f, 'f32', 'f32_mod.bin', 6,
                         (-50.0, 50.0), fmtname=f)
        hist_ranged_case('fmt_hist_i32_c3_%s' % f, 'i32', 'i32_mod.bin', 4,
                         (0.0, 1000.0), c=3, fmtname=f)
    for t, c in [('f32', 1), ('i16', 3), ('u8', 1), ('f64', 3), ('f16', 1)]:
        fn = '%s_mod.bin' % t
        vals = DATA[t]['mod']
        out = scan(t, vals, c)
        ot = scan_default_out(t)
        case('fmt_scan_%s_c%d_npy' % (t, c),
             '$G scan -f npy -t %s%s %s%s' % (t, ' -c %d' % c if c > 1 else '',
                                              INREL, fn),
             out, npy=(NPY_DESCR[ot], npy_shape(len(vals) // c, c)))
        case('fmt_scan_%s_c%d_binary' % (t, c),
             '$G scan -f binary -t %s%s %s%s' % (
                 t, ' -c %d' % c if c > 1 else '', INREL, fn), out)
    case('fmt_scan_text_refused', '$G scan -f text %sf32_mod.bin' % INREL,
         rc=2, check='empty', err='gpustat: ')
    # -o FILE
    vals = DATA['f64']['mod']
    case('ofile_sum', '$G sum -t f64 -o $T/o %sf64_mod.bin' % INREL,
         out_values('sum', 'f64', 'sum', [col_sum('f64', vals)], 1002, 'text'),
         check='ofile')
    case('ofile_stats_json', '$G stats --output=$T/o -f json -t f64 '
         '%sf64_mod.bin' % INREL, out_stats('f64', [col_stats('f64', vals)],
                                           'json'), check='ofile')
    case('ofile_scan', '$G scan -t f64 %sf64_mod.bin -o $T/o' % INREL,
         scan('f64', vals, 1), check='ofile')


# ---- type spellings and byte order ---------------------------------------

def cases_types():
    for t in ['f32', 'i16', 'u64', 'f64', 'u16', 'bf16', 'f16']:
        vals = DATA[t]['mod']
        raw_input('%s_mod_be.bin' % t, t, vals, big=True)
    spell = [('f32', "'>f4'", ''), ('f32', 'f32', ' --endian big'),
             ('f32', 'float32', ' --endian=big'), ('i16', "'>i2'", ''),
             ('i16', 'i16', ' --endian big'), ('u64', "'>u8'", ''),
             ('u64', 'uint64', ' --endian big'), ('f64', "'>f8'", ''),
             ('u16', "'>u2'", ''), ('bf16', 'bf16', ' --endian big'),
             ('f16', "'>f2'", '')]
    for i, (t, sp, extra) in enumerate(spell):
        fn = '%s%s_mod_be.bin' % (INREL, t)
        vals = DATA[t]['mod']
        case('be_sum_%s_%d' % (t, i), '$G sum -t %s%s %s' % (sp, extra, fn),
             out_values('sum', t, 'sum', [col_sum(t, vals)], 1002, 'text'),
             prop=(SIZE[t], SIZE[t] * 1002))
        case('be_stats_%s_%d' % (t, i),
             '$G stats -t %s%s %s' % (sp, extra, fn),
             out_stats(t, [col_stats(t, vals)], 'text'))
        case('be_scan_%s_%d' % (t, i), '$G scan -t %s%s %s' % (sp, extra, fn),
             scan(t, vals, 1), prop=(SIZE[t], SIZE[t] * 1002))
    hist_values_case('be_hist_u16', 'u16', 'u16_mod_be.bin', nonzero=True,
                     extra=" --endian big")
    case('be_dot_f32', "$G dot -t '>f4' %sf32_mod_be.bin %sf32_mod_be.bin" % (
        INREL, INREL), out_values('dot', 'f32', 'dot', [col_dot(
            'f32', DATA['f32']['mod'], DATA['f32']['mod'])], 1002, 'text'))
    # numpy spellings (little-endian)
    for t, sp in [('f32', 'float32'), ('f32', "'<f4'"), ('u8', "'|u1'"),
                  ('u16', 'uint16'), ('i64', 'int64'), ('f64', 'float64'),
                  ('i8', 'int8'), ('f16', 'float16'), ('bf16', 'bfloat16'),
                  ('i32', "'<i4'"), ('u32', "'<u4'"), ('i16', "'<i2'")]:
        fn = '%s%s_mod.bin' % (INREL, t)
        vals = DATA[t]['mod']
        case('spell_%s_%s' % (t, sp.strip("'").replace('<', 'lt').replace(
            '|', 'bar')), '$G sum -t %s %s' % (sp, fn),
            out_values('sum', t, 'sum', [col_sum(t, vals)], 1002, 'text'))
    # defaults: hist u8, others f32; stdin; options after operands
    vals = DATA['f32']['mod']
    s = out_values('sum', 'f32', 'sum', [col_sum('f32', vals)], 1002, 'text')
    case('default_sum_f32', '$G sum %sf32_mod.bin' % INREL, s)
    case('stdin_sum_f32', '$G sum < %sf32_mod.bin' % INREL, s,
         prop=(4, 4 * 1002))
    case('stdin_dash_sum_f32', '$G sum - < %sf32_mod.bin' % INREL, s)
    case('pipe_sum_f32', 'cat %sf32_mod.bin | $G sum' % INREL, s,
         prop=(4, 4 * 1002))
    case('opt_after_operand', '$G sum %sf64_mod.bin -t f64' % INREL,
         out_values('sum', 'f64', 'sum', [col_sum('f64', DATA['f64']['mod'])],
                    1002, 'text'))
    case('opt_long_eq', '$G sum --type=f64 --columns=3 %sf64_mod.bin' % INREL,
         out_values('sum', 'f64', 'sum', [col_sum('f64', x) for x in columns(
             DATA['f64']['mod'], 3)], 334, 'text'))
    # options that must not change stdout
    for name, o in [('progress', '--progress'), ('verbose', '-v'),
                    ('quiet', '-q'), ('no_progress', '--no-progress'),
                    ('streams', '--streams 3'), ('backend_auto',
                                                 '--backend auto'),
                    ('device0', '--device 0')]:
        case('opt_%s' % name, '$G sum %s %sf32_mod.bin' % (o, INREL), s,
             err='*' if o in ('--progress', '-v') else '-')
    case('ofile_bad_dir', '$G sum -o %snonexistent/o %sf32_mod.bin' % (
        INREL, INREL), rc=1, check='empty', err='nonexistent/o')
    hist_values_case('default_hist_u8_stdin', 'u8', 'u8_rand.bin')
    CASES[-1] = CASES[-1].replace('$G hist fixtures', '$G hist < fixtures')
    hist_values_case('stdin_hist_u8', 'u8', 'u8_mod.bin', extra=' -')
    CASES[-1] = CASES[-1].replace(' - fixtures', ' - < fixtures')


# ---- container formats: npy, pnm, zstd -----------------------------------

def npy_bytes(descr, shape, payload, version=1, fortran=False):
    hdr = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr, fortran, shape)
    lsize = 2 if version == 1 else 4
    pad = (-(8 + lsize + len(hdr) + 1)) % 64
    hdr = (hdr + ' ' * pad + '\n').encode()
    return (b'\x93NUMPY' + bytes([version, 0]) +
            struct.pack('<H' if lsize == 2 else '<I', len(hdr)) + hdr + payload)


def cases_npy():
    v = DATA['f32']['mod']
    s = out_values('sum', 'f32', 'sum', [col_sum('f32', v)], 1002, 'text')
    fn = write_in('f32_v1.npy', npy_bytes('<f4', '(1002,)', encode('f32', v)))
    case('npy_v1_sum', '$G sum %s' % fn, s, prop=(4, 4 * 1002))
    case('npy_v1_sum_t_agrees', '$G sum -t f32 %s' % fn, s)
    case('npy_v1_t_contradicts', '$G sum -t f64 %s' % fn, rc='*',
         check='empty', err='gpustat: ')
    case('npy_stdin', '$G sum < %s' % fn, s)
    v = DATA['i16']['mod']
    fn = write_in('i16_v2_2d.npy', npy_bytes('<i2', '(334, 3)',
                                             encode('i16', v), version=2))
    case('npy_v2_2d_stats', '$G stats %s' % fn,
         out_stats('i16', [col_stats('i16', x) for x in columns(v, 3)], 'text'),
         prop=(6, 2 * 1002))
    v = DATA['u8']['mod']
    fn = write_in('u8_v3.npy', npy_bytes('|u1', '(1002,)', encode('u8', v),
                                         version=3))
    hist_values_case('npy_v3_hist', 'u8', 'u8_mod.bin')
    CASES[-1] = CASES[-1].replace(INREL + 'u8_mod.bin', fn)
    v = DATA['f64']['mod']
    fn = write_in('f64_be.npy', npy_bytes('>f8', '(1002,)',
                                          encode('f64', v, big=True)))
    case('npy_be_scan', '$G scan %s' % fn, scan('f64', v, 1))
    case('npy_be_sum_json', '$G sum -f json %s' % fn,
         out_values('sum', 'f64', 'sum', [col_sum('f64', v)], 1002, 'json'))
    fn = write_in('f32_empty.npy', npy_bytes('<f4', '(0,)', b''))
    case('npy_empty_sum', '$G sum %s' % fn, '0\n')
    # two npy operands are one stream
    v = DATA['f32']['mod']
    a = write_in('f32_part1.npy', npy_bytes('<f4', '(500,)',
                                            encode('f32', v[:500])))
    b = write_in('f32_part2.npy', npy_bytes('<f4', '(502,)',
                                            encode('f32', v[500:])))
    case('npy_two_operands', '$G sum %s %s' % (a, b),
         out_values('sum', 'f32', 'sum', [col_sum('f32', v)], 1002, 'text'))
    # header lies about the data length
    fn = write_in('f32_short.npy', npy_bytes('<f4', '(100,)',
                                             encode('f32', v[:90])))
    case('npy_lying_short', '$G sum %s' % fn, rc=1, err='f32_short.npy')
    fn = write_in('f32_long.npy', npy_bytes('<f4', '(10,)',
                                            encode('f32', v[:12])))
    case('npy_lying_long', '$G sum %s' % fn, rc=1, err='f32_long.npy')


def pnm_cases():
    w, h = 7, 5
    px8 = [R.randint(0, 255) for _ in range(w * h)]
    fn = write_in('img8.pgm', b'P5\n# a comment\n%d %d\n255\n' % (w, h) +
                  bytes(px8))
    FILES['img8.pgm'] = ('u8', px8, False)
    hist_values_case('pgm8_hist', 'u8', 'img8.pgm', extra='', prop=False)
    case('pgm8_stats', '$G stats %s' % fn,
         out_stats('u8', [col_stats('u8', px8)], 'text'), prop=(1, w * h))
    px16 = [R.randint(0, 1000) for _ in range(w * h)]
    fn = write_in('img16.pgm', b'P5 %d %d 1000\n' % (w, h) +
                  encode('u16', px16, big=True))
    FILES['img16.pgm'] = ('u16', px16, True)
    case('pgm16_sum', '$G sum %s' % fn, '%d\n' % sum(px16), prop=(2, 2 * w * h))
    case('pgm16_hist', '$G hist --nonzero %s' % fn,
         out_hist_values('u16', [count_dict(px16)], True, 'text'))
    rgb = [R.randint(0, 255) for _ in range(3 * w * h)]
    fn = write_in('img8.ppm', b'P6\n%d %d\n255\n' % (w, h) + bytes(rgb))
    case('ppm8_stats', '$G stats %s' % fn,
         out_stats('u8', [col_stats('u8', x) for x in columns(rgb, 3)],
                   'text'), prop=(3, 3 * w * h))
    case('ppm8_hist', '$G hist --nonzero %s' % fn,
         out_hist_values('u8', [count_dict(x) for x in columns(rgb, 3)],
                         True, 'text'))
    rgb16 = [R.randint(0, 65535) for _ in range(3 * w * h)]
    fn = write_in('img16.ppm', b'P6\n%d %d\n65535\n' % (w, h) +
                  encode('u16', rgb16, big=True))
    case('ppm16_sum', '$G sum %s' % fn,
         '\t'.join(str(sum(x)) for x in columns(rgb16, 3)) + '\n',
         prop=(6, 6 * w * h))
    case('ppm16_scan', '$G scan %s' % fn, scan('u16', rgb16, 3))


def count_dict(vals):
    d = {}
    for v in vals:
        d[v] = d.get(v, 0) + 1
    return d


def zstd(data, *args):
    return subprocess.run(['zstd', '-q', '-c'] + list(args), input=data,
                          stdout=subprocess.PIPE, check=True).stdout


def zst_file(name, make):
    """Write fixtures/in/name with make() when zstd exists, else keep the
    committed file."""
    path = os.path.join(IN, name)
    if shutil.which('zstd'):
        with open(path, 'wb') as f:
            f.write(make())
    elif not os.path.exists(path):
        sys.exit('gen_fixtures: zstd is needed to create ' + name)
    return INREL + name


def zstd_cases():
    # compressible but not trivial: a short pattern plus small noise
    pat = [R.randint(-300, 300) for _ in range(64)]
    v = [pat[i % 64] + R.randint(-2, 2) for i in range(12000)]
    raw = encode('i16', v)
    s = '%d\n' % sum(v)
    prop = (2, len(raw))
    fn = zst_file('i16_big.bin.zst', lambda: zstd(raw, '-3'))
    case('zst_sum', '$G sum -t i16 %s' % fn, s, prop=prop)
    case('zst_stats_c3', '$G stats -t i16 -c 3 %s' % fn,
         out_stats('i16', [col_stats('i16', x) for x in columns(v, 3)],
                   'text'), prop=(6, len(raw)))
    case('zst_scan', '$G scan -t i16 --out-type i32 %s' % fn,
         scan('i16', v, 1, out='i32'), prop=prop)
    case('zst_stdin', '$G sum -t i16 < %s' % fn, s)
    fn = zst_file('i16_concat.zst', lambda: zstd(raw[:10001], '-1') +
                  zstd(raw[10001:16000]) + zstd(raw[16000:], '-19'))
    case('zst_concat', '$G sum -t i16 %s' % fn, s, prop=prop)
    skip = struct.pack('<II', 0x184D2A53, 9) + b'skippable'
    fn = zst_file('i16_skippable.dat', lambda: skip + zstd(raw[:9000]) +
                  skip + zstd(raw[9000:]))
    case('zst_skippable_by_magic', '$G sum -t i16 %s' % fn, s, prop=prop)
    fn = zst_file('i16_frame.dat', lambda: zstd(raw))
    case('zst_by_magic', '$G sum -t i16 %s' % fn, s)
    case('zst_by_magic_pipe', 'cat %s | $G sum -t i16' % fn, s)
    fn = zst_file('i16_long31.zst', lambda: zstd(raw, '--long=31'))
    case('zst_long31', '$G sum -t i16 --long=31 %s' % fn, s, prop=prop)
    # as the zstd CLI: a window over 128 MiB needs --long=31 or --memory
    case('zst_long31_refused', '$G sum -t i16 %s' % fn, rc=1,
         err='--long=31')
    fn = zst_file('i16_trunc.zst', lambda: zstd(raw)[:-9])
    case('zst_truncated', '$G sum -t i16 %s' % fn, rc=1, err='i16_trunc.zst')
    def corrupt():
        z = bytearray(zstd(raw))
        for i in range(len(z) // 2, len(z) // 2 + 8):
            z[i] ^= 0x5a
        return bytes(z)
    fn = zst_file('i16_corrupt.zst', corrupt)
    case('zst_corrupt', '$G sum -t i16 %s' % fn, rc=1, err='i16_corrupt.zst')
    v32 = DATA['f32']['mod']
    fn = zst_file('f32_mod.npy.zst', lambda: zstd(npy_bytes(
        '<f4', '(1002,)', encode('f32', v32))))
    case('zst_npy', '$G sum %s' % fn, out_values('sum', 'f32', 'sum', [
        col_sum('f32', v32)], 1002, 'text'), prop=(4, 4 * 1002))
    # a raw float32 stream that begins with the zstd magic bytes
    mv = struct.unpack('<f', struct.pack('<I', 0xFD2FB528))[0]
    vals = [mv, 1.0, 2.0, f32(1e30)]
    fn = raw_input('f32_magic.bin', 'f32', vals)
    case('raw_magic_sum', '$G sum --raw %s' % fn,
         out_values('sum', 'f32', 'sum', [col_sum('f32', vals)], 4, 'text'))
    case('raw_magic_detected', '$G sum %s' % fn, rc=1, err='f32_magic.bin')
    # raw + zst operands in one stream
    a = write_in('i16_head.bin', raw[:777])
    fn = zst_file('i16_tail.zst', lambda: zstd(raw[777:]))
    case('zst_mixed_operands', '$G sum -t i16 %s %s' % (a, fn), s, prop=prop)


# ---- main ---------------------------------------------------------------

def main():
    keep_zst = shutil.which('zstd') is None
    for d in (IN, EXP):
        os.makedirs(d, exist_ok=True)
        for n in os.listdir(d):
            if d == IN and keep_zst and n.endswith(('.zst', '.dat')):
                continue
            os.unlink(os.path.join(d, n))
    make_data()
    specials = special_files()
    cases_sum()
    cases_stats()
    cases_count(specials)
    cases_dot()
    cases_scan()
    cases_reduce()
    cases_hist()
    cases_special(specials)
    cases_formats()
    cases_types()
    cases_npy()
    pnm_cases()
    zstd_cases()
    cases_operands()
    cases_usage()
    with open(os.path.join(ROOT, 'tests', 'cases.txt'), 'w') as f:
        f.write('# generated by tests/gen_fixtures.py; see there for the '
                'format\n')
        f.write(''.join(c + '\n' for c in CASES))
    print('gen_fixtures: %d cases' % len(CASES))


if __name__ == '__main__':
    main()
