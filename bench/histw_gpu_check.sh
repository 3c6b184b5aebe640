#!/bin/sh
# histw_gpu_check.sh - the weighted histograms' GPU kernels
# (cuda/histw_kernels.cu: hist --weights and hist2d --weights) against the
# CPU's, byte for byte, on a GPU machine.
#
# Checks (one line each, "ok" or "FAIL", and a last line "histw-gpu: P ok,
# F diff"): --backend cuda prints the bytes of --backend cpu (json: every
# bin's sum, the edges, the below/above/nan or nan/outside counts; text
# for the note) for
#  - weights of every type (f16, bf16, f32, f64, i8, u8, i16, i32, u64,
#    i64): normal weights with NaN, +inf, -inf, -0 and +0 among them, and
#    weights of extreme scale (f64 1e300 with 1e-300 and subnormals, f32
#    3e38 with 1e-45, integers at their minimum and maximum), values on
#    the edges, at the range's ends, outside it and NaN;
#  - 1-D: 10 and 1000 bins (shared memory), 200000 bins (global atomics),
#    a given range and the data's own, one bin per value (u8, i16), two
#    value columns (-c 3 --weights 2);
#  - 2-D: 16 x 16 (shared), 64 x 64, 1024 x 1024 and 300 x 7 (global),
#    a given range and the data's own, --weights 1;
#  - a bin of -0 weights only, a bin of +inf and -inf (NaN), all records
#    outside, constant records (one bin takes every atomic);
#  - 64K chunks with 4 streams; a -f state of the GPU merged with one of
#    the CPU; --devices all where there is more than one GPU; auto (-v).
#
# Usage (repository root, gpustat built with CUDA; builds nothing):
#   sh bench/histw_gpu_check.sh
# GPUSTAT=path overrides ./gpustat; TMPDIR where the files go (~0.5 GB).
# About a minute on an H200. GPU_BACKEND=cpu tries the script without a GPU.
set -e
cd "$(dirname "$0")/.."
G=${GPUSTAT:-./gpustat}
GB=${GPU_BACKEND:-cuda}
D=$(mktemp -d "${TMPDIR:-/tmp}/hwgpu.XXXXXX")
trap 'rm -rf "$D"' EXIT
[ -x "$G" ] || { echo "no $G: build it with CUDA first"; exit 2; }
"$G" --version | head -3
ngpu=$(nvidia-smi -L 2> /dev/null | wc -l)

python3 - "$D" <<'EOF'
import sys, numpy as np
d = sys.argv[1]
rng = np.random.default_rng(32)
n = 1_000_000
types = {'u8': 'u1', 'i8': 'i1', 'i16': 'i2', 'i32': 'i4', 'u64': 'u8',
         'i64': 'i8', 'f16': 'f2', 'f32': 'f4', 'f64': 'f8'}
