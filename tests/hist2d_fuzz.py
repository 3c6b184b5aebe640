#!/usr/bin/env python3
"""hist2d_fuzz.py - random cases of `gpustat hist2d` against numpy.histogram2d.

Not run by tests/run.sh (a review tool; tests/test_hist2d.sh holds the
fixed cases): each case draws a type (f16 f32 f64 i8..u64), n points (0 to
1000, or NS=a,b,... in the environment), NX and NY from 1 to 50, a range
(the data's; a given one; lo == hi; ends that the type cannot hold; lo > hi,
inf or NaN, refused; wide ranges), special values (signed zeros, denormals,
the type's extremes, NaN/inf with a range, values drawn from numpy's own
edges) and a layout (a file, big-endian -t '>f4', -c 3 -F 3,1, a pipe,
tiny --chunk-size with -j 1..3), then compares the -f npy counts and the
--xedges/--yedges files with numpy's bytes, and error exits where numpy
raises. Accepted: gpustat's refusal where numpy's edges hold a NaN or fall
(numpy answers anyway), and a last edge of the other zero sign (numpy's
max of +0 and -0). Exit 1 on a failure, its input kept.

Usage: GPUSTAT=./gpustat python3 tests/hist2d_fuzz.py [SEED [CASES]]
"""
import numpy as np, subprocess, sys, os, random, warnings, tempfile
warnings.simplefilter("ignore")
G = os.environ.get("GPUSTAT", "./gpustat")
T = tempfile.mkdtemp(prefix="hist2d_fuzz.")
seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
N = int(sys.argv[2]) if len(sys.argv) > 2 else 300
rng = np.random.default_rng(seed)
random.seed(seed)
TYPES = ["float16", "float32", "float64", "int8", "uint8", "int16", "uint16",
         "int32", "uint32", "int64", "uint64"]
fails = 0
NS = [int(v) for v in os.environ.get("NS", "0,1,2,5,20,100,1000").split(",")]
stat = {}

def special(dt, k):
    dt = np.dtype(dt)
    if dt.kind == "f":
        fi = np.finfo(dt)
        pool = [0.0, -0.0, float(fi.smallest_subnormal), -float(fi.smallest_subnormal),
                float(fi.tiny), float(fi.max), -float(fi.max), 1.0, -1.0, 0.5]
    else:
        ii = np.iinfo(dt)
        pool = [ii.min, ii.max, 0, 1, ii.max - 1, ii.min + 1]
        if dt == np.int64:
            pool += [2**62 + 1, -(2**53) - 1, 2**53 + 1]
        if dt == np.uint64:
            pool += [2**63, 2**63 + 1, 2**64 - 1025, 2**53 + 1]
    return [random.choice(pool) for _ in range(k)]

def gen(dt, n, scale):
    dt = np.dtype(dt)
    if dt.kind == "f":
        v = rng.normal(0, scale, n)
        if random.random() < 0.3:
            v = np.round(v * 4) / 4
        return v.astype(dt)
    ii = np.iinfo(dt)
    lo, hi = ii.min, ii.max
    if random.random() < 0.5:
        w = random.choice([3, 50, 1000, 2**20])
        lo, hi = max(lo, -w if ii.min < 0 else 0), min(hi, w)
    return rng.integers(lo, hi, n, dtype=dt, endpoint=True)

def put(arr, vals, k):
    if len(arr) == 0:
        return
    for v in vals:
        i = rng.integers(0, len(arr))
        try:
            arr[i] = v
        except (OverflowError, ValueError):
            pass

def fmt(v):
    return repr(float(v))

def run(args, stdin=None):
    p = subprocess.run([G, "hist2d"] + args, capture_output=True, input=stdin)
    return p.returncode, p.stdout, p.stderr.decode()

