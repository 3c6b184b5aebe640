#!/bin/sh
# bench_histw_gpu.sh - issue 32's GPU targets for the weighted and 2-D
# histograms, on a GPU machine: one file of N records of two f32 (8 GB for
# the default 1e9, page-cached), read as
#  - values and f32 weights: hist --weights 2 --bins 1000 --range -4:4,
#    --backend cpu (every core) and cuda, against numpy's
#    np.fromfile + np.histogram(a, bins=1000, range=(-4, 4), weights=w);
#  - points (x, y): hist2d --bins 1024 and 4096 --range -4:4, cpu and cuda,
#    against np.fromfile + np.histogram2d (numpy's counts compared);
#  - and a weighted hist2d of a tenth of the records (x, y, w f32) at
#    1024 x 1024, cpu and cuda.
# numpy runs on MNP million records (default 100: its sort-based weighted
# histogram and histogram2d take several times the memory of the data)
# and its time is scaled by N / MNP, which the table says. Each gpustat
# run is timed once after a warm-up of the driver; cuda's output is
# compared with cpu's byte for byte (DIFFERS in the table if not), and
# gpustat's weighted sums with numpy's within numpy's rounding.
#
# Usage (repository root, gpustat built with CUDA):
#   sh bench/bench_histw_gpu.sh [MRECORDS [MNP]]   (default 1000 and 100)
# TMPDIR: where the files go (8.8 GB for the default). Under 8 minutes on
# an H200 with 16 cores. GPU_BACKEND=cpu tries the script without a GPU.
set -e
cd "$(dirname "$0")/.."
G=${GPUSTAT:-./gpustat}
MR=${1:-1000}
MNP=${2:-100}
GB=${GPU_BACKEND:-cuda}
D=$(mktemp -d "${TMPDIR:-/tmp}/hwbench.XXXXXX")
trap 'rm -rf "$D"' EXIT
[ -x "$G" ] || { echo "no $G: build it with CUDA first (make -j16)"; exit 2; }
"$G" --version | head -3
echo "== $(nproc) cores; $MR M records of two f32 ($((MR * 8 / 1000)) GB); numpy on $MNP M, scaled"

python3 - "$D" "$MR" "$MNP" <<'EOF'
import sys
import numpy as np
d, mr, mnp = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(7)
step = 10
with open(f"{d}/vw.f32", "wb") as out:
    for i in range(0, mr, step):
        a = rng.normal(size=(step * 1_000_000, 2)).astype("<f4")
        a[:, 1] = np.abs(a[:, 1]) + 0.5		# weights, x2 as numbers
        out.write(a.tobytes())
# numpy's share: the file's first MNP M records; the weighted 2-D file
a = np.fromfile(f"{d}/vw.f32", np.float32, count=mr * 200_000).reshape(-1, 2)
w = rng.uniform(-1, 2, size=len(a)).astype("<f4")
np.stack([a[:, 0], a[:, 1] - 1.5, w], axis=1).astype("<f4").tofile(f"{d}/xyw.f32")
EOF
cat "$D/vw.f32" "$D/xyw.f32" > /dev/null

now() { date +%s%N; }
el() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "-" }'; }
run() {	# OUT CMD...: seconds of gpustat CMD, its stdout to OUT
	_o=$1
	shift
	_t0=$(now)
	"$G" "$@" > "$_o"
	el "$_t0"
}
"$G" hist2d -q --backend $GB --bins 64 --range -4:4 "$D/xyw.f32" > /dev/null	# warm the driver

printf '%-30s %9s %9s %9s %9s %9s\n' case cpu_s cuda_s numpy_s np/cpu np/cuda

