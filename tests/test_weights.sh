#!/bin/sh
# test_weights.sh - hist --weights COL and --density:
#  - each bin's weight sum against math.fsum of its weights, bit for bit,
#    and --density against numpy's formula (tests/weights_ref.py exact,
#    python alone): cancelling, subnormal, -0, NaN and infinite weights,
#    values outside the range, NaN and on the edges, integer weights past
#    2^63, mixed-type records and a structured .npy, -F, --header names,
#    numpy's default range over the values only;
#  - against numpy.histogram's answers (weights_ref.py numpy: as
#    tests/np_ref.py computes them with python alone, and numpy itself
#    where python3 has it), every f16 value in [-3, 3] among them: each
#    value's bin, counts, edges, --density of counts bit for bit,
#    numpy.bincount's bins;
#  - the same bytes for every -j and --chunk-size, ranged, default range
#    and one bin per value;
#  - the table, npy (f8, i8, u8 by the weights' type), --nonzero, the note;
#  - -f state of shards merged in any grouping: one run's bytes; states
#    of counts and of sums, or of two weight types, do not merge;
#  - usage errors in one line: --algorithm, --plot, columns, --density;
#    --backend cuda the CPU's bytes where it runs
#    with -f state.
#
# Usage: sh tests/test_weights.sh   (GPUSTAT=path overrides ./gpustat)
cd "$(dirname "$0")/.." || exit 2
NAME=weights
. tests/lib.sh

# ---- references --------------------------------------------------------------

for part in exact numpy; do
	reference tests/weights_ref.py "$part" 10
done

# ---- every chunking and thread count gives the same bytes ---------------------

# 300k records (f32 value, f32 weight), weights of both signs and many
# magnitudes; (u8 value, i32 weight) records
python3 - "$T/vw.f32" "$T/vw.u8i32" <<'PY'
import random, struct, sys
random.seed(5)
a = bytearray(); b = bytearray()
for i in range(300000):
    v = random.gauss(0.5, 0.3)
    w = random.gauss(0, 1) * 10.0 ** random.randint(-30, 30)
    a += struct.pack("<ff", v, w)
    b += struct.pack("<Bi", random.randrange(256), random.randint(-2**31, 2**31 - 1))
open(sys.argv[1], "wb").write(a)
open(sys.argv[2], "wb").write(b)
PY
same_bytes() {	# NAME FILE OPTS...: each chunking's -f binary output the same
	name=$1 f=$2
	shift 2
	"$G" hist "$@" -f binary -j 1 "$f" > "$T/ref.out" 2> "$T/err" ||
		{ bad "$name" "exit $?: $(head -n 1 "$T/err")"; return; }
	[ -s "$T/ref.out" ] || { bad "$name" "no output"; return; }
	for opts in $chunkings; do
		opts=$(echo "$opts" | tr _ ' ')
		# shellcheck disable=SC2086
		"$G" hist "$@" -f binary $opts "$f" > "$T/o" 2> "$T/err"
		if cmp -s "$T/o" "$T/ref.out"; then
			ok
		else
			bad "$name ($opts)" "not the bytes of -j 1"
		fi
	done
}
# a record or two per chunk on a few thousand records, larger chunks on all
head -c 24000 "$T/vw.f32" > "$T/small.f32"
head -c 15000 "$T/vw.u8i32" > "$T/small.u8i32"
chunkings="-j_2_--chunk-size_8 -j_3_--chunk-size_16 -j_4_--chunk-size_40"
same_bytes small_ranged "$T/small.f32" -t f32 -c 2 --weights 2 --bins 100 --range 0:1
same_bytes small_default "$T/small.f32" -t f32 -c 2 --weights 2 --bins 9
same_bytes small_bincount "$T/small.u8i32" -t u8,i32 --weights 2
chunkings="-j_2 -j_4 -j_4_--chunk-size_4096 -j_3_--chunk-size_65536 -j_2_--chunk-size_1M"
same_bytes ranged "$T/vw.f32" -t f32 -c 2 --weights 2 --bins 1000 --range 0:1
same_bytes default_range "$T/vw.f32" -t f32 -c 2 --weights 2 --bins 37
same_bytes weight_first "$T/vw.f32" -t f32 -c 2 --weights 1 --bins 5000 \
	--range -1e30:1e30