for case in range(N):
    dt = np.dtype(random.choice(TYPES))
    n = random.choice(NS)
    nx = random.randint(1, 50); ny = random.choice([nx, random.randint(1, 50)])
    scale = random.choice([1e-3, 1, 100, 1e4, 1e30])
    x = gen(dt, n, scale); y = gen(dt, n, scale)
    mode = random.choice(["none", "none", "given", "given", "eq", "odd", "data", "bad", "f16big"])
    rngv = None
    if mode == "given":
        a, b = sorted(rng.normal(0, scale, 2) * random.choice([0.5, 1, 3]))
        c, d = sorted(rng.normal(0, scale, 2) * random.choice([0.5, 1, 3]))
        if dt.kind in "iu":
            if random.random() < 0.5:
                a, b, c, d = [float(round(v)) for v in (a, b, c, d)]
        rngv = [(a, b), (c, d)]
    elif mode == "eq":
        a = float(rng.normal(0, scale)); c = float(rng.normal(0, scale))
        rngv = [(a, a), (c, random.choice([c, c + 1]))]
    elif mode == "bad":
        rngv = random.choice([[(1.0, 0.0), (0.0, 1.0)], [(0.0, 1.0), (2.0, 1.0)], [(0.0, float("inf")), (0.0, 1.0)], [(float("nan"), 1.0), (0.0, 1.0)]])
    elif mode == "f16big":
        rngv = random.choice([[(-1e5, 1e5), (-70000.0, 70000.0)], [(1e300, 1e301), (-1e307, 1e307)], [(0.0, 5e-324), (-5e-324, 5e-324)], [(2.0**63, 2.0**64), (-2.0**63, 2.0**63)]])
    elif mode == "odd":
        rngv = [(0.1, 0.7), (-1/3, 2/3)]
    elif mode == "data" and n > 0:
        ok = np.isfinite(x.astype(float)) & np.isfinite(y.astype(float))
        if ok.any():
            rngv = [(float(x[ok].astype(float).min()), float(x[ok].astype(float).max())),
                    (float(y[ok].astype(float).min()), float(y[ok].astype(float).max()))]
    # specials
    if random.random() < 0.4:
        put(x, special(dt, 3), 3); put(y, special(dt, 3), 3)
    nanok = rngv is not None
    if dt.kind == "f" and nanok and random.random() < 0.5:
        put(x, [np.nan, np.inf, -np.inf], 3); put(y, [np.nan, -np.inf], 2)
    # values on edges
    try:
        H0, xe0, ye0 = np.histogram2d(x, y, bins=(nx, ny), range=rngv)
        if n > 0 and random.random() < 0.7:
            for arr, e in ((x, xe0), (y, ye0)):
                for _ in range(min(n, 10)):
                    i = rng.integers(0, n); j = rng.integers(0, len(e))
                    val = e[j]
                    if rngv is None and not (arr.astype(float).min() <= val <= arr.astype(float).max()):
                        continue
                    if dt.kind in "iu":
                        if val != np.floor(val):
                            continue
                        ii = np.iinfo(dt)
                        if not (ii.min <= val <= ii.max) or abs(val) >= 2**53:
                            continue
                        arr[i] = int(val)
                    else:
                        arr[i] = val
    except Exception:
        pass
    layout = random.choice(["plain", "plain", "be", "c3", "pipe", "chunk"])
    try:
        H, xe, ye = np.histogram2d(x, y, bins=(nx, ny), range=rngv)
        nperr = None
    except Exception as e:
        nperr = repr(e)
    path = os.path.join(T, "d.bin")
    args = ["-t", dt.str if layout != "be" else dt.newbyteorder(">").str.replace("|", ""),
            "--bins", f"{nx},{ny}"]
    if layout == "be" and dt.itemsize == 1:
        args[1] = dt.name
    if rngv is not None:
        args += ["--range", f"{fmt(rngv[0][0])}:{fmt(rngv[0][1])},{fmt(rngv[1][0])}:{fmt(rngv[1][1])}"]
    if layout == "c3":
        z = gen(dt, n, scale)
        np.stack([y, z, x], axis=1).astype(dt).tofile(path)
        args += ["-c", "3", "-F", "3,1"]
    elif layout == "be":
        np.stack([x, y], axis=1).astype(dt.newbyteorder(">")).tofile(path)
    else:
        np.stack([x, y], axis=1).astype(dt).tofile(path)
    if layout == "chunk":
        args += ["--chunk-size", str(random.choice([1, 7, 64, 100])), "-j", str(random.choice([1, 2, 3]))]
    ex, ey = os.path.join(T, "x.npy"), os.path.join(T, "y.npy")
    for f in (ex, ey):
        if os.path.exists(f): os.unlink(f)
    args += ["-f", "npy", "--raw", "--xedges", ex, "--yedges", ey, "-q"]
    if layout == "pipe":
        rc, out, err = run(args, stdin=open(path, "rb").read())
    else:
        rc, out, err = run(args + [path])
    desc = f"seed {seed} case {case}: {dt} n={n} bins={nx},{ny} mode={mode} range={rngv} layout={layout} args={args}"
    why = None
    stat[(nperr is not None, rc)] = stat.get((nperr is not None, rc), 0) + 1
    if nperr:
        if rc == 0:
            why = f"numpy raised {nperr} but gpustat exit 0"
        elif rc not in (1, 2):
            why = f"exit {rc}"
    elif rc != 0:
        # the documented refusal: numpy's edges hold a NaN or fall
        # (linspace overflows, or rounds the f16 edges back), and numpy
        # answers anyway (one bin, or searchsorted on unsorted edges)
        bad_edges = any(not (e[:-1] <= e[1:]).all() for e in (xe, ye))
        if not (bad_edges and "do not increase" in err):
            why = f"gpustat exit {rc}: {err.strip()}"
        else:
            stat["refused_bad_edges"] = stat.get("refused_bad_edges", 0) + 1
    else:
        open(os.path.join(T, "c.npy"), "wb").write(out)
        c = np.load(os.path.join(T, "c.npy")); a = np.load(ex); b = np.load(ey)
        if c.shape != H.shape or not (c == H).all():
            why = f"counts differ: sum {c.sum()} vs {H.sum()}; diff at {np.argwhere(c != H)[:5].tolist() if c.shape == H.shape else c.shape}"
        for f, g, xy in ((a, xe, "x"), (b, ye, "y")):
            if why is None and (f.dtype != g.dtype or f.tobytes() != g.tobytes()):
                why = f"{xy}edges differ: {f.dtype} {g.dtype}"
                if f.dtype == g.dtype and (f == g).all():
                    # the same values, but for the sign of a zero: numpy's
                    # a.max() of +0 and -0 is the first of them (f16) or
                    # what its SIMD loop gives (f32, f64)
                    why = None
                    stat["zero_sign"] = stat.get("zero_sign", 0) + 1
    if why:
        fails += 1
        print("FAIL", desc, "::", why)
        os.rename(path, os.path.join(T, f"fail{seed}_{case}.bin"))
print(f"seed {seed}: {N} cases, {fails} failures", stat, "(inputs of failures kept in " + T + ")" if fails else "")
if not fails:
    import shutil
    shutil.rmtree(T)
sys.exit(1 if fails else 0)
