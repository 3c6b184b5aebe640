#!/usr/bin/env python3
"""hist2d_ref.py - gpustat hist2d against independent references.

Usage: hist2d_ref.py GPUSTAT TMPDIR numpy|fixtures|image|gen

numpy: counts and edges of every case against numpy.histogram2d as
  tests/np_ref.py computes it (numpy's linspace and searchsorted in the
  edges' type, python alone), and against numpy itself where python3 has
  it (np_ref checked against numpy too): from json (edges as doubles,
  shortest round trip), -f npy (u8 counts of shape (NX, NY)) and
  --xedges/--yedges (numpy's edge dtype and bytes): values on edges, at
  the range's ends, outside it, NaN and inf with a given range; f16, f32,
  f64, bf16-free integer types; lo == hi; 1 bin; non-square bins; empty
  input; f16 ranges whose edges repeat; the refusals numpy makes.
fixtures: numpy's own answers for small cases, kept in fixtures/hist2d
  (cases.json, NAME.bin), against gpustat and against np_ref, so that
  machines without numpy (CI) check np_ref's fidelity too; "gen" writes
  them (with numpy; GPUSTAT and TMPDIR unused).
image: -f png and -f pgm read back with zlib alone (chunks, CRCs, IHDR,
  the IDAT rows, the P5 header and samples) and compared with the counts
  (from -f json) under each --norm, as cmd/hist2d_out.c defines the grey
  levels, at each --depth (8 and 16 bits, big-endian samples) and each
  format's own (png 8, pgm 16).

Prints "ok NAME" or "FAIL NAME: why" per check, and "checks N" at the end.
"""
import json
import math
import os
import random
import struct
import subprocess
import sys
import warnings
import zlib

import np_ref

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


# ---- numpy's answers, from np_ref (and numpy itself where present) -----------

TYPES = {"float16": "f16", "float32": "f32", "float64": "f64"}
INTS = {"uint8": (0, 8), "int8": (1, 8), "int16": (1, 16),
        "uint16": (0, 16), "int32": (1, 32), "uint32": (0, 32),
        "int64": (1, 64), "uint64": (0, 64)}
CODE = {"float16": "e", "float32": "f", "float64": "d", "uint8": "B",
        "int8": "b", "int16": "h", "uint16": "H", "int32": "i",
        "uint32": "I", "int64": "q", "uint64": "Q"}


def rt(name):
    """np_ref's type of numpy's dtype name: f16, f32, f64 or int."""
    return TYPES.get(name, "int")


def typed(name, vals):
    """vals as values of dtype name (floats rounded to it, as astype)."""
    t = rt(name)
    return [np_ref.rnd(v, t) for v in vals] if t != "int" else list(vals)


def model_cases():
    """(name, dtype name, xs, ys, bins, range): values on the edges and at
    the range's ends, outside it, NaN and inf with a given range; normal
    data; tenths; integers of every width; lo == hi; 1 bin; f16 edges that
    repeat; f32 whose edges need f32 arithmetic; no data."""
    r = random.Random(32)
    cases = []

    def on_edges(lo, hi, n):
        e = np_ref.linspace(float(lo), float(hi), n + 1, "f64")
        return e + [math.nextafter(v, -math.inf) for v in e] + \
            [math.nextafter(v, math.inf) for v in e] + \
            [lo - 1.0, hi + 1.0, math.nan, math.inf, -math.inf]

    for dt in ("float16", "float32", "float64"):
        x, y = typed(dt, on_edges(-1, 1, 7)), typed(dt, on_edges(0, 3, 5))
        m = min(len(x), len(y))
        xs = x[:m] + r.sample(x[:m], m)
        ys = y[:m] + y[:m][::-1]
        cases.append((f"edges_{dt}", dt, xs, ys, (7, 5), ((-1, 1), (0, 3))))
        keep = [i for i in range(len(xs)) if math.isfinite(xs[i]) and
                math.isfinite(ys[i])]
        cases.append((f"datarange_{dt}", dt, [xs[i] for i in keep],
                      [ys[i] for i in keep], (7, 5), None))
        nx = typed(dt, [r.gauss(0, 1) for _ in range(5000)])
        ny = typed(dt, [r.gauss(0, 1) for _ in range(5000)])
        cases.append((f"normal_{dt}", dt, nx, ny, (13, 4), None))
        cases.append((f"normal_range_{dt}", dt, nx, ny, (13, 4),
                      ((-1.1, 0.7), (-0.3, 2.9))))
        # awkward steps: a tenth does not divide evenly in any float type
        t = typed(dt, [i / 10 for i in range(31)])
        cases.append((f"tenths_{dt}", dt, t, t[::-1], (30, 3), None))
        cases.append((f"tenths_range_{dt}", dt, t, t[::-1], (30, 3),
                      ((0, 3), (0, 3))))
    for dt, (signed, bits) in INTS.items():
        lo = -(1 << (bits - 1)) if signed else 0
        hi = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
        v = [r.randint(lo, hi) for _ in range(1600)]
        v[:4] = [lo, hi, hi, lo]
        cases.append((f"int_{dt}", dt, v[:800], v[800:], (9, 6), None))
        w = [r.randrange(100) for _ in range(1600)]
        cases.append((f"int_range_{dt}", dt, w[:800], w[800:], (10, 7),
                      ((0, 50), (10, 90))))
    # lo == hi: a constant column, a given range of equal ends
    cases.append(("constant_f32", "float32", [3.5] * 10,
                  [float(i) for i in range(10)], (4, 4), None))
    cases.append(("constant_f16", "float16", [3.5] * 10, [3.5] * 10, (3, 2),
                  None))
    cases.append(("constant_i32", "int32", [7] * 5, list(range(5)), (2, 3),
                  None))
    cases.append(("range_lo_eq_hi", "float64", [1.0, 1.5, 0.5, 0.49],
                  [2.0] * 4, (3, 3), ((1, 1), (2, 2))))
    # 1 bin, and bins of one axis only
    cases.append(("one_bin", "float64", nx, ny, (1, 1), None))
    cases.append(("one_by_nine", "float64", nx, ny, (1, 9),
                  ((-2, 2), (-2, 2))))
    # f16 over a narrow range with many bins: numpy's f16 linspace makes
    # edges that repeat, and the bins between them stay empty
    n = typed("float16", np_ref.linspace(1.0, 1.0625, 50, "f64"))
    cases.append(("f16_repeated_edges", "float16", n, n[::-1], (100, 3),
                  None))
    # f32 whose range needs f32 arithmetic for numpy's edges
    w = typed("float32", [0.1, 0.7, 16777217.0, 3.3])
    cases.append(("f32_wide", "float32", w, w[::-1], (7, 5), None))
    # no data: numpy's range (0, 1), float64 edges
    cases.append(("empty", "float32", [], [], (3, 2), None))
    return cases


