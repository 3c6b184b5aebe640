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
  and a given one; points on the edges): each point's bin as
  numpy.histogram2d finds it (searchsorted on numpy's own edges), each
  bin's sum against math.fsum; unit weights against numpy's counts; edges
  against numpy's; the sums within rounding of histogram2d(weights=w);
  --density of counts bit for bit against histogram2d(density=True),
  weighted against it within numpy's own rounding.

Prints "ok NAME" or "FAIL NAME: why" per check, and "checks N" at the end.
"""
import json
import math
import struct
import subprocess
import sys
from fractions import Fraction

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
    import random
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
    import numpy as np
    f16, f32, f64 = np.float16, np.float32, np.float64
    fmt = {f16: "f16", f32: "f32", f64: "f64"}
    rng = np.random.default_rng(2032)

    def bins_of(v, e):
        """histogramdd's bin of each value: searchsorted on the edges,
        side='right', the last edge into the last bin; -1 for none."""
        i = np.searchsorted(e, v, side="right") - 1
        n = len(e) - 1
        i[v == e[-1]] = n - 1
        i[(i < 0) | (i >= n) | np.isnan(v)] = -1
        return i

    def case(name, x, y, w, bins, rg):
        dt = x.dtype.type
        args = ["-t", fmt[dt], "--weights", "3", "--bins",
                f"{bins[0]},{bins[1]}"]
        if rg:
            args += ["--range", f"{rg[0][0]!r}:{rg[0][1]!r},"
                                f"{rg[1][0]!r}:{rg[1][1]!r}"]
        data = np.stack([x, y, w], axis=1).astype(dt).tobytes()
        H, xe, ye = np.histogram2d(x, y, bins=bins, range=rg, weights=w)
        j = h2_json(f"np_{name}", args, data)
        if not j:
            return
        report(f"np_{name}_edges", None if
               [jnum(v) for v in j["xedges"]] == xe.astype(f64).tolist() and
               [jnum(v) for v in j["yedges"]] == ye.astype(f64).tolist()
               else "edges differ from numpy's")
        ix, iy = bins_of(x, xe), bins_of(y, ye)
        g = [[[] for _ in range(bins[1])] for _ in range(bins[0])]
        for a, b, c in zip(ix.tolist(), iy.tolist(), w.astype(f64).tolist()):
            if a >= 0 and b >= 0:
                g[a][b].append(c)
        check_grid(f"np_{name}_fsum", j["sums"],
                   [[exact_sum(b) for b in row] for row in g])
        got = np.array([[jnum(v) for v in row] for row in j["sums"]])
        report(f"np_{name}_numpy", None if np.allclose(
            got, H, rtol=1e-6, atol=1e-6 * np.abs(w.astype(f64)).sum())
            else "far from numpy's histogram2d(weights=w)")
        # unit weights: numpy's counts
        one = np.ones_like(w)
        j = h2_json(f"np_{name}_ones", args, np.stack(
            [x, y, one], axis=1).astype(dt).tobytes())
        C, _, _ = np.histogram2d(x, y, bins=bins, range=rg)
        if j:
            check_grid(f"np_{name}_ones", j["sums"], C.tolist())
        # --density: of counts numpy's bits, weighted within rounding
        D, _, _ = np.histogram2d(x, y, bins=bins, range=rg, density=True)
        dargs = [a for a in args if a not in ("--weights", "3")]
        j = h2_json(f"np_{name}_density", dargs + ["-c", "3", "--density"],
                    data)
        if j:
            check_grid(f"np_{name}_density", j["density"], D.tolist())
        DW, _, _ = np.histogram2d(x, y, bins=bins, range=rg, weights=w,
                                  density=True)
        j = h2_json(f"np_{name}_wdensity", args + ["--density"], data)
        if j:
            got = np.array([[jnum(v) for v in row] for row in j["density"]])
            report(f"np_{name}_wdensity", None if np.allclose(
                got, DW, rtol=1e-9, atol=1e-12, equal_nan=True)
                else "far from numpy's density")

    for dt in (f16, f32, f64):
        n = dt.__name__
        x = rng.normal(size=3000).astype(dt)
        y = (rng.normal(size=3000) * 2 + 1).astype(dt)
        w = rng.uniform(0.5, 2, size=3000).astype(dt)
        case(f"normal_{n}", x, y, w, (13, 7), None)
        case(f"normal_range_{n}", x, y, w, (9, 11),
             ((-1.1, 0.7), (-0.3, 2.9)))
        # points on numpy's edges of a given range, their neighbours, NaN
        e = np.linspace(-1, 1, 8)
        v = np.concatenate([e, np.nextafter(e, -np.inf),
                            np.nextafter(e, np.inf), [np.nan, 3.0]])
        xs = v.astype(dt)
        ys = rng.permutation(v).astype(dt)
        ws = rng.normal(size=len(v)).astype(dt)
        case(f"edges_{n}", xs, ys, ws, (7, 7), ((-1.0, 1.0), (-1.0, 1.0)))
    print(f"checks {checks}")


if MODE == "exact":
    exact_cases()
    print(f"checks {checks}")
elif MODE == "numpy":
    numpy_cases()
else:
    sys.exit(f"hist2d_w_ref.py: unknown part {MODE}")
