#!/bin/sh
# quantile_gpu.sh - quantile, median and mode on a machine with a GPU (the
# CUDA build): every pass of radix select on the GPU (cuda/select_kernels.cu)
# must print --backend cpu's bytes and exit status, then their throughput is
# timed against cat and stats.
#
#   1. per type, in parallel: --backend cuda (default chunks; 1 MiB chunks
#      on 4 streams; odd 65537-byte chunks on 3 streams) and --devices 0,0
#      against --backend cpu, for every method, several q lists, -c 2,
#      median, json, random bits and data of NaNs, infs, zeros, subnormals
#      and repeats; 64-bit types also on data of few values (four histogram
#      passes, no collect: -v counts them); a pipe (spilled) against the
#      file; mode (8/16-bit: the histogram, -c 3 in shared counters; wider:
#      the hash tables, with 2^64 - 1 and INT64_MAX, whose keys mark a free
#      slot on the GPU);
#   2. 301 quantiles of 16 f32 columns (narrow digits, shared counters), a
#      big-endian f64, an empty input, one element; mode of as many
#      distinct u32 as its table holds, and of more (refused on both);
#   3. auto on large files (its choice, and the CPU's bytes) and the
#      hand-over after 1 and 3 chunks (GPUSTAT_AUTO_CPU_CHUNKS);
#   4. seconds for SIZE_MB MiB from the page cache: cat, stats, quantile,
#      median on each backend, a pipe, mode.
#
#   sh tests/gpu/quantile_gpu.sh      (GPUSTAT, DATA=dir, SIZE_MB=4096,
#                                      MIB=48 for part 1, OUT=log dir)
# The last line reads "quantile_gpu: N passed, F failed" (exit 1 if F).
cd "$(dirname "$0")/../.." || exit 2
G=${GPUSTAT:-./gpustat}
D=${DATA:-/dev/shm/gpustat-q}
MB=${SIZE_MB:-4096}
MIB=${MIB:-48}
OUT=${OUT:-/tmp/gpustat-q}
mkdir -p "$D" "$OUT"
TYPES="u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64"
METHODS="linear lower higher midpoint nearest inverted_cdf averaged_inverted_cdf
closest_observation interpolated_inverted_cdf hazen weibull median_unbiased
normal_unbiased"
Q1=0,0.001,0.25,0.5,0.75,0.999,1
gs() { timeout 300 "$G" "$@"; }

# ---- inputs ------------------------------------------------------------------
[ -s "$D/r.bin" ] || head -c $((MIB << 20)) /dev/urandom > "$D/r.bin"
# s.T: 786,432 elements (a whole number of records of 2, 3 and 16
# columns) of edges and repeats; c.T (64-bit): three times as many, of
# three values, two thirds zeros
python3 - "$D" <<'PY'
import array, math, os, random, struct, sys
d = sys.argv[1]
random.seed(18)
n = 3 << 18
def floats():
    v = []
    for i in range(n):
        r = random.random()
        v.append(float("nan") if r < 0.01 else float("inf") if r < 0.02 else
                 -float("inf") if r < 0.03 else 0.0 if r < 0.05 else
                 -0.0 if r < 0.07 else 5e-324 if r < 0.08 else
                 -1e-310 if r < 0.09 else random.choice([1.5, -2.25, 3.0])
                 if r < 0.4 else random.gauss(0, 1) * 10 ** random.randint(-3, 3))
    return v
fl = floats()
def put(name, b):
    if not os.path.exists(name):
        with open(name, "wb") as f:
            f.write(b)
put(d + "/s.f64", array.array("d", fl).tobytes())
f32 = array.array("f", [x if math.isnan(x) or abs(x) < 3e38 else
                        math.copysign(math.inf, x) for x in fl])
put(d + "/s.f32", f32.tobytes())
put(d + "/s.f16", b"".join(struct.pack("<e", x if math.isnan(x) or abs(x) < 65504
                                         else math.copysign(math.inf, x)) for x in fl))
put(d + "/s.bf16", b"".join(struct.pack("<I", u)[2:] for u in
                            array.array("I", f32.tobytes())))
for t, code, bits, signed in (("u8", "B", 8, 0), ("i8", "b", 8, 1),
                              ("u16", "H", 16, 0), ("i16", "h", 16, 1),
                              ("u32", "I", 32, 0), ("i32", "i", 32, 1),
                              ("u64", "Q", 64, 0), ("i64", "q", 64, 1)):
    lo = -(1 << (bits - 1)) if signed else 0
    hi = lo + (1 << bits) - 1
    few = [lo, hi, 0, 1, lo + 1, hi - 1] + [random.randint(lo, hi) for _ in range(3)]
    v = [random.choice(few) if random.random() < 0.6 else random.randint(lo, hi)
         for _ in range(n)]
    put(d + "/s." + t, array.array(code, v).tobytes())
    if bits == 64:
        # two thirds zeros: the median's bucket never gets small
        put(d + "/c." + t, array.array(code, [few[i % 2] if i % 3 == 0 else 0
                                              for i in range(3 * n)]).tobytes())
