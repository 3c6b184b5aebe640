#!/bin/sh
# End to end on the device machine: gpustat on a page-cached multi-GiB file
# and on a pipe, as ratios to `cat FILE > /dev/null` and
# `cat FILE | cat > /dev/null` measured in the same run (best of 3 each),
# then each stage's busy time (gpustat -v) against the wall time.
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

best() {	# best wall seconds of ${2:-3} runs of a shell command (awk: no bc)
	b=
	for _ in $(seq "${2:-3}"); do
		t0=$(date +%s%N)
		sh -c "$1" > /dev/null
		t=$(( $(date +%s%N) - t0 ))
		if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
	done
	awk -v n="$b" 'BEGIN { printf "%.4f", n / 1e9 }'
}
cat "$F" "$U" > /dev/null
# the baselines: best of 5 each, printed as measured (a first run can be
# slow, and a ratio must not rest on it)
CAT=$(best "cat $F" 5)
PIPE=$(best "cat $F | cat" 5)
printf '%-44s %8s %8s %8s\n' "end to end, ${MIB} MiB page-cached" "s" "GB/s" "ratio"
line() {	# name, baseline seconds, command (or the seconds, measured)
	case $3 in
	[0-9]*) t=$3 ;;
	*) t=$(best "$3") ;;
	esac
	awk -v name="$1" -v t="$t" -v base="$2" -v bytes="$BYTES" \
		'BEGIN { printf "%-44s %8.3f %8.2f %8.2f\n", name, t, bytes / t / 1e9, base / t }'
}
line "cat FILE > /dev/null" "$CAT" "$CAT"
line "cat FILE | cat > /dev/null" "$CAT" "$PIPE"
for be in cuda cpu auto; do
	line "sum f32 --backend $be (vs cat)" "$CAT" "./gpustat sum --backend $be $F"
	line "stats f32 --backend $be (vs cat)" "$CAT" "./gpustat stats --backend $be $F"
	line "dot --pairs f32 --backend $be (vs cat)" "$CAT" "./gpustat dot --pairs --backend $be $F"
	line "hist u8 --backend $be (vs cat)" "$CAT" "./gpustat hist --backend $be $U"
	line "hist f32 100 bins --backend $be (vs cat)" "$CAT" "./gpustat hist -q --bins 100 --range 0:1 -t f32 --backend $be $F"
done
for be in cuda cpu auto; do
	line "scan f32 --backend $be > /dev/null (vs cat)" "$CAT" "./gpustat scan --backend $be $F"
done
for be in cuda auto; do
	line "cat | sum --backend $be (vs cat|cat)" "$PIPE" "cat $F | ./gpustat sum --backend $be"
	line "cat | hist u8 --backend $be (vs cat|cat)" "$PIPE" "cat $U | ./gpustat hist --backend $be"
	line "cat | scan --backend $be (vs cat|cat)" "$PIPE" "cat $F | ./gpustat scan --backend $be"
done

# Stage busy times from -v; "run/max" is the overlap: the wall after setup
# (buffers, backend open) against the busiest stage (1.0 is perfect).
echo
printf '%-30s %6s %6s %6s %6s %6s %6s %6s %6s %6s %8s\n' "stages (s)" wall setup read \
	rdwait submit h2d kernel d2h write run/max
stages() {	# name, command
	sh -c "$2 -v" 2>&1 >/dev/null | awk -v name="$1" '/stages:/ {
		for (i = 1; i <= NF; i++) {
			w = $i; sub(/,$/, "", w)
			if (w == "wall") wall = $(i-2)
			if (w == "(setup") { su = $(i+1); gsub(/[)]/, "", su); su = su + 0 }
			if (w == "read") rd = $(i+1)
			if (w == "buffers") rw = $(i+1)
			if (w == "submit") sb = $(i+1)
			if (w == "h2d") h = $(i+1)
			if (w == "kernel") k = $(i+1)
			if (w == "d2h") d = $(i+1)
			if (w == "write") wr = $(i+1)
		}
		gsub(/[(),]/, "", rw); gsub(/,/, "", h); gsub(/,/, "", k); gsub(/,/, "", d); gsub(/,/, "", rd)
		m = rd + 0; if (h > m) m = h; if (k > m) m = k; if (wr > m) m = wr
		if (sb + 0 > m) m = sb + 0
		# run/max: the wall after setup against the busiest stage
		printf "%-30s %6.3f %6.3f %6.3f %6.3f %6.3f %6.3f %6.3f %6.3f %6.3f %8.2f\n",
			name, wall, su, rd, rw, sb, h, k, d, wr, (m > 0 ? (wall - su) / m : 0)
	}'
}
for be in cuda auto cpu; do
	stages "sum f32 $be" "./gpustat sum --backend $be $F"
	stages "hist u8 $be" "./gpustat hist --backend $be $U"
	stages "scan f32 $be" "./gpustat scan --backend $be $F"
done
stages "cat | sum cuda" "cat $F | ./gpustat sum --backend cuda"
rm -f "$F" "$U"
