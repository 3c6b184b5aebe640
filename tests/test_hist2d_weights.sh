#!/bin/sh
# test_hist2d_weights.sh - hist2d --weights COL and --density:
#  - each bin's sum against math.fsum / Fraction of its weights, bit for
#    bit, and against numpy.histogram2d(weights=w) and (density=True)
#    (tests/hist2d_w_ref.py, python alone: numpy's answers as
#    tests/np_ref.py computes them, cross-checked against numpy itself
#    where python3 has it);
#  - the same bytes for every --chunk-size and -j, from a pipe (spilled for
#    the range pass) as from the file, with bins whose exact sums widen
#    (weights 2^2000 apart in one bin);
#  - -f state of shards merged in any order and grouping (and a merge of a
#    merge, --per-file states): the bytes of one run, float and integer
#    weights; states of another weight type refused;
#  - --per-file's total is the run over both operands;
#  - usage errors in one line: images, --density with -f state, too few
#    columns, --algorithm; --backend cuda the CPU's bytes where it runs.
#
# Usage: sh tests/test_hist2d_weights.sh   (GPUSTAT=path overrides ./gpustat)
cd "$(dirname "$0")/.." || exit 2
NAME=hist2d_weights
. tests/lib.sh

# ---- the references ---------------------------------------------------------

for part in exact numpy; do
	reference tests/hist2d_w_ref.py "$part" 15
done

# ---- every chunking gives the same bytes --------------------------------------

# 300k records (x, y, w) of f64: a blob, uniform noise; weights of every
# scale, and in bin (0, 0) of 16 x 16 over 0:1 terms 2^2000 apart
python3 - "$T/p.f64" "$T/p.i64" <<'PY'
import random, struct, sys
random.seed(4)
out, iout = bytearray(), bytearray()
for i in range(300000):
    if random.random() < 0.6:
        x, y = random.gauss(0.5, 0.15), random.gauss(0.4, 0.2)
    else:
        x, y = random.uniform(-0.1, 1.1), random.uniform(0, 1)
    w = random.choice([random.gauss(0, 1), 1e300 * random.random(),
                       -1e-300 * random.random(), 0.1, -0.0])
    if i % 1000 == 0:
        x, y = 0.01, 0.01
        w = random.choice([1e300, -1e300, 1e-300, 3.0])
    out += struct.pack("<ddd", x, y, w)
    iout += struct.pack("<qqq", int(x * 100), int(y * 100),
                        random.choice([2**63 - 1, -2**63, 12345]))
open(sys.argv[1], "wb").write(out)
open(sys.argv[2], "wb").write(iout)
PY
# (the i64 sums pass 2^63: json, which writes their digits)
for t in f64 i64; do
	f=npy
	[ $t = i64 ] && f=json
	"$G" hist2d -q -t $t --weights 3 --bins 16 "$T/p.$t" -f $f > "$T/ref.$t" ||
		bad "chunks_$t" "no reference run"
	for args in "--chunk-size 64K" "--chunk-size 1M -j 1" "--chunk-size 200K -j 2" \
		    "-j 3 --chunk-size 96K"; do
		# shellcheck disable=SC2086
		"$G" hist2d -q -t $t --weights 3 --bins 16 $args "$T/p.$t" -f $f > "$T/o" &&
			cmp -s "$T/o" "$T/ref.$t" && ok || bad "chunks_$t $args" "differs"
	done
	cat "$T/p.$t" | "$G" hist2d -q -t $t --weights 3 --bins 16 -f $f \
		--chunk-size 64K > "$T/o" &&
		cmp -s "$T/o" "$T/ref.$t" && ok || bad "pipe_$t" "differs from the file"
done
grep -q '[0-9]\{20\}' "$T/ref.i64" && ok || bad i64_digits "no sum past 2^63"

# ---- -f state and merge -----------------------------------------------------------

for t in f64 i64; do
	dd if="$T/p.$t" of="$T/s1" bs=24 count=70000 2> /dev/null
	dd if="$T/p.$t" of="$T/s2" bs=24 skip=70000 count=130001 2> /dev/null
	dd if="$T/p.$t" of="$T/s3" bs=24 skip=200001 2> /dev/null
	R="-t $t --weights 3 --bins 16,9 --range 0:1,0:0.9"
	for s in s1 s2 s3; do
		# shellcheck disable=SC2086
		"$G" hist2d $R -f state -o "$T/$s.st" -j 2 "$T/$s" || bad "state_$t" "$s: no state"
	done
	fa=npy
	[ $t = i64 ] && fa=json
	for f in text json $fa csv; do
		# shellcheck disable=SC2086
		"$G" hist2d -q $R -f $f "$T/p.$t" > "$T/want.$f"
		"$G" merge -q -f $f "$T/s3.st" "$T/s1.st" "$T/s2.st" > "$T/out.$f" &&
			cmp -s "$T/out.$f" "$T/want.$f" && ok ||
			bad "merge_${t}_$f" "differs from one run over the shards"
	done
	"$G" merge -f state "$T/s2.st" "$T/s3.st" > "$T/s23.st" &&
		cat "$T/s23.st" "$T/s1.st" | "$G" merge -q -f $fa > "$T/out" &&
		cmp -s "$T/out" "$T/want.$fa" && ok || bad "merge_of_merge_$t" "differs"
	# shellcheck disable=SC2086
	"$G" hist2d $R --per-file -f state "$T/s1" "$T/s2" "$T/s3" > "$T/all.st" &&
		"$G" merge -q -f $fa "$T/all.st" > "$T/out" &&
		cmp -s "$T/out" "$T/want.$fa" && ok || bad "per_file_state_$t" "differs"
	# one run's state is the merge's: the same bytes
	# shellcheck disable=SC2086
	"$G" hist2d $R -f state "$T/p.$t" > "$T/one.st" &&
		"$G" merge -f state "$T/s1.st" "$T/s3.st" "$T/s2.st" | cmp -s - "$T/one.st" &&
		ok || bad "state_bytes_$t" "a merge's state is not one run's"
	cp "$T/s1.st" "$T/s1.$t.st"
