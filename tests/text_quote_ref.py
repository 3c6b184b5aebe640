#!/usr/bin/env python3
"""text_quote_ref.py - CSV with RFC 4180 quoting for tests/test_text_quote.sh.

  text_quote_ref.py gen DIR

writes, from one set of records (a key, two numbers, a name):

  DIR/q.csv   a header line of quoted names ("station id","temp, C",rain,
              "note"), then the records, every field quoted or not at
              random: keys hold commas, white space, tabs, quotes (as
              ""), UTF-8, nothing at all; numbers are quoted now and then
              ("1.5" is 1.5); the note holds commas and quotes, and is
              long, so that the pieces the parser cuts the text into end
              inside quoted notes
  DIR/p.csv   the same records with nothing quoted: each key replaced by
              a token (k000, k001, ...) in the order of the keys' bytes,
              the note by "-", the numbers as they are
  DIR/keys.tsv  each token, a tab, its key

  text_quote_ref.py map DIR

reads gpustat's text output over p.csv on stdin and writes it with each
line's first field, a token, replaced by its key: what the same run over
q.csv must print.
"""
import random
import sys

KEYS = ['a,b', 'a', 'a b', 'a\tb', '"', 'x""y', 'x"y', '', ' ', ',',
        '\u00e9t\u00e9', '\u65e5\u672c', 'Z', 'z,', '1', '01', '1.0', 'nan',
        '-0', 'k' * 60]
VALUES = ['1', '0.1', '-0.1', '5e-324', '-0', '2.5', '1e-300', '3', '-7',
          '123456789.123456789', '1e16', '-1e16']


def quote(s):
    return '"' + s.replace('"', '""') + '"'


def must_quote(s):
    return s == '' or s[0] == '"' or any(c in s for c in ', \t\r\n\v\f')


def gen(d):
    rnd = random.Random(4180)
    ranked = sorted(set(KEYS), key=lambda k: k.encode())
    token = {k: 'k%03d' % i for i, k in enumerate(ranked)}
    q = [','.join([quote('station id'), quote('temp, C'), 'rain',
                   quote('note')])]
    p = ['station_id,temp,rain,note']
    for _ in range(60000):
        k = rnd.choice(KEYS)
        t, r = rnd.choice(VALUES), rnd.choice(VALUES)
        note = 'n, "%d"' % rnd.randrange(10 ** 6) + ' ,' * rnd.randrange(40)
        fields = [k, t, r]
        out = [quote(f) if must_quote(f) or rnd.random() < 0.3 else f
               for f in fields]
        q.append(rnd.choice([',', ', ', ' ,']).join(out) + ',' + quote(note))
        p.append(','.join([token[k], t, r, '-']))
    with open(d + '/q.csv', 'w', encoding='utf-8', newline='') as f:
        f.write('\r\n'.join(q) + '\r\n')
    with open(d + '/p.csv', 'w', encoding='utf-8') as f:
        f.write('\n'.join(p) + '\n')
    with open(d + '/keys.tsv', 'w', encoding='utf-8') as f:
        for k in ranked:    # the key as gpustat's text output prints it
            f.write(token[k] + '\t' + k + '\n')


def tokens_to_keys(d):
    key = {}
    with open(d + '/keys.tsv', encoding='utf-8', newline='\n') as f:
        for line in f:
            t, k = line[:-1].split('\t', 1)
            key[t] = k
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        t, rest = line.split(b'\t', 1)
        out.write(key[t.decode()].encode() + b'\t' + rest)


if __name__ == '__main__':
    if len(sys.argv) != 3 or sys.argv[1] not in ('gen', 'map'):
        sys.exit(__doc__)
    (gen if sys.argv[1] == 'gen' else tokens_to_keys)(sys.argv[2])
