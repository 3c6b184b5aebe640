#!/bin/sh
# test_errors.sh - one rule for results after an error (man gpustat, EXIT
# STATUS): whenever an operand could not be read whole or a data error
# occurred, no result is written to stdout, in any format; the one stderr
# line names what failed and the exit status is 1. The one exception is what
# a scan has already streamed: whole elements only, and with -o the target
# is left as it was.
#
# Every command meets every error class here, after a good operand (so that
# there is always a partial result that must not be printed), in every
# output format it writes.
#
# Usage: sh tests/test_errors.sh   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "errors: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=errors
. tests/lib.sh
F=fixtures/in

# judge NAME PATTERN: exit 1, nothing on stdout, one "gpustat: " line on
# stderr holding PATTERN.
judge() {
	if [ "$rc" -ne 1 ]; then
		bad "$1" "exit $rc, wanted 1: $(head -n 1 "$T/err")"
	elif [ -s "$T/out" ]; then
		bad "$1" "a result on stdout: $(head -c 60 "$T/out" | tr '\n' ' ')"
	elif [ "$(grep -c '^gpustat: ' "$T/err")" -ne 1 ] ||
	     [ "$(grep -vc '^gpustat: note' "$T/err")" -ne 1 ]; then
		bad "$1" "stderr is not one error line: $(tr '\n' '|' < "$T/err")"
	elif ! grep -qF -- "$2" "$T/err"; then
		bad "$1" "stderr lacks \"$2\": $(cat "$T/err")"
	else
		ok
	fi
}

# The error classes: NAME, the type option, a good operand of that type,
# the bad operand, what the error line names.
classes() {
	cat <<EOF
missing	-t f32	$F/f32_rand.bin	$F/nonexistent.bin	nonexistent.bin
directory	-t f32	$F/f32_rand.bin	$F	$F
zst_truncated	-t i16	$F/i16_rand.bin	$F/i16_trunc.zst	i16_trunc.zst
zst_corrupt	-t i16	$F/i16_rand.bin	$F/i16_corrupt.zst	i16_corrupt.zst
npy_short	-t f32	$F/f32_rand.bin	$F/f32_short.npy	f32_short.npy
npy_long	-t f32	$F/f32_rand.bin	$F/f32_long.npy	f32_long.npy
trailing	-t f32	$F/f32_rand.bin	$F/f32_trail3.bin	f32_trail3.bin
EOF
}

# --- hist, sum, stats, reduce, dot: no result in any format ------------------
classes > "$T/classes"
while IFS='	' read -r class topt good badop pat; do
	for cmd in "hist" "hist --bins 5" "sum" "stats" "reduce --op max" "dot"; do
		for fmt in text tsv csv json binary npy; do
			name="${cmd%% *}_${class}_$fmt"
			case $cmd in
			"hist --bins 5") name="hist2pass_${class}_$fmt" ;;
			esac
			# dot's sides are A = good, B = bad
			# shellcheck disable=SC2086
			$G $cmd $topt -f $fmt "$good" "$badop" > "$T/out" 2> "$T/err"
			rc=$?
			judge "$name" "$pat"
		done
	done
done < "$T/classes"

# --- errors of the data themselves ---------------------------------------------
for fmt in text json binary npy; do
	$G dot -f $fmt $F/f32_first400.bin $F/f32_rest.bin > "$T/out" 2> "$T/err"
	rc=$?
	judge "dot_length_mismatch_$fmt" "differ in length"
done
# exact integer results too large for binary output
for fmt in binary npy; do
	$G reduce --op prod -t i32 -f $fmt $F/i32_prodovf.bin > "$T/out" 2> "$T/err"
	rc=$?
	judge "reduce_prod_binary_overflow_$fmt" "does not fit"
	$G sum -t u64 -f $fmt $F/u64_big.bin > "$T/out" 2> "$T/err"
	rc=$?
	judge "sum_binary_overflow_$fmt" "does not fit"
done
# a scan whose prefix overflows its output type
for fmt in binary npy; do
	$G scan -t i32 --op prod -f $fmt $F/i32_prodovf.bin > "$T/s" 2> "$T/err"
	rc=$?
	: > "$T/out"
	judge "scan_prod_overflow_$fmt" "overflow"
	printf 'old\n' > "$T/keep"
	$G scan -t i32 --op prod -f $fmt $F/i32_prodovf.bin -o "$T/keep" > "$T/out" 2> "$T/err"
	rc=$?
	judge "scan_prod_overflow_${fmt}_o" "overflow"
	[ "$(cat "$T/keep")" = old ] && ok ||
		bad "scan_prod_overflow_${fmt}_o (kept)" "-o file changed by a failed run"
done

# --- /dev/full: one error line whatever the format -----------------------------
for cmd in "hist" "sum" "stats" "reduce --op min"; do
	for fmt in text json binary npy; do
		# shellcheck disable=SC2086
		$G $cmd -t f32 -f $fmt $F/f32_rand.bin > /dev/full 2> "$T/err"
		rc=$?
		: > "$T/out"
		judge "${cmd%% *}_dev_full_$fmt" "write error"
	done
done

# --- scan: what was streamed, whole elements; -o left as it was ----------------
while IFS='	' read -r class topt good badop pat; do
	for fmt in binary npy; do
		name="scan_${class}_$fmt"
		$G scan $topt -f $fmt "$good" "$badop" > "$T/s" 2> "$T/err"
		rc=$?
		: > "$T/out"
		judge "$name" "$pat"
		# f32 in, f32 out; i16 in, i64 out; after a .npy header of 128
		size=$(wc -c < "$T/s")
		[ $fmt = npy ] && size=$((size - 128))
		case $topt in *i16) esize=8 ;; *) esize=4 ;; esac
		[ $((size % esize)) -eq 0 ] && ok ||
			bad "$name (whole elements)" "$size bytes of $esize-byte elements"
		printf 'old\n' > "$T/keep"
		$G scan $topt -f $fmt -o "$T/keep" "$good" "$badop" > "$T/out" 2> "$T/err"
		rc=$?
		judge "${name}_o" "$pat"
		[ "$(cat "$T/keep")" = old ] && ok ||
			bad "${name}_o (kept)" "-o file changed by a failed run"
	done
done < "$T/classes"

summary
