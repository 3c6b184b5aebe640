#!/bin/sh
# The GPU suite and benchmark in one run on a machine with a GPU (the device
# machine): gpustat and build/bench_gpu are built beforehand (make all
# bench-gpu) and carried. Logs go to $OUT; a short table is printed last.
#
#   1. every fixture of tests/cases.txt with --backend cuda, byte for byte
#   2. large random inputs of every type: --backend cuda against --backend
#      cpu for every command, several chunk sizes and stream counts; auto
#      scans handed from the CPU to the GPU after 1 and 3 chunks, and the
#      GPU started late where the CPU runs slower than planned, or than a
#      pipe's input comes (hybrid)
#   2c. shards: -f state on the GPU equal to the CPU's, scans from a
#      --carry-in, --devices 0,0 and all, multi-frame and sharded .zst
#   2d. timeline: -v's process line adds up with a GPU in it
#   2e. devscan: scans over several pipelines (--devices 0,0, 0,0,0, all)
#      against --backend cpu, for every type and op, in many small chunks
#   2f. devbench: the wide f64 scan and a global-atomic histogram on one GPU
#       and on several pipelines (DEVBENCH_MIB of data, default 4096)
#   3. more than 2^32 elements and 4 GiB (a pipe of zeros)
#   4. compute-sanitizer memcheck and racecheck on a small subset
#   4b. algos: every --algorithm against --backend cpu, and gpustat bench
#   5. bench: kernels against CUB on device data; end to end against cat
#
# DEVS: the --devices lists of the shards and devscan parts (default
# "0,0 0,0,0 all"; on two GPUs "0,1 0,1,0,1"); DEVSCAN_TYPES: devscan's
# types (default all twelve).
# PARTS picks sections (default: all of "fixtures random hybrid shards
# timeline devscan devbench huge conc faults sanitizer algos bench e2e"; "scans"
# is random's scans alone, "scanalgos" algos' scans alone); each part's
# wall time goes into the summary.
# The device tool returns at most 8 files, so callers tar $OUT's logs.
cd "$(dirname "$0")/../.." || exit 2
PARTS=${PARTS:-fixtures random hybrid shards timeline devscan devbench huge conc faults sanitizer algos bench e2e}
DEVS=${DEVS:-0,0 0,0,0 all}
DEVSCAN_TYPES=${DEVSCAN_TYPES:-u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64}
want() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
T0=$(date +%s)
lap() { echo "  ($1: $(( $(date +%s) - T0 )) s so far)" >> "$summary"; }
OUT=${OUT:-/tmp/gpustat-gpu}
mkdir -p "$OUT"
D=${DATA:-/dev/shm/gpustat}
mkdir -p "$D"
G=./gpustat
summary=$OUT/summary.txt
: > "$summary"
say() { echo "$*" | tee -a "$summary"; }
# without the generator every input is empty, and an empty scan passes
# every comparison (cuda = cpu, 0 bytes): refuse rather than pass
for f in ./gpustat build/bench_kernels $(want bench && echo build/bench_gpu); do
	[ -x "$f" ] || { say "FAIL: $f is missing: make all bench-gpu"; exit 2; }
done

nvidia-smi -L > "$OUT/gpu.txt" 2>&1
$G --version > "$OUT/version.txt" 2>&1
say "device: $(head -1 "$OUT/gpu.txt")"

# 1. fixtures, in 17 parallel runs (each gpustat run starts a CUDA context,
# a third of a second, so one serial run would take many minutes; 8 runs
# did not finish in 400 s). The patterns cover every case once; the
# pattern full_hist runs cli.sh's checks outside the table (pipes, full
# u16 histograms).
i=0
want fixtures && for pat in 'scan_[a-h]*' 'scan_[i-z]*' 'sum*' 'stats*' \
	's[abd-sv-z]*' 'st[b-z]*' 'reduce_[a-m]*' 'reduce_[n-z]*' \
	'r[a-df-z]*' 'fmt_[a-r]*' 'fmt_[s-z]*' 'h*' 'd*' '[abceg]*' 'u*' \
	'[ijklmnopqtvwxyz#]*' 'full_hist'; do
	i=$((i + 1))
	GPUSTAT=tests/gpu/gpustat-cuda sh tests/cli.sh "$pat" > "$OUT/cli_cuda.$i.log" 2>&1 &
done
wait
if want fixtures; then
	cat "$OUT"/cli_cuda.*.log > "$OUT/cli_cuda.log"
	rm -f "$OUT"/cli_cuda.*.log
	say "fixtures on the GPU: $(awk '/^cli: / { p += $2; f += $4 } END { printf "%d passed, %d failed", p, f }' "$OUT/cli_cuda.log")"
	lap fixtures
fi

# 2. random data, cuda vs cpu: one job per type, in parallel. The inputs
# are made whatever the parts: the later parts read them too.
MIB=${MIB:-256}
for t in u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64; do
	build/bench_kernels --gen $t "$MIB" > "$D/r.$t" &
done
build/bench_kernels --gen f32 "$MIB" > "$D/r2.f32" &
wait
for t in u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64; do
	head -c 25165824 "$D/r.$t" > "$D/r.$t.s"	# 24 MiB for scans
	# products of random data leave the range at once: these stay in it
	build/bench_kernels --gen-near1 $t 64 > "$D/n1.$t"
	head -c 25165824 "$D/n1.$t" > "$D/n1.$t.s"
done
# float sums on a grid into f32 or f64 take the one-limb window by the
# hardware's conversions (mode 4; bf16 scans output bf16 by default, and
# those and the f16 outputs take the generic one-limb window); the odd
# files have a wide pair (a two-limb chunk) and a NaN (generic from there)
for t in bf16 f32 f64; do
	build/bench_kernels --gen-grid $t 24 > "$D/g.$t"
	build/bench_kernels --gen-grid-odd $t 24 > "$D/g1.$t"
