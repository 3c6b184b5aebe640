#!/bin/sh
# test_fields.sh - tables as people have them:
#  - -H/--header: each text operand's first line is column names, skipped,
#    every line after it one record; the same line in every operand (else
#    an error naming the operand); a BOM and CRLF around it; quoted names;
#    an input that is not text is refused (raw bytes, .npy);
#  - -F/--fields LIST: columns by number, range (cut -f's forms) or header
#    name, in the order listed, repeats included, for text (width from the
#    header or the first line), raw binary records (-c N), a 2-D .npy and
#    zstd; the errors (a name not in the header, a name without one, a
#    column past the width, a bad list) are usage errors (exit 2);
#  - every command honours it: each result equals the command's result on
#    a file holding only those columns, written apart by Python (sum also
#    against math.fsum, which rounds the exact sum once as gpustat does);
#    scan's output bytes equal, its .npy shape (N, columns) on a pipe;
#  - chunk sizes that cut records (smaller than one, odd), -j 1 and -j 4,
#    a pipe that delivers the header and lines in pieces: the same bits.
#
# Usage: sh tests/test_fields.sh   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "fields: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=fields
. tests/lib.sh

# expect NAME WANT CMD...: CMD's stdout is WANT and it exits 0.
expect() {
	name=$1 want=$2
	shift 2
	got=$("$@" 2> "$T/err")
	rc=$?
	if [ $rc -eq 0 ] && [ "$got" = "$want" ]; then ok
	else bad "$name" "exit $rc, got '$got', wanted '$want' $(head -n 1 "$T/err")"; fi
}

# fails NAME RC MESSAGE CMD...: CMD exits RC, prints nothing on stdout and
# one stderr line that holds MESSAGE.
fails() {
	name=$1 want_rc=$2 msg=$3
	shift 3
	"$@" > "$T/out" 2> "$T/err"
	rc=$?
	if [ $rc -ne "$want_rc" ]; then bad "$name" "exit $rc, wanted $want_rc: $(head -n 1 "$T/err")"
	elif [ -s "$T/out" ]; then bad "$name" "stdout: $(head -c 80 "$T/out")"
	elif [ "$(wc -l < "$T/err")" -ne 1 ]; then bad "$name" "stderr: $(cat "$T/err")"
	elif ! grep -qF -- "$msg" "$T/err"; then bad "$name" "'$(cat "$T/err")', wanted '$msg'"
	else ok; fi
}

# cmpout NAME FILE1 FILE2: the two outputs are the same bytes, not empty.
cmpout() {
	if [ ! -s "$2" ]; then bad "$1" "no output: $(head -n 1 "$T/err")"
	elif cmp -s "$2" "$3"; then ok
	else bad "$1" "'$(head -c 200 "$2")' differs from '$(head -c 200 "$3")'"; fi
}

# run OUT CMD...: CMD's stdout into OUT (stderr to $T/err), exit 0 wanted.
run() {
	out=$1
	shift
	"$@" > "$out" 2> "$T/err" || bad "run $*" "exit $?: $(head -n 1 "$T/err")"
}

tab=$(printf '\t')

