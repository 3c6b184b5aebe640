#!/usr/bin/env python3
"""group_ref.py - records and references for tests/test_group.sh (--by).

  group_ref.py gen DIR        write the data sets under DIR (python's
                              struct only: no numpy needed)
  group_ref.py sums DIR NAME  read `gpustat sum --by` text output on stdin
                              and check each key's sums against exact
                              fractions.Fraction sums rounded once (float
                              value columns) or exact integers; prints
                              "FAIL ..." lines, exit 1 on any

A data set DIR/NAME/ holds data.bin (records of the -t list TYPES), info
(shell variables: TYPES, BY, KT the key columns' types, VT the value
columns' -t list, NK the key count, and VT_F, SEL_F for a -F selection of
value columns), and for the i-th key in the order gpustat must print them
(ascending by value, -0 and +0 one key, every NaN one key, last;
several key columns compared in turn): k<i>_<c>.bin, one element of key
column c (zero as +0, a NaN as a NaN), v<i>.bin, that key's records cut
to the value columns (all but the keys), and v<i>_F.bin, to -F's.
"""
import math
import os
import random
import struct
import sys
from fractions import Fraction

FMT = {'i8': 'b', 'u8': 'B', 'i16': 'h', 'u16': 'H', 'i32': 'i', 'u32': 'I',
       'i64': 'q', 'u64': 'Q', 'f16': 'e', 'f32': 'f', 'f64': 'd',
       'i2': 'h', 'i4': 'i', 'f8': 'd'}


def fmt(t):
    """struct's format of one element of -t spelling t."""
    if t[0] == '>':
        return '>' + FMT[t[1:]]
    return '<' + FMT[t]


def bits64(u):
    return struct.unpack('<d', struct.pack('<Q', u))[0]


def bits32(u):
    return struct.unpack('<f', struct.pack('<I', u))[0]


def is_float(t):
    return t.lstrip('>')[0] == 'f'


def canon(t, v):
    """What groups a key value: floats by value, -0 with +0, NaNs one."""
    if not is_float(t):
        return (0, v)
    if v != v:
        return (2, 0)
    return (1, v + 0.0)


def pack(t, v):
    return struct.pack(fmt(t), v)


def write_set(top, name, types, by, recs, sels=None):
    """recs: lists of values, one per column; by: 0-based key columns;
    sels: -F's value columns (0-based) or None."""
    d = os.path.join(top, name)
    os.makedirs(d, exist_ok=True)
    vals = [c for c in range(len(types)) if c not in by]
    with open(os.path.join(d, 'data.bin'), 'wb') as f:
        for r in recs:
            f.write(b''.join(pack(t, v) for t, v in zip(types, r)))
    groups = {}
    first = {}
    for r in recs:
        g = tuple(canon(types[c], r[c]) for c in by)
        groups.setdefault(g, []).append(r)
        first.setdefault(g, r)
    keys = sorted(groups)
    for i, g in enumerate(keys):
        for j, c in enumerate(by):
            v = first[g][c]
            if is_float(types[c]) and v == 0:
                v = 0.0
            with open(os.path.join(d, 'k%d_%d.bin' % (i, j)), 'wb') as f:
                f.write(pack(types[c], v))
        for suffix, cols in (('', vals), ('_F', sels or [])):
            if not cols:
                continue
            with open(os.path.join(d, 'v%d%s.bin' % (i, suffix)), 'wb') as f:
                for r in groups[g]:
                    f.write(b''.join(pack(types[c], r[c]) for c in cols))
    with open(os.path.join(d, 'info'), 'w') as f:
        f.write("TYPES='%s'\n" % ','.join(types))
        f.write("BY='%s'\n" % ','.join(str(c + 1) for c in by))
        f.write("KT='%s'\n" % ' '.join(types[c] for c in by))
        f.write("VT='%s'\n" % ','.join(types[c] for c in vals))
        f.write("NK=%d\n" % len(keys))
        if sels:
            f.write("SEL_F='%s'\n" % ','.join(str(c + 1) for c in sels))
            f.write("VT_F='%s'\n" % ','.join(types[c] for c in sels))
    return d


def npy(path, descr, n, body):
    d = "{'descr': %s, 'fortran_order': False, 'shape': (%d,), }" % (descr, n)
    pad = 64 - (10 + len(d) + 1) % 64
    with open(path, 'wb') as f:
        f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(d) + pad + 1))
        f.write(d.encode() + b' ' * pad + b'\n' + body)