done
for f in "$D"/r.*.s "$D"/n1.*.s "$D"/r2.f32 "$D"/g.* "$D"/g1.*; do
	[ "$(wc -c < "$f")" -gt 0 ] || { say "FAIL: $f is empty (bench_kernels --gen)"; exit 1; }
done
# Each run is bounded, so a hang is a failure, not a lost suite.
gs() { timeout 120 $G "$@"; }
cmp_run() {	# name, args...: cuda (several splits) must equal cpu
	name=$1
	shift
	gs "$@" --backend cpu > "$W/ref" 2> "$W/ref.err"
	rc=$?
	for opt in "--chunk-size 64M --streams 2" "--chunk-size 1M --streams 4" \
		   "--chunk-size 7340033 --streams 1"; do
		gs "$@" --backend cuda $opt > "$W/got" 2> "$W/got.err"
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
	cmp_run "reduce prod $t" reduce --op prod -t $t "$f"
	cmp_run "reduce prod near 1 $t" reduce --op prod -t $t "$D/n1.$t"
	cmp_run "reduce prod near 1 -c3 $t" reduce --op prod -t $t -c 3 "$D/n1.$t.s"
	cmp_run "hist ranged $t" hist -q -t $t --bins 1000 --range -1e4:1e4 "$f"
	cmp_run "hist auto-range $t" hist -q -t $t "$f"
	cmp_run "hist2d shared $t" hist2d -q -t $t --bins 100,70 --range -1e4:1e4 -f json "$f"
	cmp_run "hist2d global $t" hist2d -q -t $t --bins 1024 --range -1e4:1e4 -f npy "$f"
	cmp_run "hist2d auto-range $t" hist2d -q -t $t --bins 64 -f json "$f"
	case $t in
	u8|i8|u16|i16) cmp_run "hist $t" hist -t $t "$f"
		       cmp_run "hist -c3 $t" hist -t $t -c 3 "$f" ;;
	esac
	case $t in
	f*|bf16) ;;
	*) cmp_run "reduce xor $t" reduce --op xor -t $t "$f"
	   cmp_run "reduce and $t" reduce --op and -t $t "$f" ;;
	esac
	if [ $t = f32 ]; then
		cmp_run "dot A B f32 two files" dot "$f" "$D/r2.f32"
		cmp_run "sum big-endian f32" sum -t '>f4' "$f"
	fi
	[ $t = i16 ] && cmp_run "stats big-endian i16" stats -t '>i2' "$f"
}
scan_runs() {
	t=$1
	f=$D/r.$t
	W=$D/w.$t
	mkdir -p "$W"
	cmp_run "scan $t" scan -t $t "$f.s"
	cmp_run "scan --exclusive $t" scan --exclusive -t $t "$f.s"
	cmp_run "scan min $t" scan --op min -t $t "$f.s"
	cmp_run "scan prod $t" scan --op prod -t $t "$f.s"
	cmp_run "scan prod near 1 $t" scan --op prod -t $t "$D/n1.$t.s"
	cmp_run "scan max -c3 $t" scan --op max -c 3 -t $t "$f.s"
	cmp_run "scan -c4 $t" scan -c 4 -t $t "$f.s"
	case $t in
	bf16|f32|f64)
		cmp_run "scan grid $t" scan -t $t "$D/g.$t"
		cmp_run "scan grid --exclusive to f64 $t" scan --exclusive --out-type f64 -t $t "$D/g.$t"
		cmp_run "scan grid -c3 to f32 $t" scan -c 3 --out-type f32 -t $t "$D/g.$t"
		cmp_run "scan grid to f16 $t" scan --out-type f16 -t $t "$D/g.$t"
		cmp_run "scan grid, wide pair, NaN $t" scan -t $t "$D/g1.$t"
		cmp_run "scan grid, wide pair, NaN, to f32 $t" scan --out-type f32 -t $t "$D/g1.$t" ;;
	esac
	case $t in
	f*|bf16) cmp_run "scan to f64 $t" scan --out-type f64 -t $t "$f.s"
		 cmp_run "scan to f16 $t" scan --out-type f16 -t $t "$f.s" ;;
	*) cmp_run "scan to f32 $t" scan --out-type f32 -t $t "$f.s"
	   cmp_run "scan to i32 $t" scan --out-type i32 -t $t "$f.s" ;;
	esac
}
# "random": every command; "scans": the scans alone
if want random || want scans; then
	for t in u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64; do
		{ want random && type_runs $t; scan_runs $t; } > "$OUT/random.$t.log" 2>&1 &
	done
	wait
	cat "$OUT"/random.*.log > "$OUT/random.log"
	rm -f "$OUT"/random.*.log
	say "random data ($PARTS), cuda = cpu: $(grep -c '^pass' "$OUT/random.log") passed, $(grep -c '^FAIL' "$OUT/random.log") failed"
	grep '^FAIL' "$OUT/random.log" | cut -c1-200 >> "$summary"
	lap random
fi

