#!/bin/sh
# test_group_quantile.sh - --by COLS (-g) on quantile, median and mode:
#  - tests/group_quantile_ref.py (numpy): each key's text rows are its key
#    cells then exactly the lines the ungrouped command prints on that
#    key's records alone; json against numpy per key (np.quantile's
#    methods, np.median, mode by counting); keys -0/+0, NaNs of other
#    payloads, infinities, integer extremes, keys of one record, two key
#    columns, a key in the middle of one type's records, f16; values with
#    NaN, infinities, -0, ties and integer extremes; the same bytes for
#    -j 1 to 4 (the sort on threads past 65536 records), small odd chunks
#    and stdin; csv's header, npy's fields against csv's numbers;
#  - text keys (strings, by their bytes) against the ungrouped command on
#    each key's values;
#  - --per-file's total: one run over the operands in a row;
#  - refusals, one line each: -f state (no state, as ungrouped), text keys
#    with npy; the memory limit naming the records and the MiB.
#
# Usage: sh tests/test_group_quantile.sh   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "group_quantile: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=group_quantile
. tests/lib.sh

if python3 -c 'import numpy' 2> /dev/null; then
	for part in ikey fkey onetype twokeys f16 many big; do
		reference tests/group_quantile_ref.py "$part" 20
	done
else
	echo "group_quantile: numpy not importable: the reference is skipped"
fi

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
	GPUSTAT_GROUP_LIMIT=1K "$G" $cmd --by 1 -t i32,f32 "$T/p12.bin" \
		> /dev/null 2> "$T/err"
	rc=$?
	[ "$rc" -eq 1 ] && [ "$(wc -l < "$T/err")" -eq 1 ] &&
		grep -q '^gpustat: --by: [0-9]* records .*MiB.*over the limit' \
			"$T/err" && ok ||
		bad "$cmd limit" "rc $rc: $(cat "$T/err")"
	"$G" $cmd --help | grep -q -- '--by' && ok || bad "$cmd --help" "no --by"
done

summary
