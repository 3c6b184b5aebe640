#!/bin/sh
# test_group_quantile.sh - --by COLS (-g) on quantile, median and mode:
#  - tests/group_quantile_ref.py (python alone; numpy too where present):
#    each key's text rows are its key cells then exactly the lines the
#    ungrouped command prints on that key's records alone; json against
#    numpy's answers per key (np.quantile's methods as tests/np_ref.py
#    computes them, mode by counting); keys -0/+0, NaNs of other
#    payloads, infinities, integer extremes, keys of one record, two key
#    columns, a key in the middle of one type's records, f16; values with
#    NaN, infinities, -0, ties and integer extremes, runs in order
#    (ascending, descending, an organ pipe, all equal) under 100
#    quantiles; one key and one value of 32 bits or less packed in a
#    word (i32 extremes, f16 NaNs); 101 quantiles' ranks crowded in one
#    bucket of the values' top bits; the same bytes for -j 1 to 4 (the
#    sort on threads past 65536 records), small odd chunks and stdin;
#    csv's header, npy's fields against csv's numbers;
#  - text keys (strings, by their bytes) against the ungrouped command on
#    each key's values;
#  - --per-file's total: one run over the operands in a row;
#  - past the memory limit (tiny GPUSTAT_GROUP_LIMIT values) sorted runs
#    spill to $TMPDIR and merge by key: the bytes of the unlimited run for
#    every format, -j, chunk size, two key columns and text keys;
#  - refusals, one line each: -f state (no state, as ungrouped), text keys
#    with npy; one key's values over the limit naming its records and the
#    MiB; a spill that fails naming $TMPDIR.
#
# Usage: sh tests/test_group_quantile.sh   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "group_quantile: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=group_quantile
. tests/lib.sh

for part in ikey fkey onetype twokeys f16 many big order packed packed16 \
	    crowd; do
	reference tests/group_quantile_ref.py "$part" 20
done

# a CSV of its header alone: no keys, no rows, exit 0 (the rows' sort by
# the keys' bytes was handed a NULL array: UBSan under make asan)
printf 'name,v\n' > "$T/h.csv"
for run in "median" "mode" "quantile -q 0.5"; do
	"$G" $run --header --by name -F v "$T/h.csv" > "$T/got" 2>&1
	rc=$?
	[ $rc -eq 0 ] && [ ! -s "$T/got" ] && ok ||
		bad "header alone, $run" "exit $rc: $(head -c 200 "$T/got")"
done

# text keys: per key (by its bytes) the ungrouped command on its values
printf 'name,v\nb,1\na,2\nab,3\n01,nan\n1,5\nb,1\na,7\nb,-0\nb,inf\n' \
	> "$T/t.csv"
for run in "median" "median --method lower" "quantile -q 0.1,0.5,1" \
	   "mode"; do
	"$G" $run --header --by name -F v "$T/t.csv" > "$T/got" 2> /dev/null ||
		{ bad "text $run" "failed"; continue; }
	: > "$T/want"
	for k in 01 1 a ab b; do
		awk -F, -v k="$k" 'NR > 1 && $1 "" == k "" { print $2 }' "$T/t.csv" \
			> "$T/vals"
		"$G" $run --text "$T/vals" 2> /dev/null |
			sed "s/^/$k	/" >> "$T/want"
	done
	cmp -s "$T/got" "$T/want" && ok ||
		bad "text $run" "$(diff "$T/want" "$T/got" | head -5)"
done

# --per-file: each operand's rows, then the total's as one run over both
printf 'a,1\nb,2\na,3\n' > "$T/p1.csv"
printf 'a,4\nc,2\nb,nan\n' > "$T/p2.csv"
python3 -c '
import struct, sys
for name, recs in (("p1", [(1, 1.0), (2, 2.0), (1, 3.0)]),
                   ("p2", [(1, 4.0), (3, 2.0), (2, float("nan"))])):
    with open(sys.argv[1] + "/" + name + ".bin", "wb") as f:
        for k, v in recs:
            f.write(struct.pack("<if", k, v))
