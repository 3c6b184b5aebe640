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
#  - 250,000 keys, more than one take of the keys' order (group_out.c):
#    sum and stats, text and json, at -j 2 and -j 3 print -j 1's bytes;
#  - text keys (20,000 strings) the same;
#  - the values against python: sum's text rows, stats' json (its fields
#    longer than the spool keeps in memory: they go through a temp file)
#    and sum's npy, from exact integer arithmetic;
#  - no keys and one key: every format's bytes at -j 1 and -j 4, json's
#    empty lists; json without a $TMPDIR for its spool;
#
# Usage: sh tests/test_group_rows.sh   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "group_rows: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=group_rows
. tests/lib.sh

mkdir "$T/tmp"
export TMPDIR="$T/tmp"
python3 - "$T" <<'PY' || bad "generate" "python failed"
import sys
import random
import struct
t = sys.argv[1]
rng = random.Random(31)
n = 150000
keys = [k * 7919 - 400000000 for k in range(60000)]
rng.shuffle(keys)
ks = keys + [rng.choice(keys) for _ in range(n - len(keys))]
rec = struct.Struct("<qid")
with open(t + "/a.bin", "wb") as f:
    for i, k in enumerate(ks):
        w = float("nan") if i % 37 == 0 else rng.gauss(0, 1) * 1e3
        b = rec.pack(k, rng.randint(-2**31, 2**31 - 2), w)
        if i == 0:
            open(t + "/one.bin", "wb").write(b)
        f.write(b)
open(t + "/none.bin", "wb").close()
# more keys than a take of the keys' order at -j 2 and -j 3 (about 32768
# rows a thread, whole blocks): the rows come from several takes
with open(t + "/many.bin", "wb") as f:
    for k in rng.sample(range(-10**9, 10**9), 250000):
        f.write(rec.pack(k, k % 1000, rng.gauss(0, 1)))
with open(t + "/t.csv", "w") as f:
    f.write("station,temp\n")
    for i in range(60000):
        f.write("st%d,%d\n" % (rng.randrange(20000), rng.randrange(-999, 999)))
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

for f in text json; do
	for cmd in sum stats; do
		"$G" $cmd --by 1 -t i64,i32,f64 -f $f -j 1 "$T/many.bin" > "$T/want" 2>&1
		for j in 2 3; do
			"$G" $cmd --by 1 -t i64,i32,f64 -f $f -j $j "$T/many.bin" > "$T/got" 2>&1
			same "$cmd -f $f, 250,000 keys, -j $j"
		done
	done
done

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
import ast
import json
import struct
import sys
t = sys.argv[1]
data = open(t + "/a.bin", "rb").read()
sums, cnt, sq, lo, hi = {}, {}, {}, {}, {}
for k, v, _ in struct.iter_unpack("<qid", data):
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
# the npy: its header's structured dtype, then the records
raw = open(t + "/sum.npy", "rb").read()
assert raw[:6] == b"\x93NUMPY", "npy magic"
hl = struct.unpack("<H", raw[8:10])[0] if raw[6] == 1 else struct.unpack("<I", raw[8:12])[0]
at = 10 if raw[6] == 1 else 12
head = ast.literal_eval(raw[at:at + hl].decode("latin1"))
code = {"<i8": "q", "<u8": "Q", "<i4": "i", "<f8": "d", "<f4": "f"}
fmt = "<" + "".join(code[d[1]] for d in head["descr"])
recs = list(struct.iter_unpack(fmt, raw[at + hl:]))
assert [r[0] for r in recs] == keys and [r[1] for r in recs] == [sums[k] for k in keys], "npy"
print("ok", len(keys))
PY
grep -q '^ok 60000$' "$T/ref.log" && ok || bad "reference" "$(tail -3 "$T/ref.log")"

# float sums with NaN, infinities, -0, subnormals and terms far apart (a
# sum rounded straight from its compact form, or through the wide one):
# each key's sum is the exact sum rounded once (math.fsum)
python3 - "$T" <<'PY' || bad "specials" "python failed"
import random
import struct
import sys
rng = random.Random(7)
sp = [float("nan"), float("inf"), float("-inf"), -0.0, 0.0, 5e-324, 1e300,
      -1e300, 1e-300, 2.0 ** 60, 3.0]
with open(sys.argv[1] + "/sp.bin", "wb") as f:
    for i in range(40000):
        k = rng.randrange(3000)
        v = rng.choice(sp) if rng.random() < 0.01 else \
            rng.gauss(0, 1) * 10.0 ** rng.randrange(-5, 5)
        f.write(struct.pack("<qd", k, v))
    for i in range(20):
        f.write(struct.pack("<qd", 5000, -0.0))
PY
for o in "-j 1" "-j 3" "-j 2 --chunk-size 4K"; do
	"$G" sum --by 1 -t i64,f64 $o "$T/sp.bin" > "$T/sp.txt" 2>&1
	python3 - "$T" <<'PY' > "$T/sp.log" 2>&1 && ok || bad "specials $o" "$(tail -2 "$T/sp.log")"
import math
import struct
import sys
t = sys.argv[1]
terms = {}
for k, v in struct.iter_unpack("<qd", open(t + "/sp.bin", "rb").read()):
    terms.setdefault(k, []).append(v)
def want(vs):
    if any(math.isnan(v) for v in vs) or (float("inf") in vs and float("-inf") in vs):
        return float("nan")
    if float("inf") in vs or float("-inf") in vs:
        return float("inf") if float("inf") in vs else float("-inf")
    if all(v == 0 and math.copysign(1, v) < 0 for v in vs):
        return -0.0
    return math.fsum(vs) + 0.0
rows = [l.split("\t") for l in open(t + "/sp.txt").read().splitlines()]
assert [int(r[0]) for r in rows] == sorted(terms), "keys"
for r in rows:
    g, w = float(r[1]), want(terms[int(r[0])])
    same = (math.isnan(g) and math.isnan(w)) or \
        (g == w and math.copysign(1, g) == math.copysign(1, w))
    assert same, "key %s: %s, want %r" % (r[0], r[1], w)
PY
done

summary
