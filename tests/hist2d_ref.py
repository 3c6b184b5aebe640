#!/usr/bin/env python3
"""hist2d_ref.py - gpustat hist2d against independent references.

Usage: hist2d_ref.py GPUSTAT TMPDIR numpy|fixtures|image|gen

numpy: counts and edges of every case against numpy.histogram2d (the
  reference), from json (edges as doubles, shortest round trip), -f npy
  (u8 counts of shape (NX, NY)) and --xedges/--yedges (numpy's edge dtype
  and bytes): values on edges, at the range's ends, outside it, NaN and
  inf with a given range; f16, f32, f64, bf16-free integer types; lo == hi;
  1 bin; non-square bins; empty input; f16 ranges whose edges repeat.
fixtures: the cases of up to 1000 points against numpy's answers kept in
  fixtures/hist2d (cases.json, NAME.bin), for machines without numpy (CI);
  "gen" writes them (with numpy; GPUSTAT and TMPDIR unused).
image: -f png and -f pgm read back with zlib alone (chunks, CRCs, IHDR,
  the IDAT rows, the P5 header and samples) and compared with the counts
  (from -f json) under each --norm, as cmd/hist2d_out.c defines the grey
  levels, at each --depth (8 and 16 bits, big-endian samples) and each
  format's own (png 8, pgm 16).

Prints "ok NAME" or "FAIL NAME: why" per check, and "checks N" at the end.
"""
import json
import warnings
import math
import os
import struct
import subprocess
import sys
import zlib

G, T, MODE = sys.argv[1], sys.argv[2], sys.argv[3]
warnings.simplefilter("ignore")	# numpy's, on the cases it fails
checks = 0


def report(name, why):
    global checks
    checks += 1
    print(f"ok {name}" if why is None else f"FAIL {name}: {why}")


def run(args, stdin=None):
    p = subprocess.run([G, "hist2d"] + args, input=stdin,
                       capture_output=True)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


# ---- numpy -----------------------------------------------------------------

def numpy_cases(np):
    f16, f32, f64 = np.float16, np.float32, np.float64
    cases = []
    rng = np.random.default_rng(32)

    # values on the edges of the bins numpy makes for the range, at both
    # ends, just outside, NaN, infinities (a given range drops them)
    def on_edges(dt, lo, hi, n):
        e = np.linspace(lo, hi, n + 1)
        v = np.concatenate([e, np.nextafter(e, -np.inf), np.nextafter(e, np.inf),
                            [lo - 1, hi + 1, np.nan, np.inf, -np.inf]])
        return v.astype(dt)

    for dt in (f16, f32, f64):
        x = on_edges(dt, -1, 1, 7)
        y = on_edges(dt, 0, 3, 5)
        m = min(len(x), len(y))
        xs = np.concatenate([x[:m], rng.permutation(x[:m])])
        ys = np.concatenate([y[:m], y[:m][::-1]])
        cases.append((f"edges_{np.dtype(dt).name}", xs, ys, (7, 5),
                      ((-1, 1), (0, 3))))
        # the same values without their NaN and inf: the data's own range
        keep = np.isfinite(xs) & np.isfinite(ys)
        cases.append((f"datarange_{np.dtype(dt).name}", xs[keep], ys[keep],
                      (7, 5), None))
        r = rng.normal(size=(2, 5000)).astype(dt)
        cases.append((f"normal_{np.dtype(dt).name}", r[0], r[1], (13, 4), None))
        cases.append((f"normal_range_{np.dtype(dt).name}", r[0], r[1], (13, 4),
                      ((-1.1, 0.7), (-0.3, 2.9))))
        # awkward steps: a tenth does not divide evenly in any float type
        t = (np.arange(0, 31) / 10).astype(dt)
        cases.append((f"tenths_{np.dtype(dt).name}", t, t[::-1], (30, 3), None))
        cases.append((f"tenths_range_{np.dtype(dt).name}", t, t[::-1], (30, 3),
                      ((0, 3), (0, 3))))
    for dt in (np.uint8, np.int8, np.int16, np.uint16, np.int32, np.uint32,
               np.int64, np.uint64):
        info = np.iinfo(dt)
        v = rng.integers(info.min, info.max, size=(2, 800), dtype=dt,
                         endpoint=True)
        cases.append((f"int_{np.dtype(dt).name}", v[0], v[1], (9, 6), None))
        w = rng.integers(0, 100, size=(2, 800)).astype(dt)
        cases.append((f"int_range_{np.dtype(dt).name}", w[0], w[1], (10, 7),
                      ((0, 50), (10, 90))))
    # lo == hi: a constant column, a given range of equal ends
    c = np.full(10, 3.5, f32)
    cases.append(("constant_f32", c, np.arange(10, dtype=f32), (4, 4), None))
    cases.append(("constant_f16", c.astype(f16), c.astype(f16), (3, 2), None))
    cases.append(("constant_i32", np.full(5, 7, np.int32),
                  np.arange(5, dtype=np.int32), (2, 3), None))
    cases.append(("range_lo_eq_hi", np.array([1.0, 1.5, 0.5, 0.49], f64),
                  np.array([2, 2, 2, 2], f64), (3, 3), ((1, 1), (2, 2))))
    # 1 bin, and bins of one axis only
    cases.append(("one_bin", r[0].astype(f64), r[1].astype(f64), (1, 1), None))
    cases.append(("one_by_nine", r[0].astype(f64), r[1].astype(f64), (1, 9),
                  ((-2, 2), (-2, 2))))
    # f16 over a narrow range with many bins: edges repeat in f16 (numpy
    # computes linspace in the data's type), bins between them stay empty
    n = np.linspace(1, 1.0625, 50).astype(f16)
    cases.append(("f16_repeated_edges", n, n[::-1], (100, 3), None))
    # f32 whose range needs f32 arithmetic for numpy's edges
    w = np.array([0.1, 0.7, 16777217.0, 3.3], f32)
    cases.append(("f32_wide", w, w[::-1], (7, 5), None))
    # empty input: numpy's range (0, 1), float64 edges
    cases.append(("empty", np.zeros(0, f32), np.zeros(0, f32), (3, 2), None))
    return cases