# ---- --header ---------------------------------------------------------------
printf 'x,y\n1,2\n3,4\n5,6\n' > "$T/h.csv"
expect header_sum "9${tab}12" sh -c "printf 'x,y\n1,2\n3,4\n5,6\n' | \"$G\" sum -H"
expect header_long "9${tab}12" "$G" sum --header "$T/h.csv"
expect header_name_y 12 "$G" sum -H -F y "$T/h.csv"
expect header_names_order "12${tab}9" "$G" sum -H -F y,x "$T/h.csv"
expect header_repeat "12${tab}9${tab}12" "$G" sum -H -F y,x,y "$T/h.csv"
expect header_number "12${tab}9" "$G" sum -H -F 2,1 "$T/h.csv"
expect header_stats_count "count${tab}3" sh -c "\"$G\" stats -H -F y \"$T/h.csv\" | head -n 1"
# the type is f64 unless -t, as --text's
expect header_f64 0.30000000000000004 sh -c "printf 'a\n0.1\n0.2\n' | \"$G\" sum -H"
expect header_f32 0.30000000447034836 sh -c "printf 'a\n0.1\n0.2\n' | \"$G\" sum -H -t f32"
# white space separated, quoted names (a comma and a quote inside), CRLF, BOM
expect header_spaces "8${tab}4" sh -c "printf 'a b  c\n1 2 3\n3 4 5\n' | \"$G\" sum -H -F c,a"
expect header_quoted "2${tab}1" sh -c "printf '\"a b\",\"c\"\"d\"\n1,2\n' | \"$G\" sum -H -F 'c\"d,a b'"
expect header_crlf_bom 6 sh -c "printf '\357\273\277x,y\r\n1,2\r\n3,4\r\n' | \"$G\" sum -H -F y"
expect header_only "0${tab}0" sh -c "printf 'x,y\n' | \"$G\" sum -H"
expect header_empty_input "0${tab}0" sh -c ": | \"$G\" sum -H -F 2,1"
# --raw reads text without detection: the header is still taken off
expect header_raw_text 6 sh -c "printf 'x,y\n1,2\n3,4\n' | \"$G\" sum --raw -H -F y"
# dot: --pairs of two named columns, and A B each cut alike
printf 'a,b,c\n1,2,3\n4,5,6\n' > "$T/abc.csv"
expect dot_pairs_names 27 "$G" dot --pairs -H -F a,c "$T/abc.csv"
expect dot_ab_names 45 "$G" dot -H -F c "$T/abc.csv" "$T/abc.csv"
# fields -F leaves are not read: words there (names, labels) are passed by,
# with or without --header, from a file, a pipe and on several threads
printf 'name,v,note\nann,1.5,x-y\nbob,2.25,-\n' > "$T/w.csv"
expect words_skipped 3.75 "$G" sum -H -F v "$T/w.csv"
expect words_skipped_j 3.75 "$G" sum -H -F v -j 4 --chunk-size 8 "$T/w.csv"
expect words_no_header 3.75 sh -c "tail -n 2 \"$T/w.csv\" | \"$G\" sum -F 2"
expect words_two_cols "4${tab}3.75" sh -c "printf 'a,2,1.5\nb,2,2.25\n' | \"$G\" sum -F 2,3 -j 2"
fails words_picked 1 "line 2 field 1: 'ann'" "$G" sum -H -F name "$T/w.csv"
# line numbers count the header line
fails header_line_no 1 "line 3 field 2: 'a'" sh -c "printf 'x,y\n1,2\n3,a\n' | \"$G\" sum -H"
fails header_short_line 1 "line 3 has 1 field, not 2" sh -c "printf 'x,y\n1,2\n3\n' | \"$G\" sum -H"
fails header_vs_c 2 "--columns 3 contradicts the header's 2 names" "$G" sum -H -c 3 "$T/h.csv"
fails header_empty_line 1 "the first line is empty" sh -c "printf '\n1,2\n' | \"$G\" sum -H"

# several operands: each carries the header; one that differs is named
printf 'x,y\n7,8\n' > "$T/h2.csv"
printf 'x,z\n7,8\n' > "$T/bad.csv"
expect header_two_files "16${tab}20" "$G" sum -H "$T/h.csv" "$T/h2.csv"
expect header_two_name "20" "$G" sum -H -F y "$T/h.csv" "$T/h2.csv"
fails header_mismatch 1 "bad.csv: --header: header 'x,z' is not the first operand's 'x,y'" \
	"$G" sum -H "$T/h.csv" "$T/bad.csv"
fails header_mismatch_perfile 1 "bad.csv: --header: header 'x,z' is not the first operand's 'x,y'" \
	"$G" sum -H --per-file "$T/h.csv" "$T/bad.csv"
