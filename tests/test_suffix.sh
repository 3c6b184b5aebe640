#!/bin/sh
# test_suffix.sh - the file's name says its type (src/cli/suffix.h): a name
# ending in a type (x.f64, x.i16.zst, x.u8.gz, numpy's x.f8) sets -t when it is
# absent, for every operand alike (operands of no such name, stdin among
# them, follow); names that disagree, and a -t that contradicts a name,
# are usage errors (exit 2) that name both, and --raw (or stdin, for a
# .zst) reads the bytes as -t says; a .npy or PNM header says the type of
# its file, and a name that contradicts it is an error too; text in a
# typed file is parsed to the name's type.
#
# The data are 1, 2 and 4 in each type, written here byte by byte; their
# sum is 7 and their count 3. Read as f32, the bytes of the f64 ones are
# 0 1.875 0 2 0 2.25 (sum 6.125): what a run that ignores the name prints.
#
# Usage: sh tests/test_suffix.sh   (GPUSTAT=path overrides ./gpustat)
cd "$(dirname "$0")/.." || exit 2
NAME=suffix
. tests/lib.sh

# put TYPE FILE: 1, 2, 4 as TYPE, little-endian
put() {
	case $1 in
	u8|i8) printf '\001\002\004' ;;
	u16|i16) printf '\001\000\002\000\004\000' ;;
	u32|i32) printf '\001\000\000\000\002\000\000\000\004\000\000\000' ;;
	u64|i64) printf '\001\0\0\0\0\0\0\0\002\0\0\0\0\0\0\0\004\0\0\0\0\0\0\0' ;;
	f16) printf '\000\074\000\100\000\104' ;;
	bf16) printf '\200\077\000\100\200\100' ;;
	f32) printf '\0\0\200\077\0\0\0\100\0\0\200\100' ;;
	f64) printf '\0\0\0\0\0\0\360\077\0\0\0\0\0\0\0\100\0\0\0\0\0\0\020\100' ;;
	esac > "$2"
}

# is NAME WANT CMD...: stdout is WANT, exit 0
is() {
	name=$1 want=$2
	shift 2
	got=$("$@" 2> "$T/err")
	rc=$?
	[ $rc -eq 0 ] && [ "$got" = "$want" ] && ok ||
		bad "$name" "exit $rc, got '$got', want '$want' $(head -c 300 "$T/err")"
}

# refuse NAME STATUS PATTERN CMD...: nothing on stdout, exit STATUS, and
# one line on stderr that matches each of the '|'-separated PATTERN's parts
refuse() {
	name=$1 want=$2 pat=$3
	shift 3
	"$@" > "$T/out" 2> "$T/err"
	rc=$?
	if [ $rc -ne "$want" ] || [ -s "$T/out" ] || [ "$(wc -l < "$T/err")" -ne 1 ]; then
		bad "$name" "exit $rc, out $(head -c 80 "$T/out"), err $(cat "$T/err")"
		return
	fi
	IFS='|'
	for p in $pat; do
		grep -qF -- "$p" "$T/err" || { IFS=' '; bad "$name" "no '$p' in: $(cat "$T/err")"; return; }
	done
	IFS=' '
	ok
}

M=$T/mkzst
${CC:-cc} -O2 -o "$M" bench/mkzst.c -lzstd 2> "$T/err" ||
	{ bad mkzst "does not build: $(head -n 1 "$T/err")"; M=; }
zst() { "$M" -c 3 0 < "$1" > "$2"; }

