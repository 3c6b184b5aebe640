#!/bin/sh
# test_textdetect.sh - text is recognised by what text is: nan,
# inf, infinity in any case and sign, a UTF-8 BOM and CRLF are text; the
# decision is made on the first 4 KiB of the stream (or all of it), so the
# same bytes give the same result however a pipe delivers them; text that
# is not numbers (a header line, words, a log) is refused with one line
# that says what to do, never computed on as raw bytes; binary data stays
# binary. Each case on files and pipes, through several commands; what the
# auto-detected run prints is what --text prints, or the value worked out
# by hand for the few bytes it is.
#
# Usage: sh tests/test_textdetect.sh   (GPUSTAT=path overrides ./gpustat)
cd "$(dirname "$0")/.." || exit 2
NAME=textdetect
. tests/lib.sh

# eq NAME WANT CMD...: CMD exits 0 and prints WANT
eq() {
	name=$1 want=$2
	shift 2
	got=$("$@" 2> "$T/err")
	rc=$?
	[ $rc -eq 0 ] && [ "$got" = "$want" ] && ok ||
		bad "$name" "exit $rc, got '$got', want '$want' $(head -c 300 "$T/err")"
}

# refused NAME PATTERN CMD...: CMD exits 1, prints nothing on stdout and
# one line on stderr that holds every |-separated part of PATTERN
refused() {
	name=$1 pat=$2
	shift 2
	"$@" > "$T/out" 2> "$T/err"
	rc=$?
	why=""
	[ $rc -eq 1 ] || why="exit $rc"
	[ -s "$T/out" ] && why="$why, stdout '$(head -c 100 "$T/out")'"
	[ "$(wc -l < "$T/err")" -eq 1 ] || why="$why, $(wc -l < "$T/err") lines on stderr"
	rest=$pat
	while [ -n "$rest" ]; do
		part=${rest%%|*}
		grep -qF -- "$part" "$T/err" || why="$why, no '$part'"
		[ "$part" = "$rest" ] && rest="" || rest=${rest#*|}
	done
	[ -z "$why" ] && ok || bad "$name" "$why: $(head -c 300 "$T/err")"
}

# astext NAME FILE CMD...: gpustat CMD FILE, on the file and through a
# pipe, prints (exit 0) what CMD --text prints: the bytes are read as text
astext() {
	name=$1 f=$2
	shift 2
	"$G" "$@" --text "$f" > "$T/want" 2> "$T/err" ||
		{ bad "$name" "--text fails: $(cat "$T/err")"; return; }
	for how in file pipe; do
		if [ $how = file ]; then
			"$G" "$@" "$f" > "$T/got" 2> "$T/err"
		else
			"$G" "$@" < "$f" > "$T/got" 2> "$T/err"
		fi
		rc=$?
		[ $rc -eq 0 ] && cmp -s "$T/want" "$T/got" && ok ||
			bad "${name}_$how" "exit $rc, '$(head -c 80 "$T/got")' for '$(head -c 80 "$T/want")' $(head -c 200 "$T/err")"
	done
}

# feed PIECE...: the printf formats one after another, a pause between
feed() {
	printf "$1"
	shift
	for p in "$@"; do
		sleep 0.3
		printf "$p"
	done
}

# split NAME WANT CMD -- PIECE...: the same bytes at once, from a file and
# in the pieces given, each pause a stall of the pipe: CMD's stdout and
# exit status are WANT (a string, or "refused:PATTERN") every time
split() {
	name=$1 want=$2
	shift 2
	cmd=""
	while [ "$1" != "--" ]; do
		cmd="$cmd $1"
		shift
	done
	shift
	all=""
	for p in "$@"; do all="$all$p"; done
	printf "$all" > "$T/split.in"
	for how in once file pieces; do
		case $how in
		once) printf "$all" | "$G" $cmd > "$T/out" 2> "$T/err" ;;
		file) "$G" $cmd "$T/split.in" > "$T/out" 2> "$T/err" ;;
		pieces) feed "$@" | "$G" $cmd > "$T/out" 2> "$T/err" ;;
		esac
		rc=$?
		case $want in
		refused:*)
			[ $rc -eq 1 ] && [ ! -s "$T/out" ] &&
				grep -qF -- "${want#refused:}" "$T/err" && ok ||
				bad "${name}_$how" "exit $rc, '$(cat "$T/out")' $(cat "$T/err")" ;;
		*)
			[ $rc -eq 0 ] && [ "$(cat "$T/out")" = "$want" ] && ok ||
				bad "${name}_$how" "exit $rc, got '$(cat "$T/out")', want '$want' $(cat "$T/err")" ;;
		esac
	done
}

