#!/bin/sh
# End to end on the device machine: gpustat on a page-cached multi-GiB file
# and on a pipe, as ratios to `cat FILE > /dev/null` and
# `cat FILE | cat > /dev/null` measured in the same run (best of 3 each).
#   sh bench/bench_e2e.sh [DIR] [MIB]     (default /dev/shm/gpustat, 4096)
cd "$(dirname "$0")/.." || exit 2
D=${1:-/dev/shm/gpustat}
MIB=${2:-4096}
mkdir -p "$D"
F=$D/e2e.f32
U=$D/e2e.u8
build/bench_kernels --gen f32 "$MIB" > "$F"
build/bench_kernels --gen u8 "$MIB" > "$U"
BYTES=$(stat -c %s "$F")

best() {	# best wall seconds of 3 runs of a shell command (awk: no bc there)
	b=
	for _ in 1 2 3; do
		t0=$(date +%s%N)
		sh -c "$1" > /dev/null
		t=$(( $(date +%s%N) - t0 ))
		if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
	done
	awk -v n="$b" 'BEGIN { printf "%.4f", n / 1e9 }'
}
cat "$F" "$U" > /dev/null
CAT=$(best "cat $F")
PIPE=$(best "cat $F | cat")
printf '%-44s %8s %8s %8s\n' "end to end, ${MIB} MiB page-cached" "s" "GB/s" "ratio"
line() {	# name, baseline seconds, command
	t=$(best "$3")
	awk -v name="$1" -v t="$t" -v base="$2" -v bytes="$BYTES" \
		'BEGIN { printf "%-44s %8.3f %8.2f %8.2f\n", name, t, bytes / t / 1e9, base / t }'
}
line "cat FILE > /dev/null" "$CAT" "cat $F"
line "cat FILE | cat > /dev/null" "$CAT" "cat $F | cat"
for be in cuda cpu auto; do
	line "sum f32 --backend $be (vs cat)" "$CAT" "./gpustat sum --backend $be $F"
	line "stats f32 --backend $be (vs cat)" "$CAT" "./gpustat stats --backend $be $F"
	line "dot --pairs f32 --backend $be (vs cat)" "$CAT" "./gpustat dot --pairs --backend $be $F"
	line "hist u8 --backend $be (vs cat)" "$CAT" "./gpustat hist --backend $be $U"
	line "hist f32 100 bins --backend $be (vs cat)" "$CAT" "./gpustat hist -q --bins 100 --range 0:1 -t f32 --backend $be $F"
done
line "scan f32 (cpu) > /dev/null (vs cat)" "$CAT" "./gpustat scan $F"
line "cat | sum --backend cuda (vs cat|cat)" "$PIPE" "cat $F | ./gpustat sum --backend cuda"
line "cat | hist --backend cuda (vs cat|cat)" "$PIPE" "cat $U | ./gpustat hist --backend cuda"
line "cat | sum --backend auto (vs cat|cat)" "$PIPE" "cat $F | ./gpustat sum"
line "cat | scan (cpu) (vs cat|cat)" "$PIPE" "cat $F | ./gpustat scan"
rm -f "$F" "$U"
