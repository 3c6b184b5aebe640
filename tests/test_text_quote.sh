#!/bin/sh
# test_text_quote.sh - RFC 4180 quoting in text input (docs/INPUT.md): a
# field that begins with a double quote runs to the quote that closes it
# ("" is a quote within it), may hold commas and white space, and is read
# as its unquoted bytes:
#  - issue 31's example: "a,b" one key, "c" the key c;
#  - tests/text_quote_ref.py's CSV (keys with commas, blanks, tabs, quotes,
#    UTF-8, the empty string; numbers quoted now and then; long quoted
#    notes with commas, so that the parser's pieces end inside them; CRLF)
#    prints what the same records unquoted print (keys as tokens of the
#    same byte order, mapped back): --by, -F, --header names in quotes,
#    -j 1, 2, 4; its sums against Python's csv module and exact fractions;
#  - quoted numbers without --text are numbers ("1.5" is 1.5), and count
#    as one field of the first line (-F, --by without -c);
#  - csv output quotes a key that needs it, and reads back as it was;
#  - -f state of quoted keys merges into one run's bytes;
#  - one-line errors naming the line: an unterminated quote, a newline
#    inside quotes, text after a closing quote, "" as a number.
#
# Usage: sh tests/test_text_quote.sh   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "text_quote: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=text_quote
. tests/lib.sh

# is NAME WANT ARGS...: gpustat ARGS prints WANT (stdin: $T/in)
is() {
	name=$1 want=$2
	shift 2
	got=$("$G" "$@" < "$T/in" 2> "$T/err")
	[ "$got" = "$want" ] && ok ||
		bad "$name" "got '$got', want '$want': $(head -c 200 "$T/err")"
}
tab=$(printf '\t')

printf 'k,v\n"a,b",1\n"c",2\n' > "$T/in"
is example "a,b${tab}1
c${tab}2" sum --header --by k
printf '"1.5","2"\n3,"4e1"\n' > "$T/in"
is numbers "4.5${tab}42" sum -c 2
is found "46.5" sum
is text "4.5${tab}42" sum --text -c 2
printf '"a, ""b""",1\n"a, ""b""",2\nc,3\n' > "$T/in"
is first_line "a, \"b\"${tab}3
c${tab}3" sum --by 1
is first_line_f "6" sum -F 2
printf '"k ey","v"\n"",1\n"x\ty",2\n"",3\n' > "$T/in"
is header_names "key,sum
\"\",4
\"x${tab}y\",2" sum --header --by "k ey" -F v -f csv
"$G" sum --header --by "k ey" -F v -f csv < "$T/in" > "$T/c.csv"
"$G" sum --header --by key -F sum -f csv "$T/c.csv" > "$T/c2.csv" 2> "$T/err"
cmp -s "$T/c.csv" "$T/c2.csv" && ok ||
	bad "csv read back" "$(cat "$T/c2.csv" "$T/err")"

if ! command -v python3 > /dev/null; then
	bad "python3" "needed to make the data"
	summary
	exit
fi
python3 tests/text_quote_ref.py gen "$T" || bad "generate" "text_quote_ref.py failed"

# the quoted records against the same records unquoted
for cmd in sum count stats; do
	"$G" $cmd --header --by 1 -F 2,3 "$T/p.csv" 2> "$T/err" |
		python3 tests/text_quote_ref.py map "$T" > "$T/want"
	[ -s "$T/want" ] || bad "$cmd unquoted" "$(cat "$T/err")"
	for j in 1 2 4; do
		"$G" $cmd --header --by "station id" -F 2,rain -j $j "$T/q.csv" \
			> "$T/got" 2> "$T/err"
		cmp -s "$T/got" "$T/want" && ok ||
			bad "$cmd --by -j $j" "$(head -c 300 "$T/err"; diff "$T/got" "$T/want" | head -n 4)"
	done
done
# -F alone: the notes (quoted, with commas) are not read, whatever
# piece of the text their line begins in
python3 -c '
import csv, sys
from fractions import Fraction
rows = list(csv.reader(open(sys.argv[1], newline="", encoding="utf-8"),
                       skipinitialspace=True))[1:]
print("%r\t%r" % tuple(float(sum(Fraction(r[c].strip()) for r in rows))
                       for c in (1, 2)))' "$T/q.csv" > "$T/want"
for j in 1 2 4; do
	"$G" sum --header -F 2,rain -j $j "$T/q.csv" > "$T/got" 2> "$T/err"
	cmp -s "$T/got" "$T/want" && ok ||
		bad "sum -F -j $j" "got '$(cat "$T/got")', want '$(cat "$T/want")': $(cat "$T/err")"
done

# -f state of quoted keys: shards merged are one run
tail -n +2 "$T/q.csv" > "$T/body"
split -l 7000 "$T/body" "$T/part."
for f in "$T"/part.*; do
	"$G" stats --text --by 1 -F 2,3 -f state "$f" > "$f.st" ||
		bad "state of $f" "failed"
done
"$G" stats --text --by 1 -F 2,3 "$T/body" > "$T/want"
# shellcheck disable=SC2046
"$G" merge $(ls -r "$T"/part.*.st) > "$T/got" 2> "$T/err"
cmp -s "$T/got" "$T/want" && ok || bad "merge of quoted keys" "$(cat "$T/err")"
"$G" stats --text --by 1 -F 2,3 -f state "$T/body" > "$T/want"
"$G" merge -f state "$T"/part.*.st > "$T/got" 2> "$T/err"
cmp -s "$T/got" "$T/want" && ok || bad "merged state of quoted keys" "$(cat "$T/err")"

# fails NAME WHY ARGS...: exit 1, one line on stderr holding WHY, no output
fails() {
	name=$1 why=$2
	shift 2
	"$G" "$@" < "$T/in" > "$T/out" 2> "$T/err"
	rc=$?
	[ $rc -eq 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" -eq 1 ] &&
		grep -q -- "$why" "$T/err" && ok ||
		bad "$name" "rc $rc: $(cat "$T/err")"
}
printf '1,2\n3,4\n"5,6\n' > "$T/in"
fails unterminated "unterminated quote in line 3 field 1" sum --text -c 2
printf 'a,1\n"b\nc",2\n' > "$T/in"
fails newline "unterminated quote in line 2 field 1" sum --by 1
printf 'k,v\na,1\n"b"c,2\n' > "$T/in"
fails after "text after the closing quote in line 3 field 1" sum --header --by k
printf '1,2\n"",4\n' > "$T/in"
fails empty "empty field in line 2 field 1" sum --text -c 2

summary