def check_numpy(np):
    for name, x, y, bins, rng_ in numpy_cases(np):
        dt = x.dtype
        path = os.path.join(T, name + ".bin")
        np.stack([x, y], axis=1).astype(dt).tofile(path)
        args = ["-t", dt.name, "--bins", f"{bins[0]},{bins[1]}", path]
        if rng_:
            args += ["--range", "%r:%r,%r:%r" % (float(rng_[0][0]),
                                                 float(rng_[0][1]),
                                                 float(rng_[1][0]),
                                                 float(rng_[1][1]))]
        H, xe, ye = np.histogram2d(x, y, bins=bins, range=rng_)
        rc, out, err = run(args + ["-f", "json"])
        if rc != 0:
            report(name, f"exit {rc}: {err.strip()}")
            continue
        j = json.loads(out)
        why = None
        if j["counts"] != H.astype(np.int64).tolist():
            why = "counts differ from numpy's"
        elif j["xedges"] != xe.astype(np.float64).tolist():
            why = f"x edges differ from numpy's ({xe.dtype})"
        elif j["yedges"] != ye.astype(np.float64).tolist():
            why = f"y edges differ from numpy's ({ye.dtype})"
        elif j["range"] != [[float(xe[0]), float(xe[-1])],
                            [float(ye[0]), float(ye[-1])]]:
            why = "range is not the outer edges"
        elif j["nan"] + j["outside"] + int(H.sum()) != len(x):
            why = "nan + outside + counts is not the records"
        report("json_" + name, why)
        # npy: u8 counts (NX, NY); edges files in numpy's dtype
        ex, ey = os.path.join(T, "x.npy"), os.path.join(T, "y.npy")
        rc, out, err = run(args + ["-f", "npy", "--xedges", ex,
                                   "--yedges", ey])
        npy = os.path.join(T, "c.npy")
        with open(npy, "wb") as f:
            f.write(out)
        why = None
        if rc != 0:
            why = f"exit {rc}: {err.strip()}"
        else:
            c, a, b = np.load(npy), np.load(ex), np.load(ey)
            if c.dtype != np.uint64 or c.shape != H.shape:
                why = f"npy is {c.dtype} {c.shape}"
            elif not (c == H).all():
                why = "npy counts differ"
            elif a.dtype != xe.dtype or a.tobytes() != xe.tobytes():
                why = f"x edges file {a.dtype} differs from numpy's {xe.dtype}"
            elif b.dtype != ye.dtype or b.tobytes() != ye.tobytes():
                why = f"y edges file {b.dtype} differs from numpy's {ye.dtype}"
        report("npy_" + name, why)

    # NaN or inf without a range: numpy raises, gpustat refuses (exit 1),
    # and f16 data whose width overflows f16: numpy's linspace makes NaN
    # and infinite edges, and numpy fails
    for name, x in (("nan", np.array([0, 1, np.nan, 2], np.float32)),
                    ("inf", np.array([0, 1, np.inf, 2], np.float32)),
                    ("f16_overflow", np.array([-60000, 60000, 0], np.float16))):
        try:
            np.histogram2d(x, x[::-1])
            report("norange_" + name, "numpy did not refuse")
            continue
        except ValueError:
            pass
        path = os.path.join(T, name + ".bin")
        np.stack([x, x[::-1]], axis=1).tofile(path)
        rc, out, err = run(["-t", x.dtype.name, path])
        report("norange_" + name, None if rc == 1 and not out and
               err.count("\n") == 1 else f"exit {rc}, {len(out)} bytes, {err!r}")

    # text with -c 3 -F 1,3: x the first column, y the third
    rng = np.random.default_rng(5)
    v = rng.integers(-20, 20, size=(400, 3))
    text = "\n".join(" ".join(str(int(u)) for u in r) for r in v) + "\n"
    H, xe, ye = np.histogram2d(v[:, 0].astype(np.float32),
                               v[:, 2].astype(np.float32), bins=(6, 8))
    rc, out, err = run(["--text", "-c", "3", "-F", "1,3", "--bins", "6,8",
                        "-f", "json"], stdin=text.encode())
    j = json.loads(out) if rc == 0 else {}
    report("text_fields", None if j.get("counts") == H.astype(int).tolist()
           and j.get("xedges") == xe.astype(float).tolist()
           else f"exit {rc} {err.strip()}: not numpy's counts")