# 2b. --backend auto's scan hand-over: GPUSTAT_AUTO_CPU_CHUNKS=N runs
# exactly N chunks on the CPU (which writes their output), then the GPU
# goes on from the CPU's carry and its writer continues the output. The
# input comes through a pipe in small chunks (the variable also makes auto
# take the hybrid whatever its plan says). Output, error line and exit
# status must be --backend cpu's, and -v must report chunks on both sides.
if want hybrid; then
	W=$D/w.hybrid
	mkdir -p "$W"
	# a NaN (f32) or +inf (f64) first: the flag moves with the carry;
	# u8 twice: a u32 prefix overflows near record 33.7M, on the GPU
	{ printf '\000\000\300\177'; cat "$D/r.f32.s"; } > "$D/nan.f32"
	{ printf '\000\000\000\000\000\000\360\177'; cat "$D/r.f64.s"; } > "$D/inf.f64"
	cat "$D/r.u8.s" "$D/r.u8.s" > "$D/r.u8.ss"
	hyb_run() {	# name, file, args...: auto split after 1 and 3 chunks = cpu
		hname=$1
		hfile=$2
		shift 2
		gs "$@" --backend cpu < "$hfile" > "$W/ref" 2> "$W/ref.err"
		hrc=$?
		for hn in 1 3; do
			cat "$hfile" | GPUSTAT_AUTO_CPU_CHUNKS=$hn timeout 120 $G "$@" \
				--backend auto -v > "$W/got" 2> "$W/got.err"
			hgot=$?
			grep -v '^gpustat: \(input\|backend\|stages\|process\): ' "$W/got.err" > "$W/got.err2"
			if [ $hgot -eq $hrc ] && cmp -s "$W/ref" "$W/got" &&
			   cmp -s "$W/ref.err" "$W/got.err2" &&
			   grep -q "^gpustat: backend: cpu: $hn chunks, cuda: [1-9][0-9]* chunks .*the scan moved to the GPU at record [1-9]" "$W/got.err"; then
				echo "pass hybrid $hname, $hn chunks on the CPU (exit $hgot)"
			else
				echo "FAIL hybrid $hname, $hn chunks on the CPU: exit $hgot, cpu $hrc; $(tr '\n' ' ' < "$W/got.err" | head -c 400)"
				cmp "$W/ref" "$W/got" | head -2
			fi
		done
	}
	{
		c1="--chunk-size 1M"
		hyb_run "scan f32" "$D/r.f32.s" scan -t f32 $c1
		hyb_run "scan f32, odd chunks" "$D/r.f32.s" scan -t f32 --chunk-size 3145739
		hyb_run "scan f32 to f16" "$D/r.f32.s" scan -t f32 --out-type f16 $c1
		hyb_run "scan f64" "$D/r.f64.s" scan -t f64 $c1
		hyb_run "scan --exclusive f64" "$D/r.f64.s" scan --exclusive -t f64 $c1
		hyb_run "scan f16 to f32" "$D/r.f16.s" scan -t f16 --out-type f32 $c1
		hyb_run "scan --exclusive bf16" "$D/r.bf16.s" scan --exclusive -t bf16 $c1
		hyb_run "scan i32" "$D/r.i32.s" scan -t i32 $c1
		hyb_run "scan u8 (to u64)" "$D/r.u8.s" scan -t u8 $c1
		hyb_run "scan --exclusive i64" "$D/r.i64.s" scan --exclusive -t i64 --out-type f64 $c1
		hyb_run "scan min f32" "$D/r.f32.s" scan --op min -t f32 $c1
		hyb_run "scan max i16" "$D/r.i16.s" scan --op max -t i16 $c1
		hyb_run "scan -c4 f32" "$D/r.f32.s" scan -c 4 -t f32 $c1
		hyb_run "scan max -c3 u16" "$D/r.u16.s" scan --op max -c 3 -t u16 $c1
		hyb_run "scan min, NaN first, f32" "$D/nan.f32" scan --op min -t f32 $c1
		hyb_run "scan, +inf first, f64" "$D/inf.f64" scan -t f64 $c1
		hyb_run "scan u8 to u32 overflowing" "$D/r.u8.ss" scan -t u8 --out-type u32 $c1
	} > "$OUT/hybrid.log" 2>&1
	# prod stays on the CPU in auto
	r=$(cat "$D/r.f32.s" | gs scan --op prod -t f32 -v 2>&1 >/dev/null | grep 'backend: ')
	case $r in
	*"backend: cpu ("*"products stay on the CPU"*) echo "pass hybrid: prod stays on the CPU" ;;
	*) echo "FAIL hybrid: prod scan in auto: $r" ;;
	esac >> "$OUT/hybrid.log"
	# The late start: where the plan keeps a file on the CPU, a CPU
	# measured far slower (GPUSTAT_AUTO_CPU_GBS, which also makes the
	# chunk after the start wait for the GPU) starts the GPU after the
	# second chunk, and the rest moves there; far faster, the plan holds.
	# Through a pipe (LPIPE=FILE) the CPU's rate is set against the
	# input's: far slower, the same start and hand-over.
	LPIPE=
	lfeed() {	# args...: gpustat, from $LPIPE through a pipe where set
		if [ -n "$LPIPE" ]; then
			cat "$LPIPE" | timeout 120 $G "$@"
		else
			timeout 120 $G "$@"
		fi
	}
	late_run() {	# name, rate, -v pattern, args...: auto = cpu
		lname=$1
		lrate=$2
		lpat=$3
		shift 3
		lfeed "$@" --backend cpu > "$W/ref" 2> "$W/ref.err"
		lrc=$?
		(
			export GPUSTAT_AUTO_CPU_GBS="$lrate"
			lfeed "$@" --backend auto -v
		) > "$W/got" 2> "$W/got.err"
		lgot=$?
		if [ $lgot -eq $lrc ] && cmp -s "$W/ref" "$W/got" &&
		   grep -q "^gpustat: backend: auto (" "$W/got.err" &&
		   grep -q "$lpat" "$W/got.err"; then
			echo "pass late $lname (exit $lgot)"
		else
			echo "FAIL late $lname: exit $lgot, cpu $lrc; $(grep backend "$W/got.err" | tr '\n' ' ' | head -c 500)"
			cmp "$W/ref" "$W/got" | head -2
		fi
	}
	lstart='^gpustat: backend: cpu: [0-9]* chunks, cuda: [1-9][0-9]* chunks (the CPU, then the GPU started after 2 chunks: '
	# the 1 MiB chunks of r.f32.s (24 MiB, or MIB's where less)
	nch=$(( ($(wc -c < "$D/r.f32.s") + 1048575) / 1048576 ))
	{
		c1="--chunk-size 1M"
		for t in f32 f64 i16 u8; do
			late_run "sum $t" 0.000001 "$lstart" sum -t $t $c1 "$D/r.$t.s"
			late_run "scan $t" 0.000001 "$lstart.*the scan moved to the GPU at record [1-9]" \
				scan -t $t $c1 "$D/r.$t.s"
		done
		late_run "scan max -c3 u16" 0.000001 "$lstart.*the scan moved to the GPU at record [1-9]" \
			scan --op max -c 3 -t u16 $c1 "$D/r.u16.s"
		late_run "hist u8" 0.000001 "$lstart" hist -t u8 $c1 "$D/r.u8.s"
		late_run "stats -c2 f32" 0.000001 "$lstart" stats -c 2 -t f32 $c1 "$D/r.f32.s"
		late_run "dot A B f32" 0.000001 "$lstart" dot -t f32 $c1 "$D/r.f32.s" "$D/r.f32.s"
		late_run "plan held, sum f32" 1000 "^gpustat: backend: cpu: $nch chunks (the plan held: " \
			sum -t f32 $c1 "$D/r.f32.s"
		late_run "plan held, scan f32" 1000 "^gpustat: backend: cpu: $nch chunks (the plan held: " \
			scan -t f32 $c1 "$D/r.f32.s"
		lpstart="$lstart"'the CPU computed at [0-9.]* GB/s (GPUSTAT_AUTO_CPU_GBS), the input came at '
		LPIPE=$D/r.f32.s
		late_run "pipe, sum f32" 0.000001 "$lpstart" sum -t f32 $c1
		late_run "pipe, scan f32" 0.000001 "$lpstart.*the scan moved to the GPU at record [1-9]" \
			scan -t f32 $c1
		LPIPE=$D/r.f64.s
		late_run "pipe, scan --exclusive f64" 0.000001 "$lpstart.*the scan moved to the GPU at record [1-9]" \
			scan --exclusive -t f64 $c1
		LPIPE=$D/r.u8.s
		late_run "pipe, hist u8" 0.000001 "$lpstart" hist -t u8 $c1
		LPIPE=$D/r.f32.s
		late_run "pipe, kept up, sum f32" 1000 "^gpustat: backend: cpu: $nch chunks (the CPU kept up: it computed at " \
			sum -t f32 $c1
		LPIPE=
	} >> "$OUT/hybrid.log" 2>&1
	say "auto scans handed from the CPU to the GPU, = cpu: $(grep -c '^pass' "$OUT/hybrid.log") passed, $(grep -c '^FAIL' "$OUT/hybrid.log") failed"
	grep '^FAIL' "$OUT/hybrid.log" | cut -c1-300 >> "$summary"
	rm -f "$D/nan.f32" "$D/inf.f64" "$D/r.u8.ss"
	lap hybrid
