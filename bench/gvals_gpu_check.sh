#!/bin/sh
# gvals_gpu_check.sh - quantile, median and mode with --by on the GPU
# (cuda/gvals_kernels.cu) against the CPU (cpu_gvals.c), byte for byte, on
# a GPU machine.
#
# Checks (one line each, "ok" or "FAIL", last "gvals-gpu: P ok, F failed"):
# --backend cuda prints the bytes of --backend cpu (stdout and stderr, and
# the exit status) for
#  - keys of every integer type of 32 bits at most at their extremes, and
#    bool keys; values of f16, bf16, f32 and every integer type of 32 bits
#    at most with NaN, +-inf, -0, the extremes and subnormals;
#  - median, quantile (five q, linear, lower, nearest and midpoint) and
#    mode (read back to the host), text, csv, json and npy;
#  - 1 to 1e6 keys, one key of 3e6 values, keys over their type's range;
#    past half of GPUSTAT_GROUP_LIMIT, one key too many (the CPU's error)
#    and 10 keys that fit;
#  - 64K chunks on 4 streams; an array held to 100,000 words while
#    collecting (GPUSTAT_GVALS_GPU_WORDS: read back to the host dozens of
#    times, then put back on the device at the result); --per-file (an
#    operand's array moved, then appended); big-endian records of one
#    type; --devices all where there is more than one GPU; auto's
#    hand-over after 1 and 5 CPU chunks (GPUSTAT_AUTO_CPU_CHUNKS: the
#    CPU's words put on the device), and mode kept on the CPU by auto;
#  - a shape the GPU does not take (f32 keys): refused, saying why.
#
# Usage (repository root, gpustat built with CUDA; builds nothing; about
# 500 MB in TMPDIR, a minute):
#   sh bench/gvals_gpu_check.sh
# GPUSTAT=path overrides ./gpustat.
cd "$(dirname "$0")/.." || exit 2
. bench/lib.sh
G=${GPUSTAT:-./gpustat}
D=$(mktemp -d "${TMPDIR:-/tmp}/gvgpu.XXXXXX") || exit 2
trap 'rm -rf "$D"' EXIT
[ -x "$G" ] || { echo "no $G: build it with CUDA first"; exit 2; }
ngpu=$(nvidia-smi -L 2> /dev/null | wc -l)