# ---- nan, inf, infinity: any case, any sign ----------------------------
printf '1\n-inf\n2.5\n3000\n' > "$T/minf"
eq minf_file -inf "$G" sum "$T/minf"
eq minf_pipe -inf sh -c "\"\$0\" sum < \"$T/minf\"" "$G"
printf '1\n2\nnan\n4\n5\n' > "$T/nan"
eq nan_stats "$(printf 'count\t5\nnan\t1\nmin\t1\nmax\t5\nsum\t12\nmean\t3')" \
	sh -c "cat \"$T/nan\" | \"\$0\" stats | head -n 6" "$G"
eq nan_count "$(printf '5\t1')" "$G" count "$T/nan"
printf 'NaN\n+Inf\n-infinity\nINF\n7\n' > "$T/forms"
eq forms_count "$(printf '5\t1')" "$G" count "$T/forms"
printf '+Inf\nINFINITY\n1\ninfinity\n' > "$T/pinf"
eq pinf_sum inf "$G" sum "$T/pinf"
printf '2\n-INF\n-Infinity\n' > "$T/ninf"
eq ninf_sum -inf sh -c "\"\$0\" sum < \"$T/ninf\"" "$G"
printf 'inf\n-inf\n' > "$T/both"
eq both_inf_sum nan "$G" sum "$T/both"
printf 'nan,1\n-NaN,2\nNAN,3\n' > "$T/nancsv"
eq nan_columns "$(printf '3\t3\t3\t0')" "$G" count -c 2 "$T/nancsv"
eq nan_flat "$(printf '6\t3')" "$G" count "$T/nancsv"
for cmd in "sum" "stats" "count" "hist --bins 3 --range 0:3000" "scan" \
	   "quantile -q 0.5" "reduce --op max" "sum -t f32"; do
	c=$(echo "$cmd" | tr ' :.' '___')
	astext "minf_$c" "$T/minf" $cmd
	astext "nan_$c" "$T/nan" $cmd
	astext "forms_$c" "$T/forms" $cmd
done

# ---- the same bytes whatever the pipe's timing ---------------------------
split inf_at_once inf sum -t f64 -- '1 2 ' 'inf 3\n'
split inf_in_token inf sum -t f64 -- '1 2 in' 'f 3\n'
split inf_before_nl inf sum -t f64 -- '1 2 inf 3' '\n'
split inf_nonl inf sum -t f64 -- '1 2 inf' ' 3'
split inf_bytes -inf sum -- '1' ' ' '2' ' -i' 'nf' 'ini' 'ty 3' '\n'
split nan_count "$(printf '5\t1')" count -- '1\n2\n' 'nan\n4\n5\n'
split nan_sum nan sum -- '1\n2\nn' 'an\n4\n5\n'
split bom_cut 6 sum -- '\357' '\273\2771\r\n2\r\n3\r\n'
split bom_cut2 6 sum -- '\357\273' '\2771\r\n2\r\n3\r\n'
split crlf_cut "$(printf '4\t6')" sum -c 2 -- '1,2\r' '\n3,4\r\n'
split header_cut "refused:header line 'x,y'" stats -- 'x,' 'y\n1,2\n3,4\n5,6\n'
split header_cut2 "refused:header line 'x,y'" sum -- 'x,y\n1,' '2\n3,4\n'
split words_cut "refused:not numbers" sum -- 'hello ' 'world\n'
# past the 4 KiB that decide, and around them: a bad byte after them is a
# bad field of the text; within them, it makes the stream binary
seq 1 1100 > "$T/long"
head -c 4090 "$T/long" > "$T/long.a"
tail -c +4091 "$T/long" > "$T/long.b"
want=$(seq 1 1100 | awk '{ s += $1 } END { print s }')
for at in 100 4090 4095 4096 4097 4200; do
	head -c $at "$T/long" > "$T/la"
	tail -c +$((at + 1)) "$T/long" > "$T/lb"
	got=$({ cat "$T/la"; sleep 0.3; cat "$T/lb"; } | "$G" sum 2> "$T/err")
	[ "$got" = "$want" ] && ok || bad "long_split_$at" "got '$got' $(cat "$T/err")"
	got=$({ cat "$T/la"; sleep 0.3; cat "$T/lb"; echo x; } | "$G" sum 2> "$T/err")
	[ -z "$got" ] && grep -q 'line 1101 field 1' "$T/err" && ok ||
		bad "long_split_bad_$at" "got '$got' $(cat "$T/err")"
