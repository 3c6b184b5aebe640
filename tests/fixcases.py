"""fixcases.py - gen_fixtures.py's case table (tests/cases.txt), its input
files (fixtures/in), the random data the cases share, and the cases of
several operands and of usage errors.
"""
import math
import os
import random
import re
import struct

from fixref import *  # noqa: F401,F403

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IN = os.path.join(ROOT, 'fixtures', 'in')
EXP = os.path.join(ROOT, 'fixtures', 'expected')
INREL = 'fixtures/in/'

# ---- the case table ------------------------------------------------------

CASES = []
NAMES = set()
# Which cases cli.sh re-runs with other chunk sizes and thread counts: every
# command, type and container once, not every case (a minute on 2 cores).
PROP_CASES = re.compile('|'.join([
    r'(sum|stats|dot|scan|count)_[a-z0-9]+_(rand|c3)$', r'dot_.*_pairs$',
    r'reduce_.*_max_c3$', r'reduce_f(32|64)_prod$', r'hist_[ui]8_(rand|c3)$',
    r'hist_.*_ranged_c3$', r'hist_u16_mod_nonzero$', r'(sum|stats)_f.*_.*$',
    r'scan_sp_', r'be_sum_', r'(stdin|pipe)_sum', r'(npy|pgm|ppm|zst)_',
    r'operands_']))


def case(name, cmd, out=None, rc=0, err='-', prop=None, check=None,
         npy=None):
    assert name not in NAMES, name
    NAMES.add(name)
    if isinstance(out, str):
        out = out.encode()
    if check is None:
        check = 'cmp' if out is not None else '-'
    # after a runtime error no result is written (a scan keeps what
    # it streamed), so stdout is judged too
    if rc == 1 and check == '-' and '$G scan' not in cmd:
        check = 'empty'
    if npy is not None:
        check = 'npy:%s:%s' % npy
    if out is not None:
        with open(os.path.join(EXP, name + '.out'), 'wb') as f:
            f.write(out)
    p = '%d:%d' % prop if prop and PROP_CASES.match(name) else '-'
    CASES.append('\t'.join([name, str(rc), check, err, p, cmd]))


def npy_shape(n, c):
    return '(%d,)' % n if c == 1 else '(%d,%d)' % (n, c)


FILES = {}		# name -> (type, values, big) of every raw input


def write_in(name, data):
    with open(os.path.join(IN, name), 'wb') as f:
        f.write(data)
    return INREL + name


def raw_input(name, t, vals, big=False):
    if is_float(t):		# expectations use vals: they must be exact
        assert all(math.isnan(v) or representable(t, v) == v for v in vals)
    FILES[name] = (t, vals, big)
    return write_in(name, encode(t, vals, big))


# ---- data ---------------------------------------------------------------

R = random.Random(20240611)


def rand_float_bits(t, n):
    """Random finite values over the whole range of t (subnormals too)."""
    out = []
    while len(out) < n:
        if t == 'bf16':
            v = struct.unpack('>f', struct.pack('>H', R.getrandbits(16)) +
                              b'\0\0')[0]
        else:
            bits = R.getrandbits(SIZE[t] * 8)
            code = {'f16': 'e', 'f32': 'f', 'f64': 'd'}[t]
            ucode = {'f16': 'H', 'f32': 'I', 'f64': 'Q'}[t]
            v = struct.unpack('<' + code, struct.pack('<' + ucode, bits))[0]
        if math.isfinite(v):
            out.append(v)
    return out


def rand_vals(t, n):
    if is_float(t):
        return rand_float_bits(t, n)
    lo, hi = int_range(t)
    return [R.randint(lo, hi) for _ in range(n)]


def mod_vals(t, n):
    """Moderate values: ints within +-1000 (clipped), floats ~ N(0, 100)."""
    if is_float(t):
        return [representable(t, R.gauss(0, 100)) for _ in range(n)]
    lo, hi = int_range(t)
    return [max(lo, min(hi, R.randint(-1000, 1000) if is_signed(t)
                        else R.randint(0, 1000))) for _ in range(n)]


def prod_vals(t, n):
    """Values whose products stay small and exact."""
    if is_float(t):
        return [R.choice([-1, 1]) * R.randint(1, 15) / 8 for _ in range(n)]
    return [R.choice([-1, 1] if is_signed(t) else [1]) * R.randint(1, 3)
            for _ in range(n)]


DATA = {}


def make_data():
    for t in TYPES:
        DATA[t] = {
            'empty': [], 'one': rand_vals(t, 1),
            'rand': rand_vals(t, 1001), 'rand2': rand_vals(t, 1001),
            'mod': mod_vals(t, 1002), 'mod2': mod_vals(t, 1002),
            'prod': prod_vals(t, 16),
        }
        for k, v in DATA[t].items():
            raw_input('%s_%s.bin' % (t, k), t, v)