fi

# 2c. shards. States are bytes: the GPU's must be the CPU's, byte for
# byte. A scan from a carry-in (the CPU's state of the pieces before) on
# the GPU, its pieces in a row, must be the CPU's scan of the whole. The
# chunks of one run spread over pipelines (--devices) must give the CPU's
# result. .zst files of 16 frames and 16 shards decode frame-parallel.
if want shards; then
	W=$D/w.shards
	mkdir -p "$W"
	{
	for t in u8 i16 f32 f64; do
		f=$D/r.$t
		for args in "sum -t $t" "stats -t $t -c 2" "dot --pairs -t $t" \
			    "reduce --op max -t $t" "hist -q -t $t --bins 100 --range -1e3:1e3" \
			    "count -t $t" "scan -t $t"; do
			gs $args -f state --backend cpu "$f" > "$W/cpu.state"
			gs $args -f state --backend cuda "$f" > "$W/cuda.state"
			cmp -s "$W/cpu.state" "$W/cuda.state" && echo "pass state $args" ||
				echo "FAIL state $args: the GPU's state differs"
			case $args in scan*) continue ;; esac
			gs $args --backend cpu "$f" > "$W/ref" 2>&1
			for dev in $DEVS; do
				for opt in "--chunk-size 64M" "--chunk-size 1M --streams 3" \
					   "--chunk-size 7340033 --streams 1"; do
					gs $args --devices $dev $opt "$f" > "$W/got" 2>&1
					cmp -s "$W/ref" "$W/got" && echo "pass --devices $dev $args $opt" ||
						echo "FAIL --devices $dev $args $opt: $(head -c 200 "$W/got")"
				done
			done
		done
		size=$(stat -c %s "$f.s")
		rec=$(( $(echo $t | tr -dc 0-9) / 8 ))
		[ $rec = 0 ] && rec=1
		third=$(( size / rec / 3 ))
		dd if="$f.s" of="$W/p1" bs=$rec count=$third 2> /dev/null
		dd if="$f.s" of="$W/p2" bs=$rec skip=$third count=$third 2> /dev/null
		dd if="$f.s" of="$W/p3" bs=$rec skip=$((2 * third)) 2> /dev/null
		for op in "" "--exclusive" "--op max"; do
			gs scan -t $t $op --backend cpu "$f.s" > "$W/whole"
			gs scan -t $t $op -f state --backend cpu "$W/p1" > "$W/c2"
			gs scan -t $t $op -f state --backend cpu --carry-in "$W/c2" "$W/p2" > "$W/c3"
			{ gs scan -t $t $op --backend cuda "$W/p1"
			  gs scan -t $t $op --backend cuda --carry-in "$W/c2" "$W/p2"
			  gs scan -t $t $op --backend cuda --carry-in "$W/c3" "$W/p3"; } > "$W/pieces"
			cmp -s "$W/whole" "$W/pieces" && echo "pass carry-in scan $t $op" ||
				echo "FAIL carry-in scan $t $op: the pieces differ from the whole"
		done
	done
	cc -O2 bench/mkzst.c -lzstd -o build/mkzst
	build/mkzst -c 3 16 < "$D/r.f32" > "$W/frames.zst"
	split -n 16 -d "$D/r.f32" "$W/shard."
	for s in "$W"/shard.??; do build/mkzst -c 3 0 < "$s" > "$s.zst"; done
	want_sum=$(gs sum --backend cpu "$D/r.f32")
	for b in cpu cuda auto; do
		[ "$(gs sum --backend $b "$W/frames.zst")" = "$want_sum" ] &&
			echo "pass 16 frames $b" || echo "FAIL 16 frames $b"
		[ "$(gs sum --backend $b "$W"/shard.??.zst)" = "$want_sum" ] &&
			echo "pass 16 shards $b" || echo "FAIL 16 shards $b"
	done
	} > "$OUT/shards.log" 2>&1
	say "shards (states, carry-in, --devices, .zst frames): $(grep -c '^pass' "$OUT/shards.log") passed, $(grep -c '^FAIL' "$OUT/shards.log") failed"
	grep '^FAIL' "$OUT/shards.log" | cut -c1-200 >> "$summary"
	rm -rf "$W"
	lap shards
