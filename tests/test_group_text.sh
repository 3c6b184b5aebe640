#!/bin/sh
# test_group_text.sh - --by on text and CSV input: every key field is a
# string, grouped by its bytes, keys ascending by bytes (as `sort` in the
# C locale), names from --header (tests/group_text_ref.py makes the CSV
# and checks the results against exact fractions per key):
#  - "1", "01", "1.0", "+1", "-0", "0", "nan", "NaN", "inf" nine keys, UTF-8
#    keys, keys one byte apart; two key columns ("10" before "9");
#  - sum, stats (count nan min max sum), count per key exact, with sums
#    that cancel (1e308 - 1e308); fields -F does not pick may be strings;
#  - the same bytes by name and number, with and without --header, with
#    -j 1, 2, 4, small and odd chunk sizes, from stdin and a pipe;
#  - json's keys are strings; csv's header;
#  - against datamash -s -g, where it is installed;
#  - words found in a key without --text: text all the same;
#  - one-line errors: a header line without --header, a missing file
#    (not what --by would say of its columns), npy (not done yet; -f
#    state, merge, --per-file: test_group_textstate.sh), a key as
#    a value too, more keys than -t u8 numbers, a line of other fields.
#
# Usage: sh tests/test_group_text.sh   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "group_text: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=group_text
. tests/lib.sh

if ! command -v python3 > /dev/null; then
	bad "python3" "needed to make the data"
	summary
	exit
fi
python3 tests/group_text_ref.py gen "$T" || bad "generate" "group_text_ref.py failed"
cut -d , -f 1-3 "$T/n.csv" > "$T/n3.csv"

# check NAME WHAT KEYS VALS GPUSTAT-ARGS...: the run's rows against the
# reference (0-based key and value fields of n.csv)
check() {
	name=$1 what=$2 keys=$3 vals=$4
	shift 4
	"$G" "$@" > "$T/$name.out" 2> "$T/err" ||
		{ bad "$name" "rc $?: $(cat "$T/err")"; return; }
	python3 tests/group_text_ref.py check "$T" "$what" "$keys" "$vals" \
		< "$T/$name.out" > "$T/why" && ok ||
		bad "$name" "$(head -n 3 "$T/why")"
}
check sum_names sum 0 1,2 sum --header --by station -F temp,rain "$T/h.csv"
check stats stats 0 1,2 stats --header -g station -F temp,rain "$T/h.csv"
check count_2keys count 0,3 1,2 count --text --by 1,4 -F 2,3 "$T/n.csv"
check sum_site sum 3 1 sum --header --by site -F temp "$T/h.csv"
check stats_nohdr stats 0 1,2 stats --text --by 1 "$T/n3.csv"

# same NAME REF GPUSTAT-ARGS...: the bytes of REF's run
same() {
	name=$1 ref=$2
	shift 2
	"$G" "$@" > "$T/same.out" 2> "$T/err" &&
		cmp -s "$T/same.out" "$T/$ref.out" && ok ||
		bad "$name" "differs from $ref: $(head -c 300 "$T/err")"
}
same numbers sum_names sum --header --by 1 -F 2,3 "$T/h.csv"
same mixed sum_names sum --header --by 1 -F temp,3 "$T/h.csv"
same no_header sum_names sum --text --by 1 -F 2,3 "$T/n.csv"
same no_fields sum_names sum --text --by 1 "$T/n3.csv"
# words in the keys: text found, not refused as not numbers (--by only)
same found sum_names sum --by 1 -F 2,3 "$T/n.csv"
same found_pipe sum_names sum --by 1 - < "$T/n3.csv"
for j in 1 2 4; do
	for cs in 4K 1000 64M; do
		same "j${j}_cs$cs" stats stats --header --by station \
			-F temp,rain -j "$j" --chunk-size "$cs" "$T/h.csv"
	done
done
same stdin stats stats --header --by station -F temp,rain - < "$T/h.csv"
cat "$T/h.csv" | "$G" stats --header --by station -F temp,rain -j 4 \
	> "$T/pipe.out" 2> "$T/err" && cmp -s "$T/pipe.out" "$T/stats.out" &&
	ok || bad pipe "differs: $(cat "$T/err")"

# json: the keys are strings, in the text run's order; csv: key first
"$G" count --header --by station -F temp -f json "$T/h.csv" > "$T/j" &&
	cut -f 1 "$T/sum_names.out" > "$T/keys" &&
	python3 -c '