def gen(top):
    rnd = random.Random(3131)
    nan1, nan2 = bits64(0x7ff8000000000001), bits64(0xfff4000000000abc)
    inf = math.inf

    # A: float keys (both zeros, NaNs of other payloads and signs, the
    # infinities, a subnormal, the largest), float values that cancel,
    # overflow, are NaN or infinite or -0, and i32 values at the ends
    kpool = [-0.0, 0.0, nan1, nan2, inf, -inf, 1.5, -2.25, 5e-324, 1e308]
    recs = []
    crafted = {1.5: [1e308, 1.0, -1e308], -2.25: [inf, 1.0],
               inf: [inf, -inf], -inf: [5e-324, 5e-324, 1e-300],
               5e-324: [1e308, 1e308, 1e308], 1e308: [0.1, 0.2, 0.3]}
    for k, vs in crafted.items():
        for v in vs:
            recs.append([k, v, rnd.choice([-2**31, 2**31 - 1, 0, -7])])
    for v in (-0.0, -0.0):
        recs.append([rnd.choice([-0.0, 0.0]), v, 0])
    recs.append([nan1, 0.5, 3])
    recs.append([nan2, float('nan'), 4])
    for _ in range(300):
        k = rnd.choice(kpool[6:])
        v = rnd.uniform(-1, 1) * 2.0 ** rnd.randint(-30, 30)
        recs.append([k, v, rnd.randint(-2**31, 2**31 - 1)])
    rnd.shuffle(recs)
    d = write_set(top, 'A', ['f64', 'f64', 'i32'], [0], recs, sels=[2])
    with open(os.path.join(d, 'data.bin'), 'rb') as f:
        npy(os.path.join(d, 'data.npy'),
            "[('k', '<f8'), ('v', '<f8'), ('w', '<i4')]", len(recs), f.read())

    # B: two key columns, u64 above 2^63 and negative i8; f32 values
    # with -0 and NaN (f32 payloads), f16 values
    upool = [0, 1, 2**63 - 1, 2**63, 2**63 + 5, 2**64 - 1]
    ipool = [-128, -1, 0, 127]
    recs = []
    for _ in range(400):
        f = rnd.choice([-0.0, bits32(0x7fc00001), rnd.uniform(-1e3, 1e3),
                        rnd.uniform(-1, 1) * 2.0 ** rnd.randint(-140, 120)])
        f = struct.unpack('<f', struct.pack('<f', f))[0] if f == f else f
        h = rnd.choice([65504.0, -65504.0, 0.5, -0.0, 6e-8, 1.0])
        recs.append([rnd.choice(upool), rnd.choice(ipool), f, h])
    write_set(top, 'B', ['u64', 'i8', 'f32', 'f16'], [0, 1], recs)

    # C: one type, the key in the middle column; i64 values at the ends,
    # whose squares need more than 128 bits in all
    recs = []
    for _ in range(300):
        recs.append([rnd.choice([-2**63, 2**63 - 1, -1, 5]),
                     rnd.choice([-5, -3, 0, 9, -2**63]),
                     rnd.randint(-2**63, 2**63 - 1)])
    write_set(top, 'C', ['i64', 'i64', 'i64'], [1], recs)

    # E: big-endian mixed records; F: big-endian records of one type
    recs = [[rnd.randint(-3, 3), rnd.uniform(-1, 1) * 1e10] for _ in range(200)]
    write_set(top, 'E', ['>i4', '>f8'], [0], recs)
    recs = [[rnd.randint(-3, 3), rnd.randint(-2**15, 2**15 - 1)]
            for _ in range(200)]
    write_set(top, 'F', ['>i2', '>i2'], [0], recs)

    # G: many records and keys, for -j, chunk sizes and the Fraction
    # check (no per-key files)
    d = os.path.join(top, 'G')
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'data.bin'), 'wb') as f:
        buf = []
        for _ in range(100000):
            k = rnd.randint(-2500, 2500)
            v = rnd.uniform(-1, 1) * 2.0 ** rnd.randint(-60, 60)
            if rnd.random() < 0.001:
                v = rnd.choice([1e308, -1e308, -0.0])
            buf.append(struct.pack('<id', k, v))
        f.write(b''.join(buf))


def sums(top, name):
    """Check gpustat's `sum --by BY -t TYPES` lines on stdin."""
    info = {}
    with open(os.path.join(top, name, 'info')) as f:
        for line in f:
            k, v = line.rstrip('\n').split('=', 1)
            info[k] = v.strip("'")
    types = info['TYPES'].split(',')
    by = [int(c) - 1 for c in info['BY'].split(',')]
    vals = [c for c in range(len(types)) if c not in by]
    size = struct.calcsize('<' + ''.join(fmt(t)[1] for t in types))
    layout = ''.join(fmt(t)[1] for t in types)
    order = '>' if types[0][0] == '>' else '<'
    acc = {}
    with open(os.path.join(top, name, 'data.bin'), 'rb') as f:
        data = f.read()
    for r in struct.iter_unpack(order + layout, data):
        g = tuple(canon(types[c], r[c]) for c in by)
        a = acc.setdefault(g, [[Fraction(0), set(), True] for _ in vals])
        for j, c in enumerate(vals):
            v = r[c]
            s = a[j]
            if not is_float(types[c]):
                s[0] += v
                s[2] = False
            elif v != v:
                s[1].add('nan')
            elif math.isinf(v):
                s[1].add(v > 0)
            else:
                s[0] += Fraction(v)
                s[2] = s[2] and v == 0 and math.copysign(1, v) < 0
    bad = 0
    lines = sys.stdin.read().splitlines()
    keys = sorted(acc)
    if len(lines) != len(keys):
        print("FAIL %s sums: %d lines for %d keys" % (name, len(lines),
                                                      len(keys)))
        return 1
    for line, g in zip(lines, keys):
        cells = line.split('\t')[len(by):]
        for j, c in enumerate(vals):
            s = acc[g][j]
            if not is_float(types[c]):
                want = str(s[0])
            elif 'nan' in s[1] or (True in s[1] and False in s[1]):
                want = 'nan'
            elif s[1]:
                want = 'inf' if True in s[1] else '-inf'
            else:
                try:
                    w = float(s[0])
                except OverflowError:
                    w = math.inf if s[0] > 0 else -math.inf
                if w == 0:
                    w = -0.0 if s[2] else 0.0
                want = w
            got = cells[j]
            if isinstance(want, float):
                okay = float(got) == want and \
                    math.copysign(1, float(got)) == math.copysign(1, want)
                if math.isinf(want):
                    okay = got == ('inf' if want > 0 else '-inf')
            else:
                okay = got == want
            if not okay:
                bad += 1
                if bad < 5:
                    print("FAIL %s sums: key %r column %d: got %s, want %r"
                          % (name, g, c + 1, got, want))
    return 1 if bad else 0


if __name__ == '__main__':
    if sys.argv[1] == 'gen':
        gen(sys.argv[2])
    else:
        sys.exit(sums(sys.argv[2], sys.argv[3]))