"$G" sum -H --per-file "$T/h.csv" "$T/h2.csv" > "$T/pf" 2> "$T/err" &&
	[ "$(tail -n 1 "$T/pf")" = "16${tab}20${tab}total" ] && ok ||
	bad header_perfile "$(cat "$T/pf" "$T/err")"

# ---- -F on text without a header ---------------------------------------------
printf '1 2 3 4\n5 6 7 8\n9 10 11 12\n' > "$T/four"
expect text_one 18 "$G" sum -F 2 "$T/four"
expect text_order "21${tab}15" "$G" sum -F 3,1 "$T/four"
expect text_range "18${tab}21" "$G" sum -F 2-3 "$T/four"
expect text_open_range "21${tab}24" "$G" sum -F 3- "$T/four"
expect text_to_range "15${tab}18" "$G" sum -F -2 "$T/four"
expect text_mixed "24${tab}15${tab}18" "$G" sum -F 4,1-2 "$T/four"
expect text_with_c "18" "$G" sum -c 4 -F 2 "$T/four"
expect text_blank_first "24${tab}15" sh -c "printf '\n\n1 2 3 4\n5 6 7 8\n9 10 11 12\n' | \"$G\" sum -F 4,1"
fails text_ragged 1 "line 2 has 3 fields, not 2" sh -c "printf '1 2\n3 4 5\n' | \"$G\" sum -F 1"

# ---- errors ------------------------------------------------------------------
fails name_missing 2 "no column 'z' in the header (x, y)" "$G" sum -H -F z "$T/h.csv"
fails name_no_header 2 "'y' is a column name, and the input has no header line" \
	"$G" sum -F y "$T/four"
fails past_width 2 "column 5 is past the record's 4 values" "$G" sum -F 5 "$T/four"
fails past_width_range 2 "column 6 is past the record's 4 values" "$G" sum -F 2-6 "$T/four"
fails past_width_bin 2 "column 2 is past the record's 1 value" "$G" sum --raw -t f32 -F 2 "$T/four"
fails zero 2 "'0' is not a column number" "$G" sum -F 0 "$T/four"
fails backwards 2 "range '3-1' runs backwards" "$G" sum -F 3-1 "$T/four"
fails empty_item 2 "an empty item in '1,,2'" "$G" sum -F 1,,2 "$T/four"
fails dash 2 "'-' is not a column number" "$G" sum -F - "$T/four"
fails dup_name 2 "'a' names columns 1 and 3 of the header" \
	sh -c "printf 'a,b,a\n1,2,3\n' | \"$G\" sum -H -F a"

# a header line longer than the bytes peeked at once (gathered in pieces);
# a first line too long to count without -c
awk 'BEGIN { for (i = 1; i <= 4000; i++) printf "%scolumn%d", (i > 1 ? "," : ""), i
	print ""; for (r = 0; r < 2; r++) { for (i = 1; i <= 4000; i++)
	printf "%s%d", (i > 1 ? "," : ""), i; print "" } }' > "$T/wide.csv"
expect wide_header "8000${tab}4" "$G" sum -H -F column4000,column2 "$T/wide.csv"
tail -n 2 "$T/wide.csv" > "$T/wide.txt"
expect wide_with_c "8000${tab}4" "$G" sum -c 4000 -F 4000,2 "$T/wide.txt"
fails wide_count 1 "the first line is longer than 16384 bytes, too long to count its fields: give -c N" \
	"$G" sum -F 2 "$T/wide.txt"

# an operand that fails is the error told, not -F's columns then
fails missing_operand 1 "No such file or directory" "$G" sum -F 2 "$T/none"
# --per-file: an operand alone of another width is named
printf '1 2 3
' > "$T/w3"
fails perfile_width 1 "w3: --per-file: read alone, its records are 3 values, not the stream's 4" \
	"$G" sum --per-file -F 2 "$T/four" "$T/w3"

# ---- binary records -------------------------------------------------------------
if ! command -v python3 > /dev/null; then
	echo "fields: note: no python3: the binary cases are skipped"
	summary
	exit
