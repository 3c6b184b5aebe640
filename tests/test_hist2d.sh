#!/bin/sh
# test_hist2d.sh - hist2d, numpy.histogram2d of two columns:
#  - counts, edges, range, npy and --xedges/--yedges against numpy's
#    histogram2d (tests/hist2d_ref.py numpy: tests/np_ref.py with python
#    alone, numpy itself too where python3 has it; numpy's answers for small
#    cases are kept in fixtures/hist2d and checked everywhere): values on edges
#    and at the range's ends, NaN/inf with a given range, f16/f32/f64 and
#    integer data, lo == hi, 1 bin, non-square bins, repeated f16 edges,
#    empty input, NaN/inf without a range refused, text with -c 3 -F 1,3;
#  - -f png and pgm read back with zlib alone (tests/hist2d_ref.py image):
#    chunks, CRCs, rows, and each pixel against the counts under --norm, at
#    8 and 16 bits (--depth);
#  - the same bytes for every --chunk-size and -j, a pipe (spilled for the
#    range pass) as the file, -c 3 as its first two columns;
#  - the table's rows, --nonzero, the note of records in no bin;
#  - -f state of shards (-c 3 -F 3,1 and a pipe among them, --per-file)
#    merged in any order and grouping: the bytes of one run in every
#    format; states of other bins, ranges or types refused in one line;
#  - usage errors (-f state without --range) refused in one line;
#    --backend cuda the CPU's bytes where it runs.
#
# Usage: sh tests/test_hist2d.sh   (GPUSTAT=path overrides ./gpustat)
cd "$(dirname "$0")/.." || exit 2
NAME=hist2d
. tests/lib.sh

# ---- the references ---------------------------------------------------------

# numpy's answers as tests/np_ref.py computes them (cross-checked against
# numpy itself where python3 has it), and numpy's own answers kept in
# fixtures/hist2d, against gpustat and np_ref alike
refs="numpy fixtures image"
for part in $refs; do
	reference tests/hist2d_ref.py "$part" 7
done

# ---- every chunking gives the same bytes --------------------------------------

# 600k points of f32 (4.8 MB): a blob, a line and uniform noise
python3 - "$T/p.f32" <<'PY'
import math, random, struct, sys
random.seed(3)
out = bytearray()
for i in range(600000):
    r = random.random()
    if r < 0.5:
        x, y = random.gauss(0, 1), random.gauss(0.5, 0.3)
    elif r < 0.7:
        x = random.uniform(-3, 3); y = 0.25 * x
    else:
        x, y = random.uniform(-4, 4), random.uniform(-2, 3)
    out += struct.pack("<ff", x, y)
open(sys.argv[1], "wb").write(out)
PY
"$G" hist2d --bins 97,61 "$T/p.f32" -f npy > "$T/ref.npy" || bad chunks "no reference run"
for args in "--chunk-size 64K" "--chunk-size 1M -j 1" "--chunk-size 200K -j 2" \
	    "-j 1" "--backend cpu -j 3 --chunk-size 1000000"; do
	# shellcheck disable=SC2086
	"$G" hist2d --bins 97,61 $args "$T/p.f32" -f npy > "$T/o.npy" &&
		cmp -s "$T/o.npy" "$T/ref.npy" && ok || bad "chunks $args" "differs"
done
# a pipe: the range pass reads the input spilled to $TMPDIR
cat "$T/p.f32" | "$G" hist2d --bins 97,61 -f npy --chunk-size 64K > "$T/o.npy" &&
	cmp -s "$T/o.npy" "$T/ref.npy" && ok || bad pipe "differs from the file"
# a given range: the same, from a pipe too; png the same bytes each time
"$G" hist2d -q --bins 256 --range -4:4,-2:3 "$T/p.f32" -f png > "$T/ref.png"
cat "$T/p.f32" | "$G" hist2d -q --bins 256 --range -4:4,-2:3 -f png -j 2 \
	--chunk-size 128K > "$T/o.png" &&
	cmp -s "$T/o.png" "$T/ref.png" && ok || bad pipe_png "differs"
# -c 3: x and y are the first two columns, the third is not read
python3 - "$T/p.f32" "$T/p3.f32" <<'PY'
import sys
a = open(sys.argv[1], "rb").read()
out = bytearray()
for i in range(0, len(a), 8):
    out += a[i:i + 8] + b"\x00\x00\xc0\x7f"	# a NaN third column