python3 - "$D" <<'EOF' || exit 2
import sys, numpy as np
d = sys.argv[1]
rng = np.random.default_rng(11)
n = 1_000_000
def keys(t, nk):
    dt = np.dtype(t)
    info = np.iinfo(dt)
    span = min(nk, int(info.max) - int(info.min) + 1)
    lo = max(int(info.min), -(span // 2)) if info.min < 0 else 0
    k = (rng.integers(0, span, size=n) + lo).astype(dt)
    m = rng.integers(0, n, size=200)
    k[m] = np.resize(np.array([info.min, info.max], dtype=dt), len(m))
    return k
def values(t):
    dt = np.dtype(t)
    if dt.kind == 'f':
        v = rng.normal(0, 1000, size=n)
        m = rng.integers(0, n, size=n // 50)
        fi = np.finfo(dt)
        sp = [np.nan, np.inf, -np.inf, -0.0, 0.0, float(fi.max), -float(fi.max),
              float(fi.tiny), float(fi.tiny) * 2 ** -(fi.nmant - 1), 3.0]
        v[m] = np.resize(np.array(sp), len(m))
        with np.errstate(over='ignore'):
            return v.astype(dt)
    info = np.iinfo(dt)
    v = rng.integers(info.min, info.max, size=n, endpoint=True, dtype=dt)
    m = rng.integers(0, n, size=1000)
    v[m] = np.resize(np.array([info.min, info.max, 0], dtype=dt), len(m))
    return v
def write(name, cols):
    rec = np.empty(len(cols[0]), dtype=[('f%d' % i, c.dtype) for i, c in enumerate(cols)])
    for i, c in enumerate(cols):
        rec['f%d' % i] = c
    rec.tofile(f'{d}/{name}')
for t in ['u1', 'i1', 'u2', 'i2', 'u4', 'i4']:
    for nk in [1, 1000]:
        write(f'k.{t}.{nk}', [keys(t, nk), values('f4')])
write('k.bool', [rng.integers(0, 3, size=n).astype('u1'), values('f4')])
for t in ['f2', 'f4', 'i1', 'u1', 'i2', 'u2', 'i4', 'u4']:
    write(f'v.{t}', [keys('i4', 500), values(t)])
f4 = values('f4').view('<u4')
write('v.bf16', [keys('i4', 500), (f4 >> 16).astype('<u2')])
for nk in [10, 100_000, 1_000_000]:
    write(f'nk.{nk}', [keys('i4', nk), values('f4')])
# keys spanning u32 (the sort's every bit), one key of 3e6 values
write('span', [rng.integers(0, 2**32, size=n, dtype=np.uint64).astype('u4'), values('f4')])
k = np.full(3 * n, -7, dtype='i4'); v = rng.normal(size=3 * n).astype('f4')
v[::97] = np.nan
rec = np.empty(3 * n, dtype=[('k', '<i4'), ('v', '<f4')]); rec['k'] = k; rec['v'] = v
rec.tofile(f'{d}/one')
a = np.stack([keys('i4', 1000), rng.integers(-10**6, 10**6, size=n).astype('i4')], 1)
a.astype('>i4').tofile(f'{d}/be.i32')
write('fkey', [values('f4'), values('f4')])
EOF

p=0 f=0
Q="-q 0,0.1,0.5,0.9,1"
for t in u1 i1 u2 i2 u4 i4; do
	for nk in 1 1000; do
		check "key $(T $t) $nk: median" median --by 1 -t "$(T $t),f32" "$D/k.$t.$nk"
		# shellcheck disable=SC2086
		check "key $(T $t) $nk: quantile csv" quantile $Q -f csv --by 1 -t "$(T $t),f32" "$D/k.$t.$nk"
	done
done
check "bool key: median json" median -f json --by 1 -t bool,f32 "$D/k.bool"
for t in f2 f4 i1 u1 i2 u2 i4 u4 bf16; do
	ty="i32,$(T $t)"
	check "value $(T $t): median json" median -f json --by 1 -t $ty "$D/v.$t"
	for m in linear lower nearest midpoint; do
		# shellcheck disable=SC2086
		check "value $(T $t): quantile $m npy" quantile $Q --method $m -f npy --by 1 -t $ty "$D/v.$t"
	done
	check "value $(T $t): mode" mode --by 1 -t $ty "$D/v.$t"
done
for nk in 10 100000 1000000; do
	check "$nk keys: median" median --by 1 -t i32,f32 "$D/nk.$nk"
	# shellcheck disable=SC2086
	check "$nk keys: quantile json" quantile $Q -f json --by 1 -t i32,f32 "$D/nk.$nk"
done
check "keys over u32: median" median --by 1 -t u32,f32 "$D/span"
check "one key of 3e6: quantile" quantile -q 0.001,0.5,0.999 --by 1 -t i32,f32 "$D/one"
# past half the limit one key's values must fit it, on the device as on
# the CPU (which sorts them in runs there): the same error
export GPUSTAT_GROUP_LIMIT=8M
check "one key of 3e6 past the limit: the CPU's error" median --by 1 -t i32,f32 "$D/one"
check "10 keys past half the limit: median" median --by 1 -t i32,f32 "$D/nk.10"
unset GPUSTAT_GROUP_LIMIT
check "64K chunks, 4 streams" median --chunk-size 64K --streams 4 --by 1 -t i32,f32 "$D/nk.100000"
export GPUSTAT_GVALS_GPU_WORDS=100000
check "array of 1e5 words: median" median --by 1 -t i32,f32 "$D/nk.1000000"
check "array of 1e5 words, 1M chunks: quantile" quantile $Q --chunk-size 1M --by 1 -t i32,f32 "$D/nk.100000"
check "array of 1e5 words: mode" mode --by 1 -t i32,f32 "$D/nk.10"
unset GPUSTAT_GVALS_GPU_WORDS
# auto's hand-over: the CPU collects the first chunks, the GPU the rest,
# and the host's words go to the device at the result
for hn in 1 5; do
	"$G" median --backend auto --chunk-size 64K --by 1 -t i32,f32 "$D/nk.100000" \
		> /dev/null 2> /dev/null	# warm
	GPUSTAT_AUTO_CPU_CHUNKS=$hn "$G" median -v --backend auto --chunk-size 64K \
		--by 1 -t i32,f32 "$D/nk.100000" > "$D/a" 2> "$D/ae"
	"$G" median --backend cpu --by 1 -t i32,f32 "$D/nk.100000" > "$D/b" 2> /dev/null
	if cmp -s "$D/a" "$D/b" && grep -q "GPU takes over" "$D/ae"; then
		p=$((p + 1)); echo "ok    auto, the CPU's first $hn chunks"
	else
		f=$((f + 1)); echo "FAIL  auto, the CPU's first $hn chunks: $(grep backend "$D/ae" | head -c 300)"
	fi
done
"$G" mode -v --by 1 -t i32,f32 "$D/nk.10" 2>&1 > /dev/null | grep -q "mode --by reads every value" &&
	{ p=$((p + 1)); echo "ok    auto keeps mode on the CPU"; } ||
	{ f=$((f + 1)); echo "FAIL  auto keeps mode on the CPU"; }
check "--per-file" median --per-file --by 1 -t i32,f32 "$D/nk.10" "$D/nk.100000" "$D/v.f4"
check "big-endian one type" median --by 1 -t '>i4' -c 2 "$D/be.i32"
if ! "$G" median --backend cuda --by 1 -t f32,f32 "$D/fkey" > /dev/null 2> "$D/ae" &&
   grep -q "one integer key column" "$D/ae"; then
	p=$((p + 1)); echo "ok    f32 keys: refused"
else
	f=$((f + 1)); echo "FAIL  f32 keys: $(head -c 300 "$D/ae")"
fi
if [ "$ngpu" -gt 1 ]; then
	check "--devices all" median --devices all --chunk-size 4M --by 1 -t i32,f32 "$D/nk.1000000"
else
	echo "(one GPU: --devices not checked)"
fi
echo "gvals-gpu: $p ok, $f failed"
[ "$f" -eq 0 ]