fi

# a.f32: 3001 records of x,y,z (random, some repeated for mode); c31.f32
# and c2.f32: columns 3,1 and column 2 written apart; a.npy: the same as a
# 2-D .npy; i16 records for integer sums, mode's ties and reduce's ops;
# sums.txt: math.fsum of columns 3 and 1, each the exact sum rounded once.
python3 - "$T" <<'EOF' || bad gen "python3 failed"
import math, random, struct, sys
d = sys.argv[1]
r = random.Random(28)
rows = []
for i in range(3001):
    row = [r.choice([0.5, -1.25, 3.0]) if i % 7 == 0 else r.uniform(-1e3, 1e3) * 2.0 ** r.randint(-20, 20) for _ in range(3)]
    rows.append([struct.unpack('<f', struct.pack('<f', v))[0] for v in row])
def write(name, cols, fmt='<f', data=rows):
    with open(f'{d}/{name}', 'wb') as f:
        for row in data:
            f.write(b''.join(struct.pack(fmt, row[c]) for c in cols))
write('a.f32', [0, 1, 2])
write('c31.f32', [2, 0])
write('c2.f32', [1])
write('c11.f32', [0, 0])
ints = [[r.randint(-40, 40) for _ in range(5)] for _ in range(5000)]
write('a.i16', [0, 1, 2, 3, 4], '<h', ints)
write('c524.i16', [4, 1, 3], '<h', ints)
hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, 3), }" % len(rows)
hdr += ' ' * (64 - (10 + len(hdr) + 1) % 64) + '\n'
with open(f'{d}/a.npy', 'wb') as f:
    f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(hdr)) + hdr.encode())
    f.write(open(f'{d}/a.f32', 'rb').read())
with open(f'{d}/a.csv', 'w') as f:
    f.write('x,y,z\n')
    for row in rows:
        f.write(','.join(repr(v) for v in row) + '\n')
with open(f'{d}/sums.txt', 'w') as f:
    f.write('\t'.join(repr(math.fsum(row[c] for row in rows)) for c in (2, 0)) + '\n')
EOF

A=$T/a.f32
expect bin_sum_fsum "$(cat "$T/sums.txt")" "$G" sum -c 3 -F 3,1 "$A"
expect npy_sum_fsum "$(cat "$T/sums.txt")" "$G" sum -F 3,1 "$T/a.npy"
expect csv_sum_fsum "$(cat "$T/sums.txt")" "$G" sum -H -F z,x "$T/a.csv"
expect csv_sum_f32 "$(cat "$T/sums.txt")" "$G" sum -H -F 3,1 -t f32 "$T/a.csv"