fi

# 2d. timeline: -v's process line adds up with a GPU's context, pinned
# buffers and teardown in it (cuda, and auto's hybrid through its test
# hook), with the teardown left to the exit too (GPUSTAT_NO_TEARDOWN=1);
# the file read on 1, 3 and 16 threads gives the CPU's bytes on the GPU
if want timeline; then
	W=$D/w.timeline
	mkdir -p "$W"
	adds_up() {	# the -v stderr in $1: parts within 0.005 s of the total
		awk '/process:/ { total = $3; sum = 0; neg = 0; found = 1
			for (i = 4; i <= NF; i++)
				if ($i ~ /^-?[0-9]+[.][0-9]+;?$/ && $(i - 1) != "about") {
					sum += $i; if ($i + 0 < 0) neg = 1 } }
		END { d = total - sum; if (d < 0) d = -d
			exit !(found && d <= 0.005 && !neg) }' "$1"
	}
	{
	gs sum --backend cpu "$D/r.f32" > "$W/ref"
	gs scan --backend cpu "$D/r.f32" | cksum > "$W/sref"
	for b in cuda auto; do
		for keep in 0 1; do
			GPUSTAT_AUTO_CPU_CHUNKS=1 GPUSTAT_NO_TEARDOWN=$keep gs sum \
				--backend $b --chunk-size 16M -v "$D/r.f32" > "$W/got" 2> "$W/err"
			if cmp -s "$W/ref" "$W/got" && adds_up "$W/err"; then
				echo "pass sum --backend $b, no teardown $keep"
			else
				echo "FAIL sum --backend $b, no teardown $keep: $(tr '\n' ' ' < "$W/err" | head -c 600)"
			fi
		done
	done
	for j in 1 3 16; do
		gs scan --backend cuda -j $j "$D/r.f32" | cksum > "$W/got"
		cmp -s "$W/sref" "$W/got" && echo "pass scan --backend cuda -j $j" ||
			echo "FAIL scan --backend cuda -j $j: not the CPU's output"
	done
	} > "$OUT/timeline.log" 2>&1
	say "timeline (-v adds up, teardown at exit, reading threads): $(grep -c '^pass' "$OUT/timeline.log") passed, $(grep -c '^FAIL' "$OUT/timeline.log") failed"
	grep '^FAIL' "$OUT/timeline.log" | cut -c1-600 >> "$summary"
	grep -h 'process:' "$W"/err >> "$OUT/timeline.log"
	rm -rf "$W"
	lap timeline
fi

# 2e. scans over several pipelines (--devices), against --backend cpu:
# tests/gpu/run_devscan.sh says what it runs.
if want devscan; then
	. tests/gpu/run_devscan.sh
fi

# 2f. several GPUs' speed: the f64 scan of f32 bits read as doubles
# (hundreds of binades, the wide 34-limb sum: its kernels read 236 GB/s
# of input on one H100, so the host is its limit) to /dev/null, and a histogram that is the GPU's limit (the
# global-atomic teaching algorithm), page-cached. Best of 3, as ratios to
# one GPU (--backend cuda) in the same run; -v's stage and process lines
# of each after its table.
if want devbench; then
	B=$D/wide.f64
	build/bench_kernels --gen f32 "${DEVBENCH_MIB:-4096}" > "$B"
	cat "$B" > /dev/null
	ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
	devs="0,0"
	[ "$ngpu" -ge 2 ] && devs="$devs 0,1 0,1,0,1 all"
	bbest() {	# best wall nanoseconds of 3 runs of gpustat ARGS
		bb=
		for _ in 1 2 3; do
			t0=$(date +%s%N)
			timeout 300 $G "$@" > /dev/null
			t=$(( $(date +%s%N) - t0 ))
			if [ -z "$bb" ] || [ "$t" -lt "$bb" ]; then bb=$t; fi
		done
		echo "$bb"
	}
	# (the global-atomic byte histogram: about 6 GB/s on one GPU, every
	# value an atomic add on one of 256 counters in global memory)
	{
	for w in "scan -t f64" "hist -t u8 --algorithm global-atomic"; do
		one=$(bbest $w --backend cuda "$B")
		brow() {	# name, ns
			awk -v n="$1" -v t="$2" -v b="$(stat -c %s "$B")" -v one="$one" \
				'BEGIN { printf "%-36s %8.3f %8.2f %8.2f\n", n, t / 1e9, b / t, one / t }'
		}
		printf '%-36s %8s %8s %8s\n' "$w ($ngpu GPUs)" s GB/s "x 1 GPU"
		brow "--backend cuda" "$one"
		for dev in $devs; do
			brow "--devices $dev" "$(bbest $w --devices $dev "$B")"
		done
		for a in "--backend cuda" $(for dev in $devs; do echo "--devices=$dev"; done); do
			echo "$a: $($G $w $a -v "$B" 2>&1 >/dev/null | grep -E '^gpustat: (stages|process): ' | cut -c10- | tr '\n' ' ')"
		done
	done
	} > "$OUT/devbench.txt" 2>&1
	cat "$OUT/devbench.txt" >> "$summary"
	rm -f "$B"
	lap devbench
