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

# 1. fixtures, in 8 parallel runs (each gpustat run starts a CUDA context,
# a third of a second, so one serial run would take many minutes)
i=0
[ -n "${SKIP_FIXTURES:-}" ] || for pat in 's[a-s]*' 's[t-z]*' 'r*' 'f*' 'h*' 'd*' '[abcegu]*' '[ijklmnopqtvwxyz#]*'; do
	i=$((i + 1))
	GPUSTAT=tests/gpu/gpustat-cuda sh tests/cli.sh "$pat" > "$OUT/cli_cuda.$i.log" 2>&1 &
done
wait
cat "$OUT"/cli_cuda.*.log > "$OUT/cli_cuda.log"
say "fixtures on the GPU: $(awk '/^cli: / { p += $2; f += $4 } END { printf "%d passed, %d failed", p, f }' "$OUT/cli_cuda.log")"

# 2. random data, cuda vs cpu: one job per type, in parallel
MIB=${MIB:-256}
for t in u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64; do
	build/bench_kernels --gen $t "$MIB" > "$D/r.$t" &
done
build/bench_kernels --gen f32 "$MIB" > "$D/r2.f32" &
wait
cmp_run() {	# name, args...: cuda (several splits) must equal cpu
	name=$1
	shift
	$G "$@" --backend cpu > "$W/ref" 2> "$W/ref.err"
	rc=$?
	for opt in "--chunk-size 64M --streams 2" "--chunk-size 1M --streams 4" \
		   "--chunk-size 7340033 --streams 1"; do
		$G "$@" --backend cuda $opt > "$W/got" 2> "$W/got.err"
		if [ $? -eq $rc ] && cmp -s "$W/ref" "$W/got"; then
			echo "pass $name $opt"
		else
			echo "FAIL $name $opt: $(head -c 300 "$W/got.err")"
			diff "$W/ref" "$W/got" | head -5
		fi
	done
}
type_runs() {
	t=$1
	f=$D/r.$t
	W=$D/w.$t
	mkdir -p "$W"
	cmp_run "sum $t" sum -t $t "$f"
	cmp_run "sum -c4 $t" sum -t $t -c 4 "$f"
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
	esac
	case $t in
	f*|bf16) ;;
	*) cmp_run "reduce xor $t" reduce --op xor -t $t "$f"
	   cmp_run "reduce and $t" reduce --op and -t $t "$f" ;;
	esac
	# scans: a 24 MiB prefix (a u8 scan writes 8 bytes per element)
	head -c 25165824 "$f" > "$f.s"
	cmp_run "scan $t" scan -t $t "$f.s"
	cmp_run "scan --exclusive $t" scan --exclusive -t $t "$f.s"
	cmp_run "scan min $t" scan --op min -t $t "$f.s"
	cmp_run "scan max -c3 $t" scan --op max -c 3 -t $t "$f.s"
	cmp_run "scan -c4 $t" scan -c 4 -t $t "$f.s"
	case $t in
	f*|bf16) cmp_run "scan to f64 $t" scan --out-type f64 -t $t "$f.s"
		 cmp_run "scan to f16 $t" scan --out-type f16 -t $t "$f.s" ;;
	*) cmp_run "scan to f32 $t" scan --out-type f32 -t $t "$f.s"
	   cmp_run "scan to i32 $t" scan --out-type i32 -t $t "$f.s" ;;
	esac
	if [ $t = f32 ]; then
		cmp_run "dot A B f32 two files" dot "$f" "$D/r2.f32"
		cmp_run "sum big-endian f32" sum -t '>f4' "$f"
	fi
	[ $t = i16 ] && cmp_run "stats big-endian i16" stats -t '>i2' "$f"
}
for t in u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64; do
	type_runs $t > "$OUT/random.$t.log" 2>&1 &
done
wait
cat "$OUT"/random.*.log > "$OUT/random.log"
say "random data, cuda = cpu: $(grep -c '^pass' "$OUT/random.log") passed, $(grep -c '^FAIL' "$OUT/random.log") failed"
grep '^FAIL' "$OUT/random.log" | cut -c1-200 >> "$summary"

# 3. beyond 2^32 elements and 4 GiB: tests/test_huge.sh on both backends
# at once (the machine has the cores), then four processes sharing the GPU
[ -n "${SKIP_HUGE:-}" ] || for b in cuda cpu; do
	GPUSTAT_HUGE=1 BACKEND=$b sh tests/test_huge.sh > "$OUT/huge.$b.log" 2>&1 &
