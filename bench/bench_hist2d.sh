#!/bin/sh
# hist2d against numpy.histogram2d (issue 32's targets, the CPU side): N
# points (x, y f32 normals, page-cached) in 1024x1024 and 4096x4096 bins over
# a given range, numpy's time (np.fromfile + histogram2d, one run: it is
# slow) beside gpustat hist2d's (best of $RUNS) on every core and on one,
# and `cat FILE` for scale, each as a ratio measured in the same run; the
# counts of both are compared once (gpustat -f npy against numpy's H).
# --backend cpu throughout (bench/hist2d_gpu_check.sh times the GPU).
#
#   sh bench/bench_hist2d.sh [MPOINTS]   (default 200 million points, 1.6 GB)
# TMPDIR: where the file goes; PY=python3.
cd "$(dirname "$0")/.." || exit 2
. bench/lib.sh
MP=${1:-200}
PY=${PY:-python3}
TMP=${TMPDIR:-/tmp}
F=$TMP/hist2d_bench.f32
[ -x gpustat ] || make -s -j"$(nproc)" gpustat > /dev/null || exit 1

echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
$PY - "$F" "$MP" <<'PY' || exit 1
import sys
import numpy as np
f, mp = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(1)
with open(f, "wb") as out:
    for _ in range(0, mp, 10):
        out.write(rng.normal(size=(10_000_000, 2)).astype("<f4").tobytes())
PY
cat "$F" > /dev/null
bytes=$(stat -c %s "$F")
t_cat=$(secs "cat '$F'")
printf '%-34s %9s %9s\n' "run ($MP M points)" seconds "x numpy"
for b in 1024 4096; do
	t_np=$($PY - "$F" "$b" "$TMP/np_$b.npy" <<'PY'
import sys, time
import numpy as np
f, b, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
t = time.perf_counter()
a = np.fromfile(f, np.float32).reshape(-1, 2)
H = np.histogram2d(a[:, 0], a[:, 1], bins=b, range=[(-4, 4), (-4, 4)])[0]
print("%.4f" % (time.perf_counter() - t))
np.save(out, H)
PY
)
	./gpustat hist2d -q --backend cpu --bins $b --range -4:4 -f npy "$F" > "$TMP/gs_$b.npy"
	same=$($PY -c "import numpy as np, sys; print('same' if (np.load(sys.argv[1]) == np.load(sys.argv[2])).all() else 'DIFFERENT')" "$TMP/gs_$b.npy" "$TMP/np_$b.npy")
	t_all=$(secs "./gpustat hist2d -q --backend cpu --bins $b --range -4:4 -f npy '$F'")
	t_one=$(secs "./gpustat hist2d -q --backend cpu -j 1 --bins $b --range -4:4 -f npy '$F'")
	printf '%-34s %9s %9s\n' "numpy.histogram2d ${b}^2" "$t_np" 1
	for row in "gpustat hist2d ${b}^2 (counts $same) $t_all" \
		   "gpustat hist2d -j 1 ${b}^2 $t_one"; do
		t=${row##* }
		printf '%-34s %9s %9s\n' "${row% *}" "$t" \
			"$(awk -v a="$t_np" -v b="$t" 'BEGIN { printf "%.1f", a / b }')"
	done
	rm -f "$TMP/gs_$b.npy" "$TMP/np_$b.npy"
done
printf '%-34s %9s   %s GB/s\n' "cat" "$t_cat" \
	"$(awk -v n="$bytes" -v t="$t_cat" 'BEGIN { printf "%.1f", n / t / 1e9 }')"
rm -f "$F"
