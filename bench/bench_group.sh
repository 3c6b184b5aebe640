#!/bin/sh
# sum --by and stats --by against numpy, polars and DuckDB (issue 31's
# targets): N million records (i32 key, f32 value) in a page-cached file,
# K distinct keys (default "1000 1000000"), keys uniform, values normal.
#
# Each peer is timed twice in the same run: with its load from the file
# (np.fromfile; polars gets a DataFrame of the two columns, DuckDB a dict
# of the two arrays, contiguous, which it scans in place) and its
# group-by alone on data already in memory. numpy is unique + bincount up
# to 100 M records (its sort takes minutes beyond). gpustat's sums are
# compared with polars' sums in f64 (an untimed second group_by: its f32
# sums drift by more than gpustat's one rounding), within 1e-6 relative
# or 1e-6 absolute; keys must be equal.
# gpustat: each of BACKENDS (default "cpu cuda auto" where the build has
# CUDA, else "cpu"), best of $RUNS (default 2); each backend's bytes must
# equal the first one's. WHAT (default "sum stats") picks the commands;
# MEDIAN=1 adds median --by, against polars' and DuckDB's median per key
# (in memory, and with the load above; their medians within 1e-6 of
# gpustat's) and numpy's
# lexsort (100 M records at most; its medians must be equal). A peer that
# is not importable prints no row.
#
#   sh bench/bench_group.sh [MRECORDS] [KEYS...]   (default 100, 1000 1000000)
# TMPDIR: where the files go (8 GB per key count at 1000 M records;
# KEEP=1 leaves them there, as $TMPDIR/group_bench.KEYS, for runs by hand
# after it: the bench itself writes them again each time);
# PY=python3; PYTHONPATH may point at unpacked polars/duckdb wheels.
cd "$(dirname "$0")/.." || exit 2
. bench/lib.sh
MR=${1:-100}
[ $# -gt 0 ] && shift
KEYS=${*:-1000 1000000}
PY=${PY:-python3}
TMP=${TMPDIR:-/tmp}
RUNS=${RUNS:-2}
WHAT=${WHAT-sum stats}
[ "${MEDIAN:-0}" = 1 ] && WHAT="$WHAT median"
[ -x gpustat ] || make -s -j"$(nproc)" gpustat > /dev/null || exit 1
if [ -z "$BACKENDS" ]; then
	BACKENDS=cpu
	./gpustat --version | grep -qi cuda && BACKENDS="cpu cuda auto"
fi
echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
$PY -c 'import numpy; print("numpy", numpy.__version__)'
$PY -c 'import polars; print("polars", polars.__version__)' 2> /dev/null
$PY -c 'import duckdb; print("duckdb", duckdb.__version__)' 2> /dev/null
rows=$TMP/group_bench.rows
for K in $KEYS; do
	: > "$rows"
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
	$PY - "$F" "$TMP/peer_g.txt" "$MR" "$WHAT" >> "$rows" <<'PY'
import sys, time
import numpy as np
f, out, mr, what = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4].split()
dt = np.dtype([("k", "<i4"), ("v", "<f4")])
def clock():
    return time.perf_counter()
def row(name, t):
    print("%s %.3f" % (name, t), flush=True)
def save(name, keys, vals):
    with open(name, "w") as o:
        for k, v in zip(keys, vals):
            o.write("%d %r\n" % (k, v))
if mr <= 100 and "sum" in what:
    t = clock()
    a = np.fromfile(f, dt)
    u, inv = np.unique(a["k"], return_inverse=True)
    s = np.bincount(inv, weights=a["v"])
    row("numpy fromfile+unique+bincount sum", clock() - t)
    del a, u, inv, s
try:
    import polars as pl
    t = clock()
    a = np.fromfile(f, dt)
    df = pl.DataFrame({"k": a["k"], "v": a["v"]})
    del a
    t1 = clock()
    load = t1 - t
    if "sum" in what:
        r = df.group_by("k").agg(pl.col("v").sum()).sort("k")
        t2 = clock()
        row("polars load+group_by sum", t2 - t)
        row("polars group_by sum (in memory)", t2 - t1)
        r = df.group_by("k").agg(pl.col("v").cast(pl.Float64).sum()).sort("k")
        save(out, r["k"].to_list(), r["v"].to_list())
    if "stats" in what:
        t1 = clock()
        df.group_by("k").agg(pl.col("v").count().alias("n"),
                             pl.col("v").mean().alias("m"),
                             pl.col("v").std().alias("s")).sort("k")
        t2 = clock()
        row("polars load+group_by count+mean+std", load + t2 - t1)
        row("polars group_by count+mean+std (in memory)", t2 - t1)
    if "median" in what:
        t1 = clock()
        r = df.group_by("k").agg(pl.col("v").median()).sort("k")
        t2 = clock()
        row("polars load+group_by median", load + t2 - t1)
        row("polars group_by median (in memory)", t2 - t1)
        save(out + ".polars", r["k"].to_list(), r["v"].to_list())
    del df