import json, sys
keys = [k[0] for k in json.load(open(sys.argv[1]))["keys"]]
want = open(sys.argv[2], encoding="utf-8").read().split("\n")[:-1]
sys.exit(keys != want)' "$T/j" "$T/keys" && ok || bad json "keys differ"
"$G" sum --header --by station -F temp -f csv "$T/h.csv" > "$T/c" &&
	[ "$(head -n 1 "$T/c")" = "key,sum" ] &&
	[ "$(sed -n 2p "$T/c" | cut -d , -f 1)" = "$(head -n 1 "$T/keys")" ] &&
	ok || bad csv "$(head -n 2 "$T/c")"

# datamash's groups and counts (its sums are not exact: not compared)
if command -v datamash > /dev/null; then
	tr -d ' \t' < "$T/n3.csv" | LC_ALL=C datamash -t , -s -g 1 count 2 |
		tr , '\t' > "$T/dm"
	"$G" count --text --by 1 -F 2 "$T/n3.csv" | cut -f 1,2 > "$T/gc"
	cmp -s "$T/dm" "$T/gc" && ok || bad datamash "groups differ"
fi

# errors: one line each
fails() {
	name=$1 want_rc=$2 why=$3
	shift 3
	"$G" "$@" > "$T/out" 2> "$T/err"
	rc=$?
	[ $rc -eq "$want_rc" ] && [ ! -s "$T/out" ] &&
		[ "$(wc -l < "$T/err")" -eq 1 ] && grep -q -- "$why" "$T/err" &&
		ok || bad "$name" "rc $rc: $(cat "$T/err")"
}
fails npy 2 "--by: text keys are strings: -f npy" \
	sum --header --by station -F temp -f npy "$T/h.csv"
fails key_value 2 "--by: a text key is a string: -F cannot make it a value" \
	sum --header --by station -F temp,station "$T/h.csv"
python3 -c 'for i in range(300): print("k%d,%d" % (i, i))' > "$T/many.csv"
fails u8_keys 1 "more than 256 distinct keys for -t u8 (key 'k256' in line 257 field 1" \
	sum --text -t u8 --by 1 "$T/many.csv"
"$G" sum --text -t u16 --by 1 "$T/many.csv" | cut -f 2 | sort -n |
	awk '$1 != NR - 1 { exit 1 } END { exit NR != 300 }' && ok ||
	bad u16_keys "300 keys of 300 values"
printf 'k,1\nk,2,3\n' > "$T/short.csv"
printf 'k,v\n1,2\n' > "$T/hdr.csv"
fails header 1 "looks like text with a header line 'k,v': use --header" \
	sum --by 1 "$T/hdr.csv"
fails missing 1 "$T/none: No such file" sum --by 2 "$T/none"
fails fields 1 "line 2 has 3 fields, not 2" sum --text --by 1 "$T/short.csv"

# empty fields: an empty key is the key "" (first, as bytes sort), an
# empty cell of a field -F does not read is nothing, an empty number is
# still an error; the same bytes through a state and merge
printf 'k,v,note\na,1,\n,5,x\nb,2,\n,3,\n, 4 ,"y"\n' > "$T/empty.csv"
printf '\t12\na\t1\nb\t2\n' > "$T/empty.want"
"$G" sum --header --by k -F v "$T/empty.csv" > "$T/empty.out" 2> "$T/err" &&
	cmp -s "$T/empty.out" "$T/empty.want" && ok ||
	bad empty_key "$(cat "$T/err" "$T/empty.out")"
"$G" sum --header --by k -F v -j 2 --chunk-size 8 -f state "$T/empty.csv" |
	"$G" merge > "$T/empty.out" 2> "$T/err" &&
	cmp -s "$T/empty.out" "$T/empty.want" && ok ||
	bad empty_key_state "$(cat "$T/err" "$T/empty.out")"
printf 'key,sum\n"",12\na,1\nb,2\n' > "$T/empty.want"
"$G" sum --header --by k -F v -f csv "$T/empty.csv" > "$T/empty.out" &&
	cmp -s "$T/empty.out" "$T/empty.want" && ok || bad empty_key_csv "$(cat "$T/empty.out")"
[ "$("$G" sum --header -F v "$T/empty.csv")" = 15 ] && ok ||
	bad empty_unread "sum -F v of a CSV with empty notes"
# the first line's width counts its empty fields (no -c, no --header)
[ "$(printf '1,,3\n4,,6\n' | "$G" sum --text -F 1,3)" = "$(printf '5\t9')" ] &&
	ok || bad empty_width "-F 1,3 over 1,,3"
[ "$(printf ',5\na,7\n' | "$G" sum --text --by 1)" = "$(printf '\t5\na\t7')" ] &&
	ok || bad empty_width_key "--by 1 over ,5"
printf 'k,v\na,1\nb,\n' > "$T/emptyv.csv"
fails empty_value 1 "empty field in line 3 field 2" sum --header --by k "$T/emptyv.csv"

summary