def write_case(path, dt, xs, ys):
    with open(path, "wb") as f:
        f.write(struct.pack("<%d%s" % (2 * len(xs), CODE[dt]),
                            *[v for p in zip(xs, ys) for v in p]))


def edges_bytes(edges, et):
    return struct.pack("<%d%s" % (len(edges), np_ref.PACK[et]), *edges)


def numpy_says(np, dt, xs, ys, bins, rng_):
    """numpy.histogram2d's (counts, xedges, yedges, edge type) or None
    where numpy fails."""
    try:
        H, xe, ye = np.histogram2d(np.array(xs, dt), np.array(ys, dt),
                                   bins=bins, range=rng_)
    except ValueError:
        return None
    return (H.astype(np.int64).tolist(), xe.astype(float).tolist(),
            ye.astype(float).tolist(), rt(xe.dtype.name))


def check_model(np):
    """gpustat against np_ref's numpy.histogram2d; np_ref against numpy
    itself where numpy is present (np not None)."""
    for name, dt, xs, ys, bins, rng_ in model_cases():
        path = os.path.join(T, name + ".bin")
        write_case(path, dt, xs, ys)
        H, xe, ye, et, _ = np_ref.histogram2d(xs, ys, rt(dt), bins, rng_)
        if np is not None:
            got = numpy_says(np, dt, xs, ys, bins, rng_)
            report("numpy_" + name, None if got == (H, xe, ye, et[0])
                   else "np_ref's histogram2d is not numpy's")
        args = case_args(dt, bins, rng_, path)
        rc, out, err = run(args + ["-f", "json"])
        if rc != 0:
            report(name, f"exit {rc}: {err.strip()}")
            continue
        j = json.loads(out)
        why = None
        if j["counts"] != H:
            why = "counts differ from numpy's"
        elif j["xedges"] != xe:
            why = f"x edges differ from numpy's ({et[0]})"
        elif j["yedges"] != ye:
            why = f"y edges differ from numpy's ({et[1]})"
        elif j["range"] != [[xe[0], xe[-1]], [ye[0], ye[-1]]]:
            why = "range is not the outer edges"
        elif j["nan"] + j["outside"] + sum(map(sum, H)) != len(xs):
            why = "nan + outside + counts is not the records"
        report("json_" + name, why)
        # npy: u8 counts (NX, NY); edges files in numpy's dtype
        ex, ey = os.path.join(T, "x.npy"), os.path.join(T, "y.npy")
        rc, out, err = run(args + ["-f", "npy", "--xedges", ex,
                                   "--yedges", ey])
        why = None
        if rc != 0:
            why = f"exit {rc}: {err.strip()}"
        else:
            c = np_ref.npy_array(out)
            a = np_ref.npy_array(open(ex, "rb").read())
            b = np_ref.npy_array(open(ey, "rb").read())
            if c[0] != "<u8" or c[1] != (bins[0], bins[1]):
                why = f"npy is {c[0]} {c[1]}"
            elif c[2] != [v for row in H for v in row]:
                why = "npy counts differ"
            elif a[0][1:] != EDGE[et[0]] or a[3] != edges_bytes(xe, et[0]):
                why = f"x edges file {a[0]} differs from numpy's {et[0]}"
            elif b[0][1:] != EDGE[et[1]] or b[3] != edges_bytes(ye, et[1]):
                why = f"y edges file {b[0]} differs from numpy's {et[1]}"
        report("npy_" + name, why)

    # NaN or inf without a range: numpy raises, gpustat refuses (exit 1);
    # f16 data whose width overflows f16: numpy's linspace makes NaN and
    # infinite edges, and numpy fails
    for name, dt, x in (("nan", "float32", [0.0, 1.0, math.nan, 2.0]),
                        ("inf", "float32", [0.0, 1.0, math.inf, 2.0]),
                        ("f16_overflow", "float16",
                         [-60000.0, 60000.0, 0.0])):
        try:
            np_ref.histogram2d(x, x[::-1], rt(dt), (10, 10))
            report("norange_" + name, "np_ref did not refuse")
            continue
        except ValueError:
            pass
        if np is not None:
            report("numpy_norange_" + name, None if numpy_says(
                np, dt, x, x[::-1], 10, None) is None
                else "numpy did not refuse")
        path = os.path.join(T, name + ".bin")
        write_case(path, dt, x, x[::-1])
        rc, out, err = run(["-t", dt, path])
        report("norange_" + name, None if rc == 1 and not out and
               err.count("\n") == 1
               else f"exit {rc}, {len(out)} bytes, {err!r}")

    # text with -c 3 -F 1,3: x the first column, y the third
    r = random.Random(5)
    v = [[r.randrange(-20, 20) for _ in range(3)] for _ in range(400)]
    text = "".join(" ".join(map(str, row)) + "\n" for row in v)
    xs, ys = [float(row[0]) for row in v], [float(row[2]) for row in v]
    H, xe, ye, _, _ = np_ref.histogram2d(xs, ys, "f32", (6, 8))
    if np is not None:
        report("numpy_text_fields", None if numpy_says(
            np, "float32", xs, ys, (6, 8), None)[:2] == (H, xe)
            else "np_ref's histogram2d is not numpy's")
    rc, out, err = run(["--text", "-c", "3", "-F", "1,3", "--bins", "6,8",
                        "-f", "json"], stdin=text.encode())
    j = json.loads(out) if rc == 0 else {}
    report("text_fields", None if j.get("counts") == H
           and j.get("xedges") == xe
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
EDGE = {"f16": "f2", "f32": "f4", "f64": "f8"}


def case_args(dtname, bins, rng_, path):
    args = ["-t", dtname, "--bins", f"{bins[0]},{bins[1]}", path]
    if rng_:
        args += ["--range", "%r:%r,%r:%r" % tuple(float(v) for r in rng_
                                                  for v in r)]
    return args


def gen_fixtures(np):
    """fixtures/hist2d: each small case's input and numpy's answer."""
    cases = []
    for name, dt, x, y, bins, rng_ in model_cases():
        if len(x) > 1000:
            continue
        H, xe, ye, et = numpy_says(np, dt, x, y, bins, rng_)
        write_case(os.path.join(FIX, name + ".bin"), dt, x, y)
        cases.append({"name": name, "type": dt, "bins": bins,
                      "range": rng_ and [list(map(float, r)) for r in rng_],
                      "counts": H, "xedges": xe, "yedges": ye,
                      "edges_dtype": {v: k for k, v in TYPES.items()}[et]})
    with open(os.path.join(FIX, "cases.json"), "w") as f:
        json.dump(cases, f, indent=0)
        f.write("\n")
    global checks
    checks = len(cases)


def check_fixtures():
    """gpustat, and np_ref too, against numpy's answers kept in FIX."""
    with open(os.path.join(FIX, "cases.json")) as f:
        cases = json.load(f)
    for c in cases:
        path = os.path.join(FIX, c["name"] + ".bin")
        with open(path, "rb") as f:
            raw = f.read()
        n = len(raw) // struct.calcsize(CODE[c["type"]])
        v = struct.unpack("<%d%s" % (n, CODE[c["type"]]), raw)
        H, xe, ye, et, _ = np_ref.histogram2d(
            list(v[0::2]), list(v[1::2]), rt(c["type"]), c["bins"],
            c["range"])
        report("np_ref_" + c["name"], None if (H, xe, ye) == (
            c["counts"], c["xedges"], c["yedges"]) and
            TYPES[c["edges_dtype"]] == et[0] else "np_ref is not numpy")
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
    check_model(np_ref.np_cross())
elif MODE == "gen":
    import numpy
    gen_fixtures(numpy)
elif MODE == "fixtures":
    check_fixtures()
else:
    check_images()
print(f"checks {checks}")