done
{ seq 1 500; printf '\001'; } > "$T/bin_in"
eq binary_byte_in_prefix "$(printf '%d\t0' $(($(wc -c < "$T/bin_in"))))" \
	"$G" count -t u8 "$T/bin_in"
{ seq 1 1100; printf '\001\n'; } > "$T/bin_past"
refused binary_byte_past_prefix "invalid numeric value in line 1101 field 1" \
	"$G" count "$T/bin_past"

# ---- a BOM and CRLF ----------------------------------------------------------
printf '\357\273\2771\r\n2\r\n3\r\n' > "$T/bom"
eq bom_sum 6 "$G" sum "$T/bom"
eq bom_sum_pipe 6 sh -c "cat \"$T/bom\" | \"\$0\" sum" "$G"
eq bom_text 6 "$G" sum --text "$T/bom"
eq bom_two_operands 12 "$G" sum "$T/bom" "$T/bom"
eq bom_two_text 12 "$G" sum --text "$T/bom" "$T/bom"
printf '\357\273\2771,2\r\n3,4\r\n' > "$T/bomcsv"
eq bom_csv "$(printf '4\t6')" "$G" sum -c 2 "$T/bomcsv"
eq bom_csv_text "$(printf '4\t6')" "$G" sum -c 2 --text "$T/bomcsv"
printf '\357\273\277' > "$T/bomonly"
eq bom_only_text 0 "$G" sum --text "$T/bomonly"
for cmd in "sum" "stats" "count" "hist --bins 2 --range 0:4" "scan" "quantile -q 0.5"; do
	astext "bom_$(echo "$cmd" | tr ' :.' '___')" "$T/bom" $cmd
done

# ---- a header line: refused, with what to do ----------------------------
printf 'x,y\n1,2\n3,4\n5,6\n' > "$T/hdr.csv"
for cmd in "stats" "sum" "count" "hist" "scan" "quantile -q 0.5" "sum -c 2" "stats -t f32"; do
	c=$(echo "$cmd" | tr ' :.' '___')
	refused "header_$c" "hdr.csv: looks like text with a header line 'x,y'|--header (-H)|--raw" \
		"$G" $cmd "$T/hdr.csv"
	refused "header_pipe_$c" "stdin: looks like text with a header line 'x,y'|--header (-H)" \
		sh -c "cat \"$T/hdr.csv\" | \"\$0\" $cmd" "$G"
done
printf '\357\273\277time,value\r\n0,1.5\r\n1,nan\r\n' > "$T/hdr2.csv"
refused header_bom_crlf "header line 'time,value'|--header (-H)" "$G" stats "$T/hdr2.csv"
printf 'a\tb\tc\n1\t2\t3\n' > "$T/hdr.tsv"
refused header_tsv "header line 'a\\tb\\tc'" "$G" sum "$T/hdr.tsv"
refused header_per_file "header line 'x,y'" "$G" sum --per-file "$T/hdr.csv"
refused header_then_numbers "hdr.csv: looks like text with a header line" \
	"$G" sum "$T/hdr.csv" "$T/nan"
# in a zstd frame: the decoded bytes are what is judged
if command -v zstd > /dev/null 2>&1; then
	zstd -q < "$T/hdr.csv" > "$T/hdr.csv.zst"
	refused header_zstd "hdr.csv.zst: looks like text with a header line 'x,y'" \
		"$G" sum "$T/hdr.csv.zst"
	zstd -q < "$T/nan" > "$T/nan.zst"
	eq nan_zstd "$(printf '5\t1')" sh -c "\"\$0\" count < \"$T/nan.zst\"" "$G"
fi
# --raw reads the bytes (16 of them)
eq header_raw "$(printf '16\t0')" "$G" count --raw -t u8 "$T/hdr.csv"
# with --header (where this build has it) the line names the columns
if "$G" sum --header -c 2 /dev/null > /dev/null 2>&1; then
	eq header_option "$(printf '9\t12')" "$G" sum --header -c 2 "$T/hdr.csv"
	eq header_option_short "$(printf '9\t12')" "$G" sum -H -c 2 "$T/hdr.csv"
else
	echo "textdetect: note: no --header in this build: its checks are skipped"
fi

# ---- text that is not numbers: refused, --raw reads the bytes -----------
refused words_echo "stdin: looks like text, not numbers ('hello' in line 1 field 1)|--raw|binary data" \
	sh -c 'echo hello world | "$0" sum' "$G"
printf '2026-11-27 12:00:01 start\n2026-11-27 12:00:02 done\n' > "$T/log"
for cmd in "sum" "stats" "count" "hist" "scan" "quantile -q 0.5"; do
	refused "words_log_$(echo "$cmd" | tr ' :.' '___')" \
		"log: looks like text, not numbers ('2026-11-27' in line 1 field 1)|--raw" \
		"$G" $cmd "$T/log"
