#!/bin/sh
# test_limits.sh - the engine's limits and edges: the
# accumulators' memory is checked before it is allocated (ENGINE_ACC_LIMIT,
# 1 GiB) and fewer threads run where that fits; tiny chunks do not wake 64
# threads each; a sum or scan prefix of -0 terms only is -0; an integer
# product overflow names its record and column; dot length mismatches give
# both lengths.
#
# Expected values: the scans' from numpy 2.4 (np.cumsum, written out here as
# hex); a sum of -0 terms only is the last element of that cumsum (IEEE
# -0 + -0; numpy 2.4's np.sum and np.mean start from +0 and give +0, which
# IEEE addition of the terms does not); the product overflows by hand
# (2^40 four times passes 2^128 at the fourth).
#
# Usage: sh tests/test_limits.sh   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "limits: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=limits
. tests/lib.sh
# ulimit -v caps the memory a refusal may touch; ASan's shadow memory needs
# terabytes of address space, so under it (make asan) the cap is left out
vlimit="ulimit -v"
[ -n "$GPUSTAT_ASAN" ] && vlimit=":"

# hex FILE: its bytes as one line of hex
hex() { od -An -v -tx1 "$1" | tr -d ' \n'; }

# same NAME WANT CMD: CMD (eval'd) exits 0 and writes the bytes WANT (hex)
same() {
	eval "$3" > "$T/out" 2> "$T/err"
	rc=$?
	got=$(hex "$T/out")
	if [ $rc -ne 0 ]; then
		bad "$1" "exit $rc: $(head -n 1 "$T/err")"
	elif [ "$got" != "$2" ]; then
		bad "$1" "wrote $got, wanted $2"
	else
		ok
	fi
}

# fails NAME PATTERN CMD: CMD exits 1 with one stderr line holding PATTERN
# and nothing on stdout
fails() {
	eval "$3" > "$T/out" 2> "$T/err"
	rc=$?
	if [ $rc -ne 1 ]; then
		bad "$1" "exit $rc, wanted 1: $(head -n 1 "$T/err")"
	elif [ "$(wc -l < "$T/err")" -ne 1 ] || ! grep -qF -- "$2" "$T/err"; then
		bad "$1" "stderr lacks \"$2\": $(head -n 3 "$T/err" | tr '\n' '|')"
	elif [ -s "$T/out" ]; then
		bad "$1" "wrote $(wc -c < "$T/out") bytes to stdout"
	else
		ok
	fi
}

# ---- 1. the accumulators' memory ------------------------------------------
# 16 bytes as 1048576 u8 columns took 3.5 GB before reporting the trailing
# bytes; now refused before anything is allocated (ulimit: a regression
# runs out of memory instead of naming the limit)
head -c 16 /dev/zero > "$T/b16"
fails acc_limit_stats "over the limit of 1 GiB" \
	'($vlimit 1000000; $G stats -t u8 -c 1048576 -j 2 "$T/b16")'
fails acc_limit_sum "over the limit of 1 GiB" \
	'($vlimit 1000000; $G sum -t f64 -c 1048576 -j 1 "$T/b16")'
# 300000 f32 columns fit one thread, not four (343 MB a copy); one
# record (stats of no data is an error)
head -c 1200000 /dev/zero > "$T/record"
$G stats -t f32 -c 300000 -j 4 -v -f binary "$T/record" > "$T/out" 2> "$T/err"
rc=$?
if [ $rc -ne 0 ]; then
	bad acc_fewer_threads "exit $rc: $(grep -v backend "$T/err" | head -n 1)"
elif ! grep -q 'cpu (1 thread)' "$T/err"; then
	bad acc_fewer_threads "not one thread: $(grep backend "$T/err" | head -n 1)"
elif [ "$(wc -c < "$T/out")" -ne 24000000 ]; then
	bad acc_fewer_threads "$(wc -c < "$T/out") bytes, wanted 10 x 300000 f64"
else
	ok
fi

# ---- 2. threads clamped to the work ----------------------------------------
head -c 100000 /dev/urandom > "$T/r100k"
$G sum -t u8 -v --chunk-size 1 -j 64 "$T/r100k" > /dev/null 2> "$T/err"
# (auto's CPU is the backend "auto" where a CUDA build watches its rate)
grep -q '\(cpu\|auto\) (1 thread)' "$T/err" && ok ||
	bad tiny_chunk_threads "$(grep backend "$T/err" | head -n 1)"
$G hist -j 1 "$T/r100k" > "$T/h1" 2>&1
$G hist --chunk-size 1 -j 64 "$T/r100k" > "$T/h64" 2>&1
cmp -s "$T/h1" "$T/h64" && ok || bad tiny_chunk_hist "differs from -j 1"

# ---- 3. the sign of zero sums ------------------------------------------------
m0='\0\0\0\200'				# f32 -0, little-endian
printf "$m0" > "$T/m0.f32"
printf "$m0$m0\0\0\200\77\0\0\200\277$m0" > "$T/x5.f32"	# -0 -0 1 -1 -0
same negzero_sum 0000000000000080 '$G sum -f binary "$T/m0.f32"'
same negzero_sum_be 0000000000000080 \
	'printf "\200\0\0\0" | $G sum -t ">f4" -f binary'
same negzero_scan 00000080 '$G scan "$T/m0.f32"'
# np.cumsum([-0., -0., 1., -1., -0.], dtype=f4)
same negzero_scan5 00000080000000800000803f0000000000000000 '$G scan "$T/x5.f32"'
# exclusive: the empty prefix is +0, then the cumsum shifted by one
same negzero_scan5_excl 0000000000000080000000800000803f00000000 \
	'$G scan --exclusive "$T/x5.f32"'
