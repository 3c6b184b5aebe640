#!/usr/bin/env python3
"""group_quantile_ref.py - checks quantile, median and mode with --by COLS
(tests/test_group_quantile.sh) on adversarial keys and values.

Usage: group_quantile_ref.py GPUSTAT TMPDIR PART. Prints "ok NAME" or
"FAIL NAME: WHY" per check and "checks N" last.

Each data set is records of a -t list (random and struct make them): key
columns with -0 and +0, NaNs of other payloads, infinities, integer
extremes and keys of one record; value columns with NaN, infinities, -0,
ties and integer extremes. For every command and option set checked:

  - the text rows are, key by key in ascending order (numbers by value,
    -0 and +0 one key, every NaN one key, last; text keys by their bytes),
    the key's cells then exactly the lines the ungrouped command prints on
    that key's records alone (cut to the value columns, run apart);
  - json's numbers against numpy's per key, as tests/np_ref.py computes
    numpy.quantile(v, q, method=...) without NaNs (numpy.nanquantile) in
    doubles, and mode by counting (collections.Counter, -0 as 0, every
    value of the highest count ascending), counts and NaNs; where numpy
    is present, np_ref's answers against numpy.quantile's too;
  - the same bytes for -j 1, -j 2 and -j 3 with small odd chunks, and
    from stdin; csv's header; npy's fields (read with struct), row by row
    csv's numbers.
"""
import json
import math
import random
import struct
import subprocess
import sys
from collections import Counter

import np_ref

G, T, PART = sys.argv[1], sys.argv[2], sys.argv[3]
rng = random.Random(31)
np = np_ref.np_cross()
checks = 0
METHODS = ["inverted_cdf", "averaged_inverted_cdf", "closest_observation",
           "interpolated_inverted_cdf", "hazen", "weibull", "linear",
           "median_unbiased", "normal_unbiased", "lower", "higher",
           "midpoint", "nearest"]
CODE = {"i8": "b", "u8": "B", "i16": "h", "u16": "H", "i32": "i",
        "u32": "I", "i64": "q", "u64": "Q", "f16": "e", "f32": "f",
        "f64": "d"}


def report(name, good, why=""):
    global checks
    checks += 1
    print(("ok " + name) if good else ("FAIL %s: %s" % (name, why)))


def run(args, stdin=None):
    p = subprocess.run([G] + args, input=stdin, capture_output=True)
    return p.returncode, p.stdout, p.stderr


def canon(v):
    """A key's group: NaN one key, -0 as +0; ints as they are."""
    if isinstance(v, float):
        return ("nan",) if math.isnan(v) else (0.0 if v == 0 else v,)
    return (v,)


def sort_key(k):
    return tuple((1, 0) if x == "nan" else (0, x) for x in k)


def pack(t, vals):
    return struct.pack("<%d%s" % (len(vals), CODE[t]), *vals)


# ---- data sets --------------------------------------------------------------

def of_type(t, x):
    """x as a value of type t (floats rounded, an overflow infinite)."""
    return np_ref.rnd(x, t) if t[0] == "f" else x


def int_range(t):
    bits = int(t[1:])
    return (0, (1 << bits) - 1) if t[0] == "u" else \
        (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)


def fvals(t, n):
    """n float values of type t: ties, NaN, infinities, -0."""
    pool = [of_type(t, x) for x in (1.5, -2.25, 0.0, -0.0, math.nan,
                                    math.inf, -math.inf, 3.0, 1e-3, 7.0,
                                    7.0, -1e5)]
    return [of_type(t, rng.gauss(0, 100)) if rng.random() < 0.5
            else rng.choice(pool) for _ in range(n)]


def ivals(t, n):
    lo, hi = int_range(t)
    pool = [lo, hi, 0, 1, 1, 2, hi - 1]
    return [rng.choice(pool) if rng.random() < 0.4 else
            rng.randint(max(lo, -1000), min(hi, 1000)) for _ in range(n)]


def vals(t, n):
    return fvals(t, n) if t[0] == "f" else ivals(t, n)


def keys_f64(n):
    """-0 and +0, infinities, a subnormal, NaNs of three payloads."""
    nan2 = [struct.unpack("<d", struct.pack("<Q", b))[0]
            for b in (0x7ff8000000000001, 0xfff8000000000000)]
    pool = [0.0, -0.0, math.inf, -math.inf, 5e-324, -1.5, 2.5, 1e300] + \
        nan2 + [math.nan]
    return [rng.choice(pool) for _ in range(n)]


def keys_int(t, n, distinct):
    lo, hi = int_range(t)
    pool = [lo, hi, 0, -1 if lo else 1]
    return [rng.choice(pool) if rng.random() < 0.3 else
            rng.randrange(distinct) for _ in range(n)]