PY
for t in $TYPES; do ln -sf r.bin "$D/r.$t"; done
: > "$D/empty"
printf '\000\000\300\077' > "$D/one.f32"	# 1.5

# ---- part 1: cuda = cpu ----------------------------------------------------------
# name, args...: each GPU run must print the CPU's bytes with its status
# The GPU splits (one per word, _ for a space); the methods differ only on
# the host, after the same selected elements, so they take the first alone.
ALL_SPLITS="--backend_cuda --backend_cuda_--chunk-size_1M_--streams_4
--backend_cuda_--chunk-size_65537_--streams_3 --devices_0,0_--chunk-size_1M"
SPLITS=$ALL_SPLITS
check() {
	name=$1
	shift
	gs "$@" --backend cpu > "$W/ref" 2> "$W/ref.err"
	rc=$?
	for opt in $SPLITS; do
		opt=$(echo "$opt" | tr _ ' ')
		gs "$@" $opt > "$W/got" 2> "$W/got.err"
		got=$?
		if [ $got -eq $rc ] && cmp -s "$W/ref" "$W/got"; then
			echo "pass $name $opt"
		else
			echo "FAIL $name $opt: exit $got, cpu $rc; $(head -c 300 "$W/got.err")"
			diff "$W/ref" "$W/got" | head -5
		fi
	done
}
type_runs() {
	t=$1
	W=$D/w.$t
	mkdir -p "$W"
	SPLITS=--backend_cuda
	for m in $METHODS; do
		check "quantile $m $t" quantile -q $Q1 --method $m -t $t "$D/r.$t"
		check "quantile $m edges $t" quantile -q $Q1 --method $m -t $t "$D/s.$t"
	done
	SPLITS=$ALL_SPLITS
	for q in 0.5 0,1 0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9 \
		 1e-300,0.3333333333333333,0.9999999 0.99,0.01,0.5,0.99; do
		check "quantile -q $q $t" quantile -q $q -t $t "$D/s.$t"
	done
	check "quantile -c 2 $t" quantile -q $Q1 -c 2 -t $t "$D/s.$t"
	check "quantile -c 2 nearest $t" quantile -q $Q1 -c 2 --method nearest -t $t "$D/r.$t"
	check "median $t" median -t $t "$D/r.$t"
	check "median -c 2 $t" median -c 2 -t $t "$D/s.$t"
	check "quantile json $t" quantile -f json -q $Q1 -t $t "$D/s.$t"
	# a pipe, spilled to $TMPDIR, against the file
	gs quantile -q $Q1 -t $t "$D/s.$t" --backend cpu > "$W/ref" 2> /dev/null
	for opt in "--backend cuda" "--devices 0,0 --chunk-size 1M"; do
		cat "$D/s.$t" | gs quantile -q $Q1 -t $t $opt > "$W/got" 2> "$W/got.err"
		cmp -s "$W/ref" "$W/got" && echo "pass pipe $t $opt" ||
			echo "FAIL pipe $t $opt: $(head -c 300 "$W/got.err")"
	done
	check "mode $t" mode -t $t "$D/r.$t"
	check "mode edges $t" mode -t $t "$D/s.$t"
	check "mode -c 3 $t" mode -c 3 -t $t "$D/s.$t"
	check "mode json $t" mode -f json -t $t "$D/s.$t"
	case $t in
	u64|i64) check "mode few values $t" mode -t $t "$D/c.$t" ;;
	esac
	case $t in
	u64|i64)
		check "quantile few values $t" quantile -q $Q1 -t $t "$D/c.$t"
		n=$(gs quantile -v --backend cuda -q 0.5 -t $t "$D/c.$t" 2>&1 |
		    grep -c "backend: cuda")
		[ "$n" -eq 4 ] && echo "pass four passes $t" ||
			echo "FAIL four passes $t: $n passes on the GPU" ;;
	esac
}
QPARTS=${QPARTS:-1 2 3 4}
qwant() { case " $QPARTS " in *" $1 "*) return 0 ;; esac; return 1; }
qwant 1 && for t in $TYPES; do
	type_runs $t > "$OUT/q.$t.log" 2>&1 &
done
wait

