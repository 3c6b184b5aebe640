#!/bin/sh
# test_group_rows.sh - the rows of a --by result made in blocks on the
# threads (issue 31: each key's row computed once, its text made in
# parallel, in key order; json's fields written in one pass over the rows,
# the fields after the first spooled): the same bytes whatever the
# threads, spilled or not, in every format, and the right values:
#  - sum, count, stats, reduce --op min|max, quantile, median and mode of
#    more keys than one block holds (60,000 i64 keys, i32 and f64 values
#    with NaNs), text, csv, json, npy, binary: -j 2, -j 4 and a spilled
#    -j 3 (GPUSTAT_GROUP_LIMIT=256K; quantile, median, mode 24M) print -j
#    1's bytes;
#  - text keys (20,000 strings) the same;
#  - the values against python: sum's text rows, stats' json (its fields
#    longer than the spool keeps in memory: they go through a temp file)
#    and sum's npy, from exact integer arithmetic;
#  - no keys and one key: every format's bytes at -j 1 and -j 4, json's
#    empty lists; json without a $TMPDIR for its spool;
#  - json costs about what csv does (each row computed once, not once per
#    field: stats' json took 4x csv's CPU time when each field recomputed
#    its rows).
#
# Usage: sh tests/test_group_rows.sh   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "group_rows: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=group_rows
. tests/lib.sh

if ! python3 -c 'import numpy' 2> /dev/null; then
	bad "python3" "needed with numpy to make the records"
	summary
	exit
fi
mkdir "$T/tmp"
export TMPDIR="$T/tmp"
python3 - "$T" <<'PY' || bad "generate" "python failed"
import sys
import numpy as np
t = sys.argv[1]
rng = np.random.default_rng(31)
n = 150000
a = np.empty(n, dtype=[("k", "<i8"), ("v", "<i4"), ("w", "<f8")])
keys = rng.permutation(60000).astype(np.int64) * 7919 - 400000000
a["k"] = np.concatenate([keys, rng.choice(keys, n - len(keys))])
a["v"] = rng.integers(-2**31, 2**31 - 1, n, dtype=np.int64)
a["w"] = rng.standard_normal(n) * 1e3
a["w"][::37] = np.nan
a.tofile(t + "/a.bin")
a[:1].tofile(t + "/one.bin")
open(t + "/none.bin", "wb").close()
with open(t + "/t.csv", "w") as f:
    f.write("station,temp\n")
    for i in range(60000):
        f.write("st%d,%d\n" % (rng.integers(0, 20000), rng.integers(-999, 999)))
PY

# same NAME: $T/got is $T/want byte for byte (never empty)
same() {
	[ -s "$T/want" ] || { bad "$1" "no expected output"; return; }
	cmp -s "$T/got" "$T/want" && ok ||
		bad "$1" "differs from -j 1's ($(wc -c < "$T/got") and $(wc -c < "$T/want") bytes)"
}

# threads NAME ARGS...: -j 2, -j 4 and a spilled -j 3 print -j 1's bytes
# (quantile, median, mode: their records spill at a limit that holds their
# results, tests/test_group_quantile.sh)
threads() {
	name=$1
	lim=256K
	shift
	case $name in quantile*|median*|mode*) lim=24M ;; esac
	"$G" "$@" -j 1 > "$T/want" 2>&1
	for o in "-j 2" "-j 4 --chunk-size 4K"; do
		"$G" "$@" $o > "$T/got" 2>&1
		same "$name $o"
	done
	GPUSTAT_GROUP_LIMIT=$lim "$G" "$@" -j 3 > "$T/got" 2>&1
	same "$name spilled -j 3"
}

for f in text csv json npy binary; do
	for cmd in sum count stats "reduce --op min" "reduce --op max" \
		   "quantile -q 0.1,0.5" median mode; do
		threads "$cmd -f $f" $cmd --by 1 -t i64,i32,f64 -f $f "$T/a.bin"
	done
	threads "text keys -f $f" stats --header --by station -F temp \
		-f $f "$T/t.csv"
	for d in none one; do
		for cmd in sum stats; do
			"$G" $cmd --by 1 -t i64,i32,f64 -f $f "$T/$d.bin" -j 1 \
				> "$T/want" 2>&1
			"$G" $cmd --by 1 -t i64,i32,f64 -f $f "$T/$d.bin" -j 4 \
				> "$T/got" 2>&1
			if [ -s "$T/want" ]; then
				same "$d $cmd -f $f"
			else	# text and binary of no keys: nothing
				case $d$f in nonetext|nonebinary) ;; *) false ;; esac &&
					[ ! -s "$T/got" ] && ok ||
					bad "$d $cmd -f $f" "no output"
			fi
		done
	done