' "$T"
cat "$T/p1.bin" "$T/p2.bin" > "$T/p12.bin"
for cmd in median mode "quantile -q 0.25,0.75"; do
	"$G" $cmd --by 1 -t i32,f32 --per-file "$T/p1.bin" "$T/p2.bin" \
		> "$T/got" 2> /dev/null || { bad "per-file $cmd" "failed"; continue; }
	{
		"$G" $cmd --by 1 -t i32,f32 "$T/p1.bin" | sed 's/$/	'"$(echo "$T/p1.bin" | sed 's/[\/&]/\\&/g')"'/'
		"$G" $cmd --by 1 -t i32,f32 "$T/p2.bin" | sed 's/$/	'"$(echo "$T/p2.bin" | sed 's/[\/&]/\\&/g')"'/'
		"$G" $cmd --by 1 -t i32,f32 "$T/p12.bin" | sed 's/$/	total/'
	} > "$T/want" 2> /dev/null
	cmp -s "$T/got" "$T/want" && ok ||
		bad "per-file $cmd" "$(diff "$T/want" "$T/got" | head -5)"
done

# past the memory limit (GPUSTAT_GROUP_LIMIT): each thread's records spill
# to $TMPDIR as sorted runs, merged by key at the end: the bytes of the run
# that never spilled, for every format, -j and chunk size, text keys too;
# no temp file left. One key's values must fit (16 bytes a value): one key
# of 100 records at 1K is one line naming them; a $TMPDIR that is not there
# names it.
mkdir "$T/q" "$T/tmp"
python3 - "$T" <<'PY'
import random, struct, sys
t = sys.argv[1]
r = random.Random(31)
vals = lambda: r.choice([r.uniform(-50, 50), float("nan"), -0.0, 0.0, 1.0,
                         float("inf"), float(r.randint(-3, 3))])
with open(t + "/q/many.bin", "wb") as f:	# 300 keys, about 100 each
    for _ in range(30000):
        f.write(struct.pack("<if", r.randrange(-150, 150), vals()))
with open(t + "/q/two.bin", "wb") as f:		# two key columns, 3 values
    for _ in range(12000):
        f.write(struct.pack("<hdfbi", r.randrange(6), r.choice([-0.0, 0.0,
                float("nan"), 1.5, -2.0]), vals(), r.randrange(-3, 3),
                r.randrange(-10**9, 10**9)))
with open(t + "/q/few.bin", "wb") as f:		# 8 keys of 50
    for _ in range(400):
        f.write(struct.pack("<if", r.randrange(8), vals()))
with open(t + "/q/t.csv", "w") as f:		# text keys
    f.write("name,v\n")
    for _ in range(8000):
        f.write("k%d,%d\n" % (r.randrange(150), r.randint(-99, 99)))
with open(t + "/one.bin", "wb") as f:		# one key of 100 records
    for i in range(100):
        f.write(struct.pack("<if", 7, float(i)))
PY
head -c 160000 "$T/q/many.bin" > "$T/q/m1.bin"
tail -c +160001 "$T/q/many.bin" > "$T/q/m2.bin"
# qspilled NAME LIMIT ARGS...: ARGS past LIMIT on threads and chunks print
# $T/want's bytes
qspilled() {
	name=$1
	lim=$2
	shift 2
	for o in "-j 1" "-j 2 --chunk-size 1000" "-j 4 --chunk-size 4K" \
		 "-j 3 --chunk-size 24"; do
		TMPDIR=$T/tmp GPUSTAT_GROUP_LIMIT=$lim "$G" "$@" $o > "$T/got" \
			2> /dev/null
		[ -s "$T/want" ] && cmp -s "$T/got" "$T/want" && ok ||
			bad "$name, limit $lim $o" "$(cmp "$T/got" "$T/want" 2>&1)"
	done
}
for cmd in median mode "quantile -q 0,0.1,0.5,1" \
	   "quantile --method lower -q 0.3,0.7"; do
	for f in text csv json npy binary; do
		"$G" $cmd --by 1 -t i32,f32 -f $f "$T/q/many.bin" > "$T/want" \
			2> /dev/null
		qspilled "many $cmd -f $f" 64K $cmd --by 1 -t i32,f32 -f $f \
			"$T/q/many.bin"
	done
	"$G" $cmd --by 1,4 -t i16,f64,f32,i8,i32 -F 2,3,5 "$T/q/two.bin" \
		> "$T/want" 2> /dev/null
	qspilled "two keys $cmd" 64K $cmd --by 1,4 -t i16,f64,f32,i8,i32 \
		-F 2,3,5 "$T/q/two.bin"
	"$G" $cmd --by 1 -t i32,f32 "$T/q/few.bin" > "$T/want" 2> /dev/null
	qspilled "few $cmd" 2K $cmd --by 1 -t i32,f32 "$T/q/few.bin"
	"$G" $cmd --header --by name "$T/q/t.csv" > "$T/want" 2> /dev/null
	qspilled "text keys $cmd" 64K $cmd --header --by name "$T/q/t.csv"
	# --per-file: an operand's records, spilled or not, go on to the total
	"$G" $cmd --by 1 -t i32,f32 --per-file "$T/q/m1.bin" "$T/q/few.bin" \
		"$T/q/m2.bin" > "$T/want" 2> /dev/null
	qspilled "per-file $cmd" 64K $cmd --by 1 -t i32,f32 --per-file \
		"$T/q/m1.bin" "$T/q/few.bin" "$T/q/m2.bin"
