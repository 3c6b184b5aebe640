#!/bin/sh
# hist2d_gpu_check.sh - hist2d's GPU kernels (cuda/hist2d_kernels.cu) against
# its CPU ones, byte for byte, on a GPU machine, then a small timing table.
#
# Checks (one line each, "ok" or "FAIL", and a last line "hist2d-gpu: P ok,
# F failed"): --backend cuda prints the bytes of --backend cpu (json: the
# bins, edges, counts, nan and outside counts; npy for 4096 x 4096 bins
# with the stderr note) for
#  - all 12 types, 2M points each with values on the edges, at the
#    range's ends, outside it, and NaN/inf for floats; a given range and
#    the data's own (clean data), 64 x 64 bins (shared tiles), 1024 x 1024
#    and 300 x 7 (global atomics);
#  - f32, 1e7 points, 64x64, 1024x1024, 4096x4096 bins, given and data
#    ranges; -c 3 -F 3,1; big-endian; small chunks and 4 streams; constant
#    points and points all outside (the atomics' worst cases);
#  - a -f state of the GPU merged with one of the CPU;
#  - --devices all where there is more than one GPU;
#  - --backend auto (with -v: which backend ran) on the large file.
# Timing: 1e8 f32 points (800 MB, page-cached), 1024^2 and 4096^2 bins over
# a given range: gpustat --backend cpu (every core), --backend cuda, and
# numpy's fromfile + histogram2d, one run each (numpy is slow), as seconds
# and ratios to numpy.
#
# Usage (repository root, gpustat built with CUDA; builds nothing):
#   sh bench/hist2d_gpu_check.sh [MPOINTS]    (timing points, default 100 M)
# GPUSTAT=path overrides ./gpustat; TMPDIR where the files go (~1.5 GB).
cd "$(dirname "$0")/.." || exit 2
G=${GPUSTAT:-./gpustat}
MP=${1:-100}
D=$(mktemp -d "${TMPDIR:-/tmp}/h2gpu.XXXXXX") || exit 2
trap 'rm -rf "$D"' EXIT
[ -x "$G" ] || { echo "no $G: build it with CUDA first"; exit 2; }
"$G" --version | head -3
ngpu=$(nvidia-smi -L 2> /dev/null | wc -l)

python3 - "$D" <<'EOF' || exit 2
import sys, numpy as np
d = sys.argv[1]
rng = np.random.default_rng(42)
n = 2_000_000
types = ['u1', 'i1', 'u2', 'i2', 'u4', 'i4', 'u8', 'i8', 'f2', 'f4', 'f8']
names = ['u8', 'i8', 'u16', 'i16', 'u32', 'i32', 'u64', 'i64', 'f16', 'f32', 'f64']
for t, name in zip(types, names):
    dt = np.dtype(t)
    if dt.kind == 'f':
        a = rng.normal(0, 30, size=(n, 2))
        # values on the edges of -50:50 in 64 and 1024 bins, the ends, outside
        e = np.concatenate([np.linspace(-50, 50, 65), np.linspace(-50, 50, 1025),
                            [-50, 50, -50.0001, 50.0001, 60, -60]])
        k = rng.integers(0, n, size=len(e) * 40)
        a[k, rng.integers(0, 2, size=len(k))] = np.resize(e, len(k))
        a.astype(dt).tofile(f'{d}/clean.{name}')
        bad = np.array([np.nan, np.inf, -np.inf])
        k = rng.integers(0, n, size=3000)
        a[k, rng.integers(0, 2, size=len(k))] = np.resize(bad, len(k))
        a = a.astype(dt)
    else:
        info = np.iinfo(dt)
        lo, hi = max(info.min, -1000), min(info.max, 1000)
        a = rng.integers(lo, hi, size=(n, 2), endpoint=True).astype(dt)
        k = rng.integers(0, n, size=2000)
        a[k, rng.integers(0, 2, size=len(k))] = np.resize(np.array([info.min, info.max], dtype=dt), len(k))
        a.tofile(f'{d}/clean.{name}')
    a.tofile(f'{d}/p.{name}')
# bf16: f32's top halves, and the clean file likewise
for f in ['p', 'clean']:
    b = np.fromfile(f'{d}/{f}.f32', '<u4')
    (b >> 16).astype('<u2').tofile(f'{d}/{f}.bf16')
# 1e7 f32 points, a record of 3 (y, pad, x) of them, big-endian, constant, outside
x = rng.normal(size=(10_000_000, 2)).astype('<f4')
x.tofile(f'{d}/big.f32')
c3 = np.zeros((len(x), 3), '<f4'); c3[:, 2] = x[:, 0]; c3[:, 0] = x[:, 1]; c3[:, 1] = np.nan
c3.tofile(f'{d}/big3.f32')
x.astype('>f4').tofile(f'{d}/big.be')
np.full((4_000_000, 2), 0.25, '<f4').tofile(f'{d}/const.f32')
np.full((4_000_000, 2), 9.0, '<f4').tofile(f'{d}/out.f32')
EOF

p=0 f=0
check() {	# NAME ARGS...: cuda and cpu runs of hist2d ARGS print the same bytes
	name=$1
	shift
	"$G" hist2d --backend cuda "$@" > "$D/a" 2> "$D/ae"
	ra=$?
	"$G" hist2d --backend cpu "$@" > "$D/b" 2> "$D/be"
	rb=$?
	if [ $ra = 0 ] && [ $rb = 0 ] && cmp -s "$D/a" "$D/b" && cmp -s "$D/ae" "$D/be"; then
		p=$((p + 1)); echo "ok    $name"
	else
		f=$((f + 1)); echo "FAIL  $name (exit $ra/$rb): $(head -c 200 "$D/ae")"
	fi
}

