#!/bin/sh
# test_textauto.sh - decimal text recognised without --text (textdetect.c;
# more in test_textdetect.sh): `seq 1 100 | gpustat sum` must print 5050, exactly what
# --text prints, on pipes and files, with -c, -t, hist and --per-file;
# --raw must read the bytes; binary data must never be taken for text; a
# bad field later on is the --text error.
#
# Usage: sh tests/test_textauto.sh   (GPUSTAT=path overrides ./gpustat)
cd "$(dirname "$0")/.." || exit 2
NAME=textauto
. tests/lib.sh
IN=fixtures/in

# eq NAME WANT GOT-COMMAND...: the command's stdout is WANT
eq() {
	name=$1 want=$2
	shift 2
	got=$("$@" 2> "$T/err")
	[ "$got" = "$want" ] && ok || bad "$name" "got '$got', want '$want' $(cat "$T/err")"
}
# same NAME CMD: stdout and exit status equal with and without --text
same() {
	name=$1
	shift
	"$@" > "$T/a" 2> /dev/null
	ra=$?
	"$@" --text > "$T/b" 2> /dev/null
	rb=$?
	[ $ra -eq $rb ] && cmp -s "$T/a" "$T/b" && ok ||
		bad "$name" "exit $ra/$rb: $(head -c 100 "$T/a") / $(head -c 100 "$T/b")"
}

seq 1 100 > "$T/seq.txt"
printf '1.5,2\n3,-4e1\n0.25, 8\n' > "$T/pts.csv"
printf '3\n' > "$T/one.txt"

eq seq_pipe 5050 sh -c "seq 1 100 | \"$G\" sum"
eq seq_file 5050 "$G" sum "$T/seq.txt"
eq seq_i64 5050 sh -c "seq 1 100 | \"$G\" sum -t i64"
eq one_line 3 "$G" sum "$T/one.txt"
eq csv_columns "$(printf '4.75\t-30')" sh -c "\"$G\" sum -c 2 < \"$T/pts.csv\""
eq input_says_text "gpustat: input: text, f64, 1 column" sh -c \
	"\"$G\" sum -v \"$T/seq.txt\" 2>&1 >/dev/null | grep '^gpustat: input'"
for cmd in "sum" "stats" "count" "reduce --op max" "hist" "hist --bins 4 --range 0:100" \
	   "sum -t f32" "stats -t i32" "sum --per-file"; do
	same "$(echo "$cmd" | tr ' :' '__')" "$G" $cmd "$T/seq.txt" "$T/one.txt"
done
same scan "$G" scan "$T/seq.txt"
same dot_pairs "$G" dot --pairs "$T/pts.csv"

# empty operands first say nothing of the stream: the text after them is text
: > "$T/empty"
eq empty_first 5050 "$G" sum "$T/empty" "$T/seq.txt"
eq empty_twice 5053 "$G" sum "$T/empty" "$T/empty" "$T/seq.txt" "$T/one.txt"
eq empty_first_stdin 5050 sh -c "seq 1 100 | \"$G\" sum \"$T/empty\" -"

# a headed operand after detected text: no --text to blame in the message
"$G" sum "$T/seq.txt" "$IN/f32_empty.npy" > /dev/null 2> "$T/err"
grep -q 'npy data, not text like the operands before it' "$T/err" && ok ||
	bad npy_after_text "$(cat "$T/err")"

# --raw reads the bytes: 292 bytes of seq are 73 f32, 3 bytes are none
eq raw_bytes "$(printf '73\t0')" sh -c "seq 1 100 | \"$G\" count --raw"
"$G" sum --raw "$T/one.txt" > /dev/null 2>&1
[ $? -eq 1 ] && ok || bad raw_trailing "2 bytes should not make an f32"

# binary never reads as text: no input fixture (raw data of every type,
# npy, pnm, zstd) is taken for it
for f in "$IN"/*; do
	"$G" count -t u8 -v "$f" 2>&1 > /dev/null | grep -q '^gpustat: input: text' &&
		bad "binary_$(basename "$f")" "read as text" || ok
done
# bytes that are all digits but no record of text: a u8 stream of '0'-'9'
# is text now, and --raw is the way to its bytes
printf '0123456789' > "$T/digits"
eq digits_text 123456789 "$G" sum -t u64 "$T/digits"
eq digits_raw 525 "$G" sum -t u8 --raw "$T/digits"

# a bad field past the bytes detection looks at (4 KiB): --text's error,
# nothing printed
{ seq 1 5000; echo x; } > "$T/bad.txt"
out=$("$G" sum "$T/bad.txt" 2> "$T/err")
rc=$?
[ $rc -eq 1 ] && [ -z "$out" ] && grep -q 'line 5001 field 1' "$T/err" && ok ||
	bad bad_field "exit $rc, out '$out', $(cat "$T/err")"

summary
