#!/bin/sh
# test_group_textstate.sh - -f state and merge of --by runs over text, whose
# keys are strings (docs/STATE.md, "group", key form 1): the CSV of
# tests/group_text_ref.py (keys "1" "01" "1.0" "-0" "nan" "NaN", UTF-8,
# keys one byte apart; sums that cancel) cut into shards in several ways
# (runs of lines, every third line, one shard of one line), each shard's
# state merged in several orders and groupings, must print the bytes of one
# run over the whole file:
#  - sum, count, stats, reduce --op min|max; one key column and two; -F;
#    --header names in every shard; text and state (csv, json too for one
#    way);
#  - merge -f state of the shards is one run's -f state, byte for byte
#    (keys in the order of their bytes whatever order a shard met them);
#  - the states of runs that spilled to $TMPDIR (a tiny limit) the same;
#  - merge --per-file, and the run's own --per-file (-f state too): each
#    shard as its own run prints it, then the total;
#  - a state of string keys does not merge with one of number keys, nor one
#    grouped by other columns: one line, exit 1; a state whose keys are out
#    of order, or cut short, is refused.
#
# Usage: sh tests/test_group_textstate.sh   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "group_textstate: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=group_textstate
. tests/lib.sh

if ! command -v python3 > /dev/null; then
	bad "python3" "needed to make the data"
	summary
	exit
fi
python3 tests/group_text_ref.py gen "$T" || bad "generate" "group_text_ref.py failed"
mkdir "$T/tmp"
export TMPDIR="$T/tmp"

# shard WAY: $T/s.WAY.* from n.csv (no header), h.WAY.* with its header
shard() {
	case $1 in
	runs) split -l 40000 "$T/n.csv" "$T/s.runs." ;;
	third) awk -v p="$T/s.third." '{ print > (p NR % 3) }' "$T/n.csv" ;;
	one) head -n 1 "$T/n.csv" > "$T/s.one.a"
	     tail -n +2 "$T/n.csv" > "$T/s.one.b" ;;
	esac
	for f in "$T"/s."$1".*; do
		{ head -n 1 "$T/h.csv"; cat "$f"; } > "$T/h.${f#"$T"/s.}"
	done
}
for way in runs third one; do
	shard $way
done

# same NAME A B: files A and B hold the same bytes (A never empty)
same() {
	[ -s "$2" ] || { bad "$1" "no output: $(head -c 200 "$T/err")"; return; }
	cmp -s "$2" "$3" && ok ||
		bad "$1" "got '$(head -c 200 "$2")', want '$(head -c 200 "$3")'"
}

# states NAME PREFIX ARGS...: each shard PREFIX* as a state, into $T/st.N
# (in the order of the shards' names); 1 when one failed
states() {
	name=$1 prefix=$2
	shift 2
	i=0
	rm -f "$T"/st.*
	for f in "$prefix"*; do
		i=$((i + 1))
		"$G" "$@" -f state "$f" > "$T/st.$i" 2> "$T/err" ||
			{ bad "$name: state of $f" "$(cat "$T/err")"; return 1; }
	done
}