same_bytes density "$T/vw.f32" -t f32 -c 2 --weights 2 --bins 100 --density
same_bytes bincount "$T/vw.u8i32" -t u8,i32 --weights 2
same_bytes bincount_density "$T/vw.u8i32" -t u8,i32 --weights 2 --density

# ---- formats ------------------------------------------------------------------

printf '0.5 1.5\n0.5 2.25\n1.5 -1\n3 nan\n9 4\n' > "$T/t.txt"
"$G" hist -t f64 -c 2 --weights 2 --bins 3 --range 0:3 "$T/t.txt" > "$T/out" 2> "$T/err"
printf '0\t1\t3.75\n1\t2\t-1\n2\t3\tnan\n' > "$T/want"
if cmp -s "$T/out" "$T/want" &&
   grep -q 'not in any bin: 0 below, 1 above, 0 nan' "$T/err"; then
	ok
else
	bad "table" "$(head -n 3 "$T/out" | tr '\n' '|') $(cat "$T/err")"
fi
"$G" hist -t f64 -c 2 --weights 2 --bins 3 --range 0:3 -f csv "$T/t.txt" 2> /dev/null |
	head -n 1 > "$T/out"
[ "$(cat "$T/out")" = "lo,hi,sum" ] && ok || bad "csv header" "$(cat "$T/out")"
"$G" hist -t f64 -c 2 --weights 2 --bins 3 --range 0:3 --nonzero -q \
	"$T/t.txt" > "$T/out"
[ "$(wc -l < "$T/out")" -eq 3 ] && ok || bad "nonzero keeps NaN and -1" "$(cat "$T/out")"
printf '1 0\n2 0\n2 5\n' | "$G" hist -t f64 -c 2 --weights 2 --bins 3 \
	--range 0:3 --nonzero > "$T/out"
[ "$(cat "$T/out")" = "$(printf '2\t3\t5')" ] && ok || bad "nonzero drops zero sums" "$(cat "$T/out")"
# npy: f8 for float weights, i8 / u8 for integer weights, the dtype as numpy's
check_npy() {	# NAME DESCR OPTS...
	name=$1 descr=$2
	shift 2
	"$G" hist "$@" -f npy > "$T/o.npy" 2> "$T/err" ||
		{ bad "$name" "exit $?: $(head -n 1 "$T/err")"; return; }
	head -c 80 "$T/o.npy" | grep -q "'descr': '$descr'" && ok ||
		bad "$name" "not $descr: $(head -c 80 "$T/o.npy" | tr -d '\0')"
}
check_npy npy_f8 '<f8' -t f64 -c 2 --weights 2 --bins 3 --range 0:3 -q "$T/t.txt"
check_npy npy_i8 '<i8' -t u8,i32 --weights 2 "$T/vw.u8i32"
printf '\1\0\2\0\1\0\7\0' > "$T/u.u16"
check_npy npy_u8 '<u8' -t u16 -c 2 --weights 2 "$T/u.u16"
check_npy npy_density '<f8' -t u8,i32 --weights 2 --density "$T/vw.u8i32"
# a sum past i64 prints exactly, and is refused in an i8 array
printf '1 9223372036854775807\n1 9223372036854775807\n' > "$T/big.txt"
"$G" hist -t i64 -c 2 --weights 2 --bins 1 --range 0:2 "$T/big.txt" > "$T/out" 2>&1
[ "$(cat "$T/out")" = "$(printf '0\t2\t18446744073709551614')" ] && ok ||
	bad "wide integer sum" "$(cat "$T/out")"