# ---- images ----------------------------------------------------------------

def levels(counts, norm, maxval):
    """The grey levels of cmd/hist2d_out.c: rows from the highest y bin."""
    flat = [c for row in counts for c in row if c]
    srt = sorted(flat)

    def f(c):
        if norm == "linear":
            return float(c)
        if norm == "log":
            return math.log1p(c)
        import bisect
        return bisect.bisect_right(srt, c) / len(srt)

    f0 = f(min(flat)) if flat else 0
    f1 = f(max(flat)) if flat else 0
    nx, ny = len(counts), len(counts[0])
    img = []
    for r in range(ny):
        iy = ny - 1 - r
        line = []
        for ix in range(nx):
            c = counts[ix][iy]
            if not c:
                line.append(0)
                continue
            t = (f(c) - f0) / (f1 - f0) if f1 > f0 else 1.0
            line.append(1 + math.floor(t * (maxval - 1) + 0.5))
        img.append(line)
    return img


def read_png(data, bits=8):
    """(width, height, rows) of a grey PNG of bits (8 or 16) a sample, or
    a reason string."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return "no PNG signature"
    pos, idat, ihdr, end = 8, b"", None, False
    while pos < len(data):
        n, = struct.unpack(">I", data[pos:pos + 4])
        typ, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        crc, = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        if zlib.crc32(typ + body) != crc:
            return f"bad CRC in {typ!r}"
        if typ == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif typ == b"IDAT":
            idat += body
        elif typ == b"IEND":
            end = pos + 12 + n == len(data)
        pos += 12 + n
    if not ihdr or not end:
        return "no IHDR, or IEND is not last"
    w, h, depth, colour, comp, filt, inter = ihdr
    if (depth, colour, comp, filt, inter) != (bits, 0, 0, 0, 0):
        return f"IHDR {ihdr} is not {bits}-bit grey"
    raw = zlib.decompress(idat)
    n = bits // 8 * w + 1	# a row: its filter byte, then the samples
    if len(raw) != n * h:
        return "IDAT holds the wrong number of bytes"
    rows = []
    for r in range(h):
        line = raw[r * n:(r + 1) * n]
        if line[0] != 0:
            return f"row {r} has filter {line[0]}"
        rows.append(list(struct.unpack(f">{w}{'BH'[bits // 16]}",
                                       line[1:])))
    return w, h, rows


def read_pgm(data, bits=16):
    parts = data.split(b"\n", 3)
    if parts[0] != b"P5" or parts[2] != b"%d" % ((1 << bits) - 1):
        return f"not a {bits}-bit P5 header"
    w, h = map(int, parts[1].split())
    px = parts[3]
    if len(px) != bits // 8 * w * h:
        return "wrong number of samples"
    v = struct.unpack(f">{w * h}{'BH'[bits // 16]}", px)
    return w, h, [list(v[r * w:(r + 1) * w]) for r in range(h)]


def check_images():
    import random
    random.seed(11)
    # a skewed cloud: a dense blob, a sparse tail, empty corners
    pts = []
    for _ in range(20000):
        if random.random() < 0.8:
            pts.append((random.gauss(-1, 0.3), random.gauss(1, 0.5)))
        else:
            pts.append((random.expovariate(1.0), random.uniform(-2, 2)))
    path = os.path.join(T, "cloud.f64")
    with open(path, "wb") as f:
        for x, y in pts:
            f.write(struct.pack("<dd", x, y))
    base = ["-t", "f64", "--bins", "37,23", "--range", "-3:5,-3:3", path]
    rc, out, err = run(base + ["-f", "json"])
    counts = json.loads(out)["counts"]
    images = (("png", read_png, []), ("pgm", read_pgm, []),
              ("png", read_png, ["--depth", "16"]),
              ("pgm", read_pgm, ["--depth", "8"]))
    for norm in ("linear", "log", "eq"):
        for fmt, reader, depth in images:
            bits = int(depth[1]) if depth else {"png": 8, "pgm": 16}[fmt]
            maxval = (1 << bits) - 1
            name = f"{fmt}{bits}_{norm}"
            rc, out, err = run(base + ["-f", fmt, "--norm", norm] + depth)
            got = reader(out, bits) if rc == 0 else \
                f"exit {rc}: {err.strip()}"
            if isinstance(got, str):
                report(name, got)
                continue
            w, h, rows = got
            want = levels(counts, norm, maxval)
            why = None
            if (w, h) != (37, 23):
                why = f"{w}x{h} pixels, not 37x23"
            elif rows != want:
                bad = sum(a != b for r1, r2 in zip(rows, want)
                          for a, b in zip(r1, r2))
                why = f"{bad} pixels differ from the counts under {norm}"
            elif max(max(r) for r in rows) != maxval:
                why = "the largest count is not white"
            report(name, why)
    # the default norm is log; an all-zero histogram is black
    rc, out, err = run(base + ["-f", "png"])
    rc2, out2, _ = run(base + ["-f", "png", "--norm", "log"])
    report("png_default_log", None if rc == 0 and out == out2 else "differs")
    # --depth says the format's own depth again: the same bytes
    for fmt, bits in (("png", "8"), ("pgm", "16")):
        rc, out, err = run(base + ["-f", fmt])
        rc2, out2, _ = run(base + ["-f", fmt, "--depth", bits])
        report(f"{fmt}_own_depth", None if rc == 0 and out == out2
               else "differs")
    rc, out, err = run(["-t", "f64", "--bins", "4,3", "--range", "10:11",
                        path, "-f", "png"])
    got = read_png(out) if rc == 0 else "exit %d" % rc
    report("png_black", None if not isinstance(got, str) and
           got[2] == [[0] * 4] * 3 else f"{got}")


# ---- fixtures: numpy's answers, kept for machines without numpy -------------

FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                   "fixtures", "hist2d")
PACK = {"float16": "e", "float32": "f", "float64": "d"}


def case_args(dtname, bins, rng_, path):
    args = ["-t", dtname, "--bins", f"{bins[0]},{bins[1]}", path]
    if rng_:
        args += ["--range", "%r:%r,%r:%r" % tuple(float(v) for r in rng_
                                                  for v in r)]
    return args


def gen_fixtures(np):
    """fixtures/hist2d: each small case's input and numpy's answer."""
    cases = []
    for name, x, y, bins, rng_ in numpy_cases(np):
        if len(x) > 1000:
            continue
        H, xe, ye = np.histogram2d(x, y, bins=bins, range=rng_)
        np.stack([x, y], axis=1).astype(x.dtype).tofile(
            os.path.join(FIX, name + ".bin"))
        cases.append({"name": name, "type": x.dtype.name, "bins": bins,
                      "range": rng_ and [list(map(float, r)) for r in rng_],
                      "counts": H.astype(np.int64).tolist(),
                      "xedges": xe.astype(float).tolist(),
                      "yedges": ye.astype(float).tolist(),
                      "edges_dtype": xe.dtype.name})
    with open(os.path.join(FIX, "cases.json"), "w") as f:
        json.dump(cases, f, indent=0)
        f.write("\n")
    global checks
    checks = len(cases)


def check_fixtures():
    with open(os.path.join(FIX, "cases.json")) as f:
        cases = json.load(f)
    for c in cases:
        path = os.path.join(FIX, c["name"] + ".bin")
        ex, ey = os.path.join(T, "x.edges"), os.path.join(T, "y.edges")
        rc, out, err = run(case_args(c["type"], c["bins"], c["range"], path)
                           + ["-f", "json", "--xedges", ex, "--yedges", ey])
        why = None
        if rc != 0:
            why = f"exit {rc}: {err.strip()}"
        else:
            j = json.loads(out)
            p = PACK[c["edges_dtype"]]
            for k in ("counts", "xedges", "yedges"):
                if why is None and j[k] != c[k]:
                    why = f"{k} differ from numpy's"
            for e, k in ((ex, "xedges"), (ey, "yedges")):
                want = struct.pack(f"<{len(c[k])}{p}", *c[k])
                if why is None and open(e, "rb").read() != want:
                    why = f"the {k} file is not numpy's {c['edges_dtype']}"
        report("fixture_" + c["name"], why)


if MODE == "numpy":
    import numpy
    check_numpy(numpy)
elif MODE == "gen":
    import numpy
    gen_fixtures(numpy)
elif MODE == "fixtures":
    check_fixtures()
else:
    check_images()
print(f"checks {checks}")