# merges NAME FMT: the states $T/st.* merged in order, in reverse, as a
# tree (pairs merged into states first) and from one stream on stdin,
# each printing $T/want (-f FMT)
merges() {
	name=$1 fmt=$2
	set -- "$T"/st.*
	"$G" merge -f "$fmt" "$@" > "$T/got" 2> "$T/err"
	same "$name: merge" "$T/got" "$T/want"
	rev=
	for s in "$@"; do rev="$s $rev"; done
	# shellcheck disable=SC2086
	"$G" merge -f "$fmt" $rev > "$T/got" 2> "$T/err"
	same "$name: merge reversed" "$T/got" "$T/want"
	rm -f "$T"/pair.*
	while [ $# -gt 0 ]; do
		if [ $# -ge 2 ]; then
			"$G" merge -f state "$2" "$1" > "$T/pair.$#" 2> "$T/err"
			shift 2
		else
			cp "$1" "$T/pair.$#"
			shift
		fi
	done
	"$G" merge -f "$fmt" "$T"/pair.* > "$T/got" 2> "$T/err"
	same "$name: merge of merges" "$T/got" "$T/want"
	cat "$T"/st.* | "$G" merge -f "$fmt" > "$T/got" 2> "$T/err"
	same "$name: merge from stdin" "$T/got" "$T/want"
}

# check NAME FILE PREFIX ARGS...: ARGS over FILE (one run) against the
# shards PREFIX*'s states merged, as text, csv, json and as a state
check() {
	name=$1 file=$2 prefix=$3
	shift 3
	states "$name" "$prefix" "$@" || return
	fmts="text state"
	[ "$prefix" != "$T/s.runs." ] || fmts="text csv json state"
	for fmt in $fmts; do
		"$G" "$@" -f $fmt "$file" > "$T/want" 2> "$T/err" ||
			{ bad "$name -f $fmt" "one run: $(cat "$T/err")"; continue; }
		merges "$name -f $fmt" $fmt
	done
}

for way in runs third one; do
	for cmd in sum count stats "reduce --op min" "reduce --op max"; do
		# shellcheck disable=SC2086
		check "$way $cmd" "$T/n.csv" "$T/s.$way." $cmd --text --by 1 -F 2,3
	done
	check "$way stats, 2 keys" "$T/n.csv" "$T/s.$way." \
		stats --text --by 1,4 -F 2,3
	check "$way sum, header" "$T/h.csv" "$T/h.$way." \
		sum --header --by site,station -F rain
done

# spilled: a tiny limit writes the bytes of the run that did not spill,
# and its states merge as those do
"$G" stats --text --by 1,4 -f state "$T/n.csv" > "$T/want"
GPUSTAT_GROUP_LIMIT=1K "$G" stats --text --by 1,4 -f state "$T/n.csv" \
	> "$T/got" 2> "$T/err"
same "spilled state" "$T/got" "$T/want"
states spilled "$T/s.third." stats --text --by 1,4 -F 2,3 &&
	for s in "$T"/st.*; do cp "$s" "$T/kept.${s##*.}"; done
export GPUSTAT_GROUP_LIMIT=1K
states spilled "$T/s.third." stats --text --by 1,4 -F 2,3
unset GPUSTAT_GROUP_LIMIT
for s in "$T"/st.*; do
	same "spilled shard ${s##*/}" "$s" "$T/kept.${s##*.}"
done
"$G" stats --text --by 1,4 -F 2,3 "$T/n.csv" > "$T/want"
merges "spilled shards" text
ls "$T/tmp" | grep -q . && bad "temp files" "$(ls "$T/tmp")" || ok

# merge --per-file: each shard's result as its own run prints it, the total
states per_file "$T/s.runs." sum --text --by 1 -F 2
: > "$T/want"
for f in "$T"/s.runs.*; do
	"$G" sum --text --by 1 -F 2 "$f" | sed "s|\$|	$f|" >> "$T/want"
done
"$G" sum --text --by 1 -F 2 "$T/n.csv" | sed 's|$|	total|' >> "$T/want"
i=0
set --
for f in "$T"/s.runs.*; do
	i=$((i + 1))
	ln -s "$T/st.$i" "$f.st" 2> /dev/null || cp "$T/st.$i" "$f.st"
	set -- "$@" "$f.st"
done
"$G" merge --per-file "$@" | sed 's|\.st$||' > "$T/got" 2> "$T/err"
same "merge --per-file" "$T/got" "$T/want"
# the run's own --per-file: the same lines; with -f state each shard's
# state (its own keys only: read alone, as the shard's own run)
"$G" sum --text --by 1 -F 2 --per-file "$T"/s.runs.?? > "$T/got" 2> "$T/err"
same "--per-file" "$T/got" "$T/want"
cat "$T"/st.* > "$T/want"
"$G" sum --text --by 1 -F 2 --per-file -f state "$T"/s.runs.?? > "$T/got" \
	2> "$T/err"
same "--per-file -f state" "$T/got" "$T/want"

# fails NAME WHY ARGS...: exit 1, one line on stderr holding WHY, no output
fails() {
	name=$1 why=$2
	shift 2
	"$G" "$@" > "$T/out" 2> "$T/err"
	rc=$?
	[ $rc -eq 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" -eq 1 ] &&
		grep -q -- "$why" "$T/err" && ok ||
		bad "$name" "rc $rc: $(cat "$T/err")"
}
printf '1,2\n3,4\n' > "$T/num.csv"
"$G" sum --text --by 1 -f state "$T/num.csv" > "$T/text.st"
"$G" sum -t f64 -c 2 --by 1 -f state "$T/num.csv" > /dev/null 2>&1
python3 -c 'import struct, sys; sys.stdout.buffer.write(struct.pack("<4d", 1, 2, 3, 4))' \
	> "$T/num.f64"
"$G" sum -t f64 -c 2 --by 1 -f state "$T/num.f64" > "$T/num.st"
fails "strings and numbers" "cannot merge with .*: its keys are numbers, these strings" \
	merge "$T/num.st" "$T/text.st"
"$G" sum --text --by 2 -f state "$T/num.csv" > "$T/by2.st"
fails "other key column" "grouped by other key or value columns" \
	merge "$T/text.st" "$T/by2.st"
# keys "1" and "3" swapped in place: out of order
python3 - "$T/text.st" "$T/swapped.st" <<'EOF'
import sys
b = open(sys.argv[1], 'rb').read()
head, pay = b.split(b'\n\n', 1)
one = b'\x01' + b'\x00' * 7
i, j = pay.index(one + b'1') + 8, pay.index(one + b'3') + 8
pay = pay[:i] + b'3' + pay[i + 1:j] + b'1' + pay[j + 1:]
open(sys.argv[2], 'wb').write(head + b'\n\n' + pay)
EOF
fails "keys out of order" "state payload: not what a group state holds" \
	merge "$T/swapped.st"
head -c -9 "$T/text.st" > "$T/cut.st"
fails "cut short" "truncated state" merge "$T/cut.st"

summary
