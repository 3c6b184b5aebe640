#!/usr/bin/env python3
"""hist2d_w_ref.py - gpustat hist2d --weights and --density against
references computed without gpustat.

Usage: hist2d_w_ref.py GPUSTAT TMPDIR exact|numpy

exact (python alone): points at the centres of integer-edged bins, on the
  edges and the range's ends, outside it and with a NaN, so that each bin's
  weights are known; each bin's sum against math.fsum of them (the exact
  sum rounded once; fractions.Fraction where fsum overflows on the way),
  bit for bit: weights that cancel (1e308, -1e308, 1), subnormals, -0,
  NaN and the infinities; f32 and f16 weights; integer weights exact past
  2^64 (u64, i64); the weight in any column (--weights 1, 2, 3, -F X,Y);
  -f npy's dtype (f8, i8, u8) and values; the outside and nan counts;
  --density as numpy's formula, hist / dx / dy / total.
numpy: random and adversarial points (f16, f32, f64; numpy's default range
  and a given one; points on the edges) against numpy.histogram2d's
  answers as tests/np_ref.py computes them with python alone: each point's
  bin (searchsorted on numpy's edges), each bin's sum against math.fsum;
  unit weights against numpy's counts; edges; the sums within rounding of
  histogram2d(weights=w) (its bincount sums in input order); --density of
  counts bit for bit, weighted within numpy's own rounding. Where numpy
  is present, np_ref's answers against numpy's own.

Prints "ok NAME" or "FAIL NAME: why" per check, and "checks N" at the end.
"""
import json
import math
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
    path = f"{T}/in2w.bin"
    with open(path, "wb") as f:
        f.write(data)
    p = subprocess.run([G, "hist2d"] + args + [path], capture_output=True)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def jnum(v):
    return float(v) if isinstance(v, str) else v


def exact_sum(ws):
    """The exact sum of floats ws rounded once; NaN and the infinities as
    IEEE addition gives them; +0 for none or zeros (numpy's bincount)."""
    if any(math.isnan(w) for w in ws):
        return math.nan
    pinf = any(w == math.inf for w in ws)
    ninf = any(w == -math.inf for w in ws)
    if pinf and ninf:
        return math.nan
    if pinf or ninf:
        return math.inf if pinf else -math.inf
    try:
        s = math.fsum(ws)
    except OverflowError:
        f = sum(Fraction(w) for w in ws)
        try:
            s = float(f)
        except OverflowError:
            s = math.inf if f > 0 else -math.inf
    return s + 0.0


def same(a, b):
    """Bit for bit (NaN equal to NaN; -0 and +0 differ)."""
    if isinstance(a, float) and isinstance(b, float) and \
            math.isnan(a) and math.isnan(b):
        return True
    return struct.pack("<d", float(a)) == struct.pack("<d", float(b))


def h2_json(name, args, data):
    rc, out, err = run(args + ["-f", "json"], data)
    if rc != 0:
        report(name, f"exit {rc}: {err.strip()}")
        return None
    return json.loads(out)


def check_grid(name, got, want, exact_ints=False):
    """got: json's [x][y]; want: the same shape, floats or ints."""
    if len(got) != len(want) or any(len(g) != len(w)
                                    for g, w in zip(got, want)):
        report(name, "shape differs")
        return
    for i, (gr, wr) in enumerate(zip(got, want)):
        for j, (g, w) in enumerate(zip(gr, wr)):
            bad = (g != w or type(g) is not int) if exact_ints else \
                not same(jnum(g), w)
            if bad:
                report(name, f"bin ({i}, {j}): {g!r}, wanted {w!r}")
                return
    report(name, None)


def npy_array(buf):
    """A 2-D .npy's dtype, shape and values (python alone)."""
    hl = struct.unpack("<H", buf[8:10])[0]
    hdr = eval(buf[10:10 + hl].decode())
    body = buf[10 + hl:]
    code = {"<f8": "d", "<i8": "q", "<u8": "Q"}[hdr["descr"]]
    n = len(body) // 8
    return hdr["descr"], hdr["shape"], list(struct.unpack(f"<{n}{code}", body))


# ---- exact -----------------------------------------------------------------

ADVERSARIAL = [1e308, -1e308, 1.0, 5e-324, -5e-324, -0.0, 1e-300, 3.5,
               -1.25, 1e16, 1.0, -1e16, 0.1, 0.2, 0.3, 1e308, 1e308, -1e308]