fi

# 3. beyond 2^32 elements and 4 GiB: tests/test_huge.sh on both backends
# at once (the machine has the cores), then four processes sharing the GPU
if want huge; then
	for b in cuda cpu; do
		GPUSTAT_HUGE=1 BACKEND=$b timeout 300 sh tests/test_huge.sh > "$OUT/huge.$b.log" 2>&1 &
	done
	wait
	for b in cuda cpu; do
		say "huge streams --backend $b: $(tail -1 "$OUT/huge.$b.log")"
		grep FAIL "$OUT/huge.$b.log" >> "$summary"
	done
	lap huge
fi
if want conc; then
	four() {	# backend: the same four jobs
		gs sum -t f64 --backend $1 "$D/r.f64"
		gs hist -t u8 --backend $1 "$D/r.u8" | md5sum
		gs scan -t f32 --backend $1 "$D/r.f32.s" | md5sum
		gs stats -t i16 --backend $1 "$D/r.i16"
	}
	four cpu > "$OUT/conc.want" 2>&1
	for i in 1 2 3 4; do
		four cuda > "$OUT/conc.$i" 2>&1 &
	done
	wait
	ok=0
	for i in 1 2 3 4; do cmp -s "$OUT/conc.$i" "$OUT/conc.want" && ok=$((ok + 1)); done
	say "4 processes sharing the GPU: $ok of 4 equal to the CPU"
	lap conc
fi

# GPU faults: too much GPU memory asked for, a trapping kernel, no GPU
if want faults; then
	r=$(gs sum --backend cuda --chunk-size 6G --streams 16 "$D/r.f32" 2>&1 >/dev/null; echo "exit $?")
	say "16 streams of 6 GiB chunks (96 GiB) on an 80 GiB GPU: $(echo $r | tr '\n' ' ')"
	r=$(gs sum --backend cuda --chunk-size 200G "$D/r.f32" 2>&1 >/dev/null; echo "exit $?")
	say "chunk larger than host memory: $(echo $r | tr '\n' ' ')"
	# a scan keeps what it wrote before the fault: a prefix of the CPU's
	gs scan -t f32 --backend cpu "$D/r.f32" > "$D/scan.ref"
	for args in "sum -t f32 $D/r.f32" "hist -t u8 $D/r.u8" "scan -t f32 $D/r.f32" \
		    "reduce --op prod -t f64 $D/r.f64"; do
		# a fault past the input's last chunk never happens (MIB=16:
		# one chunk): the run is then whole, and says so
		nch=$(( ($(wc -c < "${args##* }") + 16777215) / 16777216 ))
		for at in 1 2 7; do
			r=$(GPUSTAT_FAULT_CHUNK=$at timeout 60 $G $args --backend cuda --chunk-size 16M 2>&1 >"$D/fault.out"; echo "exit $?")
			n0=$(wc -c < "$D/fault.out")
			case $args in
			scan*) cmp -s -n "$n0" "$D/fault.out" "$D/scan.ref" &&
				n="$n0 bytes, equal to the CPU's first $n0" ||
				n="$n0 bytes, NOT the CPU's" ;;
			*) n="$n0 bytes" ;;
			esac
			# a fault: exit 1, no result (a scan: the CPU's prefix);
			# none: exit 0 and the whole result
			v=
			if [ $at -gt $nch ]; then
				v="(no chunk $at of $nch) "
				case $r in *"exit 0") ;; *) v="FAIL $v" ;; esac
				case $args in
				scan*) [ "$n0" -eq "$(wc -c < "$D/scan.ref")" ] || v="FAIL $v" ;;
				*) [ "$n0" -gt 0 ] || v="FAIL $v" ;;
				esac
			else
				case $r in *"exit 1") ;; *) v="FAIL " ;; esac
				case $args in
				scan*) case $n in *NOT*) v="FAIL " ;; esac ;;
				*) [ "$n0" -eq 0 ] || v="FAIL " ;;
				esac
			fi
			say "${v}kernel fault in chunk $at of $(echo $args | cut -d' ' -f1-3): $(echo $r | tr '\n' ' ')(stdout $n)"
		done
	done
	r=$(CUDA_VISIBLE_DEVICES= $G sum --backend cuda "$D/r.f32" 2>&1 >/dev/null; echo "exit $?")
	say "no GPU visible, --backend cuda: $(echo $r | tr '\n' ' ')"
	r=$(CUDA_VISIBLE_DEVICES= $G sum "$D/r.f32" 2>&1; echo "exit $?")
	say "no GPU visible, auto: $(echo $r | tr '\n' ' ')"
	lap faults
fi

