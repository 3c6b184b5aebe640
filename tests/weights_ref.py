#!/usr/bin/env python3
"""weights_ref.py - gpustat hist --weights and --density against references
computed without gpustat.

Usage: weights_ref.py GPUSTAT TMPDIR exact|numpy

exact (python alone): values whose bins are plain (k + 0.5, the range's
  ends, edges that are integers), so that each bin's weights are known;
  each bin's sum against math.fsum of them (the exact sum rounded once;
  fractions.Fraction where fsum overflows on the way), bit for bit:
  weights that cancel (1e308, -1e308, 1), subnormals, -0, NaN and
  infinities, values outside the range and NaN (in no bin, counted);
  integer weights as exact integers past 2^63 (u64, i64, bool); records
  of mixed types (-t u16,f32, a structured .npy with a big-endian weight),
  one bin per value (a weighted bincount); -F picking the values;
  numpy's default range taken over the values, never the weights;
  --density as numpy's formula, n / db / n.sum().
numpy: random and adversarial values (f16, f32, f64; numpy's default
  range and a given one; values on the edges, the data's own edges and
  the values of the type beside them; every f16 value in [-3, 3], with
  numpy's range and with one f16 cannot hold) against numpy.histogram's
  answers as tests/np_ref.py computes them with python alone (numpy's
  uniform-bin path in the data's type): each value's bin, each bin's sum
  against math.fsum; the edges; unit weights against numpy's counts;
  --density of counts bit for bit, weighted within numpy's own rounding
  (its bincount sums in input order); one bin per value against
  numpy.bincount's bins. np_ref's histogram against numpy's answers kept
  in fixtures/hist, and where numpy is present, np_ref's bins, edges,
  densities and bincount against numpy's own.

Prints "ok NAME" or "FAIL NAME: why" per check, and "checks N" at the end.
"""
import json
import math
import os
import random
import struct
import subprocess
import sys
from fractions import Fraction

import np_ref

G, T, MODE = sys.argv[1], sys.argv[2], sys.argv[3]
checks = 0


def report(name, why):
    global checks
    checks += 1
    print(f"ok {name}" if why is None else f"FAIL {name}: {why}")


def run(args, data):
    path = f"{T}/in.bin"
    with open(path, "wb") as f:
        f.write(data)
    p = subprocess.run([G, "hist"] + args + [path], capture_output=True)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def jnum(v):
    return float(v) if isinstance(v, str) else v


def exact_sum(ws):
    """The exact sum of floats ws rounded once to a double, as IEEE
    addition would give it were it exact: NaN and the infinities as
    numpy's float sum gives them."""
    if any(math.isnan(w) for w in ws):
        return math.nan
    pinf = any(w == math.inf for w in ws)
    ninf = any(w == -math.inf for w in ws)
    if pinf and ninf:
        return math.nan
    if pinf or ninf:
        return math.inf if pinf else -math.inf
    try:
        return math.fsum(ws)
    except OverflowError:
        s = sum(Fraction(w) for w in ws)
        try:
            return float(s)
        except OverflowError:
            return math.inf if s > 0 else -math.inf


def same(a, b):
    """Bit for bit (NaN equal to NaN; -0 and +0 differ)."""
    return struct.pack("<d", float(a)) == struct.pack("<d", float(b)) or \
        (isinstance(a, float) and isinstance(b, float) and
         math.isnan(a) and math.isnan(b))


def hist_json(name, args, data):
    rc, out, err = run(args + ["-f", "json"], data)
    if rc != 0:
        report(name, f"exit {rc}: {err.strip()}")
        return None
    return json.loads(out)


def check_bins(name, got, want):
    if len(got) != len(want):
        report(name, f"{len(got)} bins, wanted {len(want)}")
        return
    for i, (g, w) in enumerate(zip(got, want)):
        if not same(jnum(g), w) if isinstance(w, float) else g != w:
            report(name, f"bin {i}: {g!r}, wanted {w!r}")
            return
    report(name, None)


# ---- exact -----------------------------------------------------------------

ADVERSARIAL = [1e308, -1e308, 1.0, 5e-324, -5e-324, -0.0, 1e-300, 2.0**-1074,
               3.5, -1.25, 1e16, 1.0, -1e16, 0.1, 0.2, 0.3, 1e308, 1e308,
               -1e308]