PACK = {"f64": "d", "f32": "f", "f16": "e", "i32": "i", "u8": "B",
        "u64": "Q", "i64": "q", "i16": "h"}


def grid_of(recs, nx, ny, lo, hi, ylo, yhi):
    """Each bin's weights of records (x, y, w) on integer-edged bins of
    width 1 (x in lo..hi, nx = hi - lo), and the outside and nan counts."""
    g = [[[] for _ in range(ny)] for _ in range(nx)]
    out = nan = 0
    for x, y, w in recs:
        if math.isnan(x) or math.isnan(y):
            nan += 1
        elif not (lo <= x <= hi and ylo <= y <= yhi):
            out += 1
        else:
            g[min(int(x - lo), nx - 1)][min(int(y - ylo), ny - 1)].append(w)
    return g, out, nan


def pack(recs, t, order):
    """Records (x, y, w) of type t with their columns in order (a
    permutation of 0, 1, 2: where x, y and w go)."""
    out = bytearray()
    for r in recs:
        row = [None] * 3
        for k, at in enumerate(order):
            row[at] = r[k]
        out += struct.pack("<3" + PACK[t], *row)
    return bytes(out)


def exact_cases():
    rnd = random.Random(33)
    nx, ny = 6, 4
    recs = []
    for i in range(4000):
        x, y = rnd.randrange(nx) + 0.5, rnd.randrange(ny) + 0.5
        w = rnd.choice(ADVERSARIAL) if i % 3 else rnd.gauss(0, 1e3)
        recs.append((x, y, w))
    for i in range(nx + 1):		# edges and ends: the last bin closed
        for j in range(ny + 1):
            recs.append((float(i), float(j), rnd.gauss(0, 1)))
    recs += [(-0.5, 1.0, 7.0), (1.0, 4.5, 9.0), (math.nan, 1.0, 11.0),
             (1.0, math.nan, 13.0), (math.inf, 1.0, 1.0)]
    # bins of their own for the special weights
    recs += [(0.25, 3.25, math.nan), (1.25, 3.25, math.inf),
             (2.25, 3.25, math.inf), (2.5, 3.5, -math.inf),
             (3.25, 3.25, -0.0), (3.5, 3.5, -0.0)]
    rnd.shuffle(recs)
    g, out, nan = grid_of(recs, nx, ny, 0, nx, 0, ny)
    want = [[exact_sum(b) for b in row] for row in g]
    rng = ["--bins", f"{nx},{ny}", "--range", f"0:{nx},0:{ny}"]
    # the weight in each column, and -F picking x and y
    for wcol, order, extra in ((3, (0, 1, 2), []), (1, (1, 2, 0), []),
                               (2, (0, 2, 1), []),
                               (1, (2, 1, 0), ["-F", "3,2"])):
        name = f"exact_f64_w{wcol}" + ("_F" if extra else "")
        j = h2_json(name, ["-t", "f64", "-c", "3", "--weights", str(wcol)] +
                    extra + rng, pack(recs, "f64", order))
        if j:
            check_grid(name, j["sums"], want)
            report(name + "_counts", None if (j["outside"], j["nan"]) ==
                   (out, nan) else f"outside {j['outside']} nan {j['nan']}, "
                   f"wanted {out} {nan}")
    # npy: f8 of shape (nx, ny), the same values
    rc, buf, err = run(["-t", "f64", "--weights", "3", "-f", "npy"] + rng,
                       pack(recs, "f64", (0, 1, 2)))
    if rc == 0:
        d, shape, vals = npy_array(buf)
        flat = [w for row in want for w in row]
        report("exact_npy", None if d == "<f8" and shape == (nx, ny) and
               all(same(a, b) for a, b in zip(vals, flat)) else
               f"{d} {shape}")
    else:
        report("exact_npy", f"exit {rc}: {err.strip()}")

    # f32 and f16 weights: sums of values the type holds, exact
    for t, ws in (("f32", [3.4028234663852886e38, 3.4028234663852886e38,
                           -3.4028234663852886e38, 1.401298464324817e-45,
                           0.1000000014901161, -2.5, 1e-30]),
                  ("f16", [65504.0, 65504.0, 6e-08, -0.0999755859375,
                           0.5, -65504.0])):
        rs = [(rnd.randrange(nx) + 0.5, rnd.randrange(ny) + 0.5,
               rnd.choice(ws)) for _ in range(3000)]
        # values of the type: round-trip them through its packing
        rs = [struct.unpack("<3" + PACK[t], struct.pack("<3" + PACK[t], *r))
              for r in rs]
        g, _, _ = grid_of(rs, nx, ny, 0, nx, 0, ny)
        j = h2_json(f"exact_{t}", ["-t", t, "--weights", "3"] + rng,
                    pack(rs, t, (0, 1, 2)))
        if j:
            check_grid(f"exact_{t}", j["sums"],
                       [[exact_sum(b) for b in row] for row in g])

    # integer weights: exact integers past 2^64, npy i8/u8 where they fit
    for t, ws, descr in (("u64", [2**64 - 1, 2**63, 1, 0], "<u8"),
                         ("i64", [-2**63, 2**63 - 1, -1, 5], "<i8"),
                         ("i32", [-2**31, 2**31 - 1, 7], "<i8"),
                         ("u8", [255, 0, 1], "<u8")):
        small = t in ("i32", "u8")
        rs = [(rnd.randrange(nx), rnd.randrange(ny), rnd.choice(ws))
              for _ in range(2000 if not small else 500)]
        rs = [(x, y, w) for x, y, w in rs] + [(nx + 3, 0, ws[0])]
        g, out, _ = grid_of([(float(x), float(y), w) for x, y, w in rs],
                            nx, ny, 0, nx, 0, ny)
        want = [[sum(b) for b in row] for row in g]
        j = h2_json(f"exact_{t}", ["-t", t, "--weights", "3"] + rng,
                    pack(rs, t, (0, 1, 2)))
        if j:
            check_grid(f"exact_{t}", j["sums"], want, exact_ints=True)
        if small:
            rc, buf, err = run(["-t", t, "--weights", "3", "-f", "npy"] + rng,
                               pack(rs, t, (0, 1, 2)))
            d, shape, vals = npy_array(buf) if rc == 0 else (None, None, [])
            report(f"exact_{t}_npy", None if d == descr and
                   vals == [w for row in want for w in row] else
                   f"exit {rc} {d}: {err.strip()}")

    # --density: numpy's hist / dx / dy / hist.sum(), widths of 0.5 and 2
    rs = [(rnd.randrange(4) * 0.5 + 0.25, rnd.randrange(3) * 2 + 1.0,
           rnd.choice([1.0, 0.5, 3.0, -0.25])) for _ in range(999)]
    g, _, _ = grid_of([(2 * x, y / 2, w) for x, y, w in rs], 4, 3, 0, 4, 0, 3)
    dr = ["--bins", "4,3", "--range", "0:2,0:6"]
    counts = [[float(len(b)) for b in row] for row in g]
    sums = [[exact_sum(b) for b in row] for row in g]
    for name, args, h in (("density_counts", ["-F", "1,2"], counts),
                          ("density_weighted", ["--weights", "3"], sums)):
        tot = exact_sum([v for row in h for v in row])
        want = [[v / 0.5 / 2.0 / tot for v in row] for row in h]
        j = h2_json(name, ["-t", "f64", "-c", "3", "--density"] + args + dr,
                    pack(rs, "f64", (0, 1, 2)))
        if j:
            check_grid(name, j["density"], want)