# every command: its result on the columns cut equals it on them apart
check_cmd() {	# NAME REF-ARGS -- ARGS: gpustat ARGS vs gpustat REF-ARGS
	name=$1
	shift
	ref=
	while [ "$1" != -- ]; do ref="$ref $1"; shift; done
	shift
	run "$T/want" "$G" $ref
	run "$T/got" "$G" "$@"
	cmpout "$name" "$T/got" "$T/want"
}
check_cmd sum      sum -c 2 "$T/c31.f32" -- sum -c 3 -F 3,1 "$A"
check_cmd stats    stats -c 2 "$T/c31.f32" -- stats -c 3 -F 3,1 "$A"
check_cmd count    count -c 2 "$T/c31.f32" -- count -c 3 -F 3,1 "$A"
check_cmd hist     hist -t f32 --bins 7 -c 2 "$T/c31.f32" -- hist -t f32 --bins 7 -c 3 -F 3,1 "$A"
check_cmd hist_rng hist -t f32 --bins 5 --range -3:3 -c 2 "$T/c31.f32" -- hist -t f32 --bins 5 --range -3:3 -c 3 -F 3,1 "$A"
check_cmd quantile quantile -q 0.1,0.5,0.99 -c 2 "$T/c31.f32" -- quantile -q 0.1,0.5,0.99 -c 3 -F 3,1 "$A"
check_cmd median   median -c 2 "$T/c31.f32" -- median -c 3 -F 3,1 "$A"
check_cmd mode     mode -c 2 "$T/c31.f32" -- mode -c 3 -F 3,1 "$A"
check_cmd reduce   reduce --op max -c 2 "$T/c31.f32" -- reduce --op max -c 3 -F 3,1 "$A"
check_cmd dot_pairs dot --pairs "$T/c31.f32" -- dot --pairs -c 3 -F 3,1 "$A"
check_cmd dot_squares dot --pairs "$T/c11.f32" -- dot --pairs -c 3 -F 1,1 "$A"
check_cmd dot_ab   dot "$T/c2.f32" "$T/c2.f32" -- dot -c 3 -F 2 "$A" "$A"
check_cmd json     sum -f json -c 2 "$T/c31.f32" -- sum -f json -c 3 -F 3,1 "$A"
check_cmd i16_sum  sum -t i16 -c 3 "$T/c524.i16" -- sum -t i16 -c 5 -F 5,2,4 "$T/a.i16"
check_cmd i16_mode mode -t i16 -c 3 "$T/c524.i16" -- mode -t i16 -c 5 -F 5,2,4 "$T/a.i16"
check_cmd i16_xor  reduce --op xor -t i16 -c 3 "$T/c524.i16" -- reduce --op xor -t i16 -c 5 -F 5,2,4 "$T/a.i16"
check_cmd i16_quantile quantile -t i16 -q 0.25 -c 3 "$T/c524.i16" -- quantile -t i16 -q 0.25 -c 5 -F 5,2,4 "$T/a.i16"
check_cmd npy_stats stats -c 2 "$T/c31.f32" -- stats -F 3,1 "$T/a.npy"
check_cmd csv_stats stats -t f32 -c 2 "$T/c31.f32" -- stats -t f32 -H -F z,x "$T/a.csv"
"$G" sum --per-file -c 3 -F 3,1 "$A" "$A" 2> "$T/err" | cut -f 1,2 > "$T/got"
"$G" sum --per-file -c 2 "$T/c31.f32" "$T/c31.f32" 2> "$T/err" | cut -f 1,2 > "$T/want"
cmpout perfile "$T/got" "$T/want"
# scan writes the columns interleaved, byte for byte those of the columns
# apart; its .npy header on a pipe counts the records of the cut columns
check_cmd scan     scan -c 2 "$T/c31.f32" -- scan -c 3 -F 3,1 "$A"
check_cmd scan_i16 scan -t i16 -c 3 "$T/c524.i16" -- scan -t i16 -c 5 -F 5,2,4 "$T/a.i16"
check_cmd scan_npy scan -f npy -c 2 "$T/c31.f32" -- scan -f npy -c 3 -F 3,1 "$A"
"$G" scan -f npy -c 3 -F 3,1 "$A" 2> "$T/err" | head -c 128 | grep -q "'shape': (3001, 2," &&
	ok || bad scan_npy_shape "$(head -n 1 "$T/err")"

# pipes: read once (quantile keeps a copy), hist with --range
check_cmd pipe_quantile quantile -q 0.3 -c 2 "$T/c31.f32" -- quantile -q 0.3 -c 3 -F 3,1 - < "$A"
check_cmd pipe_sum sum -c 2 "$T/c31.f32" -- sum -c 3 -F 3,1 - < "$A"

# zstd: of the raw records, and of the text with its header
if command -v zstd > /dev/null; then
	zstd -q -f "$A" -o "$T/a.f32.zst" && zstd -q -f "$T/a.csv" -o "$T/a.csv.zst"
	check_cmd zstd_raw sum -c 2 "$T/c31.f32" -- sum -c 3 -F 3,1 "$T/a.f32.zst"
	check_cmd zstd_csv sum -c 2 "$T/c31.f32" -- sum -H -F z,x "$T/a.csv.zst"
	check_cmd zstd_scan scan -c 2 "$T/c31.f32" -- scan -c 3 -F 3,1 "$T/a.f32.zst"