def exact_cases():
    rnd = random.Random(32)
    n = 10
    # records (value, weight), f64: value k + 0.5 in bin k; the range's
    # ends and the integer edges; outside; NaN
    recs = []
    for i in range(3000):
        k = rnd.randrange(n)
        w = rnd.choice(ADVERSARIAL) if i % 3 else rnd.gauss(0, 1e3)
        recs.append((k + 0.5, w))
    for k in range(n + 1):		# edges: bin k, the last closed
        recs.append((float(k), rnd.gauss(0, 1)))
    recs += [(-0.5, 7.0), (10.5, 9.0), (math.nan, 11.0), (-math.inf, 1.0)]
    # a bin of its own for each special weight
    special = {2: [math.nan], 4: [math.inf], 6: [math.inf, -math.inf],
               8: [-math.inf, 1e308]}
    for k, ws in special.items():
        recs += [(k + 0.25, w) for w in ws]
    rnd.shuffle(recs)
    data = b"".join(struct.pack("<dd", v, w) for v, w in recs)
    bins = [[] for _ in range(n)]
    for v, w in recs:
        if 0 <= v <= n:
            bins[min(int(v), n - 1)].append(w)
    want = [exact_sum(b) for b in bins]
    j = hist_json("exact_f64", ["-t", "f64", "-c", "2", "--weights", "2",
                                "--bins", str(n), "--range", f"0:{n}"], data)
    if j:
        check_bins("exact_f64", j["sums"][0], want)
        report("exact_f64_outside", None if (j["below"], j["above"], j["nan"])
               == ([2], [1], [1]) else f"{j['below']} {j['above']} {j['nan']}")
    # the weight first (-F numbers the input's columns)
    data2 = b"".join(struct.pack("<dd", w, v) for v, w in recs)
    j = hist_json("exact_weight_first", ["-t", "f64", "-c", "2", "--weights",
                                         "1", "--bins", str(n), "--range",
                                         f"0:{n}"], data2)
    if j:
        check_bins("exact_weight_first", j["sums"][0], want)
    # -c 3 -F 3 --weights 1: column 2 is neither
    data3 = b"".join(struct.pack("<ddd", w, 1e300, v) for v, w in recs)
    j = hist_json("exact_fields", ["-t", "f64", "-c", "3", "-F", "3",
                                   "--weights", "1", "--bins", str(n),
                                   "--range", f"0:{n}"], data3)
    if j:
        check_bins("exact_fields", j["sums"][0], want)
    # -c 3 --weights 2: two histograms, columns 1 and 3, one weight
    data4 = b"".join(struct.pack("<ddd", v, w, n - v) for v, w in recs)
    bins3 = [[] for _ in range(n)]
    for v, w in recs:
        if 0 <= n - v <= n:
            bins3[min(int(n - v), n - 1)].append(w)
    j = hist_json("exact_two_columns", ["-t", "f64", "-c", "3", "--weights",
                                        "2", "--bins", str(n), "--range",
                                        f"0:{n}"], data4)
    if j:
        check_bins("exact_two_columns_1", j["sums"][0], want)
        check_bins("exact_two_columns_3", j["sums"][1], [exact_sum(b)
                                                         for b in bins3])
    # the same through text, as a table
    text = "".join(f"{v!r} {w!r}\n" for v, w in recs).encode()
    rc, out, err = run(["--text", "-t", "f64", "-c", "2", "--weights", "2",
                        "--bins", str(n), "--range", f"0:{n}"], text)
    rows = [line.split("\t") for line in out.decode().splitlines()]
    report("exact_text", None if rc == 0 and len(rows) == n and all(
        same(float(r[2]), w) for r, w in zip(rows, want))
        else f"exit {rc}: {err.strip()} {rows[:2]}")

    # numpy's default range: over the values only (weights of 1e300 and
    # 0.5..9.5 values make edges 0.5, 1.5, ..., 9.5)
    vals = [k + 0.5 for k in range(10)] + [3.5, 9.5]
    data = b"".join(struct.pack("<dd", v, 1e300 * (i + 1))
                    for i, v in enumerate(vals))
    j = hist_json("default_range", ["-t", "f64", "-c", "2", "--weights", "2",
                                    "--bins", "9"], data)
    if j:
        report("default_range", None if j["edges"] == [k + 0.5 for k in
                                                        range(10)]
               else f"edges {j['edges']}")

    # integer weights: exact integers past 2^63, no float in between
    big = 2**63 - 1
    iw = [big, big, -big, 5, -7, big, 3]
    iv = [1, 1, 2, 2, 2, 1, 0]
    data = b"".join(struct.pack("<qq", v, w) for v, w in zip(iv, iw))
    j = hist_json("int_i64", ["-t", "i64", "-c", "2", "--weights", "2",
                              "--bins", "3", "--range", "0:3"], data)
    if j:
        want = [sum(w for v, w in zip(iv, iw) if min(v, 2) == b)
                for b in range(3)]
        check_bins("int_i64", j["sums"][0], want)
    uw = [2**64 - 1] * 5
    data = b"".join(struct.pack("<QQ", 0, w) for w in uw)
    j = hist_json("int_u64", ["-t", "u64", "-c", "2", "--weights", "2",
                              "--bins", "2", "--range", "0:1"], data)
    if j:
        check_bins("int_u64", j["sums"][0], [5 * (2**64 - 1), 0])

    # records of mixed types: u16 values (one bin per value, a weighted
    # bincount) and f32 weights
    recs = [(rnd.choice([0, 1, 7, 65535, 300]),
             rnd.choice([1e38, -1e38, 1.5, -0.0, 2.0**-149, 3.0]))
            for _ in range(2000)]
    data = b"".join(struct.pack("<Hf", v, w) for v, w in recs)
    f32 = [struct.unpack("<f", struct.pack("<f", w))[0] for _, w in recs]
    want = {}
    for (v, _), w in zip(recs, f32):
        want.setdefault(v, []).append(w)
    j = hist_json("mixed_u16_f32", ["-t", "u16,f32", "--weights", "2"], data)
    if j:
        got = dict(zip(j["values"], j["sums"][0]))
        bad = [v for v in range(65536) if not same(
            jnum(got[v]), exact_sum(want.get(v, [])) if v in want else 0.0)]
        report("mixed_u16_f32", f"values {bad[:3]}" if bad else None)

    # a structured .npy: (x <i1, w >f8), the weight big-endian
    hdr = ("{'descr': [('x', '|i1'), ('w', '>f8')], 'fortran_order': False, "
           f"'shape': ({len(recs)},), }}")
    hdr += " " * ((64 - (10 + len(hdr) + 1) % 64) % 64) + "\n"
    npy = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode()
    xs = [(v % 256) - 128 for v, _ in recs]
    npy += b"".join(struct.pack("<b", x) + struct.pack(">d", w)
                    for x, (_, w) in zip(xs, recs))
    want = {}
    for x, (_, w) in zip(xs, recs):
        want.setdefault(x, []).append(w)
    rc, out, err = run(["--weights", "2", "--nonzero"], npy)
    got = {int(r.split("\t")[0]): float(r.split("\t")[1])
           for r in out.decode().splitlines()}
    wantnz = {x: exact_sum(ws) for x, ws in want.items() if exact_sum(ws) != 0}
    report("npy_structured", None if rc == 0 and set(got) == set(wantnz) and
           all(same(got[x], wantnz[x]) for x in got)
           else f"exit {rc}: {err.strip()}")

    # bool weights (a structured .npy): counts of the true ones
    hdr = ("{'descr': [('x', '|u1'), ('w', '|b1')], 'fortran_order': False, "
           "'shape': (6,), }")
    hdr += " " * ((64 - (10 + len(hdr) + 1) % 64) % 64) + "\n"
    npy = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode()
    npy += bytes([3, 1, 3, 2, 3, 0, 4, 1, 4, 1, 5, 0])
    j = hist_json("bool_weights", ["--weights", "2"], npy)
    if j:
        report("bool_weights", None if j["sums"][0][3:6] == [2, 2, 0] and
               sum(j["sums"][0]) == 4 else f"{j['sums'][0][:8]}")

    # --density: numpy's n / db / n.sum() of the counts, and of the sums
    vals = [rnd.choice([0.5, 1.5, 2.5, 3.0, 4.0]) for _ in range(999)]
    data = b"".join(struct.pack("<dd", v, 0.1) for v in vals)
    counts = [sum(1 for v in vals if min(int(v), 3) == b) for b in range(4)]
    db = 4 / 4
    want = [c / db / sum(counts) for c in counts]
    j = hist_json("density_counts", ["-t", "f64", "-c", "2", "-F", "1",
                                     "--density", "--bins", "4", "--range",
                                     "0:4"], data)
    if j:
        check_bins("density_counts", j["density"][0], want)
    sums = [exact_sum([0.1] * c) for c in counts]
    total = exact_sum([0.1] * sum(counts))
    want = [s / db / total for s in sums]
    j = hist_json("density_weighted", ["-t", "f64", "-c", "2", "--weights",
                                       "2", "--density", "--bins", "4",
                                       "--range", "0:4"], data)
    if j:
        check_bins("density_weighted", j["density"][0], want)