open(sys.argv[2], "wb").write(out)
PY
"$G" hist2d -c 3 --bins 97,61 "$T/p3.f32" -f npy > "$T/o.npy" &&
	cmp -s "$T/o.npy" "$T/ref.npy" && ok || bad columns3 "differs from -c 2"
"$G" hist2d -c 3 -F 2,1 --bins 61,97 "$T/p3.f32" -f npy > "$T/o.npy" &&
	"$G" hist2d --bins 61,97 -f npy "$T/p.f32" > "$T/o2.npy" &&
	! cmp -s "$T/o.npy" "$T/o2.npy" && ok || bad fields_swap "-F 2,1 did not swap x and y"

# the same points as .npy of shape (N, 2), as big-endian f32, and as bf16
# of values bf16 holds exactly (their f32's histogram: numpy has no bf16)
python3 - "$T" <<'PY'
import struct, sys
t = sys.argv[1]
a = open(t + "/p.f32", "rb").read()
n = len(a) // 4
v = struct.unpack("<%df" % n, a)
hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, 2), }" % (n // 2)
hdr += " " * (118 - len(hdr)) + "\n"
open(t + "/p.npy", "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode() + a)
open(t + "/p.be", "wb").write(struct.pack(">%df" % n, *v))
bits = [x & 0xffff0000 for x in struct.unpack("<%dI" % n, a)]
open(t + "/q.f32", "wb").write(struct.pack("<%dI" % n, *bits))
open(t + "/q.bf16", "wb").write(struct.pack("<%dH" % n, *[x >> 16 for x in bits]))
PY
"$G" hist2d --bins 97,61 "$T/p.npy" -f npy | cmp -s - "$T/ref.npy" && ok || bad npy_input "differs from raw"
"$G" hist2d --bins 97,61 -t '>f4' "$T/p.be" -f npy | cmp -s - "$T/ref.npy" && ok || bad big_endian "differs from little"
"$G" hist2d --bins 33,17 -t f32 "$T/q.f32" -f json | sed 's/"type":"f32"/"type":"bf16"/' > "$T/want"
"$G" hist2d --bins 33,17 -t bf16 "$T/q.bf16" -f json | cmp -s - "$T/want" && ok || bad bf16 "not its f32's histogram"

# ---- the table ------------------------------------------------------------------

# (x, y): (0, 0) twice, (1, 0), (3, 2); bins 2 x 3 over 0:3 each; one NaN, one out
printf '0 0\n0 0\n1 0\n3 2\nnan 1\n9 1\n' > "$T/pts.txt"
"$G" hist2d --text --bins 2,3 --range 0:3 "$T/pts.txt" > "$T/out" 2> "$T/err"
printf '0\t0\t3\n0\t1\t0\n0\t2\t0\n1\t0\t0\n1\t1\t0\n1\t2\t1\n' | cmp -s - "$T/out" &&
	ok || bad table "$(cat "$T/out")"
grep -q '^gpustat: note: records in no bin: 1 outside the range, 1 with a nan$' "$T/err" &&
	ok || bad note "$(cat "$T/err")"
"$G" hist2d --text --bins 2,3 --range 0:3 --nonzero -f csv "$T/pts.txt" 2> /dev/null > "$T/out"
printf 'xbin,ybin,count\n0,0,3\n1,2,1\n' | cmp -s - "$T/out" && ok || bad nonzero_csv "$(cat "$T/out")"
"$G" hist2d -q --text --bins 2,3 --range 0:3 "$T/pts.txt" 2> "$T/err" > /dev/null
[ ! -s "$T/err" ] && ok || bad quiet "-q printed the note"
# a pgm reads back as 16-bit data: 4 x 2 pixels
"$G" hist2d --text --bins 4,2 --range 0:3 "$T/pts.txt" -f pgm 2> /dev/null |
	"$G" count > "$T/out" && [ "$(cut -f1 "$T/out")" = 8 ] && ok ||
	bad pgm_reads "$(cat "$T/out")"

# --per-file: each operand, then the total, which is the run over both
printf '0 0\n1 1\n' > "$T/p1.txt"
printf '2 2\n0.5 0.5\n' > "$T/p2.txt"
for r in "" "--range 0:2"; do
	# shellcheck disable=SC2086
	"$G" hist2d --per-file --bins 2 $r "$T/p1.txt" "$T/p2.txt" > "$T/out" &&
		"$G" hist2d --bins 2 $r "$T/p1.txt" "$T/p2.txt" | sed 's/$/\ttotal/' > "$T/want" &&
		grep 'total$' "$T/out" | cmp -s - "$T/want" && ok ||
		bad "per_file $r" "the total is not the run over both"
done

# ---- -f state and merge -----------------------------------------------------------

# p.f32 in three shards of whole records (8 bytes): their states merged, in
# any order and grouping, print what one run over p.f32 prints
dd if="$T/p.f32" of="$T/s1" bs=8 count=100000 2> /dev/null
dd if="$T/p.f32" of="$T/s2" bs=8 skip=100000 count=250001 2> /dev/null
dd if="$T/p.f32" of="$T/s3" bs=8 skip=350001 2> /dev/null
R="--bins 97,61 --range -4:4,-2:3 -t f32"
for s in s1 s2 s3; do
	# shellcheck disable=SC2086
	"$G" hist2d $R -f state -o "$T/$s.st" "$T/$s" || bad state "$s: no state"
done
for f in text json npy png; do
	# shellcheck disable=SC2086
	"$G" hist2d -q $R -f $f "$T/p.f32" > "$T/want.$f"
	"$G" merge -q -f $f "$T/s3.st" "$T/s1.st" "$T/s2.st" > "$T/out.$f" &&
		cmp -s "$T/out.$f" "$T/want.$f" && ok ||
		bad "merge_$f" "differs from one run over the shards"
done
# a merge of a merge, states one after another on stdin
"$G" merge -f state "$T/s2.st" "$T/s3.st" > "$T/s23.st" &&
	cat "$T/s23.st" "$T/s1.st" | "$G" merge -q -f npy > "$T/out.npy" &&
	cmp -s "$T/out.npy" "$T/want.npy" && ok || bad merge_of_merge "differs"
# the header names both axes: x's bins and range, then y's
grep -a -q '^ybins 61$' "$T/s1.st" && grep -a -q '^yhi 0x1.8p+1$' "$T/s1.st" &&
	ok || bad state_header "$(head -c 300 "$T/s1.st")"
# -c 3 -F 3,1 and a pipe: the state of what the run reads
python3 - "$T/s1" "$T/s1c3" <<'PY'
import sys
a = open(sys.argv[1], "rb").read()
open(sys.argv[2], "wb").write(b"".join(a[i + 4:i + 8] + b"\0\0\0\0" + a[i:i + 4]
                                       for i in range(0, len(a), 8)))
PY
# shellcheck disable=SC2086
cat "$T/s1c3" | "$G" hist2d $R -c 3 -F 3,1 -f state > "$T/s1b.st" &&
	"$G" merge -q -f npy "$T/s1b.st" "$T/s2.st" "$T/s3.st" > "$T/out.npy" &&
	cmp -s "$T/out.npy" "$T/want.npy" && ok || bad state_fields "differs"
# --per-file -f state: each operand's state, which merge adds up
# shellcheck disable=SC2086
"$G" hist2d $R --per-file -f state "$T/s1" "$T/s2" "$T/s3" > "$T/all.st" &&
	"$G" merge -q -f npy "$T/all.st" > "$T/out.npy" &&
	cmp -s "$T/out.npy" "$T/want.npy" && ok || bad per_file_state "differs"
# merge --per-file: each state's result, then the total
"$G" merge -q --per-file -f json "$T/s1.st" "$T/s2.st" > "$T/out" &&
	# shellcheck disable=SC2086
	"$G" hist2d -q $R --per-file -f json "$T/s1" "$T/s2" |
	sed "s|$T/s\([12]\)\"|$T/s\1.st\"|" | cmp -s - "$T/out" && ok ||
	bad merge_per_file "$(head -c 200 "$T/out")"
# states of other bins or ranges do not merge: one line naming the key
merge_refused() {	# NAME KEY ARGS...: a state of ARGS does not merge with s1's
	name=$1 key=$2
	shift 2
	"$G" hist2d -t f32 "$@" -f state -o "$T/x.st" "$T/s2" || bad "$name" "no state"
	"$G" merge "$T/s1.st" "$T/x.st" > "$T/out" 2> "$T/err"
	rc=$?
	if [ "$rc" = 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" = 1 ] &&
	   grep -q "^gpustat: $T/x.st: cannot merge with $T/s1.st: $key " "$T/err"; then ok
	else bad "$name" "exit $rc: $(cat "$T/err")"; fi
}
merge_refused merge_xbins bins --bins 96,61 --range -4:4,-2:3
merge_refused merge_ybins ybins --bins 97,60 --range -4:4,-2:3
merge_refused merge_xrange lo --bins 97,61 --range -5:4,-2:3
merge_refused merge_yrange yhi --bins 97,61 --range -4:4,-2:4
merge_refused merge_type type --bins 97,61 --range -4:4,-2:3 -t i32
# a state whose header was edited to impossible bins is refused
sed '0,/^ybins 61$/s//ybins 0/' "$T/s1.st" > "$T/x.st" 2> /dev/null
"$G" merge "$T/x.st" > "$T/out" 2> "$T/err"
[ $? = 1 ] && [ ! -s "$T/out" ] && grep -q 'no hist2d has bins 97 by 0' "$T/err" &&
	ok || bad state_bad_bins "$(cat "$T/err")"

# ---- usage errors: one line, exit 2, nothing on stdout ---------------------------------

refused() {	# NAME STATUS ARGS...: refused with STATUS in one line
	name=$1 want=$2
	shift 2
	"$G" hist2d "$@" > "$T/out" 2> "$T/err" < "$T/pts.txt"
	rc=$?
	if [ "$rc" = "$want" ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" = 1 ] &&
	   grep -q '^gpustat: ' "$T/err"; then ok
	else bad "$name" "exit $rc, $(wc -c < "$T/out") bytes out: $(cat "$T/err")"; fi
}
refused bins0 2 --text --bins 0 --range 0:1
refused bins_word 2 --text --bins 3,x --range 0:1
refused bins_huge 2 --text --bins 100000,100000 --range 0:1
refused range_backwards 2 --text --range 1:0
refused range_y_backwards 2 --text --range 0:1,2:1
refused range_inf 2 --text --range 0:inf
refused norm_text 2 --text --range 0:1 --norm log
refused norm_word 2 --text --range 0:1 -f png --norm sqrt
refused depth_text 2 --text --range 0:1 --depth 16
refused depth_word 2 --text --range 0:1 -f png --depth 12
refused nonzero_npy 2 --text --range 0:1 --nonzero -f npy
refused nonzero_png 2 --text --range 0:1 --nonzero -f png
refused state_no_range 2 --text -f state
refused state_xedges 2 --text --range 0:1 -f state --xedges "$T/e"
refused state_yedges 2 --text --range 0:1 -f state --yedges "$T/e"
refused one_column 2 --text -c 1 --range 0:1
refused three_fields 2 --text -c 3 -F 1,2,3 --range 0:1
refused xedges_output 2 --text --range 0:1 --xedges - 
refused same_edges 2 --text --range 0:1 --xedges "$T/e" --yedges "$T/e"
refused per_file_png 2 --text --range 0:1 --per-file -f png "$T/pts.txt"
# --backend cuda: the CPU's bytes, or (no GPU, no CUDA in this build) one
# line and exit 1 (bench/hist2d_gpu_check.sh compares them on a GPU)
"$G" hist2d --text --bins 2,3 --range 0:3 -q --backend cuda "$T/pts.txt" > "$T/out" 2> "$T/err"
rc=$?
if [ $rc = 0 ]; then
	"$G" hist2d --text --bins 2,3 --range 0:3 -q --backend cpu "$T/pts.txt" |
		cmp -s - "$T/out" && ok || bad cuda "not the CPU's result"
else
	[ $rc = 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" = 1 ] && ok ||
		bad cuda "exit $rc: $(cat "$T/err")"
fi
# --backend auto runs it on the CPU
"$G" hist2d --text --bins 2,3 --range 0:3 -q "$T/pts.txt" > "$T/out" &&
	"$G" hist2d --text --bins 2,3 --range 0:3 -q --backend cpu "$T/pts.txt" |
	cmp -s - "$T/out" && ok || bad auto "not the CPU's result"
# --help names the columns of the table
"$G" hist2d --help | grep -q 'x bin, y bin' && ok || bad help "no columns in --help"

summary
