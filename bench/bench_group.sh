#!/bin/sh
# sum --by, stats --by and median --by against numpy and, where importable,
# polars, pandas and DuckDB (issue 31's targets): N million records (i32 key, f32 value),
# page-cached, with K distinct keys (default "1000 1000000"); each tool's
# time with its load from the file included (np.fromfile; polars and DuckDB
# handed the arrays numpy read, their load being that same fromfile), one
# run each for the peers, best of $RUNS for gpustat, all in one run. numpy:
# np.unique(k, return_inverse) + np.bincount(inverse, weights=v) (float64
# sums rounded as they go); the per-key sums are compared once with
# gpustat's (exact, rounded once) within 1e-6 relative. median: numpy's
# np.lexsort((v, k)) then each key's middle elements (vectorized), pandas'
# groupby().median(), polars' group_by median; compared with gpustat's.
#
#   sh bench/bench_group.sh [MRECORDS] [KEYS...]   (default 100, 1000 1000000)
# TMPDIR: where the files go; PY=python3; BACKENDS="cpu" (add cuda when
# --by has GPU kernels).
cd "$(dirname "$0")/.." || exit 2
. bench/lib.sh
MR=${1:-100}
[ $# -gt 0 ] && shift
KEYS=${*:-1000 1000000}
PY=${PY:-python3}
TMP=${TMPDIR:-/tmp}
[ -x gpustat ] || make -s -j"$(nproc)" gpustat > /dev/null || exit 1
echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
rows=$TMP/group_bench.rows
: > "$rows"
for K in $KEYS; do
	F=$TMP/group_bench.$K
	$PY - "$F" "$MR" "$K" <<'PY' || exit 1
import sys
import numpy as np
f, mr, nk = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(7)
dt = np.dtype([("k", "<i4"), ("v", "<f4")])
with open(f, "wb") as out:
    for _ in range(0, mr, 10):
        a = np.empty(10_000_000, dt)
        a["k"] = rng.integers(0, nk, 10_000_000) * 7 - nk
        a["v"] = rng.normal(size=10_000_000)
        out.write(a.tobytes())
PY
	cat "$F" > /dev/null
	$PY - "$F" "$TMP/np_g.txt" >> "$rows" <<'PY'
import sys, time
import numpy as np
f, out = sys.argv[1], sys.argv[2]
dt = np.dtype([("k", "<i4"), ("v", "<f4")])
t = time.perf_counter()
a = np.fromfile(f, dt)
u, inv = np.unique(a["k"], return_inverse=True)
s = np.bincount(inv, weights=a["v"])
tn = time.perf_counter() - t
print("numpy unique+bincount sum %.3f" % tn)
np.savetxt(out, np.column_stack([u, s]), fmt="%.17g")
try:
    import polars as pl
    t = time.perf_counter()
    a = np.fromfile(f, dt)
    df = pl.DataFrame({"k": a["k"], "v": a["v"]})
    r = df.group_by("k").agg(pl.col("v").sum()).sort("k")
    print("polars group_by sum %.3f" % (time.perf_counter() - t))
    t = time.perf_counter()
    r = df.group_by("k").agg(pl.col("v").count(), pl.col("v").mean(),
                             pl.col("v").std(), pl.col("v").var()).sort("k")
    print("polars group_by stats %.3f" % (tn * 0 + time.perf_counter() - t))
except ImportError:
    pass
t = time.perf_counter()
a = np.fromfile(f, dt)
o = np.lexsort((a["v"], a["k"]))
k, v = a["k"][o], a["v"][o].astype(np.float64)
u, first, cnt = np.unique(k, return_index=True, return_counts=True)
med = (v[first + (cnt - 1) // 2] + v[first + cnt // 2]) / 2
print("numpy lexsort median %.3f" % (time.perf_counter() - t))
np.savetxt(out + ".median", np.column_stack([u, med]), fmt="%.17g")
try:
    import pandas as pd
    t = time.perf_counter()
    a = np.fromfile(f, dt)
    pd.DataFrame({"k": a["k"], "v": a["v"]}).groupby("k")["v"].median()
    print("pandas groupby median %.3f" % (time.perf_counter() - t))
except ImportError:
    pass
try:
    import polars as pl
    t = time.perf_counter()
    a = np.fromfile(f, dt)
    pl.DataFrame({"k": a["k"], "v": a["v"]}).group_by("k").agg(
        pl.col("v").median()).sort("k")
    print("polars group_by median %.3f" % (time.perf_counter() - t))
except ImportError:
    pass
try:
    import duckdb
    t = time.perf_counter()
    a = np.fromfile(f, dt)
    k, v = a["k"], a["v"]
    duckdb.sql("select k, sum(v) from (select unnest($k) k, unnest($v) v) group by k order by k",
               params={"k": k, "v": v}).fetchall()
    print("duckdb group by sum %.3f" % (time.perf_counter() - t))
except ImportError:
    pass
PY
	./gpustat sum -t i32,f32 --by 1 "$F" > "$TMP/gs_g.txt"
	same=$($PY - "$TMP/gs_g.txt" "$TMP/np_g.txt" <<'PY'
import sys
import numpy as np
a = np.loadtxt(sys.argv[1]); b = np.loadtxt(sys.argv[2])
ok = a.shape == b.shape and (a[:, 0] == b[:, 0]).all() and np.allclose(a[:, 1], b[:, 1], rtol=1e-6, atol=1e-6)
print("equal keys, close sums" if ok else "DIFFERENT")
PY
)
	echo "-- $K keys: gpustat against numpy: $same" >> "$rows"
	./gpustat median -t i32,f32 --by 1 "$F" > "$TMP/gs_g.txt"
	same=$($PY - "$TMP/gs_g.txt" "$TMP/np_g.txt.median" <<'PY'
import sys
import numpy as np
a = np.loadtxt(sys.argv[1]); b = np.loadtxt(sys.argv[2])
print("equal keys and medians" if a.shape == b.shape and (a == b).all() else "DIFFERENT")
PY
)
	echo "-- $K keys: gpustat median against numpy: $same" >> "$rows"
	for be in ${BACKENDS:-cpu}; do
		echo "gpustat sum --by ($be) $(secs "./gpustat sum -q --backend $be -t i32,f32 --by 1 '$F'")" >> "$rows"
		echo "gpustat stats --by ($be) $(secs "./gpustat stats -q --backend $be -t i32,f32 --by 1 '$F'")" >> "$rows"
		echo "gpustat sum --by -j 1 ($be) $(secs "./gpustat sum -q -j 1 --backend $be -t i32,f32 --by 1 '$F'")" >> "$rows"
		echo "gpustat median --by ($be) $(secs "./gpustat median -q --backend $be -t i32,f32 --by 1 '$F'")" >> "$rows"
	done
	echo "cat $(secs "cat '$F'")" >> "$rows"
	echo "== $K keys, $MR M records"
	awk '/^--/ { print; next } { t = $NF; $NF = ""; printf "%-40s %8s s\n", $0, t }' "$rows"
	: > "$rows"
	rm -f "$F"
done
rm -f "$rows" "$TMP/np_g.txt" "$TMP/np_g.txt.median" "$TMP/gs_g.txt"