# ---- numpy -----------------------------------------------------------------

def numpy_cases():
    """gpustat against numpy.histogram's answers as tests/np_ref.py
    computes them (numpy's uniform-bin path in the data's type), and,
    where numpy is present, np_ref against numpy itself."""
    np = np_ref.np_cross()
    rnd = random.Random(7)
    cases = []
    for t in ("f16", "f32", "f64"):
        e = np_ref.linspace(-1.0, 1.0, 8, "f64")
        edges = e + [math.nextafter(x, -math.inf) for x in e] + \
            [math.nextafter(x, math.inf) for x in e]
        v = [np_ref.rnd(x, t) for x in
             [rnd.gauss(0, 1) for _ in range(2000)] + edges]
        cases.append((f"normal_{t}", t, v, 7, None))
        v2 = v + [math.nan, math.inf, -math.inf, 5.0, -5.0]
        cases.append((f"range_{t}", t, v2, 7, (-1.0, 1.0)))
        cases.append((f"tenths_{t}", t, [np_ref.rnd(i / 10, t)
                                         for i in range(31)], 3, None))
    # every f16 value in [-3, 3]: each one's bin, numpy's f16 arithmetic
    every = [x for x in (struct.unpack("<e", struct.pack("<H", b))[0]
                         for b in range(1 << 16)) if -3 <= x <= 3]
    cases.append(("every_f16", "f16", every, 7, None))
    cases.append(("every_f16_range", "f16", every, 11, (-2.3, 1.1)))
    for name, t, v, n, rg in cases:
        if rg is None and name.startswith("normal"):
            # the data's own edges, and the values of t beside them
            e = np_ref.histogram(v, t, n)[0]
            v = v + e + [np_ref.next_in(t, x, True) for x in e[:-1]] + \
                [np_ref.next_in(t, x, False) for x in e[1:]]
        w = [rnd.gauss(0, 1) * 10.0 ** rnd.randrange(-5, 5) for _ in v]
        if len(w) > 22:		# sums that cancel
            for k in range(0, len(w), 11):
                if k + 1 < len(w):
                    w[k] = -w[k + 1]
        data = b"".join(struct.pack("<" + np_ref.PACK[t] + "d", x, y)
                        for x, y in zip(v, w))
        # each value's bin and the edges, as numpy.histogram finds them
        edges, idx = np_ref.histogram(v, t, n, rg)
        counts = [idx.count(b) for b in range(n)]
        dens = np_ref.density(counts, edges, t)
        seq = [0.0] * n		# numpy's bincount: sums in input order
        for i, x in zip(idx, w):
            if i is not None:
                seq[i] += x
        wdens = np_ref.density(seq, edges, t)
        if np is not None:
            cross_numpy(np, name, t, v, w, n, rg, edges, idx, dens, wdens)
        want = [exact_sum([w[i] for i in range(len(v)) if idx[i] == b])
                for b in range(n)]
        args = ["-t", f"{t},f64", "--weights", "2", "--bins", str(n)]
        if rg is not None:
            args += ["--range", f"{rg[0]!r}:{rg[1]!r}"]
        j = hist_json(f"np_{name}", args, data)
        if not j:
            continue
        check_bins(f"np_{name}", j["sums"][0], want)
        report(f"np_{name}_edges", None if j["edges"] == edges
               else "edges differ")
        # unit weights: numpy's counts
        ones = b"".join(struct.pack("<" + np_ref.PACK[t] + "d", x, 1.0)
                        for x in v)
        j = hist_json(f"np_{name}_ones", args, ones)
        if j:
            check_bins(f"np_{name}_ones", j["sums"][0],
                       [float(c) for c in counts])
        # --density of the counts: numpy's bits
        vals = struct.pack(f"<{len(v)}{np_ref.PACK[t]}", *v)
        j = hist_json(f"np_{name}_density", ["-t", t, "--density",
                                             "--bins", str(n)] +
                      (["--range", f"{rg[0]!r}:{rg[1]!r}"] if rg else []),
                      vals)
        if j:
            check_bins(f"np_{name}_density", j["density"][0], dens)
        # weighted --density: numpy's float sums round several times
        j = hist_json(f"np_{name}_wdensity", args + ["--density"], data)
        if j:
            g = [jnum(x) for x in j["density"][0]]
            top = max(abs(x) for x in wdens)
            report(f"np_{name}_wdensity", None if all(
                np_ref.isclose(a, b, 1e-9, 1e-12 * top, True)
                for a, b in zip(g, wdens)) else f"{g} vs {wdens}")
    hist_fixtures()
    # one bin per value: np.bincount's bins, each sum exact
    x = [rnd.randrange(256) for _ in range(5000)]
    w = [np_ref.rnd(rnd.gauss(0, 1) * 1e8, "f32") for _ in x]
    seq = [0.0] * 256
    for b, y in zip(x, w):
        seq[b] += y
    if np is not None:
        got = np.bincount(np.array(x), weights=np.array(w),
                          minlength=256).tolist()
        report("numpy_bincount", None if got == seq
               else "np.bincount does not sum in input order")
    j = hist_json("np_bincount", ["--weights", "2", "-t", "u8,f32"],
                  b"".join(struct.pack("<Bf", b, y) for b, y in zip(x, w)))
    if j:
        want = [exact_sum([y for b, y in zip(x, w) if b == k])
                for k in range(256)]
        check_bins("np_bincount", j["sums"][0], want)
        report("np_bincount_close", None if all(
            np_ref.isclose(jnum(a), b, 1e-9, 1e-3)
            for a, b in zip(j["sums"][0], seq)) and
            sum(1 for b in x if 0 <= b < 256) == 5000
            else "far from numpy's")


