#!/usr/bin/env python3
"""group_text_ref.py - CSV data and exact references for
tests/test_group_text.sh (--by on text input: string keys by their bytes).

  group_text_ref.py gen DIR     write DIR/h.csv (a header line
                                "station,temp,rain,site", then records)
                                and DIR/n.csv (the same records, no header)
  group_text_ref.py check DIR WHAT KEYS VALS
                                read gpustat's text output on stdin: one
                                row per distinct tuple of the fields KEYS
                                (0-based, comma-separated), in ascending
                                order of their bytes (column by column),
                                then per value column VALS (0-based) the
                                cells of WHAT: sum (the exact sum of the
                                values, a fractions.Fraction, rounded once
                                to a double; NaN with a NaN), count (count
                                and nan), or stats (count nan min max sum
                                of the non-NaN values, the first 5 of its
                                10 cells); prints "FAIL ..." lines,
                                exit 1 on any

Keys are adversarial for a parser of numbers: "1", "01", "1.0", "+1",
"-0", "0", "nan", "NaN", "inf" are nine keys; UTF-8 and keys that differ
in one trailing byte too. Values cancel (1e308 - 1e308 + tiny) so that
only an exact sum gets each key's result.
"""
import math
import random
import sys
from fractions import Fraction

KEYS = ['1', '01', '1.0', '+1', '-0', '0', 'nan', 'NaN', 'inf', 'a', 'ab',
        'a\u00e9', '\u00e9', '\u65e5\u672c', 'Z', 'z', 'b_' + 'x' * 40,
        'b_' + 'x' * 41, '~', '!']
VALUES = ['1', '0.1', '-0.1', '5e-324', '-0', '0',
          '2.5', '1e-300', '3', '-7', '123456789.123456789', '1e16']


def gen(d):
    rnd = random.Random(31)
    rows = []
    for i in range(150000):
        k = rnd.choice(KEYS)
        vals = [rnd.choice(VALUES) for _ in range(2)]
        if rnd.random() < 0.01:
            vals[1] = 'nan'
        site = rnd.choice(['n', 's', '10', '9'])
        sep = rnd.choice([',', ', ', ' ,', '\t,'])
        rows.append(k + sep + vals[0] + ',' + vals[1] + ',' + site)
    for k in KEYS:      # +-1e308 in pairs: exact sums stay finite
        for big in ['1e308', '-1e308'] * 3:
            sep = rnd.choice([',', ', '])
            rows.insert(rnd.randrange(len(rows) + 1),
                        k + sep + big + ',' + big + ',n')
    body = '\n'.join(rows) + '\n'
    with open(d + '/h.csv', 'w', encoding='utf-8') as f:
        f.write('station,temp,rain,site\n' + body)
    with open(d + '/n.csv', 'w', encoding='utf-8') as f:
        f.write(body)


def records(d):
    with open(d + '/n.csv', encoding='utf-8') as f:
        for line in f:
            yield [x.strip() for x in line.split(',')]


def num(s):
    """A cell of gpustat's output as a float (nan, inf as python reads)."""
    return float(s)


def same(a, b):
    return (math.isnan(a) and math.isnan(b)) or (
        a == b and math.copysign(1, a) == math.copysign(1, b))


def check(d, what, keys, vals):
    groups = {}
    for r in records(d):
        k = tuple(r[i] for i in keys)
        groups.setdefault(k, []).append([float(r[j]) for j in vals])
    order = sorted(groups, key=lambda k: [s.encode() for s in k])
    rows = [line.rstrip('\n').split('\t') for line in sys.stdin]
    fails = 0
    if len(rows) != len(order):
        print('FAIL rows: %d, not %d keys' % (len(rows), len(order)))
        return 1
    for k, row in zip(order, rows):
        if tuple(row[:len(keys)]) != k:
            print('FAIL key: %r, not %r' % (row[:len(keys)], k))
            fails += 1
            continue
        cells = row[len(keys):]
        per = {'sum': 1, 'count': 2, 'stats': 10}[what]
        for j in range(len(vals)):
            xs = [v[j] for v in groups[k]]
            ok = [x for x in xs if not math.isnan(x)]
            nan = len(xs) - len(ok)
            exact = sum((Fraction(x) for x in ok), Fraction(0))
            s = float(exact)
            if exact == 0 and ok and all(math.copysign(1, x) < 0 for x in ok):
                s = -0.0	# a sum of -0s is -0
            # stats: of the non-NaN values; sum: NaN if one is
            want = {'sum': [math.nan if nan else s],
                    'count': [len(xs), nan],
                    'stats': [len(xs), nan, min(ok), max(ok), s]}[what]
            got = cells[j * per:j * per + len(want)]
            for w, g in zip(want, got):
                if not same(float(w), num(g)):
                    print('FAIL %s %r column %d: %s, not %r' %
                          (what, k, j, g, w))
                    fails += 1
    return 1 if fails else 0


def main():
    if sys.argv[1] == 'gen':
        gen(sys.argv[2])
        return 0
    ints = lambda s: [int(x) for x in s.split(',')]
    return check(sys.argv[2], sys.argv[3], ints(sys.argv[4]),
                 ints(sys.argv[5]))


sys.exit(main())