done
"$G" stats --by 1 -t i64,i32,f64 -f json "$T/none.bin" -j 4 > "$T/got"
grep -q '"keys":\[\],"count":\[\],"nan":\[\],"min":\[\]' "$T/got" && ok ||
	bad "no keys json" "$(head -c 300 "$T/got")"
[ -z "$(ls -A "$T/tmp")" ] && ok || bad "temp files" "left: $(ls "$T/tmp")"
# json's fields past the spool's memory, without a $TMPDIR: held in memory
"$G" stats --by 1 -t i64,i32,f64 -f json -j 2 "$T/a.bin" > "$T/want"
TMPDIR=$T/none "$G" stats --by 1 -t i64,i32,f64 -f json -j 2 "$T/a.bin" \
	> "$T/got" 2>&1
same "json without a \$TMPDIR"

# the values, from exact integer arithmetic
"$G" sum --by 1 -F 2 -t i64,i32,f64 -j 4 "$T/a.bin" > "$T/sum.txt"
"$G" stats --by 1 -F 2 -t i64,i32,f64 -j 4 -f json "$T/a.bin" > "$T/stats.json"
"$G" sum --by 1 -F 2 -t i64,i32,f64 -j 4 -f npy "$T/a.bin" > "$T/sum.npy"
python3 - "$T" <<'PY' > "$T/ref.log" 2>&1 || bad "reference" "$(tail -3 "$T/ref.log")"
import json
import sys
import numpy as np
t = sys.argv[1]
a = np.fromfile(t + "/a.bin", dtype=[("k", "<i8"), ("v", "<i4"), ("w", "<f8")])
sums, cnt, sq, lo, hi = {}, {}, {}, {}, {}
for k, v in zip(a["k"].tolist(), a["v"].tolist()):
    sums[k] = sums.get(k, 0) + v
    cnt[k] = cnt.get(k, 0) + 1
    sq[k] = sq.get(k, 0) + v * v
    lo[k] = min(lo.get(k, v), v)
    hi[k] = max(hi.get(k, v), v)
keys = sorted(sums)
rows = [line.split("\t") for line in open(t + "/sum.txt").read().splitlines()]
assert [int(r[0]) for r in rows] == keys, "sum's keys"
assert [int(r[1]) for r in rows] == [sums[k] for k in keys], "sum's sums"
j = json.load(open(t + "/stats.json"))
assert [r[0] for r in j["keys"]] == keys, "json keys"
assert [r[0] for r in j["count"]] == [cnt[k] for k in keys], "json count"
assert [r[0] for r in j["sum"]] == [sums[k] for k in keys], "json sum"
assert [r[0] for r in j["min"]] == [lo[k] for k in keys], "json min"
assert [r[0] for r in j["max"]] == [hi[k] for k in keys], "json max"
assert [r[0] for r in j["mean"]] == [sums[k] / cnt[k] for k in keys], "json mean"
pv = [(sq[k] * cnt[k] - sums[k] ** 2) / cnt[k] ** 2 for k in keys]
got = [r[0] for r in j["pvar"]]
assert all(abs(g - p) <= 1e-12 * abs(p) for g, p in zip(got, pv)), "json pvar"
n = np.load(t + "/sum.npy")
assert n["f0"].tolist() == keys and n["f1"].tolist() == [sums[k] for k in keys], "npy"
print("ok", len(keys))
PY
grep -q '^ok 60000$' "$T/ref.log" && ok || bad "reference" "$(tail -3 "$T/ref.log")"

# json about csv's cost: its rows computed once (CPU seconds of 3 runs)
cpu() {
	/usr/bin/time -f '%U %S' -o "$T/time" "$@" > /dev/null 2>&1
	awk '{ print $1 + $2 }' "$T/time"
}
if [ -x /usr/bin/time ]; then
	a=0 b=0
	for i in 1 2 3; do
		a=$(echo "$a $(cpu "$G" stats --by 1 -t i64,i32,f64 -j 1 -f csv "$T/a.bin")" | awk '{ print $1 + $2 }')
		b=$(echo "$b $(cpu "$G" stats --by 1 -t i64,i32,f64 -j 1 -f json "$T/a.bin")" | awk '{ print $1 + $2 }')
	done
	[ "$(echo "$a $b" | awk '{ print ($2 < 2 * $1 + 0.1) }')" = 1 ] && ok ||
		bad "json's cost" "json $b s of CPU, csv $a s"
fi
summary