# one record per chunk, two threads: the run crosses chunks
same negzero_scan5_chunks 00000080000000800000803f0000000000000000 \
	'$G scan --chunk-size 4 -j 2 "$T/x5.f32"'
# f64 in 2 columns [[-0, +0], [-0, -0], [5, -0]]: np.cumsum(axis=0) and the
# last row for the sums
z8='\0\0\0\0\0\0\0\0'
n8='\0\0\0\0\0\0\0\200'
printf "$n8$z8$n8$n8\0\0\0\0\0\0\24\100$n8" > "$T/c2.f64"
same negzero_scan_cols \
	000000000000008000000000000000000000000000000080000000000000000000000000000014400000000000000000 \
	'$G scan -t f64 -c 2 "$T/c2.f64"'
same negzero_sum_cols 00000000000014400000000000000000 \
	'$G sum -t f64 -c 2 -f binary "$T/c2.f64"'
# 40000 x -0 over several chunks and threads; one +0 at the end makes +0
printf "$m0$m0$m0$m0$m0$m0$m0$m0" > "$T/m8"
cat "$T/m8" "$T/m8" "$T/m8" "$T/m8" "$T/m8" > "$T/m40"	# 40 elements
for i in 1 2 3 4 5 6 7 8 9 10; do cat "$T/m40"; done > "$T/m400"
for i in 1 2 3 4 5 6 7 8 9 10; do cat "$T/m400"; done > "$T/m4k"
for i in 1 2 3 4 5 6 7 8 9 10; do cat "$T/m4k"; done > "$T/m40k.f32"
same negzero_sum_long 0000000000000080 \
	'$G sum -j 2 --chunk-size 64K -f binary "$T/m40k.f32"'
{ head -c 159996 "$T/m40k.f32"; printf '\0\0\0\0'; } > "$T/p40k.f32"
same negzero_sum_long_plus 0000000000000000 \
	'$G sum -j 2 --chunk-size 64K -f binary "$T/p40k.f32"'
# stats: sum and mean are -0 (fields 5 and 6 of 10), NaNs left out
printf "$m0\0\0\300\177" > "$T/mnan.f32"		# -0, NaN
$G stats -f binary "$T/mnan.f32" > "$T/out" 2> "$T/err"
got=$(od -An -v -tx1 -j 32 -N 16 "$T/out" | tr -d ' \n')
[ "$got" = 00000000000000800000000000000080 ] && ok ||
	bad negzero_stats "sum and mean $got: $(head -n 1 "$T/err")"
# f16 scan: np.cumsum([-0., -0.], dtype=f16)
same negzero_scan_f16 00800080 'printf "\0\200\0\200" | $G scan -t f16'

# ---- 4. messages --------------------------------------------------------------
# i64 records: 2^40 at records 0, 1, 40000 and 60000 of 70000, else 1: the
# product passes 2^128 at record 60000, after the slices of two threads
# each stayed below it
one='\1\0\0\0\0\0\0\0'
big='\0\0\0\0\0\1\0\0'				# 2^40
printf "$one$one$one$one$one$one$one$one$one$one" > "$T/o10"
for i in 1 2 3 4 5 6 7 8 9 10; do cat "$T/o10"; done > "$T/o100"
for i in 1 2 3 4 5 6 7 8 9 10; do cat "$T/o100"; done > "$T/o1k"
for i in 1 2 3 4 5 6 7 8 9 10; do cat "$T/o1k"; done > "$T/o10k"
cat "$T/o10k" "$T/o10k" "$T/o10k" "$T/o10k" "$T/o10k" "$T/o10k" "$T/o10k" > "$T/o70k"
{
	printf "$big$big"
	head -c $((39998 * 8)) "$T/o70k"
	printf "$big"
	head -c $((19999 * 8)) "$T/o70k"
	printf "$big"
	head -c $((9999 * 8)) "$T/o70k"
} > "$T/prod.i64"
for j in 1 2; do
	fails prod_where_j$j "record 60000 column 0: integer product overflows" \
		'$G reduce --op prod -t i64 -j $j "$T/prod.i64"'
done
fails prod_where_chunks "record 60000 column 0: integer product overflows" \
	'$G reduce --op prod -t i64 -j 2 --chunk-size 64K "$T/prod.i64"'
# two columns [3, 2^40] x 4, then [3, 1]: column 1 at record 3
printf "\3\0\0\0\0\0\0\0$big" > "$T/r2"
{ cat "$T/r2" "$T/r2" "$T/r2" "$T/r2"; printf "\3\0\0\0\0\0\0\0$one"; } > "$T/prod2.i64"
fails prod_where_cols "record 3 column 1: integer product overflows" \
	'$G reduce --op prod -t i64 -c 2 "$T/prod2.i64"'
# (scan named its element and column already: a guard, not a fix)
fails scan_prod_where "element 1 column 1: prefix prod 1208925819614629174706176 overflows i64" \
	'$G scan --op prod -t i64 -c 2 "$T/prod2.i64" > /dev/null'
# dot: both lengths, whichever side is longer, at any chunk size
head -c 1200 /dev/zero > "$T/a1200"
head -c 800 /dev/zero > "$T/b800"
fails dot_lengths_ab "a1200 has 1200 bytes (300 elements), $T/b800 has 800 bytes (200 elements)" \
	'$G dot "$T/a1200" "$T/b800"'
fails dot_lengths_ba "b800 has 800 bytes (200 elements), $T/a1200 has 1200 bytes (300 elements)" \
	'$G dot --chunk-size 64 "$T/b800" "$T/a1200"'
head -c 802 /dev/zero > "$T/b802"
fails dot_lengths_bytes "b802 has 802 bytes, $T/a1200 has 1200 bytes" \
	'$G dot "$T/b802" "$T/a1200"'

summary