def hist_fixtures():
    """np_ref.histogram against numpy's own answers kept in fixtures/hist
    (numpy.histogram(a, bins=N) of every type, and of each column over
    the data's range for -c 2 and 3): where numpy is missing (CI) too,
    np_ref's uniform-bin path and edges are numpy's."""
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "fixtures", "hist")
    code = {"u8": "B", "i8": "b", "u16": "H", "i16": "h", "u32": "I",
            "i32": "i", "u64": "Q", "i64": "q", "f16": "e", "f32": "f",
            "f64": "d", "bf16": "H"}
    bad, n = [], 0
    with open(os.path.join(here, "cases.txt")) as f:
        cases = [line.split() for line in f if not line.startswith("#")]
    for name, t, cols, bins, status in cases:
        if status != "ok":
            continue
        cols, bins, n = int(cols), int(bins), n + 1
        with open(os.path.join(here, name + ".bin"), "rb") as f:
            raw = f.read()
        v = list(struct.unpack("<%d%s" % (len(raw) // struct.calcsize(
            code[t]), code[t]), raw))
        if t == "bf16":		# numpy's histogram of the f32 conversion
            v = [struct.unpack("<f", struct.pack("<I", b << 16))[0]
                 for b in v]
        tt = "f32" if t == "bf16" else "int" if t[0] in "ui" else t
        counts = []
        for c in range(cols):
            rng = (min(v), max(v)) if cols > 1 else None
            edges, idx = np_ref.histogram(v[c::cols], tt, bins, rng, True)
            counts.append([idx.count(b) for b in range(bins)])
        with open(os.path.join(here, name + ".counts"), "rb") as f:
            want = list(struct.unpack("<%dQ" % (bins * cols), f.read()))
        with open(os.path.join(here, name + ".edges"), "rb") as f:
            raw = f.read()
        ec = {"f16": "e", "f32": "f", "bf16": "f"}.get(t, "d")
        wedges = list(struct.unpack("<%d%s" % (bins + 1, ec), raw))
        if want != [counts[c][b] for b in range(bins)
                    for c in range(cols)] or wedges != edges:
            bad.append(name)
    report("np_ref_hist_fixtures", None if n > 200 and not bad else
           f"{len(bad)} of {n} cases differ from numpy's: {bad[:4]}")


def cross_numpy(np, name, t, v, w, n, rg, edges, idx, dens, wdens):
    """np_ref's answers against numpy.histogram's own."""
    dt = {"f16": np.float16, "f32": np.float32, "f64": np.float64}[t]
    a = np.array(v, dt)
    fin = a[np.isfinite(a)]
    r = rg if rg is not None else (fin.min(), fin.max())
    nidx = []
    for x in a:
        h, _ = np.histogram(np.array([x], dt), n, range=r)
        nidx.append(int(np.argmax(h)) if h.sum() else None)
    hn, e = np.histogram(a, n, range=rg)
    dn, _ = np.histogram(a, n, range=rg, density=True)
    dw, _ = np.histogram(a, n, range=rg, weights=np.array(w),
                         density=True)
    why = None
    if nidx != idx:
        why = "bins of values differ"
    elif [float(x) for x in e] != edges:
        why = "edges differ"
    elif [float(x) for x in dn] != dens:
        why = "density differs"
    elif not np.allclose(dw, wdens, rtol=1e-9, atol=0):
        why = "weighted density differs"
    report(f"numpy_{name}", why)


if MODE == "exact":
    exact_cases()
else:
    numpy_cases()
print(f"checks {checks}")
