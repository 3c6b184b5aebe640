#!/usr/bin/env python3
"""group_quantile_ref.py - checks quantile, median and mode with --by COLS
(tests/test_group_quantile.sh) on adversarial keys and values.

Usage: group_quantile_ref.py GPUSTAT TMPDIR PART. Prints "ok NAME" or
"FAIL NAME: WHY" per check and "checks N" last.

Each data set is records of a -t list (numpy makes them): key columns
with -0 and +0, NaNs of other payloads, infinities, integer extremes and
keys of one record; value columns with NaN, infinities, -0, ties and
integer extremes. For every command and option set checked:

  - the text rows are, key by key in ascending order (numbers by value,
    -0 and +0 one key, every NaN one key, last; text keys by their bytes),
    the key's cells then exactly the lines the ungrouped command prints on
    that key's records alone (cut to the value columns, run apart);
  - json's numbers against numpy per key: np.nanquantile(v, q,
    method=...), np.nanmedian, and mode by counting (collections.Counter,
    -0 as 0, every value of the highest count ascending), counts and NaNs;
  - the same bytes for -j 1, -j 2 and -j 3 with small odd chunks, and
    from stdin; csv's header; npy's fields, row by row csv's numbers.
"""
import io
import json
import math
import subprocess
import sys
from collections import Counter

import numpy as np

G, T, PART = sys.argv[1], sys.argv[2], sys.argv[3]
rng = np.random.default_rng(31)
checks = 0
METHODS = ["inverted_cdf", "averaged_inverted_cdf", "closest_observation",
           "interpolated_inverted_cdf", "hazen", "weibull", "linear",
           "median_unbiased", "normal_unbiased", "lower", "higher",
           "midpoint", "nearest"]
NP = {"i8": "<i1", "u8": "<u1", "i16": "<i2", "u16": "<u2", "i32": "<i4",
      "u32": "<u4", "i64": "<i8", "u64": "<u8", "f16": "<f2", "f32": "<f4",
      "f64": "<f8"}


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


def pyval(x):
    return x.item() if hasattr(x, "item") else x


# ---- data sets --------------------------------------------------------------

def fvals(t, n):
    """n float values of type t: ties, NaN, infinities, -0."""
    with np.errstate(over="ignore"):
        pool = np.array([1.5, -2.25, 0.0, -0.0, np.nan, np.inf, -np.inf, 3.0,
                         1e-3, 7.0, 7.0, -1e5], dtype=NP[t])
    v = rng.choice(pool, n)
    return np.where(rng.random(n) < 0.5, rng.normal(0, 100, n).astype(NP[t]), v)


def ivals(t, n):
    info = np.iinfo(NP[t])
    pool = np.array([info.min, info.max, 0, 1, 1, 2, info.max - 1],
                    dtype=NP[t])
    r = rng.integers(max(info.min, -1000), min(info.max, 1000), n,
                     dtype=NP[t], endpoint=True)
    return np.where(rng.random(n) < 0.4, rng.choice(pool, n), r)


def vals(t, n):
    return fvals(t, n) if t[0] == "f" else ivals(t, n)


def keys_f64(n):
    pool = np.array([0.0, -0.0, np.inf, -np.inf, 5e-324, -1.5, 2.5, 1e300],
                    dtype="<f8")
    nan2 = np.frombuffer(np.array([0x7ff8000000000001, 0xfff8000000000000],
                                  dtype="<u8").tobytes(), dtype="<f8")
    return rng.choice(np.concatenate([pool, nan2, [np.nan]]), n)


def keys_int(t, n, distinct):
    info = np.iinfo(NP[t])
    pool = np.array([info.min, info.max, 0, -1 if info.min else 1],
                    dtype=NP[t])
    r = rng.integers(0, distinct, n, dtype=np.int64).astype(NP[t])
    return np.where(rng.random(n) < 0.3, rng.choice(pool, n), r)


def dataset(part):
    """(types, by (1-based), records, value -t type, nv)."""
    if part == "ikey":		# i32 keys, one f32 value, mixed records
        n = 400
        types, by = ["i32", "f32"], [1]
        cols = [keys_int("i32", n, 12), vals("f32", n)]
        cols[0][-1] = 424242	# a key of one record
        cols[1][:8] = np.nan
        cols[0][:8] = 77		# a key of NaNs only
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
        cols = [rng.integers(-30, 30, n), rng.normal(0, 1, n).round(2)]
    elif part == "big":		# past the threads' sort (65536 records)
        n = 100000
        types, by = ["i16", "f64", "f32"], [1, 3]
        cols = [rng.integers(-2, 3, n), rng.normal(0, 1, n).round(3),
                rng.choice(np.array([0.0, -0.0, np.nan, 1.5, -np.inf],
                                    dtype="<f4"), n)]
    else:
        raise SystemExit("no part " + part)
    dt = np.dtype([("c%d" % i, NP[t]) for i, t in enumerate(types)])
    rec = np.zeros(len(cols[0]), dtype=dt)
    for i, c in enumerate(cols):
        rec["c%d" % i] = c
    vcols = [i for i in range(len(types)) if i + 1 not in by]
    vt = types[vcols[0]]
    assert all(types[i] == vt for i in vcols)
    return types, by, rec, vt, vcols