done
[ -z "$(ls -A "$T/tmp")" ] && ok || bad "temp files" "left: $(ls "$T/tmp")"

# refusals and the limit: one line each
for cmd in median mode "quantile -q 0.5"; do
	"$G" $cmd --by 1 -t i32,f32 -f state "$T/p1.bin" > /dev/null \
		2> "$T/err"
	rc=$?
	[ "$rc" -eq 2 ] && [ "$(wc -l < "$T/err")" -eq 1 ] &&
		grep -q 'no -f state' "$T/err" && ok ||
		bad "$cmd -f state" "rc $rc: $(cat "$T/err")"
	"$G" $cmd --header --by name -f npy "$T/t.csv" > /dev/null 2> "$T/err"
	rc=$?
	[ "$rc" -eq 2 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && ok ||
		bad "$cmd text keys npy" "rc $rc: $(cat "$T/err")"
	GPUSTAT_GROUP_LIMIT=1K "$G" $cmd --by 1 -t i32,f32 "$T/one.bin" \
		> "$T/out" 2> "$T/err"
	rc=$?
	[ "$rc" -eq 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" -eq 1 ] &&
		grep -q "^gpustat: --by: one key's 100 records need [0-9.]* MiB to sort its values, over the limit of [0-9.]* MiB\$" \
			"$T/err" && ok ||
		bad "$cmd one key over the limit" "rc $rc: $(cat "$T/err")"
	TMPDIR=$T/none GPUSTAT_GROUP_LIMIT=64K "$G" $cmd --by 1 -t i32,f32 \
		"$T/q/many.bin" > "$T/out" 2> "$T/err"
	rc=$?
	[ "$rc" -eq 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" -eq 1 ] &&
		grep -q "^gpustat: --by: [0-9]* records .* MiB, over half the limit of [0-9.]* MiB, and spilling them to $T/none failed: No such file" \
			"$T/err" && ok ||
		bad "$cmd no \$TMPDIR" "rc $rc: $(cat "$T/err")"
	"$G" $cmd --help | grep -q -- '--by' && ok || bad "$cmd --help" "no --by"
done

# past 64 MiB of records (9e6, packed): the threads' sort (three passes
# over keys that span 32 bits, its pages made on the threads) and the big
# arrays' pages let go on the threads before their free: the bytes of
# -j 1's sort on one thread
python3 - "$T/big.bin" <<'PY'
import array, sys
n = 9000000
# 2,000 keys over the i32 range, in pairs next to each other
keys = array.array("I", [(i * 7919 % 1000) * 4294967 + i // 1000
                         for i in range(2000)]) * (n // 2000)
# values from a pool of 9,973 float bits: NaN, -0, infinities, a subnormal
special = [0x7fc00000, 0x80000000, 0x7f800000, 0xff800000, 0x00000001]
pool = array.array("I", [special[i // 50 % 5] if i % 50 == 0 else
                         (i * 2654435761 & 0x7f7fffff) | (i % 3 == 0) << 31
                         for i in range(9973)])
vals = (pool * (n // 9973 + 1))[:n]
a = array.array("I", bytes(8 * n))
a[0::2] = keys
a[1::2] = vals
with open(sys.argv[1], "wb") as f:
    a.tofile(f)
PY
for cmd in median "quantile -q 0,0.1,0.5,0.9,1" mode; do
	"$G" $cmd --by 1 -t i32,f32 -j 1 "$T/big.bin" > "$T/want" 2> /dev/null
	"$G" $cmd --by 1 -t i32,f32 -j 4 "$T/big.bin" > "$T/got" 2> /dev/null
	[ -s "$T/want" ] && cmp -s "$T/got" "$T/want" && ok ||
		bad "9e6 records $cmd -j 4" "$(cmp "$T/got" "$T/want" 2>&1)"
done
rm -f "$T/big.bin"

summary