# ---- numpy -----------------------------------------------------------------

def numpy_cases():
    """gpustat against numpy.histogram2d's answers as tests/np_ref.py
    computes them, and np_ref against numpy itself where present."""
    np = np_ref.np_cross()
    r = random.Random(2032)

    def case(name, t, x, y, w, bins, rg):
        args = ["-t", t, "--weights", "3", "--bins", f"{bins[0]},{bins[1]}"]
        if rg:
            args += ["--range", f"{rg[0][0]!r}:{rg[0][1]!r},"
                                f"{rg[1][0]!r}:{rg[1][1]!r}"]
        data = pack(list(zip(x, y, w)), t, (0, 1, 2))
        H, xe, ye, et, where = np_ref.histogram2d(x, y, t, bins, rg, w)
        C = np_ref.histogram2d(x, y, t, bins, rg)[0]
        D = np_ref.dd_density(C, xe, ye, et)
        DW = np_ref.dd_density(H, xe, ye, et)
        if np is not None:
            cross_numpy(np, name, t, x, y, w, bins, rg, (H, xe, ye, D, DW))
        j = h2_json(f"np_{name}", args, data)
        if not j:
            return
        report(f"np_{name}_edges", None if
               [jnum(v) for v in j["xedges"]] == xe and
               [jnum(v) for v in j["yedges"]] == ye
               else "edges differ from numpy's")
        g = [[[] for _ in range(bins[1])] for _ in range(bins[0])]
        for at, c in zip(where, w):
            if at:
                g[at[0]][at[1]].append(c)
        check_grid(f"np_{name}_fsum", j["sums"],
                   [[exact_sum(b) for b in row] for row in g])
        tot = math.fsum(abs(c) for c in w)
        report(f"np_{name}_numpy", None if all(
            np_ref.isclose(jnum(a), b, 1e-6, 1e-6 * tot)
            for ra, rb in zip(j["sums"], H) for a, b in zip(ra, rb))
            else "far from numpy's histogram2d(weights=w)")
        # unit weights: numpy's counts
        j = h2_json(f"np_{name}_ones", args,
                    pack([(a, b, 1.0) for a, b in zip(x, y)], t, (0, 1, 2)))
        if j:
            check_grid(f"np_{name}_ones", j["sums"],
                       [[float(c) for c in row] for row in C])
        # --density: of counts numpy's bits, weighted within rounding
        dargs = [a for a in args if a not in ("--weights", "3")]
        j = h2_json(f"np_{name}_density", dargs + ["-c", "3", "--density"],
                    data)
        if j:
            check_grid(f"np_{name}_density", j["density"], D)
        j = h2_json(f"np_{name}_wdensity", args + ["--density"], data)
        if j:
            report(f"np_{name}_wdensity", None if all(
                np_ref.isclose(jnum(a), b, 1e-9, 1e-12, True)
                for ra, rb in zip(j["density"], DW) for a, b in zip(ra, rb))
                else "far from numpy's density")

    for t in ("f16", "f32", "f64"):
        x = [np_ref.rnd(r.gauss(0, 1), t) for _ in range(3000)]
        y = [np_ref.rnd(r.gauss(0, 1) * 2 + 1, t) for _ in range(3000)]
        w = [np_ref.rnd(r.uniform(0.5, 2), t) for _ in range(3000)]
        case(f"normal_{t}", t, x, y, w, (13, 7), None)
        case(f"normal_range_{t}", t, x, y, w, (9, 11),
             ((-1.1, 0.7), (-0.3, 2.9)))
        # points on numpy's edges of a given range, their neighbours, NaN
        e = np_ref.linspace(-1.0, 1.0, 8, "f64")
        v = e + [math.nextafter(a, -math.inf) for a in e] + \
            [math.nextafter(a, math.inf) for a in e] + [math.nan, 3.0]
        xs = [np_ref.rnd(a, t) for a in v]
        ys = [np_ref.rnd(a, t) for a in r.sample(v, len(v))]
        ws = [np_ref.rnd(r.gauss(0, 1), t) for _ in v]
        case(f"edges_{t}", t, xs, ys, ws, (7, 7), ((-1.0, 1.0), (-1.0, 1.0)))
    print(f"checks {checks}")


def cross_numpy(np, name, t, x, y, w, bins, rg, mine):
    """np_ref's histogram2d, edges and densities against numpy's."""
    dt = {"f16": np.float16, "f32": np.float32, "f64": np.float64}[t]
    a, b, c = np.array(x, dt), np.array(y, dt), np.array(w, dt)
    H, xe, ye = np.histogram2d(a, b, bins=bins, range=rg, weights=c)
    D = np.histogram2d(a, b, bins=bins, range=rg, density=True)[0]
    DW = np.histogram2d(a, b, bins=bins, range=rg, weights=c,
                        density=True)[0]
    why = None
    if H.tolist() != mine[0]:
        why = "weighted counts differ"
    elif xe.astype(float).tolist() != mine[1] or \
            ye.astype(float).tolist() != mine[2]:
        why = "edges differ"
    elif D.tolist() != mine[3]:
        why = "density differs"
    elif not np.allclose(DW, mine[4], rtol=1e-9, atol=1e-12):
        why = "weighted density differs"
    report(f"numpy_{name}", why)


if MODE == "exact":
    exact_cases()
    print(f"checks {checks}")
elif MODE == "numpy":
    numpy_cases()
else:
    sys.exit(f"hist2d_w_ref.py: unknown part {MODE}")