done
grep -a -q '^operation hist2dw$' "$T/s1.f64.st" && grep -a -q '^type f64,f64,f64$' "$T/s1.f64.st" &&
	ok || bad state_header "$(head -c 300 "$T/s1.f64.st")"
# float and integer weights do not merge; nor weights and counts
"$G" merge "$T/s1.f64.st" "$T/s1.i64.st" > "$T/out" 2> "$T/err"
[ $? = 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" = 1 ] && ok ||
	bad merge_types "$(cat "$T/err")"
"$G" hist2d -t f64 -c 3 --bins 16,9 --range 0:1,0:0.9 -f state "$T/s1" > "$T/c.st"
"$G" merge "$T/s1.f64.st" "$T/c.st" > "$T/out" 2> "$T/err"
[ $? = 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" = 1 ] && ok ||
	bad merge_counts "$(cat "$T/err")"
# a payload cut short is refused in one line
head -c -40 "$T/s1.f64.st" > "$T/x.st"
"$G" merge "$T/x.st" > "$T/out" 2> "$T/err"
[ $? = 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" = 1 ] && ok ||
	bad state_cut "$(cat "$T/err")"

# ---- the table, --per-file ---------------------------------------------------

printf '0 0 1.5\n0 0 2\n1 0 -4\n3 2 0.25\nnan 1 5\n9 1 6\n' > "$T/pts.txt"
"$G" hist2d --text --weights 3 --bins 2,3 --range 0:3 --nonzero -f csv "$T/pts.txt" \
	2> "$T/err" > "$T/out"
printf 'xbin,ybin,sum\n0,0,-0.5\n1,2,0.25\n' | cmp -s - "$T/out" && ok ||
	bad table "$(cat "$T/out")"
grep -q '^gpustat: note: records in no bin: 1 outside the range, 1 with a nan$' "$T/err" &&
	ok || bad note "$(cat "$T/err")"
printf '0 0 1\n1 1 2\n' > "$T/p1.txt"
printf '2 2 3\n0.5 0.5 4\n' > "$T/p2.txt"
for r in "" "--range 0:2"; do
	# shellcheck disable=SC2086
	"$G" hist2d --per-file --weights 3 --bins 2 $r "$T/p1.txt" "$T/p2.txt" > "$T/out" &&
		"$G" hist2d --weights 3 --bins 2 $r "$T/p1.txt" "$T/p2.txt" |
		sed 's/$/\ttotal/' > "$T/want" &&
		grep 'total$' "$T/out" | cmp -s - "$T/want" && ok ||
		bad "per_file $r" "the total is not the run over both"
done

# ---- usage errors: one line, exit 2, nothing on stdout ------------------------------

refused() {	# NAME ARGS...: refused with exit 2 in one line
	name=$1
	shift
	"$G" hist2d "$@" > "$T/out" 2> "$T/err" < "$T/pts.txt"
	rc=$?
	if [ "$rc" = 2 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" = 1 ] &&
	   grep -q '^gpustat: ' "$T/err"; then ok
	else bad "$name" "exit $rc, $(wc -c < "$T/out") bytes out: $(cat "$T/err")"; fi
}
refused png_weights --text --weights 3 --range 0:3 -f png
refused pgm_density --text --range 0:3 -f pgm --density
refused density_state --text --weights 3 --range 0:3 -f state --density
refused weights_two_columns --text -c 2 --weights 2 --range 0:3
refused weights_zero --text --weights 0 --range 0:3
refused weights_past --text --weights 4 --range 0:3
refused weights_list --text --weights 2,3 --range 0:3
refused weights_F3 --text -F 1,2,3 --weights 3 --range 0:3
refused weights_algorithm --text --weights 3 --range 0:3 --algorithm shared-atomic
# --backend cuda: the CPU's bytes (cuda/histw_kernels.cu), or, with no GPU
# or no CUDA in this build, one line and exit 1
"$G" hist2d -q --text --weights 3 --bins 2,3 --range 0:3 --backend cuda "$T/pts.txt" > "$T/out" 2> "$T/err"
rc=$?
if [ $rc = 0 ]; then
	"$G" hist2d -q --text --weights 3 --bins 2,3 --range 0:3 --backend cpu "$T/pts.txt" |
		cmp -s - "$T/out" && ok || bad cuda "not the CPU's result"
else
	[ $rc = 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" = 1 ] && ok ||
		bad cuda "exit $rc: $(cat "$T/err")"
fi
# --help names --weights and --density
"$G" hist2d --help | grep -q -- '--weights COL' && "$G" hist2d --help | grep -q -- '--density' &&
	ok || bad help "no --weights or --density in --help"

summary