# 4. sanitizers on small inputs (racecheck is slow: 6 MiB each, a whole
# number of 3-column u16 records, in 1 MiB chunks)
if want sanitizer && command -v compute-sanitizer >/dev/null 2>&1; then
	for t in u8 u16 i16 f32 f64; do head -c 6291456 "$D/r.$t" > "$D/small.$t"; done
	head -c 6291456 "$D/g.f32" > "$D/small.g.f32"
	for tool in memcheck racecheck; do
		for args in "sum -t f32 fixtures/in/f32_mod.bin" "stats -t f64 -c 2 $D/small.f64" \
			    "hist -t u8 $D/small.u8" "hist -t f32 --bins 50 --range -1:1 $D/small.f32" \
			    "dot -t f64 $D/small.f64 $D/small.f64" "reduce --op max -t i16 $D/small.i16" \
			    "reduce --op prod -t f32 $D/small.f32" \
			    "scan -t f32 $D/small.f32" "scan --exclusive -t f64 -c 2 $D/small.f64" \
			    "scan -t u16 -c 3 $D/small.u16" \
			    "scan --op prod -t f64 $D/small.f64" \
			    "scan -t f64 -c 2 --devices 0,0 $D/small.f64" \
			    "scan --op max -t u16 --devices 0,0,0 $D/small.u16"; do
			timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $G $args \
				--backend cuda --chunk-size 1M > /dev/null 2>> "$OUT/sanitizer.log"
			echo "$tool $args: exit $?" >> "$OUT/sanitizer.log"
		done
		# one 6 MiB chunk: 768 tiles, so a scan block walks several
		# (back-to-back block scans), and the carry blocks scan more
		# than 256 parts (two rounds) on an H100
		for args in "scan -t f32 $D/small.f32" "scan --op max -t f32 $D/small.f32" \
			    "scan --op prod -t f32 $D/small.f32" "scan -t f32 $D/small.g.f32"; do
			timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $G $args \
				--backend cuda --chunk-size 6M > /dev/null 2>> "$OUT/sanitizer.log"
			echo "$tool $args --chunk-size 6M: exit $?" >> "$OUT/sanitizer.log"
		done
	done
	say "compute-sanitizer: $(grep -c 'exit 0$' "$OUT/sanitizer.log") clean, $(grep -c 'exit [1-9]' "$OUT/sanitizer.log") not"
	grep 'exit [1-9]' "$OUT/sanitizer.log" >> "$summary"
	lap sanitizer
elif want sanitizer; then
	say "compute-sanitizer: not found"
fi

# 4b. algos: every --algorithm of every command and type against the
# CPU's default algorithm, byte for byte and exit status (two chunk/stream
# splits), on the random inputs, constant data (one bin, one value: the
# atomics' worst case) and the fixtures; the scans' block scans on every
# op, the float sums' windows (the grid files), an integer overflow, and
# for three types over two pipelines (--devices 0,0) and in three pieces
# from --carry-in states; then gpustat bench on the GPU.
algo_cmp() {	# name, algorithms, args...: each cuda algorithm = cpu default
	name=$1
	algs=$2
	shift 2
	gs "$@" --backend cpu > "$W/ref" 2> "$W/ref.err"
	rc=$?
	for a in $algs; do
		for opt in "--chunk-size 7340033 --streams 2"; do
			gs "$@" --algorithm $a --backend cuda $opt > "$W/got" 2> "$W/got.err"
			if [ $? -eq $rc ] && cmp -s "$W/ref" "$W/got"; then
				echo "pass $name $a $opt (exit $rc)"
			else
				echo "FAIL $name $a $opt: $(head -c 300 "$W/got.err")"
				diff "$W/ref" "$W/got" | head -5
			fi
		done
	done
}
algo_scans() {	# type: each block scan of scan --algorithm = the CPU's scan
	t=$1
	f=$D/r.$t.s
	B="hillis-steele blelloch"
	algo_cmp "scan $t" "$B" scan -t $t "$f"
	algo_cmp "scan --exclusive $t" "$B" scan --exclusive -t $t "$f"
	algo_cmp "scan -c3 $t" "$B" scan -c 3 -t $t "$f"
	algo_cmp "scan min $t" "$B" scan --op min -t $t "$f"
	algo_cmp "scan max -c3 $t" "$B" scan --op max -c 3 -t $t "$f"
	algo_cmp "scan prod near 1 $t" "$B" scan --op prod -t $t "$D/n1.$t.s"
	case $t in
	f*|bf16) algo_cmp "scan to f64 $t" "$B" scan --out-type f64 -t $t "$f" ;;
	*) algo_cmp "scan to i32 $t" "$B" scan --out-type i32 -t $t "$f" ;;
	esac
	case $t in	# one-limb window by the hardware or not; two limbs, NaN
	bf16|f32|f64)
		algo_cmp "scan grid $t" "$B" scan -t $t "$D/g.$t"
		algo_cmp "scan grid --exclusive to f64 $t" "$B" scan --exclusive --out-type f64 -t $t "$D/g.$t"
		algo_cmp "scan grid, wide pair, NaN $t" "$B" scan -t $t "$D/g1.$t" ;;
	esac
	case $t in i16|f32|f64) ;; *) return ;; esac
	# over two pipelines, and in three pieces from the CPU's states
	gs scan -t $t --backend cpu "$f" > "$W/whole"
	rec=$(( $(echo $t | tr -dc 0-9) / 8 ))
	third=$(( $(stat -c %s "$f") / rec / 3 ))
	dd if="$f" of="$W/p1" bs=$rec count=$third 2> /dev/null
	dd if="$f" of="$W/p2" bs=$rec skip=$third count=$third 2> /dev/null
	dd if="$f" of="$W/p3" bs=$rec skip=$((2 * third)) 2> /dev/null
	gs scan -t $t -f state --backend cpu "$W/p1" > "$W/c2"
	gs scan -t $t -f state --backend cpu --carry-in "$W/c2" "$W/p2" > "$W/c3"
	for a in $B; do
		gs scan -t $t --algorithm $a --devices 0,0 --chunk-size 1M "$f" > "$W/got"
		cmp -s "$W/whole" "$W/got" && echo "pass scan $t $a --devices 0,0" ||
			echo "FAIL scan $t $a --devices 0,0: differs from the CPU's"
		{ gs scan -t $t --algorithm $a "$W/p1"
		  gs scan -t $t --algorithm $a --carry-in "$W/c2" "$W/p2"
		  gs scan -t $t --algorithm $a --carry-in "$W/c3" "$W/p3"; } > "$W/got"
		cmp -s "$W/whole" "$W/got" && echo "pass scan $t $a carry-in pieces" ||
			echo "FAIL scan $t $a carry-in pieces: differ from the CPU's whole"
	done
}
algo_runs() {	# each GPU process starts a context (~0.3 s, one at a time)
	t=$1
	W=$D/wa.$t
	mkdir -p "$W"
	H="global-atomic shared-atomic sort"
	S="atomic block-tree"
	f=$D/r.$t.s
	case $t in
	u8|i8|u16|i16) algo_cmp "hist $t" "$H" hist -t $t "$f"
		       algo_cmp "hist -c3 $t" "$H" hist -t $t -c 3 "$f" ;;
	esac
	algo_cmp "hist ranged $t" "$H" hist -q -t $t --bins 1000 --range -1e4:1e4 "$f"
	algo_cmp "hist auto-range $t" "$H" hist -q -t $t --bins 70000 "$f"
	algo_cmp "sum -c3 $t" "$S" sum -t $t -c 3 "$f"
	algo_cmp "sum -c64 $t" "$S" sum -t $t -c 64 "$f"
	algo_cmp "dot -c6 --pairs $t" "$S" dot --pairs -c 6 -t $t "$f"
	algo_cmp "dot A B $t" "$S" dot -t $t "$f" "$D/r.$t.s"
	# constant data: one bin, one value (the atomics' worst case)
	algo_cmp "hist ranged zeros $t" "$H" hist -q -t $t --bins 1000 --range -1e4:1e4 "$D/zero.s"
	algo_cmp "sum zeros $t" "$S" sum -t $t "$D/zero.s"
	# the fixtures of this type (specials, one element, empty)
	for f in fixtures/in/${t}_special.bin fixtures/in/${t}_one.bin \
		 fixtures/in/${t}_empty.bin; do
		[ -f "$f" ] || continue
		algo_cmp "fixture hist $f" "$H" hist -q -t $t --bins 33 --range -2:2 "$f"
		algo_cmp "fixture sum $f" "$S" sum -t $t "$f"
		algo_cmp "fixture dot $f" "$S" dot --pairs -t $t "$f"
	done
	algo_scans $t
}
# scanalgos: the scans' part of algos alone (algo_scans), no bench
if want scanalgos && ! want algos; then
	for t in u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64; do
		{ W=$D/wa.$t; mkdir -p "$W"; algo_scans $t; } > "$OUT/algos.$t.log" 2>&1 &
	done
	wait
	cat "$OUT"/algos.*.log > "$OUT/scanalgos.log"
	rm -f "$OUT"/algos.*.log
	say "scan algos, cuda --algorithm = cpu: $(grep -c '^pass' "$OUT/scanalgos.log") passed, $(grep -c '^FAIL' "$OUT/scanalgos.log") failed"
	grep '^FAIL' "$OUT/scanalgos.log" | cut -c1-200 >> "$summary"
	lap scanalgos