except ImportError:
    pass
try:
    import duckdb
    t = clock()
    a = np.fromfile(f, dt)
    cols = {"k": np.ascontiguousarray(a["k"]),
            "v": np.ascontiguousarray(a["v"])}
    del a
    t1 = clock()
    load = t1 - t
    if "sum" in what:
        duckdb.sql("select k, sum(v) from cols group by k order by k").fetchall()
        t2 = clock()
        row("duckdb load+group by sum", t2 - t)
        row("duckdb group by sum (in memory)", t2 - t1)
    if "stats" in what:
        t1 = clock()
        duckdb.sql("select k, count(v), avg(v), stddev_samp(v) from cols"
                   " group by k order by k").fetchall()
        t2 = clock()
        row("duckdb load+group by count+avg+stddev", load + t2 - t1)
        row("duckdb group by count+avg+stddev (in memory)", t2 - t1)
    if "median" in what:
        t2 = clock()
        r = duckdb.sql("select k, median(v) from cols group by k"
                       " order by k").fetchall()
        t3 = clock()
        row("duckdb load+group by median", load + t3 - t2)
        row("duckdb group by median (in memory)", t3 - t2)
        save(out + ".duckdb", [x[0] for x in r], [x[1] for x in r])
    del cols
except ImportError:
    pass
if "median" in what and mr <= 100:
    t = clock()
    a = np.fromfile(f, dt)
    o = np.lexsort((a["v"], a["k"]))
    k, v = a["k"][o], a["v"][o].astype(np.float64)
    u, first, cnt = np.unique(k, return_index=True, return_counts=True)
    med = (v[first + (cnt - 1) // 2] + v[first + cnt // 2]) / 2
    row("numpy lexsort median", clock() - t)
    save(out + ".numpy", u, med)
PY
	first=
	for be in $BACKENDS; do
		for w in $WHAT; do
			echo "gpustat $w --by ($be) $(secs "./gpustat $w -q --backend $be -t i32,f32 --by 1 '$F' > '$TMP/gs_g.$w.$be'")" >> "$rows"
			[ -n "$first" ] && ! cmp -s "$TMP/gs_g.$w.$first" "$TMP/gs_g.$w.$be" &&
				echo "-- gpustat $w --by ($be): DIFFERS from $first's" >> "$rows"
		done
		first=${first:-$be}
	done
	# where a GPU run's time goes: -v's backend and process lines
	for be in $BACKENDS; do
		[ "$be" = cpu ] && continue
		for w in $WHAT; do
			./gpustat "$w" -v --backend "$be" -t i32,f32 --by 1 "$F" 2>&1 > /dev/null |
				grep '^gpustat: \(backend\|process\):' | cut -c1-300 | sed "s/^/-- $be ($w): /" >> "$rows"
		done
	done
	[ "$MR" -le 10 ] && echo "gpustat sum --by -j 1 (cpu) $(secs "./gpustat sum -q -j 1 --backend cpu -t i32,f32 --by 1 '$F'")" >> "$rows"
	# each peer's answers against gpustat's: sums (polars) and medians
	# within tol (0: equal)
	for p in sum:txt:polars:1e-6 median:txt.numpy:numpy:0 \
		 median:txt.polars:polars:1e-6 median:txt.duckdb:duckdb:1e-6; do
		w=${p%%:*} suf=${p#*:} peer=${suf#*:} tol=${peer#*:}
		suf=${suf%%:*} peer=${peer%%:*}
		[ -s "$TMP/gs_g.$w.$first" ] && [ -s "$TMP/peer_g.$suf" ] || continue
		same=$($PY - "$TMP/gs_g.$w.$first" "$TMP/peer_g.$suf" "$tol" <<'PY'
import sys
a = [[float(x) for x in l.split()] for l in open(sys.argv[1])]
b = [[float(x) for x in l.split()] for l in open(sys.argv[2])]
tol = float(sys.argv[3])
ok = len(a) == len(b) and all(
    x[0] == y[0] and abs(x[1] - y[1]) <= tol * max(1.0, abs(y[1]))
    for x, y in zip(a, b))
print(("equal" if tol == 0 else "close") if ok else "DIFFERENT")
PY
)
		echo "-- $K keys: gpustat $w against $peer: $same" >> "$rows"
	done
	echo "cat $(secs "cat '$F'")" >> "$rows"
	echo "== $K keys, $MR M records"
	awk '/^--/ { print; next } { t = $NF; $NF = ""; printf "%-46s %8s s\n", $0, t }' "$rows"
	rm -f "$TMP"/peer_g.txt* "$TMP"/gs_g.*
	[ "${KEEP:-0}" = 1 ] || rm -f "$F"
done
rm -f "$rows"
