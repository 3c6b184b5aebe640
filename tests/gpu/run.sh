#!/bin/sh
# The GPU suite and benchmark in one run on a machine with a GPU (the device
# machine): gpustat and build/bench_gpu are built beforehand (make all
# bench-gpu) and carried. Logs go to $OUT; a short table is printed last.
#
#   1. every fixture of tests/cases.txt with --backend cuda, byte for byte
#   2. large random inputs of every type: --backend cuda against --backend
#      cpu for every command, several chunk sizes and stream counts
#   3. more than 2^32 elements and 4 GiB (a pipe of zeros)
#   4. compute-sanitizer memcheck and racecheck on a small subset
#   5. bench: kernels against CUB on device data; end to end against cat
cd "$(dirname "$0")/../.." || exit 2
OUT=${OUT:-/tmp/gpustat-gpu}
mkdir -p "$OUT"
D=${DATA:-/dev/shm/gpustat}
mkdir -p "$D"
G=./gpustat
summary=$OUT/summary.txt
: > "$summary"
say() { echo "$*" | tee -a "$summary"; }

nvidia-smi -L > "$OUT/gpu.txt" 2>&1
$G --version > "$OUT/version.txt" 2>&1
say "device: $(head -1 "$OUT/gpu.txt")"

# 1. fixtures
GPUSTAT=tests/gpu/gpustat-cuda sh tests/cli.sh > "$OUT/cli_cuda.log" 2>&1
say "fixtures on the GPU: $(tail -1 "$OUT/cli_cuda.log")"

# 2. random data, cuda vs cpu
MIB=${MIB:-256}
for t in u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64; do
	build/bench_kernels --gen $t "$MIB" > "$D/r.$t"
done
build/bench_kernels --gen f32 "$MIB" > "$D/r2.f32"
pass=0
fail=0
cmp_run() {	# name, args...: cuda (several splits) must equal cpu
	name=$1
	shift
	$G "$@" --backend cpu > "$D/ref" 2> "$D/ref.err"
	rc=$?
	for opt in "--chunk-size 64M --streams 2" "--chunk-size 1M --streams 4" \
		   "--chunk-size 7340033 --streams 1" "--chunk-size 256M --streams 3"; do
		$G "$@" --backend cuda $opt > "$D/got" 2> "$D/got.err"
		if [ $? -eq $rc ] && cmp -s "$D/ref" "$D/got"; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1))
			echo "FAIL $name $opt: $(head -c 300 "$D/got.err")" >> "$OUT/random.log"
			diff "$D/ref" "$D/got" | head -5 >> "$OUT/random.log"
		fi
	done
}
for t in u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64; do
	f=$D/r.$t
	cmp_run "sum $t" sum -t $t "$f"
	cmp_run "sum -c3 $t" sum -t $t -c 4 "$f"
	cmp_run "stats $t" stats -t $t "$f"
	cmp_run "stats -c2 $t" stats -t $t -c 2 "$f"
	cmp_run "dot --pairs $t" dot --pairs -t $t "$f"
	cmp_run "dot A B $t" dot -t $t "$f" "$f"
	cmp_run "reduce min $t" reduce --op min -t $t "$f"
	cmp_run "reduce max $t" reduce --op max -t $t "$f"
	cmp_run "hist ranged $t" hist -q -t $t --bins 1000 --range -1e4:1e4 "$f"
	cmp_run "hist auto-range $t" hist -q -t $t "$f"
	case $t in
	u8|i8|u16|i16) cmp_run "hist $t" hist -t $t "$f"
		       cmp_run "hist -c3 $t" hist -t $t -c 3 "$f" ;;
	f32|f64) ;;
	*) cmp_run "reduce xor $t" reduce --op xor -t $t "$f"
	   cmp_run "reduce and $t" reduce --op and -t $t "$f" ;;
	esac
done
cmp_run "dot A B f32 two files" dot "$D/r.f32" "$D/r2.f32"
cmp_run "sum big-endian f32" sum -t '>f4' "$D/r.f32"
cmp_run "stats big-endian i16" stats -t '>i2' "$D/r.i16"
say "random data, cuda = cpu: $pass passed, $fail failed"

# 3. beyond 2^32 elements and 4 GiB, through a pipe
n=$((5 * 1024 * 1024 * 1024))
got=$(head -c $n /dev/zero | $G hist --backend cuda | head -1)
[ "$got" = "$(printf '0\t%s' $n)" ] && r=ok || r="FAIL: $got"
say "hist of 5 GiB of zeros (pipe): $r"
got=$(head -c $n /dev/zero | $G stats -t u8 --backend cuda | head -1)
say "stats count of 5 GiB u8: $got"

# 4. sanitizers on small inputs
if command -v compute-sanitizer >/dev/null 2>&1; then
	for tool in memcheck racecheck; do
		for args in "sum -t f32 fixtures/in/f32_mod.bin" "stats -t f64 -c 3 $D/r.f64" \
			    "hist -t u8 $D/r.u8" "hist -t f32 --bins 50 --range -1:1 $D/r.f32" \
			    "dot -t f64 $D/r.f64 $D/r.f64" "reduce --op max -t i16 $D/r.i16"; do
			compute-sanitizer --tool $tool --error-exitcode 9 $G $args --backend cuda \
				--chunk-size 4M > /dev/null 2>> "$OUT/sanitizer.log"
			echo "$tool $args: exit $?" >> "$OUT/sanitizer.log"
		done
	done
	say "compute-sanitizer: $(grep -c 'exit 0$' "$OUT/sanitizer.log") clean, $(grep -c 'exit [1-9]' "$OUT/sanitizer.log") not"
else
	say "compute-sanitizer: not found"
fi

# 5. bench
build/bench_gpu 1024 > "$OUT/bench_gpu.txt" 2>&1
sh bench/bench_e2e.sh "$D" > "$OUT/bench_e2e.txt" 2>&1
rm -rf "$D"
echo
cat "$OUT/bench_gpu.txt"
echo
cat "$OUT/bench_e2e.txt"
echo
cat "$summary"