# --- every suffix: gpustat's names, numpy's names, numpy's codes ---------
for pair in u8:u8 i8:i8 u16:u16 i16:i16 u32:u32 i32:i32 u64:u64 i64:i64 \
	    f16:f16 bf16:bf16 f32:f32 f64:f64 \
	    uint8:u8 int8:i8 uint16:u16 int16:i16 uint32:u32 int32:i32 \
	    uint64:u64 int64:i64 float16:f16 bfloat16:bf16 float32:f32 \
	    float64:f64 \
	    u1:u8 i1:i8 u2:u16 i2:i16 u4:u32 i4:i32 f2:f16 f4:f32 f8:f64; do
	ext=${pair%%:*} type=${pair#*:}
	put "$type" "$T/x.$ext"
	is "sum_$ext" 7 $G sum "$T/x.$ext"
	is "count_$ext" "3	0" $G count "$T/x.$ext"
	# hist's default (u8) gives way to the name too
	is "hist_$ext" "$(printf '0\t2\t1\n2\t4\t1\n4\t6\t1')" \
		$G hist --bins 3 --range 0:6 -f text "$T/x.$ext"
	# -t that agrees, in another spelling, is no contradiction
	is "agree_$ext" 7 $G sum -t "$type" "$T/x.$ext"
	if [ -n "$M" ]; then
		zst "$T/x.$ext" "$T/z.$ext.zst"
		is "zst_$ext" 7 $G sum "$T/z.$ext.zst"
	fi
	gzip -c < "$T/x.$ext" > "$T/g.$ext.gz"
	is "gz_$ext" 7 $G sum "$T/g.$ext.gz"
done

# docs/INPUT.md's example, without -t
put f64 "$T/big.f64"
if [ -n "$M" ]; then
	zst "$T/big.f64" "$T/big.f64.zst"
	is readme_long 7 $G sum --long=31 "$T/big.f64.zst"
fi

# -v says where the type came from
$G sum -v "$T/big.f64" 2>&1 > /dev/null | grep -q "input: raw, f64 (from the name $T/big.f64)" &&
	ok || bad verbose "$($G sum -v "$T/big.f64" 2>&1 > /dev/null | grep input:)"

# bench's data file too
$G bench sum "$T/big.f64" 2> /dev/null | grep -q "bytes of f64 ($T/big.f64)" && ok ||
	bad bench "$($G bench sum "$T/big.f64" 2>&1 | head -n 3)"

# --- names that say no type ----------------------------------------------
# numpy's one-letter codes and width-less names, upper case, a leading dot,
# a directory's extension: the default f32 reads the bytes
for ext in f d int float double half bool F64 bin raw; do
	put f64 "$T/n.$ext"
	is "none_$ext" 6.125 $G sum "$T/n.$ext"
done
put f64 "$T/.f64"
is none_dotfile 6.125 $G sum "$T/.f64"
mkdir "$T/dir.f64"
put f64 "$T/dir.f64/data"
is none_dir 6.125 $G sum "$T/dir.f64/data"
# i8 and u8 are gpustat's one byte, not numpy's eight
printf '\377\377\377\377\377\377\377\377' > "$T/m.u8"
is u8_one_byte 2040 $G sum "$T/m.u8"
cp "$T/m.u8" "$T/m.i8"
is i8_one_byte -8 $G sum "$T/m.i8"

# --- every operand alike --------------------------------------------------
put f64 "$T/a.f64"
put f64 "$T/plain"
put f32 "$T/c.f32"
# operands of no typed name follow the typed ones, wherever they stand
is follow_after 14 $G sum "$T/a.f64" "$T/plain"
is follow_before 14 $G sum "$T/plain" "$T/a.f64"
# stdin has no name: it follows a typed operand, and alone it is f32
is follow_stdin 14 sh -c '"$1" sum "$2" - < "$3"' sh "$G" "$T/a.f64" "$T/plain"
is stdin_alone 6.125 sh -c '"$1" sum < "$2"' sh "$G" "$T/a.f64"
is stdin_dash 6.125 sh -c '"$1" sum - < "$2"' sh "$G" "$T/a.f64"
# --per-file: each operand, and the total, as one run over them
is per_file "$(printf '7\t%s\n7\t%s\n14\ttotal' "$T/a.f64" "$T/plain")" \
	$G sum --per-file "$T/a.f64" "$T/plain"
# names that disagree
refuse disagree 2 "$T/c.f32 (f32)|$T/a.f64 (f64)" $G sum "$T/c.f32" "$T/a.f64"
refuse disagree_late 2 "$T/c.f32 (f32)|$T/a.f64 (f64)" $G stats "$T/plain" "$T/c.f32" "$T/a.f64"
refuse disagree_dot 2 "$T/c.f32 (f32)|$T/a.f64 (f64)" $G dot "$T/c.f32" "$T/a.f64"
refuse disagree_per_file 2 "$T/c.f32 (f32)|$T/a.f64 (f64)" $G sum --per-file "$T/c.f32" "$T/a.f64"
is agree_dot 21 $G dot "$T/a.f64" "$T/plain"

# --- -t that contradicts a name, and the way to read the bytes anyway ------
refuse contradict 2 "-t f32 contradicts the name $T/a.f64 (f64)|--raw" \
	$G sum -t f32 "$T/a.f64"
refuse contradict_second 2 "-t f64 contradicts the name $T/c.f32 (f32)" \
	$G sum -t f64 "$T/a.f64" "$T/c.f32"
refuse contradict_scan 2 "-t i16 contradicts the name $T/a.f64 (f64)" \
	$G scan -t i16 -o "$T/s.out" "$T/a.f64"
[ ! -e "$T/s.out" ] && ok || bad contradict_scan_output "an output was written"
# a -t of the name's type is none: numpy's bool reads its bytes (1 2 4
# are each True), a byte order is the data's, which the name does not say
put u8 "$T/b.u8"
is bool_u8 3 $G sum -t bool "$T/b.u8"
is order_f64 "$($G sum --endian big "$T/a.f64")" $G sum -t '>f8' "$T/a.f64"
is order_f64_swapped 3.24735e-319 $G sum --endian big "$T/a.f64"
# the escape the message names: --raw reads the bytes as -t says
is raw_escape 6.125 $G sum --raw -t f32 "$T/a.f64"
is raw_escape_mixed 13.125 $G sum --raw -t f32 "$T/a.f64" "$T/c.f32"
# --raw alone keeps the name's type (a raw f64 may begin with zstd's magic)
is raw_keeps_name 7 $G sum --raw "$T/a.f64"
if [ -n "$M" ]; then
	# --raw does not decompress: a .zst's message offers stdin instead
	zst "$T/a.f64" "$T/a.f64.zst"
	refuse contradict_zst 2 "-t f32 contradicts the name $T/a.f64.zst (f64)|< $T/a.f64.zst" \
		$G sum -t f32 "$T/a.f64.zst"
	is zst_stdin_escape 6.125 sh -c '"$1" sum -t f32 < "$2"' sh "$G" "$T/a.f64.zst"
fi

# --- headers say the type of their file ----------------------------------
put f32 "$T/v"
$G scan -f npy -o "$T/p.npy" - < "$T/v"	# f32 1 3 7, from stdin: no name
is npy 11 $G sum "$T/p.npy"
# an extension before .npy is not looked at
cp "$T/p.npy" "$T/p.f64.npy"
is npy_inner_suffix 11 $G sum "$T/p.f64.npy"
# a name that contradicts the header of its file
cp "$T/p.npy" "$T/q.f64"
refuse npy_named 2 "npy header (f32)|$T/q.f64 (f64)" $G sum "$T/q.f64"
cp "$T/p.npy" "$T/q.f32"
is npy_named_agrees 11 $G sum "$T/q.f32"
# or of another operand of the stream
refuse npy_beside 2 "npy header (f32)|$T/a.f64 (f64)" $G sum "$T/p.npy" "$T/a.f64"

# --- text in a typed file is parsed to the name's type ---------------------
printf '0.1 0.2\n' > "$T/t.f32"
is text_f32 0.30000000447034836 $G sum "$T/t.f32"
is text_f32_flag 0.30000000447034836 $G sum --text "$T/t.f32"
printf '0.1 0.2\n' > "$T/t.f64"
is text_f64 0.30000000000000004 $G sum "$T/t.f64"
printf '1 2 4\n' > "$T/t.i16"
is text_i16 7 $G sum "$T/t.i16"
printf '1.5\n' > "$T/u.i16"
refuse text_i16_fraction 1 "u.i16" $G sum "$T/u.i16"
printf '0.1 0.2\n' > "$T/t.txt"
is text_follows 0.6000000089406967 $G sum "$T/t.f32" "$T/t.txt"
refuse text_contradict 2 "-t f64 contradicts the name $T/t.f32 (f32)" $G sum -t f64 "$T/t.f32"

summary
