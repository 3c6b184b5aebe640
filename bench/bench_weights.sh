#!/bin/sh
# hist --weights against numpy.histogram(a, weights=w) (issue 32's target
# for weighted 1-D histograms, the CPU side): N records (value, weight),
# both f32 (values uniform in [0, 1), weights normal), page-cached, in 1000
# bins over a given range; numpy's time (np.fromfile + histogram, one run)
# beside gpustat's (best of $RUNS) on every core and on one, and `cat FILE`
# for scale, each as a ratio measured in the same run. The sums are compared
# once with numpy's of the weights as float64 (which round as numpy adds),
# within 1e-9 relative. hist --weights has no GPU kernels yet: auto runs it
# on the CPU.
#
#   sh bench/bench_weights.sh [MRECORDS]   (default 200 million, 1.6 GB)
# TMPDIR: where the file goes; PY=python3.
cd "$(dirname "$0")/.." || exit 2
. bench/lib.sh
MR=${1:-200}
PY=${PY:-python3}
TMP=${TMPDIR:-/tmp}
F=$TMP/weights_bench.f32
[ -x gpustat ] || make -s -j"$(nproc)" gpustat > /dev/null || exit 1

echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
$PY - "$F" "$MR" <<'PY' || exit 1
import sys
import numpy as np
f, mr = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(1)
with open(f, "wb") as out:
    for _ in range(0, mr, 10):
        a = np.empty((10_000_000, 2), "<f4")
        a[:, 0] = rng.random(10_000_000)
        a[:, 1] = rng.normal(size=10_000_000)
        out.write(a.tobytes())
PY
cat "$F" > /dev/null
bytes=$(stat -c %s "$F")
t_cat=$(secs "cat '$F'")
t_np=$($PY - "$F" "$TMP/np_w.npy" <<'PY'
import sys, time
import numpy as np
f, out = sys.argv[1], sys.argv[2]
t = time.perf_counter()
a = np.fromfile(f, np.float32).reshape(-1, 2)
h = np.histogram(a[:, 0], 1000, range=(0, 1), weights=a[:, 1])[0]
print("%.4f" % (time.perf_counter() - t))
np.save(out, np.histogram(a[:, 0], 1000, range=(0, 1),
                          weights=a[:, 1].astype(np.float64))[0])
PY
)
./gpustat hist -q -t f32 -c 2 --weights 2 --bins 1000 --range 0:1 -f npy "$F" > "$TMP/gs_w.npy"
same=$($PY -c "import numpy as np, sys; print('close' if np.allclose(np.load(sys.argv[1]), np.load(sys.argv[2]), rtol=1e-9, atol=1e-6) else 'DIFFERENT')" "$TMP/gs_w.npy" "$TMP/np_w.npy")
t_all=$(secs "./gpustat hist -q -t f32 -c 2 --weights 2 --bins 1000 --range 0:1 '$F'")
t_one=$(secs "./gpustat hist -q -j 1 -t f32 -c 2 --weights 2 --bins 1000 --range 0:1 '$F'")
t_cnt=$(secs "./gpustat hist -q -t f32 -c 2 -F 1 --bins 1000 --range 0:1 '$F'")
printf '%-40s %9s %9s\n' "run ($MR M records)" seconds "x numpy"
printf '%-40s %9s %9s\n' "numpy.histogram weights=f32" "$t_np" 1
for row in "gpustat hist --weights (sums $same) $t_all" \
	   "gpustat hist --weights -j 1 $t_one" \
	   "gpustat hist -F 1 (counts only) $t_cnt"; do
	t=${row##* }
	printf '%-40s %9s %9s\n' "${row% *}" "$t" \
		"$(awk -v a="$t_np" -v b="$t" 'BEGIN { printf "%.1f", a / b }')"
done
printf '%-40s %9s   %s GB/s\n' "cat" "$t_cat" \
	"$(awk -v n="$bytes" -v t="$t_cat" 'BEGIN { printf "%.1f", n / t / 1e9 }')"
rm -f "$F" "$TMP/gs_w.npy" "$TMP/np_w.npy"
