#!/bin/sh
# The --by fold's CPU speed: M records/s of sum, stats and count --by 1 at
# -j 1 and -j 2 (or $JOBS) over 2e7 (or $N) records of (i32,f32) and
# (i64,f64), K distinct keys in [0, K) (default 1e3 1e5 1e7); best of
# $RUNS; each output's md5 beside it, so two binaries' bytes compare.
#
#   sh bench/bench_group_fold.sh [GPUSTAT] [KEYS...]
# On the 16-core device (CPU build; about 70 s):
#   make CUDA= -s -j16 gpustat && N=100000000 RUNS=1 JOBS=16 \
#     TMPDIR=/dev/shm sh bench/bench_group_fold.sh ./gpustat 1000 1000000
# TMPDIR: where the files go (kept between runs); PY=python3.
BIN=${1:-./gpustat}
[ $# -gt 0 ] && shift
KEYS=${*:-1000 100000 10000000}
N=${N:-20000000}
RUNS=${RUNS:-2}
JOBS=${JOBS:-1 2}
PY=${PY:-python3}
D=${TMPDIR:-/tmp}/group_fold
mkdir -p "$D" || exit 1
for K in $KEYS; do
	[ -s "$D/i64f64.$K.$N" ] || $PY - "$D" "$K" "$N" <<'PY' || exit 1
import sys
import numpy as np
d, nk, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(1)
k = rng.integers(0, nk, n)
v = rng.normal(size=n)
for kt, vt, name in (("<i4", "<f4", "i32f32"), ("<i8", "<f8", "i64f64")):
    a = np.empty(n, [("k", kt), ("v", vt)])
    a["k"] = k
    a["v"] = v
    a.tofile(f"{d}/{name}.{nk}.{n}")
PY
done
printf '%-8s %-9s %-6s %3s %8s  %s\n' types keys cmd j Mrec/s md5
for K in $KEYS; do
	for T in i32f32 i64f64; do
		F=$D/$T.$K.$N
		t=$(echo "$T" | sed 's/\([if][0-9]*\)\([if][0-9]*\)/\1,\2/')
		cat "$F" > /dev/null
		for C in sum stats count; do
			for J in $JOBS; do
				best=
				for _ in $(seq "$RUNS"); do
					s=$(date +%s.%N)
					h=$("$BIN" $C --by 1 -t "$t" -j "$J" "$F" | md5sum | cut -c1-8)
					e=$(date +%s.%N)
					best=$(echo "$s $e $best" | awk '{t=$2-$1; if ($3 == "" || t < $3) t=t; else t=$3; print t}')
				done
				printf '%-8s %-9s %-6s %3s %8.1f  %s\n' "$T" "$K" "$C" "$J" \
					"$(echo "$N $best" | awk '{print $1/$2/1e6}')" "$h"
			done
		done
	done
done