# ---- part 2: narrow digits, byte order, sizes, mode's table limit -------------
W=$D/w.misc
mkdir -p "$W"
qwant 2 && [ -s "$D/x64" ] || head -c $((64 << 20)) /dev/urandom > "$D/x64"
qwant 2 && {
	q301=$(awk 'BEGIN { for (i = 0; i <= 300; i++) printf "%s%.17g", i ? "," : "", i / 300 }')
	check "301 quantiles, 16 columns f32" quantile -q "$q301" -c 16 -t f32 "$D/r.bin"
	check "301 quantiles, 16 columns u64" quantile -q "$q301" -c 16 -t u64 "$D/r.bin"
	check "big-endian f64" quantile -q $Q1 -t '>f8' "$D/s.f64"
	check "empty" quantile -q $Q1 -t f32 "$D/empty"
	check "one element" quantile -q $Q1 -t f32 "$D/one.f32"
	check "median one element" median -t f32 "$D/one.f32"
	check "mode one element" mode -t f32 "$D/one.f32"
	# random u32: as many distinct values as the table holds (48 MiB),
	# then more (64 MiB: refused on both, the same exit status)
	check "mode u32, a full table" mode -t u32 "$D/r.bin"
	check "mode u32, too many values" mode -t u32 "$D/x64"
	check "mode u32 -c 4, too many values" mode -c 4 -t u32 "$D/x64"
} > "$OUT/q.misc.log" 2>&1

# ---- part 3: auto --------------------------------------------------------------
if qwant 3 || qwant 4; then
	[ -s "$D/x.f32" ] || head -c $((MB << 20)) /dev/urandom > "$D/x.f32"
	[ -s "$D/x.f64" ] || ln -sf x.f32 "$D/x.f64"
fi
qwant 3 && {
	for t in f32 f64; do
		gs quantile --backend cpu -q $Q1 -t $t "$D/x.$t" > "$W/ref" 2> /dev/null
		gs quantile -v -q $Q1 -t $t "$D/x.$t" > "$W/got" 2> "$W/got.err"
		echo "note: auto, $MB MiB $t: $(grep 'backend:' "$W/got.err" | head -2 | tr '\n' ' ')"
		cmp -s "$W/ref" "$W/got" && echo "pass auto $t" ||
			echo "FAIL auto $t: $(head -c 300 "$W/got.err")"
		for n in 1 3; do
			GPUSTAT_AUTO_CPU_CHUNKS=$n timeout 300 "$G" quantile -v -q $Q1 \
				--chunk-size 16M -t $t "$D/x.$t" > "$W/got" 2> "$W/got.err"
			cmp -s "$W/ref" "$W/got" && grep -q "cuda: [1-9]" "$W/got.err" &&
				echo "pass auto hand-over after $n $t" ||
				echo "FAIL auto hand-over after $n $t: $(head -c 300 "$W/got.err")"
		done
	done
} > "$OUT/q.auto.log" 2>&1

cat "$OUT"/q.*.log > "$OUT/quantile_gpu.log"
grep '^FAIL' "$OUT/quantile_gpu.log" | cut -c1-300 | head -40
grep '^note' "$OUT/quantile_gpu.log"
pass=$(grep -c '^pass' "$OUT/quantile_gpu.log")
fail=$(grep -c '^FAIL' "$OUT/quantile_gpu.log")

# ---- part 4: throughput: seconds for the file from the page cache ------------------
t() { s=$(date +%s.%N); "$@" > /dev/null 2>&1; e=$(date +%s.%N); awk "BEGIN { printf \"%.3f\", $e - $s }"; }
qwant 4 && for t in f32 f64; do
	cat "$D/x.$t" > /dev/null
	echo "$MB MiB $t: cat $(t cat "$D/x.$t") s, stats $(t "$G" stats -t $t "$D/x.$t") s," \
	     "quantile -q 0.5,0.9,0.99 cpu $(t "$G" quantile --backend cpu -q 0.5,0.9,0.99 -t $t "$D/x.$t") s," \
	     "cuda $(t "$G" quantile --backend cuda -q 0.5,0.9,0.99 -t $t "$D/x.$t") s," \
	     "auto $(t "$G" quantile -q 0.5,0.9,0.99 -t $t "$D/x.$t") s;" \
	     "median cpu $(t "$G" median --backend cpu -t $t "$D/x.$t") s," \
	     "cuda $(t "$G" median --backend cuda -t $t "$D/x.$t") s"
done
qwant 4 && echo "pipe f32: cpu $(t sh -c "cat $D/x.f32 | $G median --backend cpu -t f32") s," \
     "cuda $(t sh -c "cat $D/x.f32 | $G median --backend cuda -t f32") s (spilled to \$TMPDIR)"
qwant 4 && for t in u16 u8; do
	echo "mode $t: cpu $(t "$G" mode --backend cpu -t $t "$D/x.f32") s," \
	     "cuda $(t "$G" mode --backend cuda -t $t "$D/x.f32") s"
done
qwant 4 && echo "mode u32 of $MIB MiB (hash tables): cpu $(t "$G" mode --backend cpu -t u32 "$D/r.bin") s," \
     "cuda $(t "$G" mode --backend cuda -t u32 "$D/r.bin") s"
echo "quantile_gpu: $pass passed, $fail failed (log: $OUT/quantile_gpu.log)"
[ "$fail" -eq 0 ]