def dataset(part):
    """(types, by (1-based), columns, value -t type, value columns)."""
    if part == "ikey":		# i32 keys, one f32 value, mixed records
        n = 400
        types, by = ["i32", "f32"], [1]
        cols = [keys_int("i32", n, 12), vals("f32", n)]
        cols[0][-1] = 424242	# a key of one record
        cols[1][:8] = [math.nan] * 8
        cols[0][:8] = [77] * 8	# a key of NaNs only
    elif part == "fkey":	# f64 keys (-0, NaNs, infinities), i64 values
        n = 300
        types, by = ["f64", "i64"], [1]
        cols = [keys_f64(n), vals("i64", n)]
    elif part == "onetype":	# -c 3 of u16, the key in the middle
        n = 500
        types, by = ["u16", "u16", "u16"], [2]
        cols = [vals("u16", n), keys_int("u16", n, 9), vals("u16", n)]
    elif part == "twokeys":	# two key columns: i8 and u64, f64 values
        n = 400
        types, by = ["i8", "f64", "u64"], [1, 3]
        cols = [keys_int("i8", n, 3), vals("f64", n), keys_int("u64", n, 3)]
    elif part == "f16":		# f16 values and keys
        n = 150
        types, by = ["f16", "f16"], [2]
        cols = [vals("f16", n), fvals("f16", n)]
    elif part == "many":	# many records and keys: the radix sorts
        n = 30000
        types, by = ["i64", "f64"], [1]
        cols = [[rng.randrange(-30, 30) for _ in range(n)],
                [round(rng.gauss(0, 1), 2) for _ in range(n)]]
    elif part == "big":		# past the threads' sort (65536 records)
        n = 100000
        types, by = ["i16", "f64", "f32"], [1, 3]
        cols = [[rng.randrange(-2, 3) for _ in range(n)],
                [round(rng.gauss(0, 1), 3) for _ in range(n)],
                [rng.choice([0.0, -0.0, math.nan, 1.5, -math.inf])
                 for _ in range(n)]]
    elif part == "order":	# runs in order: the selection's partitions
        n, m = 12000, 3000	# keys 0-3: ascending, descending, an
        types, by = ["i32", "f64"], [1]	# organ pipe, all equal
        cols = [[i // m for i in range(n)],
                [float(i % m) if i < m else float(m - i % m) if i < 2 * m
                 else float(min(i % m, m - i % m)) if i < 3 * m else 2.5
                 for i in range(n)]]
    elif part == "packed":	# one word a record (gvals.h): the key
        n = 70000		# after the value, i32 extremes (INT32_MAX's
        types, by = ["i32", "i32"], [2]	# key is UINT32_MAX, not a NaN),
        cols = [vals("i32", n), keys_int("i32", n, 40)]	# the threads' sort
    elif part == "packed16":	# u16 keys, f16 values with NaN: the
        n = 3000		# packed form's loop for any type
        types, by = ["f16", "u16"], [2]
        cols = [fvals("f16", n), keys_int("u16", n, 30)]
    elif part == "crowd":	# many ranks in one bucket of the values'
        n = 20000		# top bits (gvals_pick.c): 45% in [1, 1.5)
        types, by = ["i32", "f32"], [1]
        cols = [[i % 5 for i in range(n)],
                [of_type("f32", rng.uniform(1, 1.5) if rng.random() < 0.45
                         else rng.uniform(-1e6, 1e6)) for _ in range(n)]]
    else:
        raise SystemExit("no part " + part)
    rows = list(zip(*cols))
    vcols = [i for i in range(len(types)) if i + 1 not in by]
    vt = types[vcols[0]]
    assert all(types[i] == vt for i in vcols)
    return types, by, rows, vt, vcols


def records(types, rows):
    fmt = "<" + "".join(CODE[t] for t in types)
    return b"".join(struct.pack(fmt, *r) for r in rows)


def groups(rows, by):
    g = {}
    for r, row in enumerate(rows):
        k = sum((canon(row[b - 1]) for b in by), ())
        g.setdefault(k, []).append(r)
    return [(k, g[k]) for k in sorted(g, key=sort_key)]


# ---- the checks -----------------------------------------------------------

def key_cells(types, by, k, i):
    """The key's cells as gpustat prints a value of its type."""
    cells = []
    for c, b in enumerate(by):
        t = types[b - 1]
        x = k[c]
        path = "%s/key%d_%d.bin" % (T, i, c)
        with open(path, "wb") as f:
            f.write(pack(t, [math.nan if x == "nan" else x]))
        rc, out, err = run(["reduce", "--op", "min", "-t", t, path])
        cells.append(out.decode().strip())
    return cells


def want_text(cmd, opts, rec, vt, vcols, gr, kcells):
    """Each key's cells then the ungrouped command's lines."""
    want = b""
    for i, (k, rows) in enumerate(gr):
        path = "%s/v%d.bin" % (T, i)
        with open(path, "wb") as f:
            f.write(pack(vt, [rec[r][c] for r in rows for c in vcols]))
        rc, out, err = run([cmd] + opts + ["-t", vt, "-c", str(len(vcols)),
                                           path])
        if rc:
            return None, "ungrouped %s failed: %s" % (cmd, err.decode())
        for line in out.decode().splitlines():
            want += ("\t".join(kcells[i] + [line]) + "\n").encode()
    return want, ""


def close(a, b):
    if isinstance(a, str) or isinstance(b, str):
        return str(a) == str(b)
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def jnum(x):
    return float("nan") if x == "nan" else float("inf") if x == "inf" \
        else float("-inf") if x == "-inf" else x


def is_nan(x):
    return isinstance(x, float) and math.isnan(x)


def column_check(cmd, q, method, js, i, j, k, v, cross):
    """Key k's value column j (its values v) in json: counts, NaNs, the
    mode by counting, each q's quantile against np_ref's numpy.quantile
    (and numpy's own where present, into cross). A reason, or None."""
    nan = sum(map(is_nan, v))
    if js["count"][i][j] != len(v) or js["nan"][i][j] != nan:
        return "key %s col %d: count/nan" % (k, j)
    live = [x for x in v if not is_nan(x)]
    if cmd == "mode":
        cnt = Counter(0.0 if x == 0 and isinstance(x, float) else x
                      for x in live)
        best = max(cnt.values()) if cnt else 0
        modes = sorted(x for x in cnt if cnt[x] == best)
        got = [jnum(x) for x in js["mode"][i][j]]
        if js["mode_count"][i][j] != best or len(got) != len(modes) \
                or not all(close(a, b) for a, b in zip(got, modes)):
            return "key %s col %d: mode %s %s, want %s %s" % (
                k, j, got, js["mode_count"][i][j], modes, best)
        return None
    # numpy's input: doubles, but integers as they are for the methods
    # that take an element
    lv = sorted(float(x) for x in live) if not live or \
        isinstance(live[0], float) or method not in np_ref.ELEMENT \
        else sorted(live)
    for qi, qq in enumerate(q):
        ref = np_ref.quantile(lv, float(qq), method) if lv else math.nan
        if cross is not None and lv:
            want = np.quantile(np.array(lv), float(qq), method=method)
            want = want.item() if hasattr(want, "item") else want
            if not (ref == want or is_nan(ref) and is_nan(want)):
                cross.append("key %s col %d q %s %s: np_ref %r, numpy %r"
                             % (k, j, qq, method, ref, want))
        got = jnum(js["median"][i][j] if cmd == "median"
                   else js["quantiles"][i][qi][j])
        if is_nan(ref) and lv:	# an infinite neighbour: gpustat's rule
            alt = np_ref.quantile_inf(lv, float(qq), method)
            ref = ref if alt is None else alt
        if not close(got, ref):
            return "key %s col %d q %s %s: %r, numpy %r" % (
                k, j, qq, method, got, ref)
    return None


def numpy_check(name, cmd, q, method, js, rec, vcols, gr):
    """json against numpy's answers per key and value column: np_ref's,
    and where numpy is present, np_ref's against numpy's."""
    if len(js["keys"]) != len(gr):
        return report(name + " json keys", False, "%d keys, want %d" %
                      (len(js["keys"]), len(gr)))
    why, cross = None, [] if np is not None else None
    for i, (k, rows) in enumerate(gr):
        jk = [("nan",) if x == "nan" else canon(jnum(x))
              if isinstance(jnum(x), float) else (x,) for x in js["keys"][i]]
        if sum(jk, ()) != k:
            why = "key %d: %s, want %s" % (i, jk, k)
            break
        for j, c in enumerate(vcols):
            why = column_check(cmd, q, method, js, i, j, k,
                               [rec[r][c] for r in rows], cross)
            if why:
                break
        if why:
            break
    report(name + " numpy", why is None, why)
    if cross is not None and cmd != "mode":
        report(name + " np_ref is numpy", not cross, "; ".join(cross[:3]))


def npy_check(name, out, csv, nby, cmd, nv):
    """npy's fields, row by row, csv's numbers (and numpy's reading of
    the bytes where numpy is present)."""
    names, shape, rows = np_ref.npy_load(out)
    keep = list(range(len(names)))
    if cmd == "mode" and nv == 1:	# npy has the column always
        keep.pop(nby)
    good = len(rows) == len(csv) and (not csv or len(keep) == len(csv[0]))
    why = "%s %d rows, csv %d" % (names, len(rows), len(csv))
    for r in range(len(rows) if good else 0):
        for f, cell in zip(keep, csv[r]):
            if not close(float(rows[r][f]), float(cell)):
                good, why = False, "row %d %s: %r, csv %s" % (
                    r, names[f], rows[r][f], cell)
                break
        if not good:
            break
    if np is not None:
        import io
        a = np.load(io.BytesIO(out))
        same = list(a.dtype.names) == names and len(a) == len(rows) and \
            all(np_ref.same_bits(row[f].item(), mine[c])
                for row, mine in zip(a, rows)
                for c, f in enumerate(names))
        if good and not same:
            good, why = False, "numpy reads other rows than np_ref"
    report(name + " npy", good, why)


def check(part):
    types, by, rec, vt, vcols = dataset(part)
    data = "%s/%s.bin" % (T, part)
    with open(data, "wb") as f:
        f.write(records(types, rec))
    tl = ",".join(types)
    g = ",".join(str(b) for b in by)
    gr = groups(rec, by)
    kcells = [key_cells(types, by, k, i) for i, (k, _) in enumerate(gr)]
    runs = [("median", []), ("median", ["--method", "nearest"]),
            ("quantile", ["-q", "0,0.1,0.25,0.5,0.9,1"]), ("mode", [])]
    if part in ("ikey", "fkey"):
        runs += [("quantile", ["-q", "0.3,0.75", "--method", m])
                 for m in METHODS]
    elif part == "many":
        runs += [("quantile", ["-q", "0.3,0.75", "--method", m])
                 for m in ("hazen", "nearest", "midpoint")]
    elif part == "crowd":	# consecutive ranks in one bucket
        runs += [("quantile", ["-q", ",".join("%.3f" % (0.3 + i * 0.004)
                                              for i in range(101))])]
    elif part == "order":	# more quantiles than gvals_out places at once
        runs += [("quantile", ["-q", ",".join("%g" % (i / 99)
                                              for i in range(99, -1, -1))])]
    for cmd, opts in runs:
        name = "%s %s %s" % (part, cmd, " ".join(opts))
        base = [cmd] + opts + ["--by", g, "-t", tl]
        rc, got, err = run(base + ["-j", "1", data])
        if rc:
            report(name, False, "rc %d: %s" % (rc, err.decode()))
            continue
        want, why = want_text(cmd, opts, rec, vt, vcols, gr, kcells)
        report(name + " rows", want == got,
               why or "got\n%s\nwant\n%s" % (got.decode()[:800],
                                            (want or b"").decode()[:800]))
        for more in (["-j", "2", "--chunk-size", "1K"],
                     ["-j", "3", "--chunk-size", "1000"],
                     ["-j", "4", "--chunk-size", "64K"]):
            rc2, got2, err2 = run(base + more + [data])
            report(name + " " + " ".join(more), rc2 == 0 and got2 == got,
                   err2.decode())
        with open(data, "rb") as f:
            rc2, got2, err2 = run(base + ["-j", "2", "-"], f.read())
        report(name + " stdin", rc2 == 0 and got2 == got, err2.decode())
        rc, out, err = run(base + ["-f", "json", data])
        try:
            js = json.loads(out)
        except ValueError as e:
            report(name + " json", False, "%s: %r" % (e, out[:200]))
            continue
        q = opts[1].split(",") if cmd == "quantile" else ["0.5"]
        method = opts[opts.index("--method") + 1] if "--method" in opts \
            else "linear"
        numpy_check(name, cmd, q, method, js, rec, vcols, gr)
        rc, out, err = run(base + ["-f", "csv", data])
        head = out.decode().splitlines()[0] if out else ""
        keys = ["key"] if len(by) == 1 else ["key_%d" % i
                                             for i in range(len(by))]
        nv = len(vcols)
        own = {"median": ["median"] if nv == 1 else
               ["median_%d" % j for j in range(nv)],
               "quantile": ["q"] + (["quantile"] if nv == 1 else
                                    ["quantile_%d" % j for j in range(nv)]),
               "mode": (["column"] if nv > 1 else []) + ["value", "count"]}
        report(name + " csv header", head == ",".join(keys + own[cmd]),
               head)
        csv = [line.split(",") for line in out.decode().splitlines()[1:]]
        rc, out, err = run(base + ["-f", "npy", data])
        try:
            npy_check(name, out, csv, len(by), cmd, nv)
        except Exception as e:
            report(name + " npy", False, "%s (rc %d: %s)" % (e, rc,
                                                         err.decode()))


check(PART)
print("checks %d" % checks)