for t in u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64; do
	for b in 64 1024 300,7; do
		check "$t --bins $b given range" -t $t --bins $b --range -50:50,-40:60 -f json "$D/p.$t"
		check "$t --bins $b data range" -t $t --bins $b -f json "$D/clean.$t"
	done
done
for b in 64 1024 4096; do
	for r in "--range -4:4" "--range -3.5:3,-2:4.25" ""; do
		fmt=json
		[ $b = 4096 ] && fmt=npy
		# shellcheck disable=SC2086
		check "f32 1e7 --bins $b $r" --bins $b $r -f $fmt "$D/big.f32"
	done
done
check "-c 3 -F 3,1" -c 3 -F 3,1 --bins 1024 --range -4:4 -f npy "$D/big3.f32"
check "big-endian" -t '>f4' --bins 1024 --range -4:4 -f npy "$D/big.be"
check "64K chunks, 4 streams" --chunk-size 64K --streams 4 --bins 100,90 -f json "$D/big.f32"
check "constant points, shared" --bins 64 --range 0:1 -f json "$D/const.f32"
check "constant points, global" --bins 2048 --range 0:1 -f npy "$D/const.f32"
check "all outside" --bins 1024 --range 0:1 -f json "$D/out.f32"
check "png" --bins 512 --range -4:4 -f png "$D/big.f32"
# a GPU's state merges with a CPU's
head -c 40000000 "$D/big.f32" > "$D/s1"
tail -c +40000001 "$D/big.f32" > "$D/s2"
"$G" hist2d --backend cuda --bins 1024 --range -4:4 -f state "$D/s1" > "$D/s1.st"
"$G" hist2d --backend cpu --bins 1024 --range -4:4 -f state "$D/s2" > "$D/s2.st"
"$G" merge -q -f npy "$D/s2.st" "$D/s1.st" > "$D/a"
"$G" hist2d -q --backend cpu --bins 1024 --range -4:4 -f npy "$D/big.f32" > "$D/b"
if cmp -s "$D/a" "$D/b"; then p=$((p + 1)); echo "ok    state of cuda + state of cpu"
else f=$((f + 1)); echo "FAIL  state of cuda + state of cpu"; fi
if [ "$ngpu" -gt 1 ]; then
	for b in 64 1024; do
		check "--devices all, $b bins" --devices all --chunk-size 4M --bins $b --range -4:4 -f npy "$D/big.f32"
	done
else
	echo "(one GPU: --devices not checked)"
fi
"$G" hist2d -v --bins 1024 --range -4:4 -f npy "$D/big.f32" > "$D/a" 2> "$D/ae"
"$G" hist2d --backend cpu --bins 1024 --range -4:4 -f npy "$D/big.f32" > "$D/b" 2> /dev/null
if cmp -s "$D/a" "$D/b"; then p=$((p + 1)); echo "ok    auto"
else f=$((f + 1)); echo "FAIL  auto"; fi
grep -i "backend" "$D/ae" | head -2
echo "hist2d-gpu: $p ok, $f failed"

# ---- timing --------------------------------------------------------------------
python3 - "$D/t.f32" "$MP" <<'EOF' || exit 2
import sys, numpy as np
f, mp = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(1)
with open(f, 'wb') as out:
    for _ in range(0, mp, 10):
        out.write(rng.normal(size=(10_000_000, 2)).astype('<f4').tobytes())
EOF
cat "$D/t.f32" > /dev/null
now() { date +%s%N; }
el() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }
printf '%-10s %10s %10s %10s %10s %10s\n' bins cpu_s cuda_s numpy_s np/cpu np/cuda
for b in 1024 4096; do
	t0=$(now); "$G" hist2d -q --backend cpu --bins $b --range -4:4 -f npy "$D/t.f32" > "$D/c.npy"; tc=$(el "$t0")
	"$G" hist2d -q --backend cuda --bins 64 --range -4:4 "$D/s1" > /dev/null	# warm the driver
	t0=$(now); "$G" hist2d -q --backend cuda --bins $b --range -4:4 -f npy "$D/t.f32" > "$D/g.npy"; tg=$(el "$t0")
	tn=$(python3 - "$D/t.f32" "$b" "$D/c.npy" <<'EOF'
import sys, time
import numpy as np
f, b, ref = sys.argv[1], int(sys.argv[2]), sys.argv[3]
t = time.perf_counter()
a = np.fromfile(f, np.float32).reshape(-1, 2)
h, _, _ = np.histogram2d(a[:, 0], a[:, 1], bins=b, range=[[-4, 4], [-4, 4]])
dt = time.perf_counter() - t
same = np.array_equal(np.load(ref), h.astype(np.uint64))
print("%.3f%s" % (dt, "" if same else "(DIFFERS)"))
EOF
)
	cmp -s "$D/c.npy" "$D/g.npy" || tg="$tg(DIFFERS)"
	printf '%-10s %10s %10s %10s %10s %10s\n' "${b}^2" "$tc" "$tg" "$tn" \
		"$(awk -v a="${tn%%(*}" -v b="$tc" 'BEGIN { printf "%.1fx", a / b }')" \
		"$(awk -v a="${tn%%(*}" -v b="${tg%%(*}" 'BEGIN { printf "%.1fx", a / b }')"
done
echo "($MP M f32 points, page-cached; cpu on $(nproc) threads; one run each)"
[ "$f" -eq 0 ]