done
wait
for b in cuda cpu; do
	say "huge streams --backend $b: $(tail -1 "$OUT/huge.$b.log")"
	grep FAIL "$OUT/huge.$b.log" >> "$summary"
done
want=$($G sum -t f64 --backend cpu "$D/r.f64"; $G hist -t u8 --backend cpu "$D/r.u8" | md5sum; \
       $G scan -t f32 --backend cpu "$D/r.f32.s" | md5sum; $G stats -t i16 --backend cpu "$D/r.i16")
for i in 1 2 3 4; do
	( $G sum -t f64 --backend cuda "$D/r.f64"; $G hist -t u8 --backend cuda "$D/r.u8" | md5sum; \
	  $G scan -t f32 --backend cuda "$D/r.f32.s" | md5sum; $G stats -t i16 --backend cuda "$D/r.i16" ) \
		> "$OUT/conc.$i" 2>&1 &
done
wait
ok=0
for i in 1 2 3 4; do [ "$(cat "$OUT/conc.$i")" = "$want" ] && ok=$((ok + 1)); done
say "4 processes sharing the GPU: $ok of 4 equal to the CPU"

# GPU faults: too much GPU memory asked for, and no GPU visible
r=$(timeout 120 $G sum --backend cuda --chunk-size 6G --streams 16 "$D/r.f32" 2>&1 >/dev/null; echo "exit $?")
say "16 streams of 6 GiB chunks (96 GiB) on an 80 GiB GPU: $(echo $r | tr '\n' ' ')"
r=$(timeout 120 $G sum --backend cuda --chunk-size 200G "$D/r.f32" 2>&1 >/dev/null; echo "exit $?")
say "chunk larger than host memory: $(echo $r | tr '\n' ' ')"
for args in "sum -t f32 $D/r.f32" "hist -t u8 $D/r.u8" "scan -t f32 $D/r.f32"; do
	r=$(GPUSTAT_FAULT_CHUNK=2 timeout 60 $G $args --backend cuda --chunk-size 16M 2>&1 >"$D/fault.out"; echo "exit $?")
	say "kernel fault in chunk 2 of $args: $(echo $r | tr '\n' ' ')(stdout $(wc -c < "$D/fault.out") bytes)"
done
r=$(CUDA_VISIBLE_DEVICES= $G sum --backend cuda "$D/r.f32" 2>&1 >/dev/null; echo "exit $?")
say "no GPU visible, --backend cuda: $(echo $r | tr '\n' ' ')"
r=$(CUDA_VISIBLE_DEVICES= $G sum "$D/r.f32" 2>&1; echo "exit $?")
say "no GPU visible, auto: $(echo $r | tr '\n' ' ')"

# 4. sanitizers on small inputs
if command -v compute-sanitizer >/dev/null 2>&1; then
	for tool in memcheck racecheck; do
		for args in "sum -t f32 fixtures/in/f32_mod.bin" "stats -t f64 -c 2 $D/r.f64" \
			    "hist -t u8 $D/r.u8" "hist -t f32 --bins 50 --range -1:1 $D/r.f32" \
			    "dot -t f64 $D/r.f64 $D/r.f64" "reduce --op max -t i16 $D/r.i16" \
			    "scan -t f32 $D/r.f32.s" "scan -t u16 -c 3 $D/r.u16.s"; do
			compute-sanitizer --tool $tool --error-exitcode 9 $G $args --backend cuda \
				--chunk-size 4M > /dev/null 2>> "$OUT/sanitizer.log"
			echo "$tool $args: exit $?" >> "$OUT/sanitizer.log"
		done
	done
	say "compute-sanitizer: $(grep -c 'exit 0$' "$OUT/sanitizer.log") clean, $(grep -c 'exit [1-9]' "$OUT/sanitizer.log") not"
	grep 'exit [1-9]' "$OUT/sanitizer.log" >> "$summary"
else
	say "compute-sanitizer: not found"
fi

# 5. bench
[ -n "${SKIP_BENCH:-}" ] || build/bench_gpu 1024 > "$OUT/bench_gpu.txt" 2>&1
[ -n "${SKIP_BENCH:-}${SKIP_E2E:-}" ] || sh bench/bench_e2e.sh "$D" "${E2E_MIB:-4096}" > "$OUT/bench_e2e.txt" 2>&1
rm -rf "$D"
echo
cat "$OUT/bench_gpu.txt"
echo
cat "$OUT/bench_e2e.txt"
echo
cat "$summary"