fi
if want algos; then
	head -c 25165824 /dev/zero > "$D/zero.s"
	for t in u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64; do
		algo_runs $t > "$OUT/algos.$t.log" 2>&1 &
	done
	wait
	cat "$OUT"/algos.*.log > "$OUT/algos.log"
	rm -f "$OUT"/algos.*.log
	say "algos, cuda --algorithm = cpu: $(grep -c '^pass' "$OUT/algos.log") passed, $(grep -c '^FAIL' "$OUT/algos.log") failed"
	grep '^FAIL' "$OUT/algos.log" | cut -c1-200 >> "$summary"
	# gpustat bench on the GPU: the sizes of the main jobs (100 MiB of
	# bytes, a 512x512 f32 image, a dot product) and 1 GiB of f32, every
	# algorithm
	{ $G bench hist -t u8 --size 100M &&
	  $G bench sum -t f32 --size 1M &&
	  $G bench dot -t f32 --size 8K &&
	  $G bench -t f32 --size 1G &&
	  $G bench -t u8 --size 100M -f json > "$OUT/bench_algos.json"; } \
		> "$OUT/bench_algos.txt" 2>&1 || say "FAIL gpustat bench: exit $?"
	lap algos
fi

# 5. bench
if want bench; then
	build/bench_gpu 1024 > "$OUT/bench_gpu.txt" 2>&1
	lap bench
fi
if want e2e; then
	sh bench/bench_e2e.sh "$D" "${E2E_MIB:-4096}" > "$OUT/bench_e2e.txt" 2>&1
	lap e2e
fi
rm -rf "$D"
echo
[ -f "$OUT/bench_gpu.txt" ] && cat "$OUT/bench_gpu.txt"
echo
[ -f "$OUT/bench_e2e.txt" ] && cat "$OUT/bench_e2e.txt"
echo
[ -f "$OUT/bench_algos.txt" ] && cat "$OUT/bench_algos.txt"
echo
cat "$summary"
# The exit status: 1 if any check above failed (a FAIL line, a fault
# output that differs from the CPU's, a sanitizer finding, fewer than 4 of
# 4 processes equal, a run that timed out), so a caller need not read the
# summary.
if grep -qE 'FAIL|[1-9][0-9]* failed|NOT the CPU|: exit [1-9]|exit 124|[0-3] of 4 equal|not found' "$summary"; then
	exit 1
fi