def groups(rec, by):
    g = {}
    for r in range(len(rec)):
        k = sum((canon(pyval(rec[r]["c%d" % (b - 1)])) for b in by), ())
        g.setdefault(k, []).append(r)
    return [(k, g[k]) for k in sorted(g, key=sort_key)]


# ---- the checks ---------------------------------------------------------------

def key_cells(types, by, k, i):
    """The key's cells as gpustat prints a value of its type."""
    cells = []
    for c, b in enumerate(by):
        t = types[b - 1]
        x = k[c]
        v = np.array([np.nan if x == "nan" else x], dtype=NP[t])
        path = "%s/key%d_%d.bin" % (T, i, c)
        v.tofile(path)
        rc, out, err = run(["reduce", "--op", "min", "-t", t, path])
        cells.append(out.decode().strip())
    return cells


def want_text(cmd, opts, types, by, rec, vt, vcols, gr, kcells):
    """Each key's cells then the ungrouped command's lines."""
    want = b""
    for i, (k, rows) in enumerate(gr):
        cut = np.stack([rec["c%d" % c][rows] for c in vcols], axis=1)
        path = "%s/v%d.bin" % (T, i)
        cut.astype(NP[vt]).tofile(path)
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


def numpy_check(name, cmd, q, method, js, rec, vcols, gr):
    """json against numpy per key and value column."""
    good, why = True, ""
    if len(js["keys"]) != len(gr):
        return report(name + " json keys", False, "%d keys, want %d" %
                      (len(js["keys"]), len(gr)))
    for i, (k, rows) in enumerate(gr):
        jk = [("nan",) if x == "nan" else canon(jnum(x))
              if isinstance(jnum(x), float) else (x,) for x in js["keys"][i]]
        if sum(jk, ()) != k:
            good, why = False, "key %d: %s, want %s" % (i, jk, k)
            break
        for j, c in enumerate(vcols):
            v = rec["c%d" % c][rows]
            nan = int(np.isnan(v).sum()) if v.dtype.kind == "f" else 0
            if js["count"][i][j] != len(rows) or js["nan"][i][j] != nan:
                good, why = False, "key %s col %d: count/nan" % (k, j)
                break
            live = v[~np.isnan(v)] if v.dtype.kind == "f" else v
            if cmd == "mode":
                cnt = Counter(0.0 if x == 0 and isinstance(x, float) else x
                              for x in (pyval(e) for e in live))
                best = max(cnt.values()) if cnt else 0
                modes = sorted(x for x in cnt if cnt[x] == best)
                got = [jnum(x) for x in js["mode"][i][j]]
                if js["mode_count"][i][j] != best or len(got) != len(modes) \
                        or not all(close(a, b) for a, b in zip(got, modes)):
                    good, why = False, "key %s col %d: mode %s %s, want " \
                        "%s %s" % (k, j, got, js["mode_count"][i][j], modes,
                                   best)
                    break
                continue
            for qi, qq in enumerate(q):
                if not len(live):
                    ref = float("nan")
                else:
                    with np.errstate(all="ignore"):
                        lv = live.astype(np.float64) if live.dtype.kind == \
                            "f" or method not in ("lower", "higher",
                                                  "nearest", "inverted_cdf",
                                                  "closest_observation") \
                            else live
                        ref = pyval(np.quantile(lv, float(qq),
                                                method=method))
                got = jnum(js["median"][i][j] if cmd == "median"
                           else js["quantiles"][i][qi][j])
                if isinstance(ref, float) and math.isnan(ref) and \
                        isinstance(got, float) and math.isinf(got) and \
                        got in list(lv):
                    ref = got	# an infinite neighbour: that infinity
                if not close(got, ref):
                    good, why = False, "key %s col %d q %s %s: %r, numpy " \
                        "%r" % (k, j, qq, method, got, ref)
                    break
            if not good:
                break
        if not good:
            break
    report(name + " numpy", good, why)


def check(part):
    types, by, rec, vt, vcols = dataset(part)
    data = "%s/%s.bin" % (T, part)
    rec.tofile(data)
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
    for cmd, opts in runs:
        name = "%s %s %s" % (part, cmd, " ".join(opts))
        base = [cmd] + opts + ["--by", g, "-t", tl]
        rc, got, err = run(base + ["-j", "1", data])
        if rc:
            report(name, False, "rc %d: %s" % (rc, err.decode()))
            continue
        want, why = want_text(cmd, opts, types, by, rec, vt, vcols, gr,
                              kcells)
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
            a = np.load(io.BytesIO(out))
            names = list(a.dtype.names)
            if cmd == "mode" and nv == 1:	# npy has the column always
                names.pop(len(by))
            good = len(a) == len(csv) and len(names) == len(csv[0])
            why = "%s %d rows, csv %d" % (a.dtype, len(a), len(csv))
            for r in range(len(a) if good else 0):
                if not good:
                    break
                for f, cell in zip(names, csv[r]):
                    if not close(float(a[r][f]), float(cell)):
                        good, why = False, "row %d %s: %r, csv %s" % (
                            r, f, a[r][f], cell)
                        break
            report(name + " npy", good, why)
        except Exception as e:
            report(name + " npy", False, "%s (rc %d: %s)" % (e, rc,
                                                         err.decode()))


check(PART)
print("checks %d" % checks)