done
printf '1\n2\nabc\n4\n' > "$T/mid"
refused words_mid "looks like text, not numbers ('abc' in line 3 field 1)" "$G" sum "$T/mid"
printf 'x\n' > "$T/justhead"
refused words_one_line "looks like text, not numbers ('x' in line 1 field 1)" "$G" sum "$T/justhead"
eq words_raw "$(printf '12\t0')" sh -c 'echo hello world | "$0" count --raw -t u8' "$G"
# a scan stops there too, nothing written
refused words_scan_stdout "not numbers" sh -c "\"\$0\" scan -t u8 --out-type u16 < \"$T/log\"" "$G"

# names after a blank line: --header takes the first line, so it is not
# offered (it would say the first line is empty)
printf '\nx,y\n1,2\n' > "$T/blankhead"
refused blank_then_names "looks like text, not numbers ('x' in line 2 field 1)" "$G" sum "$T/blankhead"
grep -q -- '--header' "$T/err" && bad blank_then_names_hint "$(cat "$T/err")" || ok

# a first line of words over a line with an empty field is not a header
# line: a column of words beside numbers, read by -F as --text reads it
# (--header would drop the first line's 1)
printf 'a,1\n,2\n' > "$T/wordcol.csv"
refused wordcol "looks like text, not numbers ('a' in line 1 field 1)" "$G" sum "$T/wordcol.csv"
grep -q -- '--header' "$T/err" && bad wordcol_hint "$(cat "$T/err")" || ok
eq wordcol_fields "$("$G" sum -F 2 --text "$T/wordcol.csv")" "$G" sum -F 2 "$T/wordcol.csv"
eq wordcol_fields_pipe 3 sh -c "\"\$0\" sum -F 2 < \"$T/wordcol.csv\"" "$G"

# ---- text after binary -----------------------------------------------------
# a later operand of a binary stream that is decimal text is refused, never
# summed as raw values (8 bytes of text are two f32 or one f64); the same
# error with --per-file; --raw reads its bytes
printf '\1\0\0\0\2\0\0\0' > "$T/two.bin"
printf '1.5\n2.5\n' > "$T/eight.txt"
for cmd in "sum" "stats" "sum -t f64" "scan -o $T/scan.out" "sum --per-file"; do
	refused "text_after_binary_$(echo "$cmd" | tr ' /' '__')" \
		"eight.txt: decimal text, not binary data like the operands before it|--raw" \
		"$G" $cmd "$T/two.bin" "$T/eight.txt"
done
refused text_after_npy "decimal text, not binary data" "$G" sum fixtures/in/f32_empty.npy "$T/eight.txt"
cat "$T/two.bin" "$T/eight.txt" > "$T/cat"
"$G" sum --raw "$T/two.bin" "$T/eight.txt" > "$T/out" 2>&1 &&
	[ "$(cat "$T/out")" = "$("$G" sum --raw "$T/cat")" ] && ok ||
	bad text_after_binary_raw "$(cat "$T/out")"

# ---- binary stays binary ---------------------------------------------------
# no fixture is read as text or refused as text
for f in fixtures/in/* fixtures/hist/*.bin; do
	"$G" count -t u8 -v "$f" 2>&1 > /dev/null |
		grep -q '^gpustat: input: text\|looks like text' &&
		bad "binary_$(basename "$f")" "taken for text" || ok
done
# printable bytes that make no line of fields, or no fields: binary
printf '9!v:' > "$T/one.f32"
eq printable_f32 "$("$G" sum --raw "$T/one.f32")" "$G" sum "$T/one.f32"
printf '%%R%%R%%R%%R' > "$T/f16"
eq printable_f16 "$("$G" sum --raw -t f16 "$T/f16")" "$G" sum -t f16 "$T/f16"
printf '\n"' > "$T/i16"
eq newline_first_i16 "$("$G" sum --raw -t i16 "$T/i16")" "$G" sum -t i16 "$T/i16"
printf '\t' > "$T/tab"
eq blank_u8 9 "$G" sum -t u8 "$T/tab"
# invalid UTF-8, a control byte: binary at once (a pipe need not end)
eq bad_utf8 "$(printf '5\t0')" sh -c "printf '1 2\\300\\200' | \"\$0\" count -t u8" "$G"
eq control "$(printf '4\t0')" sh -c "printf '1 2\\033' | \"\$0\" count -t u8" "$G"

summary
