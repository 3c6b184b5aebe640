#!/bin/sh
# bench_group_gpu.sh - sum --by 1 -t i32,f32 on the GPU against the CPU and
# numpy, on a GPU machine: a short table of seconds and ratios.
#
# For each size (millions of records, default 100 and 1000) and key count
# (KEYS, default 1000, 1,000,000 and 4,000,000: past the GPU's table of
# 1,048,576, where the records of the keys past it are drained to the
# CPU's fold; keys uniform, values normal f32), from a
# page-cached file: gpustat --backend cpu (every core), --backend cuda,
# and numpy (fromfile, then unique(return_inverse) + bincount(weights) up
# to 100 M records; at 1000 M bincount over the keys as they are, 0..K-1,
# since unique's sort alone would take minutes), one run each, load
# included. cuda's bytes are compared with cpu's (DIFFERS where not; the
# CPU may stop at its memory limit at 1e6 keys: "limit", or run past
# CPU_LIMIT seconds, default 100: ">100"); under each row, cuda's -v
# stages and process lines (where its time went). Then, where
# nvcc is found, bench/bench_group_sort.cu: the hash kernel against CUB's
# sort + reduce by key, on the device alone.
#
# Usage (repository root, gpustat built with CUDA; 16 GB in TMPDIR for
# 1000 M records; about 5 minutes on an H200):
#   sh bench/bench_group_gpu.sh [MRECORDS...]
# (KEYS="1000 1000000" sh bench/bench_group_gpu.sh 100: the short run)
# GPUSTAT=path overrides ./gpustat.
cd "$(dirname "$0")/.." || exit 2
G=${GPUSTAT:-./gpustat}
D=$(mktemp -d "${TMPDIR:-/tmp}/grbench.XXXXXX") || exit 2
trap 'rm -rf "$D"' EXIT
[ -x "$G" ] || { echo "no $G: build it with CUDA first"; exit 2; }
SIZES=${*:-100 1000}
KEYS=${KEYS:-1000 1000000 4000000}
CPU_LIMIT=${CPU_LIMIT:-100}	# seconds a CPU run may take
now() { date +%s%N; }
el() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.1fx", a / b; else printf "-" }'; }

"$G" --version | head -3
head -c 800000 /dev/zero > "$D/z"
"$G" sum --backend cuda -q "$D/z" > /dev/null	# warm the driver
printf '%-7s %-8s %9s %9s %9s %9s %9s\n' Mrec keys cpu_s cuda_s numpy_s np/cpu np/cuda
for m in $SIZES; do
	for k in $KEYS; do
		python3 - "$D/r" "$m" "$k" <<'EOF' || exit 2
import sys, numpy as np
f, m, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(k)
step = 50_000_000
with open(f, 'wb') as out:
    for i in range(0, m * 1_000_000, step):
        n = min(step, m * 1_000_000 - i)
        r = np.empty(n, dtype=[('k', '<i4'), ('v', '<f4')])
        r['k'] = rng.integers(0, k, size=n, dtype=np.int32)
        r['v'] = rng.normal(size=n).astype(np.float32)
        out.write(r.tobytes())
EOF
		cat "$D/r" > /dev/null
		t0=$(now)
		rm -f "$D/c"
		timeout "$CPU_LIMIT" "$G" sum -q --backend cpu --by 1 -t i32,f32 "$D/r" > "$D/c" 2> "$D/ce"
		case $? in
		0) tc=$(el "$t0") ;;
		124) tc=">$CPU_LIMIT" ;;
		*) tc=limit; head -c 200 "$D/ce" >&2 ;;
		esac
		t0=$(now)
		if "$G" sum -q -v --backend cuda --by 1 -t i32,f32 "$D/r" > "$D/g" 2> "$D/ge"; then
			tg=$(el "$t0")
			[ ! -s "$D/c" ] || cmp -s "$D/c" "$D/g" || tg="$tg(DIFFERS)"
		else
			tg=fail; head -c 300 "$D/ge" >&2
		fi
		tn=$(python3 - "$D/r" "$m" "$k" <<'EOF'
import sys, time
import numpy as np
f, m, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
t = time.perf_counter()
r = np.fromfile(f, dtype=[('k', '<i4'), ('v', '<f4')])
if m <= 100:
    u, inv = np.unique(r['k'], return_inverse=True)
    s = np.bincount(inv, weights=r['v'])
else:
    s = np.bincount(r['k'], weights=r['v'], minlength=k)
print("%.3f" % (time.perf_counter() - t))
EOF
)
		printf '%-7s %-8s %9s %9s %9s %9s %9s\n' "$m" "$k" "$tc" "$tg" "$tn" \
			"$(ratio "$tn" "$tc")" "$(ratio "$tn" "${tg%%(*}")"
		# where cuda's time went (-v): the stages, and run vs teardown
		grep "stages:\|process:" "$D/ge" | sed 's/^/    /' | cut -c1-240
		rm -f "$D/r"
	done
done
echo "(records page-cached; cpu on $(nproc) threads; one run each, load included)"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [ -x "$NVCC" ] && mkdir -p build &&
   "$NVCC" -O3 -std=c++17 -arch=native -Isrc/numerics -o build/bench_group_sort bench/bench_group_sort.cu; then
	build/bench_group_sort 100
fi
