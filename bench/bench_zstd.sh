#!/bin/sh
# zstd input on the device machine (issue 15): gpustat sum over 1 GiB
# compressed as one frame (zstd -T16 -3 writes one), as 16 independent
# frames (pzstd -p 16's layout) and as 16 single-frame shards, f32 normals
# and a compressible i16 random walk, as ratios to one core decoding the
# same bytes to /dev/null (mkzst -d, the loop of `zstd -dc`), measured in the
# same run, best of 3; and, for scale, as many `mkzst -d` processes as
# shards decoding them at once (the machine's own ceiling for that many
# independent decoders). -j 1 decodes on one thread, as gpustat did before
# (auto keeps zstd input on the CPU: decoding is the limit there);
# `cat FILE | gpustat sum` reads the frames from a pipe (the shards: their
# frames concatenated on the pipe). -j 1 on a pipe is the stream decoder.
# GPUSTAT_NO_VIEWS=1 copies decoded frames into the engine's chunks, as
# before they were computed on in place. CORES=N runs everything on the
# first N cores (taskset), e.g. 16 on a larger host; -v's stage and process
# lines follow each layout.
# RUNS=N takes the best of N runs (default 3); TYPES="n.f32 w.i16" and
# LAYOUTS="1 16 shards" pick rows; FAST=1 leaves out the one-thread rows
# (-j 1), which take as long as the baseline each.
#   sh bench/bench_zstd.sh [DIR] [MIB]      (default /dev/shm/gpustat-zstd, 1024)
cd "$(dirname "$0")/.." || exit 2
. bench/lib.sh
D=${1:-/dev/shm/gpustat-zstd}
MIB=${2:-1024}
mkdir -p "$D" build
cc -O2 bench/mkzst.c -lzstd -o build/mkzst || exit 1
python3 - "$D" "$MIB" <<'PY' || exit 1
import sys, numpy as np
d, mib = sys.argv[1], int(sys.argv[2])
np.random.default_rng(1).standard_normal(mib << 18, dtype=np.float32).tofile(d + '/n.f32')
w = np.cumsum(np.random.default_rng(2).integers(-3, 4, mib << 19), dtype=np.int64)
w.astype(np.int16).tofile(d + '/w.i16')
PY
P=
[ -n "${CORES:-}" ] && P="taskset -c 0-$((CORES - 1)) "
printf '%-54s %8s %8s\n' "gpustat sum of $MIB MiB, .zst in page cache${CORES:+, $CORES cores}" "s" "x 1 core"
for f in ${TYPES:-n.f32 w.i16}; do
	t=${f#*.}
	build/mkzst -c 3 0 < "$D/$f" > "$D/$f.1.zst"
	build/mkzst -c 3 $((MIB / 16)) < "$D/$f" > "$D/$f.16.zst"
	mkdir -p "$D/shards"
	split -n 16 -d "$D/$f" "$D/shards/$f."
	for s in "$D/shards/$f".*; do build/mkzst -c 3 0 < "$s" > "$s.zst"; rm "$s"; done
	for k in ${LAYOUTS:-1 16 shards}; do
		z=$D/$f.$k.zst
		[ $k = shards ] && z="$D/shards/$f.*.zst"
		cat $z > /dev/null
		base=$(secs "cat $z | ${P}build/mkzst -d")
		for cmd in "./gpustat sum -t $t $z" "./gpustat sum -t $t -j 1 $z" \
			   "./gpustat sum -t $t --backend cpu $z" \
			   "GPUSTAT_NO_VIEWS=1 ./gpustat sum -t $t --backend cpu $z" \
			   "./gpustat sum -t $t --backend cpu -j 1 $z" \
			   "cat $z | ./gpustat sum -t $t" \
			   "cat $z | ./gpustat sum -t $t -j 1"; do
			case $FAST$cmd in 1*"-j 1"*) continue ;; esac
			s=$(secs "$(echo "$cmd" | sed "s|\./gpustat|$P./gpustat|")")
			printf '%-54s %8.3f %8.2f\n' "$(echo "$cmd" | sed "s|$D/||g; s|\./gpustat |gpustat |")" \
				"$s" "$(awk -v b="$base" -v s="$s" 'BEGIN { print b / s }')"
		done
		printf '%-54s %8.3f %8.2f\n' "mkzst -d < $f.$k.zst (one core)" "$base" 1
		if [ $k = shards ]; then
			# the machine's ceiling: a decoder process per shard, all at once
			all=
			for s in $z; do all="$all ${P}build/mkzst -d < $s > /dev/null &"; done
			s=$(secs "$all wait")
			printf '%-54s %8.3f %8.2f\n' "16 x mkzst -d at once, a shard each" "$s" \
				"$(awk -v b="$base" -v s="$s" 'BEGIN { print b / s }')"
		fi
		# where the time goes: one frame, auto against one CPU thread;
		# frames and shards, computed in place and copied
		[ $k = 1 ] && vs="auto --backend_cpu_-j_1" || vs="--backend_cpu NO_VIEWS"
		for v in $vs; do
			echo "  -v $v:" | tr _ ' '
			case $v in
			NO_VIEWS) e=GPUSTAT_NO_VIEWS=1 a="--backend cpu" ;;
			auto) e= a= ;;
			*) e= a=$(echo "$v" | tr _ ' ') ;;
			esac
			env $e ${P}./gpustat sum -t $t -v $a $z 2>&1 > /dev/null |
				grep -E 'backend|stages|process' | cut -c 10-200 |
				sed 's/^/    /'
		done
	done
	rm -rf "$D/shards"
done
rm -rf "$D"
