#!/bin/sh
# nvCOMP's batched zstd decoder on the device (issue 29, item 2): does a GPU
# zstd decoder pay on pzstd's files, and is it safe on corrupt frames.
# Builds bench/nvcomp_probe.cu, writes 1 GiB of f32 normals and of an i16
# random walk (as bench_zstd.sh does), compresses them with the real
# `pzstd -p 16` (level 3: frames of 8 MiB, each behind a skippable frame),
# and an 8 GiB file of each (the 1 GiB repeated 8 times on pzstd's stdin:
# its frames are independent, so the decoder's work is that of 8 GiB), then
# for each file: the anchor `pzstd -d -p 16 -c > /dev/null` and the probe's
# --e2e run (a whole process: start, CUDA init, dlopen, header walk, reads
# into pinned stages while the GPU decodes and checksums), best of $RUNS
# (default 3) each; the probe's full report (each stage alone, pipelined,
# streamed, every frame against libzstd) goes to $D/report.FILE and is
# printed; then a fuzz run on one frame of each 1 GiB file (under timeout);
# last, the table.
#
#   NVCOMP=.nvcomp PZSTD=.nvcomp/pzstd sh bench/bench_nvcomp.sh [DIR]
#
# NVCOMP: a folder with include/nvcomp/zstd.h and lib64/libnvcomp.so.6
# (default .nvcomp); PZSTD: the pzstd binary (default: the one on PATH);
# DIR: where the files go (default /dev/shm/gpustat-nvc, about 14 GiB);
# SIZES="1 8": the files, in units of MIB MiB (default 1024: 1 and 8 GiB);
# B: frames per batch for the e2e rows (default "64 128").
cd "$(dirname "$0")/.." || exit 2
. bench/lib.sh
D=${1:-/dev/shm/gpustat-nvc}
NVCOMP=${NVCOMP:-.nvcomp}
PZSTD=${PZSTD:-$(command -v pzstd)}
SIZES=${SIZES:-1 8}
P=build/nvc/nvcomp_probe
[ -x "$PZSTD" ] || { echo "bench_nvcomp: no pzstd (PZSTD=path)" >&2; exit 2; }
mkdir -p "$D" || exit 2
start=$(date +%s)
make -s BUILD=build/nvc CUDA="$(command -v nvcc)" NVCOMP="$NVCOMP" $P >&2 || exit 1
echo "built the probe in $(($(date +%s) - start)) s" >&2

python3 - "$D" "${MIB:-1024}" <<'PY' || exit 1
import sys, numpy as np
d, mib = sys.argv[1], int(sys.argv[2])
np.random.default_rng(1).standard_normal(mib << 18, dtype=np.float32).tofile(d + '/n.f32')
w = np.cumsum(np.random.default_rng(2).integers(-3, 4, mib << 19), dtype=np.int64)
w.astype(np.int16).tofile(d + '/w.i16')
PY
files=
for t in n.f32 w.i16; do
	for g in $SIZES; do
		z=$D/$t.${g}g.zst
		i=0
		while [ $i -lt "$g" ]; do cat "$D/$t"; i=$((i + 1)); done |
			"$PZSTD" -q -p 16 -c > "$z" || exit 1
		files="$files $z"
	done
	rm "$D/$t"
done
echo "files written at $(($(date +%s) - start)) s" >&2

rows=
for z in $files; do
	f=${z#"$D/"}
	cat "$z" > /dev/null
	$P "$z" > "$D/report.$f" 2>&1
	rc=$?
	a=$(secs "$PZSTD -d -q -p 16 -c $z")
	e=
	for b in ${B:-64 128}; do
		$P --e2e -b $b "$z" > "$D/e2e.$f.$b" 2>&1 || b="$b(FAILED)"
		s=$(secs "$P --e2e -b ${b%%(*} $z 2>/dev/null")
		e="$e $b:$s"
	done
	rows="$rows$f $a $rc$e
"
	echo "$f done at $(($(date +%s) - start)) s" >&2
done

# Each file's full report, then the fuzz runs.
for z in $files; do
	f=${z#"$D/"}
	echo
	echo "== $f: $(head -2 "$D/report.$f" | tr '\n' ' ')"
	tail -n +3 "$D/report.$f" | grep -v '^$'
done
for t in n.f32 w.i16; do
	z=$D/$t.$(echo $SIZES | cut -d' ' -f1)g.zst
	[ -f "$z" ] || continue
	echo
	echo "== fuzz: ${z#"$D/"}"
	timeout 90 $P --fuzz -t 5 "$z" 2>&1
	echo "(fuzz exit $?: 0 all safe, 1 something unsafe, faulted or hung, 124 timeout)"
done
echo
printf '%-14s %9s %9s %9s %8s %s\n' file "GiB out" "pzstd s" "probe s" "x pzstd" "(probe: --e2e, a whole process, best of ${RUNS:-3}; report: its checks)"
echo "$rows" | while read -r f a rc e; do
	[ -n "$f" ] || continue
	out=$(sed -n 's/.* -> \([0-9.]*\) GiB.*/\1/p' "$D/report.$f" | head -1)
	for be in $e; do
		b=${be%%:*} s=${be#*:}
		printf '%-14s %9.2f %9.3f %9.3f %8.2f b=%s report=%s\n' "$f" "${out:-0}" "$a" "$s" \
			"$(awk -v a="$a" -v s="$s" 'BEGIN { print a / s }')" "$b" \
			"$([ "$rc" = 0 ] && echo ok || echo "FAILED ($rc)")"
	done
done
echo "total $(($(date +%s) - start)) s"