# ---- several operands, errors ---------------------------------------------

def cases_operands():
    v = DATA['f32']['mod']
    raw = encode('f32', v)
    cuts = [0, 5, 1001, 4000, len(raw)]
    parts = [write_in('f32_split%d.bin' % i, raw[cuts[i]:cuts[i + 1]])
             for i in range(4)]
    s = out_values('sum', 'f32', 'sum', [col_sum('f32', v)], 1002, 'text')
    case('operands_split', '$G sum %s' % ' '.join(parts), s,
         prop=(4, len(raw)))
    case('operands_dash_middle', '$G sum %s %s - %s < %s' % (
        parts[0], parts[1], parts[3], parts[2]), s)
    case('operands_scan_split', '$G scan %s' % ' '.join(parts),
         scan('f32', v, 1), prop=(4, len(raw)))
    a = write_in('f32_first400.bin', raw[:400])
    b = write_in('f32_rest.bin', raw[400:])
    case('operands_missing_middle', '$G sum %s %snonexistent.bin %s' % (
        a, INREL, b), rc=1, err='nonexistent.bin')
    case('operands_missing_only', '$G sum %snonexistent.bin' % INREL, rc=1,
         err='nonexistent.bin')
    case('operands_directory', '$G sum fixtures/in', rc=1, err='fixtures/in')
    case('operands_dir_middle', '$G sum %s fixtures %s' % (a, b), rc=1,
         err='fixtures')
    t3 = write_in('f32_trail3.bin', raw[:403])
    case('trailing_3', '$G sum %s' % t3, rc=1, err='trailing 3 bytes')
    case('trailing_c3', '$G sum -c 3 %s' % a, rc=1, err='trailing 4 bytes')
    case('trailing_stdin', '$G stats < %s' % t3, rc=1, err='trailing 3 bytes')
    case('trailing_scan', '$G scan %s' % t3, rc=1, err='trailing 3 bytes')
    case('trailing_hist_u16', '$G hist -t u16 %s' % t3, rc=1,
         err='trailing 1 byte')
    case('dot_length_mismatch', '$G dot %s %s' % (a, b), rc=1, err='gpustat: ')
    case('dot_pairs_odd', '$G dot --pairs -t f64 %sf64_rand.bin' % INREL,
         rc=1, err='trailing 8 bytes')
    case('dev_full_sum', '$G sum %s > /dev/full' % b, rc=1, err='gpustat: ')
    case('dev_full_scan', '$G scan %s > /dev/full' % b, rc=1, err='gpustat: ')
    case('dev_full_hist', '$G hist %s > /dev/full' % b, rc=1, err='gpustat: ')


def cases_usage():
    f = INREL + 'f32_mod.bin'
    u = [('no_command', '$G'), ('bad_command', '$G frobnicate'),
         ('bad_option', '$G sum --bogus %s' % f),
         ('bad_short_option', '$G sum -Z %s' % f),
         ('bad_type', '$G sum -t f33 %s' % f),
         ('bad_type_hist', '$G hist --type=complex64 %s' % f),
         ('bad_endian', '$G sum --endian middle %s' % f),
         ('bad_columns_zero', '$G sum -c 0 %s' % f),
         ('bad_columns_text', '$G sum -c three %s' % f),
         ('bad_format', '$G sum -f xml %s' % f),
         ('bad_chunk_zero', '$G sum --chunk-size 0 %s' % f),
         ('bad_chunk_suffix', '$G sum --chunk-size 4X %s' % f),
         ('bad_threads', '$G sum -j -1 %s' % f),
         ('bad_backend', '$G sum --backend tpu %s' % f),
         ('bad_reduce_op', '$G reduce --op mean %s' % f),
         ('bad_scan_op', '$G scan --op xor %s' % f),
         ('bad_scan_out_type', '$G scan --out-type f99 %s' % f),
         ('bad_bins_zero', '$G hist -t f32 --bins 0 --range 0:1 %s' % f),
         ('bad_range_order', '$G hist -t f32 --bins 4 --range 5:1 %s' % f),
         ('bad_range_syntax', '$G hist -t f32 --bins 4 --range 5 %s' % f),
         ('dot_one_operand', '$G dot %s' % f),
         ('dot_three_operands', '$G dot %s %s %s' % (f, f, f)),
         ('missing_option_arg', '$G sum %s -t' % f)]
    for name, cmd in u:
        case('usage_' + name, cmd, rc=2, check='empty',
             err="try 'gpustat")
    case('help', '$G --help', check='nonempty')
    case('help_cmd', '$G sum --help', check='nonempty')
    case('version', '$G --version', check='nonempty')
    case('hist_pipe_needs_range', 'cat %s | $G hist -t f32 --bins 4' % f,
         rc='*', check='empty', err='gpustat: ')