"$G" hist -t i64 -c 2 --weights 2 --bins 1 --range 0:2 -f npy "$T/big.txt" \
	> "$T/out" 2> "$T/err"
rc=$?
[ $rc -eq 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" -eq 1 ] && ok ||
	bad "wide sum in npy" "exit $rc: $(cat "$T/err")"
# --header names, with and without -F
printf 'x,w,y\n0.25,2,3\n0.75,-1,0.5\n0.5,0.5,0.25\n' > "$T/h.csv"
"$G" hist -t f64 --header --weights w --bins 2 --range 0:1 -q "$T/h.csv" > "$T/out" 2>&1
[ "$(cat "$T/out")" = "$(printf '0\t0.5\t2\t0.5\n0.5\t1\t-0.5\t-1')" ] && ok ||
	bad "header name" "$(cat "$T/out" | tr '\n' '|')"
"$G" hist -t f64 --header -F y --weights w --bins 2 --range 0:1 -q "$T/h.csv" > "$T/out" 2>&1
[ "$(cat "$T/out")" = "$(printf '0\t0.5\t0.5\n0.5\t1\t-1')" ] && ok ||
	bad "header name with -F" "$(cat "$T/out" | tr '\n' '|')"
# big-endian records of one type
python3 -c 'import struct,sys; sys.stdout.buffer.write(struct.pack(">4d", 0.5, 2.5, 0.5, 0.25))' \
	> "$T/be.f64"
"$G" hist -t '>f8' -c 2 --weights 2 --bins 1 --range 0:1 "$T/be.f64" > "$T/out" 2>&1
[ "$(cat "$T/out")" = "$(printf '0\t1\t2.75')" ] && ok || bad "big-endian" "$(cat "$T/out")"

# ---- -f state and merge ---------------------------------------------------------

# shards of a stream, their states merged in any grouping and order: the
# bytes of one run over the stream (text and json)
shards() {	# NAME FILE RECORD_BYTES OPTS...
	name=$1 f=$2 rs=$3
	shift 3
	size=$(wc -c < "$f")
	a=$(( size / rs / 3 * rs )) b=$(( size / rs / 2 * rs ))
	head -c "$a" "$f" > "$T/sh1"
	tail -c +$((a + 1)) "$f" | head -c $((b - a)) > "$T/sh2"
	tail -c +$((b + 1)) "$f" > "$T/sh3"
	for i in 1 2 3; do
		"$G" hist "$@" -q -f state -o "$T/sh$i.st" "$T/sh$i" 2> "$T/err" ||
			{ bad "$name" "state $i: $(head -n 1 "$T/err")"; return; }
	done
	for fmt in text json; do
		"$G" hist "$@" -q -f $fmt "$T/sh1" "$T/sh2" "$T/sh3" > "$T/one"
		"$G" merge -q -f $fmt "$T/sh3.st" "$T/sh1.st" "$T/sh2.st" > "$T/m1"
		"$G" merge -f state "$T/sh2.st" "$T/sh3.st" > "$T/sh23.st"
		"$G" merge -q -f $fmt "$T/sh23.st" "$T/sh1.st" > "$T/m2"
		if [ -s "$T/one" ] && cmp -s "$T/one" "$T/m1" && cmp -s "$T/one" "$T/m2"; then
			ok
		else
			bad "$name ($fmt)" "merged states differ from one run"
		fi
	done
}
shards state_f32 "$T/vw.f32" 8 -t f32 -c 2 --weights 2 --bins 1000 --range 0:1
shards state_weight_first "$T/vw.f32" 8 -t f32 -c 2 --weights 1 --bins 7 \
	--range -1e3:1e3
shards state_bincount "$T/vw.u8i32" 5 -t u8,i32 --weights 2
"$G" hist -t f32 -c 2 -F 1 --bins 1000 --range 0:1 -f state -o "$T/counts.st" "$T/sh1"
"$G" hist -t f32 -c 2 --weights 2 --bins 1000 --range 0:1 -f state -o "$T/w.st" "$T/sh1"
"$G" merge "$T/counts.st" "$T/w.st" > "$T/out" 2> "$T/err"
rc=$?
[ $rc -eq 1 ] && [ ! -s "$T/out" ] && grep -q 'operation histw, not hist' "$T/err" && ok ||
	bad "merge counts with sums" "exit $rc: $(cat "$T/err")"
"$G" hist -t u8,i32 --weights 2 -f state -o "$T/i.st" "$T/small.u8i32"
"$G" hist -t u8,u32 --weights 2 -f state -o "$T/u.st" "$T/small.u8i32"
"$G" merge "$T/i.st" "$T/u.st" > "$T/out" 2> "$T/err"
rc=$?
[ $rc -eq 1 ] && [ ! -s "$T/out" ] && grep -q 'type u8,u32, not u8,i32' "$T/err" && ok ||
	bad "merge weights of two types" "exit $rc: $(cat "$T/err")"

# ---- usage errors -------------------------------------------------------------

usage() {	# NAME WORDS OPTS...: exit 2, one line naming WORDS, no stdout
	name=$1 words=$2
	shift 2
	"$G" hist "$@" > "$T/out" 2> "$T/err"
	rc=$?
	if [ $rc -eq 2 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" -eq 1 ] &&
	   grep -q "^gpustat: .*$words" "$T/err"; then
		ok
	else
		bad "$name" "exit $rc: $(head -n 2 "$T/err" | tr '\n' '|')"
	fi
}
usage state_no_range 'needs --range' -t f64 -c 2 --weights 2 -f state "$T/t.txt"
usage density_state '--density does not go with -f state' -t f64 --density --range 0:1 -f state "$T/t.txt"
usage gpu_algorithm 'no --algorithm of its own' -t f64 -c 2 --weights 2 --range 0:1 --algorithm sort "$T/t.txt"
# --backend cuda: the CPU's bytes (cuda/histw_kernels.cu), or, with no GPU or
# no CUDA in this build, one line and exit 1 (bench/histw_gpu_check.sh
# compares them on a GPU)
"$G" hist -t f64 -c 2 --weights 2 --range 0:1 --backend cuda "$T/t.txt" > "$T/out" 2> "$T/err"
rc=$?
if [ $rc = 0 ]; then
	"$G" hist -t f64 -c 2 --weights 2 --range 0:1 --backend cpu "$T/t.txt" |
		cmp -s - "$T/out" && ok || bad cuda "not the CPU's result"
else
	[ $rc = 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" = 1 ] && ok ||
		bad cuda "exit $rc: $(cat "$T/err")"
fi
usage plot '--plot draws counts' -t f64 -c 2 --weights 2 --range 0:1 --plot "$T/t.txt"
usage one_column 'a value and its weight' -t f64 --weights 1 --range 0:1 "$T/t.txt"
usage past_width 'column 3 is past' -t f64 -c 2 --weights 3 --range 0:1 "$T/t.txt"
usage zero "not '0'" -t f64 -c 2 --weights 0 --range 0:1 "$T/t.txt"
usage list 'one column' -t f64 -c 2 --weights 1,2 --range 0:1 "$T/t.txt"
usage name_without_header 'needs --header' -t f64 -c 2 --weights w --range 0:1 "$T/t.txt"
usage two_value_types 'different types' -t u8,i16,f32 --weights 3 "$T/vw.u8i32"
usage per_file_mixed 'records of mixed types' -t u8,i32 --weights 2 --per-file \
	"$T/small.u8i32" "$T/small.u8i32"
usage mixed_without_weights 'values and --weights' -t u8,i32 "$T/vw.u8i32"

summary