for name, t in types.items():
    dt = np.dtype(t)
    if dt.kind == 'f':
        v = rng.normal(0, 30, size=(n, 3))
        e = np.concatenate([np.linspace(-50, 50, 11), np.linspace(-50, 50, 1001),
                            [-50, 50, -50.0001, 50.0001, 60, -60, np.nan]])
        k = rng.integers(0, n, size=len(e) * 20)
        v[k, rng.integers(0, 2, size=len(k))] = np.resize(e, len(k))
        w = rng.normal(0, 1, size=n)
        big = {'f16': [65504, 6e-8, -65504, 1e-4], 'f32': [3e38, 1e-45, -3e38, 1e-30],
               'f64': [1e300, 1e-300, -1e300, 5e-324, 1e-320]}[name]
        k = rng.integers(0, n, size=n // 50)
        w[k] = np.resize(np.array(big), len(k))
        k = rng.integers(0, n, size=3000)
        w[k] = np.resize(np.array([np.nan, np.inf, -np.inf, -0.0, 0.0]), len(k))
        v[:, 2] = w
        a = v.astype(dt)
        # the data's own range needs clean values
        c = a.copy()
        c[:, :2] = np.nan_to_num(c[:, :2], nan=1.0)
        c.tofile(f'{d}/clean.{name}')
    else:
        info = np.iinfo(dt)
        lo, hi = max(info.min, -1000), min(info.max, 1000)
        a = rng.integers(lo, hi, size=(n, 3), endpoint=True).astype(dt)
        k = rng.integers(0, n, size=n // 20)
        a[k, 2] = np.resize(np.array([info.min, info.max], dtype=dt), len(k))
        a.tofile(f'{d}/clean.{name}')
    a.tofile(f'{d}/p.{name}')
b = np.fromfile(f'{d}/p.f32', '<u4')
(b >> 16).astype('<u2').tofile(f'{d}/p.bf16')
b = np.fromfile(f'{d}/clean.f32', '<u4')
(b >> 16).astype('<u2').tofile(f'{d}/clean.bf16')
# special bins: -0 weights only in one place, +inf and -inf in another;
# constant records; records all outside
s = rng.normal(0, 1, size=(400_000, 3)).astype('<f4')
s[:1000, :2] = [0.05, 0.05]; s[:1000, 2] = -0.0
s[1000:1100, :2] = [0.55, 0.55]; s[1000:1050, 2] = np.inf; s[1050:1100, 2] = -np.inf
s.tofile(f'{d}/special.f32')
np.tile(np.array([0.25, 0.25, 1.5], '<f4'), (3_000_000, 1)).tofile(f'{d}/const.f32')
np.tile(np.array([9.0, 9.0, 1.0], '<f4'), (2_000_000, 1)).tofile(f'{d}/out.f32')
# 1e7 f32 records for the chunks and state checks
rng.normal(0, 1, size=(10_000_000, 3)).astype('<f4').tofile(f'{d}/big.f32')
EOF

p=0 f=0
check() {	# NAME CMD ARGS...: cuda and cpu runs of CMD ARGS print the same bytes
	name=$1 cmd=$2
	shift 2
	ra=0 rb=0
	"$G" "$cmd" --backend $GB "$@" > "$D/a" 2> "$D/ae" || ra=$?
	"$G" "$cmd" --backend cpu "$@" > "$D/b" 2> "$D/be" || rb=$?
	if [ $ra = 0 ] && [ $rb = 0 ] && cmp -s "$D/a" "$D/b" && cmp -s "$D/ae" "$D/be"; then
		p=$((p + 1)); echo "ok    $name"
	else
		f=$((f + 1)); echo "DIFF  $name (exit $ra/$rb): $(head -c 200 "$D/ae")"
	fi
}

for t in u8 i8 i16 i32 u64 i64 f16 bf16 f32 f64; do
	# 1-D: the value column 1, the weight column 3 (column 2 a second value
	# with -c 3 --weights 3, left out with -F 1)
	bins="10 1000 200000"
	[ $t = f16 ] && bins="10 1000"	# f16 edges of 200000 bins repeat
	for b in $bins; do
		check "hist $t --bins $b given range" hist -t $t -c 3 -F 1 --weights 3 \
			--bins $b --range -50:50 -f json "$D/p.$t"
		check "hist $t --bins $b data range" hist -t $t -c 3 -F 1 --weights 3 \
			--bins $b -f json "$D/clean.$t"
	done
	check "hist $t two value columns" hist -t $t -c 3 --weights 3 --bins 100 \
		--range -50:50 -f json "$D/p.$t"
	for b in 16 64 1024 300,7; do
		check "hist2d $t --bins $b given range" hist2d -t $t --weights 3 --bins $b \
			--range -50:50,-40:60 -f json "$D/p.$t"
		check "hist2d $t --bins $b data range" hist2d -t $t --weights 3 --bins $b \
			-f json "$D/clean.$t"
	done
	check "hist2d $t --weights 1" hist2d -t $t -c 3 --weights 1 --bins 33 \
		--range -50:50 -f json "$D/p.$t"
done
for t in u8 i8 i16; do
	check "hist $t one bin per value" hist -t $t -c 3 -F 1 --weights 3 -f json "$D/p.$t"
done
check "text and its note" hist2d -t f32 --weights 3 --bins 64 --range -30:30 "$D/p.f32"
for b in 16 1024; do
	check "special bins, hist2d $b" hist2d --weights 3 --bins $b --range 0:1 -f json "$D/special.f32"
	check "constant records, hist2d $b" hist2d --weights 3 --bins $b --range 0:1 -f json "$D/const.f32"
	check "all outside, hist2d $b" hist2d --weights 3 --bins $b --range 0:1 -f json "$D/out.f32"
done
for b in 10 100000; do
	check "special bins, hist $b" hist -t f32 -c 3 -F 1 --weights 3 --bins $b --range 0:1 -f json "$D/special.f32"
	check "constant records, hist $b" hist -t f32 -c 3 -F 1 --weights 3 --bins $b --range 0:1 -f json "$D/const.f32"
done
check "hist 64K chunks, 4 streams" hist -t f32 -c 3 --weights 3 --chunk-size 64K --streams 4 \
	--bins 1000 --range -4:4 -f json "$D/big.f32"
check "hist2d 64K chunks, 4 streams" hist2d --weights 3 --chunk-size 64K --streams 4 \
	--bins 100,90 -f json "$D/big.f32"
# a GPU's state merges with a CPU's
head -c 60000000 "$D/big.f32" > "$D/s1"
tail -c +60000001 "$D/big.f32" > "$D/s2"
for c in "hist -t f32 -c 3 -F 1 --bins 1000 --range -4:4" "hist2d --bins 512 --range -4:4"; do
	# shellcheck disable=SC2086
	"$G" $c --weights 3 --backend $GB -f state "$D/s1" > "$D/s1.st"
	# shellcheck disable=SC2086
	"$G" $c --weights 3 --backend cpu -f state "$D/s2" > "$D/s2.st"
	"$G" merge -q -f json "$D/s2.st" "$D/s1.st" > "$D/a"
	# shellcheck disable=SC2086
	"$G" $c --weights 3 -q --backend cpu -f json "$D/big.f32" > "$D/b"
	if cmp -s "$D/a" "$D/b"; then p=$((p + 1)); echo "ok    state of cuda + state of cpu: ${c%% *}"
	else f=$((f + 1)); echo "DIFF  state of cuda + state of cpu: ${c%% *}"; fi
	# the GPU's state is the CPU's, byte for byte
	# shellcheck disable=SC2086
	"$G" $c --weights 3 --backend cpu -f state "$D/s1" > "$D/s1c.st"
	if cmp -s "$D/s1.st" "$D/s1c.st"; then p=$((p + 1)); echo "ok    state bytes: ${c%% *}"
	else f=$((f + 1)); echo "DIFF  state bytes: ${c%% *}"; fi
done
if [ "$ngpu" -gt 1 ]; then
	check "hist --devices all" hist -t f32 -c 3 --weights 3 --devices all --chunk-size 4M \
		--bins 1000 --range -4:4 -f json "$D/big.f32"
	check "hist2d --devices all" hist2d --weights 3 --devices all --chunk-size 4M \
		--bins 1024 --range -4:4 -f json "$D/big.f32"
else
	echo "(one GPU: --devices not checked)"
fi
"$G" hist2d -v --weights 3 --bins 1024 --range -4:4 -f json "$D/big.f32" > "$D/a" 2> "$D/ae" || true
"$G" hist2d --weights 3 --backend cpu --bins 1024 --range -4:4 -f json "$D/big.f32" > "$D/b" 2> /dev/null
if cmp -s "$D/a" "$D/b"; then p=$((p + 1)); echo "ok    auto"
else f=$((f + 1)); echo "DIFF  auto"; fi
grep -i "backend" "$D/ae" | head -2 || true
echo "histw-gpu: $p ok, $f diff"
[ "$f" -eq 0 ]