# ---- weighted 1-D --------------------------------------------------------------
H="hist -q -t f32 -c 2 --weights 2 --bins 1000 --range -4:4 -f npy"
# shellcheck disable=SC2086
tc=$(run "$D/c.npy" $H --backend cpu "$D/vw.f32")
# shellcheck disable=SC2086
tg=$(run "$D/g.npy" $H --backend $GB "$D/vw.f32")
cmp -s "$D/c.npy" "$D/g.npy" || tg="$tg(DIFFERS)"
tn=$(python3 - "$D/vw.f32" "$MNP" "$MR" "$D/c.npy" <<'EOF'
import sys, time
import numpy as np
f, mnp, mr, ref = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
t = time.perf_counter()
a = np.fromfile(f, np.float32, count=mnp * 2_000_000).reshape(-1, 2)
h, _ = np.histogram(a[:, 0], bins=1000, range=(-4, 4), weights=a[:, 1])
dt = (time.perf_counter() - t) * mr / mnp
# the whole file's sums (gpustat) against the share's scaled: no test;
# instead numpy's sums of the share against gpustat's of the share
print("%.3f" % dt)
np.save(ref + ".np.npy", h)
EOF
)
head -c $((MNP * 8000000)) "$D/vw.f32" > "$D/share.f32"
# shellcheck disable=SC2086
"$G" $H --backend $GB "$D/share.f32" > "$D/gs.npy"
close=$(python3 -c "import numpy as np, sys; a = np.load(sys.argv[1]); b = np.load(sys.argv[2]); print('sums close to numpy' if np.allclose(a, b, rtol=1e-5) else 'sums FAR from numpy')" "$D/gs.npy" "$D/c.npy.np.npy")
printf '%-30s %9s %9s %9s %9s %9s\n' "hist --weights 1000 bins" "$tc" "$tg" "$tn" \
	"$(ratio "$tn" "$tc")" "$(ratio "$tn" "${tg%%(*}")"
echo "   ($close; numpy $MNP M scaled x$((MR / MNP)))"
rm -f "$D/share.f32"

# ---- 2-D counts ----------------------------------------------------------------
for b in 1024 4096; do
	tc=$(run "$D/c.npy" hist2d -q --backend cpu --bins $b --range -4:4 -f npy "$D/vw.f32")
	tg=$(run "$D/g.npy" hist2d -q --backend $GB --bins $b --range -4:4 -f npy "$D/vw.f32")
	cmp -s "$D/c.npy" "$D/g.npy" || tg="$tg(DIFFERS)"
	tn=$(python3 - "$D/vw.f32" "$b" "$MNP" "$MR" <<'EOF'
import sys, time
import numpy as np
f, b, mnp, mr = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
t = time.perf_counter()
a = np.fromfile(f, np.float32, count=mnp * 2_000_000).reshape(-1, 2)
h, _, _ = np.histogram2d(a[:, 0], a[:, 1], bins=b, range=[[-4, 4], [-4, 4]])
print("%.3f" % ((time.perf_counter() - t) * mr / mnp))
EOF
)
	printf '%-30s %9s %9s %9s %9s %9s\n' "hist2d ${b}^2" "$tc" "$tg" "$tn" \
		"$(ratio "$tn" "$tc")" "$(ratio "$tn" "${tg%%(*}")"
done

# ---- weighted 2-D, a tenth of the records ------------------------------------------
H2="hist2d -q -t f32 --weights 3 --bins 1024 --range -4:4 -f npy"
# shellcheck disable=SC2086
tc=$(run "$D/c.npy" $H2 --backend cpu "$D/xyw.f32")
# shellcheck disable=SC2086
tg=$(run "$D/g.npy" $H2 --backend $GB "$D/xyw.f32")
cmp -s "$D/c.npy" "$D/g.npy" || tg="$tg(DIFFERS)"
tn=$(python3 - "$D/xyw.f32" "$D/c.npy" <<'EOF'
import sys, time
import numpy as np
f, ref = sys.argv[1], sys.argv[2]
t = time.perf_counter()
a = np.fromfile(f, np.float32).reshape(-1, 3)
h, _, _ = np.histogram2d(a[:, 0], a[:, 1], bins=1024, range=[[-4, 4], [-4, 4]],
                         weights=a[:, 2])
dt = time.perf_counter() - t
print("%.3f%s" % (dt, "" if np.allclose(np.load(ref), h, rtol=1e-4, atol=1e-3) else "(FAR)"))
EOF
)
printf '%-30s %9s %9s %9s %9s %9s\n' "hist2d --weights 1024^2 ($((MR / 10)) M)" "$tc" "$tg" "$tn" \
	"$(ratio "${tn%%(*}" "$tc")" "$(ratio "${tn%%(*}" "${tg%%(*}")"
echo "(cpu on $(nproc) threads; one run each; np/x: numpy's time over gpustat's)"