fi

# chunks that cut records (5 bytes: less than one; 4097: odd), 1 and 4
# threads, small text pieces: the same bits
for chunk in 5 13 4097; do
	for j in 1 4; do
		check_cmd "chunk_${chunk}_j$j" sum -c 2 "$T/c31.f32" -- sum -c 3 -F 3,1 --chunk-size $chunk -j $j "$A"
		check_cmd "scan_chunk_${chunk}_j$j" scan -c 2 "$T/c31.f32" -- scan -c 3 -F 3,1 --chunk-size $chunk -j $j "$A"
		check_cmd "csv_chunk_${chunk}_j$j" stats -t f32 -c 2 "$T/c31.f32" -- stats -t f32 -H -F z,x --chunk-size $chunk -j $j "$T/a.csv"
	done
done
# a trailing partial record is an error, as without -F
head -c 1001 "$A" > "$T/part"
fails partial 1 "trailing 5 bytes do not make a whole record (3 x f32 is 12 bytes)" \
	"$G" sum -c 3 -F 1 "$T/part"

# --header on what is not text
fails header_raw 1 "--header: the first line is not text" "$G" sum -H "$A"
fails header_npy 1 "npy data, not text (--header reads text)" "$G" sum -H "$T/a.npy"

# a pipe that delivers the header and the records in pieces: the bytes
# sent at once give the same
head -n 200 "$T/a.csv" > "$T/a200.csv"
run "$T/want" "$G" sum -H -F z,x "$T/a200.csv"
(head -c 3 "$T/a200.csv"; sleep 0.3; head -c 500 "$T/a200.csv" | tail -c +4
 sleep 0.3; tail -c +501 "$T/a200.csv") | "$G" sum -H -F z,x > "$T/got" 2> "$T/err"
cmpout pipe_pieces "$T/got" "$T/want"
run "$T/want" "$G" sum -F 3,1 "$T/four"
(printf '1 2 '; sleep 0.3; printf '3 4\n5 6'; sleep 0.3; printf ' 7 8\n9 10 11 12\n') |
	"$G" sum -F 3,1 > "$T/got" 2> "$T/err"
cmpout pipe_pieces_count "$T/got" "$T/want"

# operands with no line (empty) among others: the stream's width and
# names, in the one run and with --per-file alike; an operand that failed
# is the one error line, and what it left half read is not the next one's
printf '1 2 3\n4 5 6\n' > "$T/w3.txt"
: > "$T/none.txt"
printf 'x,y\n1,2\n' > "$T/xy.csv"
expect empty_operand_fields "$(printf '5\t7')" "$G" sum -F 1,2 "$T/w3.txt" "$T/none.txt"
expect empty_operand_fields_perfile "$(printf '5\t7\t%s\n0\t0\t%s\n5\t7\ttotal' "$T/w3.txt" "$T/none.txt")" \
	"$G" sum -F 1,2 --per-file "$T/w3.txt" "$T/none.txt"
expect empty_operand_names_perfile "$(printf '2\t%s\n0\t%s\n2\ttotal' "$T/xy.csv" "$T/none.txt")" \
	"$G" sum -H -F y --per-file "$T/xy.csv" "$T/none.txt"
fails width_names_its_operand 2 "w3.txt: --fields: column 5 is past" "$G" sum -F 5 "$T/none.txt" "$T/w3.txt"
fails failed_operand_one_line 1 "nosuch: No such file" "$G" sum -H -c 3 "$T/nosuch" "$T/xy.csv"
python3 -c "import sys; sys.stdout.buffer.write(b'a' * 200000 + b'\x01,b\n1,2\n')" > "$T/ctl.csv"
fails half_header_dropped 1 "ctl.csv: --header: the first line is not text" \
	"$G" sum -H "$T/xy.csv" "$T/ctl.csv" "$T/xy.csv"

summary
