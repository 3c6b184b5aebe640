#!/bin/sh
# ab_cpu.sh - two gpustat binaries on the CPU, one thread, in turn: the
# exact sums' commands on page-cached f32 and f64 files, RUNS rounds each,
# the best time of each (the least disturbed on a shared machine) and
# NEW's time over BASE's. Builds nothing.
#   sh bench/ab_cpu.sh BASE NEW [MIB]   (default 256 MiB; RUNS=5)
set -e
cd "$(dirname "$0")/.."
. bench/lib.sh
BASE=${1:?usage: sh bench/ab_cpu.sh BASE NEW [MIB]}
NEW=${2:?usage: sh bench/ab_cpu.sh BASE NEW [MIB]}
MIB=${3:-256}
RUNS=${RUNS:-5}
TMP=${TMPDIR:-/tmp}
[ -x build/bench_kernels ] || make -s build/bench_kernels
for t in f32 f64; do
	[ -s "$TMP/ab_cpu.$t" ] || ./build/bench_kernels --gen "$t" "$MIB" > "$TMP/ab_cpu.$t"
	cat "$TMP/ab_cpu.$t" > /dev/null
done
printf '%-28s %9s %9s %7s\n' command base new ratio
for c in "sum -t f32" "stats -t f32" "dot --pairs -t f32" "scan -t f32" \
	 "sum -t f64" "stats -t f64" "dot --pairs -t f64" "reduce --op prod -t f64"; do
	f=$TMP/ab_cpu.${c##* }
	b=; n=
	for r in $(seq "$RUNS"); do	# in turn, so both see the same load
		b="$b $(best "$BASE $c -j 1 --backend cpu $f" 1)"
		n="$n $(best "$NEW $c -j 1 --backend cpu $f" 1)"
	done
	echo "$c|$b|$n" | awk -F'|' '{
		split($2, x, " "); split($3, y, " "); b = x[1]; n = y[1]
		for (i in x) if (x[i] < b) b = x[i]
		for (i in y) if (y[i] < n) n = y[i]
		printf "%-28s %9.3f %9.3f %7.3f\n", $1, b, n, n / b }'
done
