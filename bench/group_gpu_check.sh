#!/bin/sh
# group_gpu_check.sh - --by's GPU kernels (cuda/group_kernels.cu) against
# the CPU's (cpu_group.c), byte for byte, on a GPU machine.
#
# Checks (one line each, "ok" or "FAIL", last "group-gpu: P ok, F failed"):
# --backend cuda prints the bytes of --backend cpu (stdout and stderr, and
# the exit status) for
#  - keys of every integer type at their extremes and f16/f32/f64 keys
#    with NaNs of two payloads, -0 and +0, +-inf, from 1 to 1e6 keys;
#  - values of f16, bf16, f32, f64 and every integer type, with NaN, +-inf,
#    -0, the largest and smallest (subnormal) values, f64 values past the
#    device window (1e-300, 1e300: those records spill to the CPU);
#  - sum, count, stats, reduce --op min and max, -f state, json, npy;
#  - two key columns, -F, big-endian records of one type, 64K chunks on 4
#    streams, a table of 16 slots (GPUSTAT_GROUP_GPU_SLOTS: nearly every
#    record spills), 1.2e6 keys (past the table's 1,048,576: spills), and
#    8e6 keys: past the table, and with spill areas of 4096 and 100,000
#    records (GPUSTAT_GROUP_GPU_SPILL), drained into the CPU's fold
#    thousands of times (GPU 2 used to fail: now the CPU's bytes);
#  - the compacted read-back merged on 1 and on 16 host threads
#    (GPUSTAT_GROUP_GPU_THREADS) at 1e6 keys;
#  - text keys (CSV with --header);
#  - a -f state of the GPU merged with one of the CPU, and --devices all
#    where there is more than one GPU; --backend auto with -v on u16 keys.
#
# Usage (repository root, gpustat built with CUDA; builds nothing; about
# 1.5 GB in TMPDIR, a few minutes):
#   sh bench/group_gpu_check.sh
# GPUSTAT=path overrides ./gpustat.
cd "$(dirname "$0")/.." || exit 2
. bench/lib.sh
G=${GPUSTAT:-./gpustat}
D=$(mktemp -d "${TMPDIR:-/tmp}/grgpu.XXXXXX") || exit 2
trap 'rm -rf "$D"' EXIT
[ -x "$G" ] || { echo "no $G: build it with CUDA first"; exit 2; }
"$G" --version | head -3
ngpu=$(nvidia-smi -L 2> /dev/null | wc -l)

python3 - "$D" <<'EOF' || exit 2
import sys, numpy as np
d = sys.argv[1]
rng = np.random.default_rng(7)
n = 1_000_000
def keys(t, nk):
    dt = np.dtype(t)
    if dt.kind == 'f':
        base = rng.integers(0, nk, size=n).astype(np.float64) - nk // 2
        if dt.itemsize == 2:
            base = np.clip(base, -2048, 2048)
        k = base.astype(dt)
        m = rng.integers(0, n, size=n // 50)
        special = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf], dtype=dt)
        k[m] = np.resize(special, len(m))
        # a NaN of another payload
        kb = k.view(np.dtype('u%d' % dt.itemsize))
        kb[m[:10]] = kb[m[:10]] | 1 if dt.itemsize > 2 else kb[m[:10]]
        return k
    info = np.iinfo(dt)
    span = min(nk, int(info.max) - int(info.min) + 1)
    lo = max(int(info.min), -(span // 2)) if info.min < 0 else 0
    k = (rng.integers(0, span, size=n) + lo).astype(dt)
    m = rng.integers(0, n, size=200)
    k[m] = np.resize(np.array([info.min, info.max], dtype=dt), len(m))
    return k
def values(t, wide=False):
    dt = np.dtype(t)
    if dt.kind == 'f':
        v = rng.normal(0, 1000, size=n)
        m = rng.integers(0, n, size=n // 100)
        fi = np.finfo(dt)
        sp = [np.nan, np.inf, -np.inf, -0.0, 0.0, float(fi.max), -float(fi.max),
              float(fi.tiny), float(fi.tiny) * 2 ** -(fi.nmant - 1), 1e-3, 3.0]
        v[m] = np.resize(np.array(sp), len(m))
        if wide:
            m = rng.integers(0, n, size=2000)
            v[m] = np.resize(np.array([1e-300, -1e300, 1e300, 5e-324]), len(m))
        with np.errstate(over='ignore'):
            return v.astype(dt)
    info = np.iinfo(dt)
    v = rng.integers(info.min, info.max, size=n, endpoint=True, dtype=dt)
    m = rng.integers(0, n, size=1000)
    v[m] = np.resize(np.array([info.min, info.max, 0], dtype=dt), len(m))
    return v
def write(name, cols):
    rec = np.empty(n, dtype=[('f%d' % i, c.dtype) for i, c in enumerate(cols)])
    for i, c in enumerate(cols):
        rec['f%d' % i] = c
    rec.tofile(f'{d}/{name}')
kt = ['u1', 'i1', 'u2', 'i2', 'u4', 'i4', 'u8', 'i8', 'f2', 'f4', 'f8']
for t in kt:
    for nk in [1, 1000]:
        write(f'k.{t}.{nk}', [keys(t, nk), values('f4'), values('i8')])
for t in ['f2', 'f4', 'f8', 'i1', 'u1', 'i2', 'u2', 'i4', 'u4', 'i8', 'u8']:
    write(f'v.{t}', [keys('i4', 500), values(t)])
f4 = values('f4').view('<u4')
write('v.bf16', [keys('i4', 500), (f4 >> 16).astype('<u2')])
write('wide', [keys('i4', 300), values('f8', wide=True)])
for nk in [10, 100_000, 1_000_000]:
    write(f'nk.{nk}', [keys('i4', nk), values('f4')])
write('two', [keys('i2', 40), values('f4'), keys('u1', 7), values('f8')])
# 1.2e6 keys in 3e6 records, past the table's 1,048,576 (spills); 8e6
# keys in 8e6 records: each of 2 streams spills about 3e6, past its area
for nk, nr in [(1_200_000, 3 * n), (8_000_000, 8 * n)]:
    k = rng.permutation(np.arange(nr, dtype=np.int32) % nk)
    v = rng.normal(size=nr).astype(np.float32)
    rec = np.empty(nr, dtype=[('k', '<i4'), ('v', '<f4')]); rec['k'] = k; rec['v'] = v
    rec.tofile(f'{d}/many.{nk}')
# one type, big-endian
a = np.stack([keys('i4', 1000), rng.integers(-10**6, 10**6, size=n).astype('i4')], 1)
a.astype('>i4').tofile(f'{d}/be.i32')
# text keys
with open(f'{d}/t.csv', 'w') as f:
    f.write('station,temp\n')
    st = rng.integers(0, 1000, size=200_000)
    tv = rng.normal(10, 5, size=200_000)
    f.writelines(f's{s},{t:.2f}\n' for s, t in zip(st, tv))
EOF

p=0 f=0
for t in u1 i1 u2 i2 u4 i4 u8 i8 f2 f4 f8; do
	for nk in 1 1000; do
		ty="$(T $t),f32,i64"
		check "key $(T $t) $nk: sum" sum --by 1 -t $ty "$D/k.$t.$nk"
		check "key $(T $t) $nk: stats" stats --by 1 -t $ty "$D/k.$t.$nk"
		check "key $(T $t) $nk: state" stats --by 1 -t $ty -f state "$D/k.$t.$nk"
	done
done
for t in f2 f4 f8 i1 u1 i2 u2 i4 u4 i8 u8 bf16; do
	ty="i32,$(T $t)"
	for c in sum count stats "reduce --op min" "reduce --op max"; do
		# shellcheck disable=SC2086
		check "value $(T $t): $c" $c --by 1 -t $ty -f json "$D/v.$t"
	done
	check "value $(T $t): stats state" stats --by 1 -t $ty -f state "$D/v.$t"
done
check "f64 past the window: sum" sum --by 1 -t i32,f64 "$D/wide"
check "f64 past the window: stats state" stats --by 1 -t i32,f64 -f state "$D/wide"
for nk in 10 100000 1000000; do
	check "$nk keys: sum npy" sum --by 1 -t i32,f32 -f npy "$D/nk.$nk"
	check "$nk keys: stats state" stats --by 1 -t i32,f32 -f state "$D/nk.$nk"
done
check "1.2e6 keys (spills): sum state" sum --by 1 -t i32,f32 -f state "$D/many.1200000"
check "8e6 keys (past the table): sum state" sum --by 1 -t i32,f32 -f state "$D/many.8000000"
export GPUSTAT_GROUP_GPU_SPILL=4096
check "8e6 keys, spill area of 4096: sum state" sum --by 1 -t i32,f32 -f state "$D/many.8000000"
check "1.2e6 keys, spill area of 4096, 1M chunks: stats state" stats --chunk-size 1M --by 1 -t i32,f32 -f state "$D/many.1200000"
export GPUSTAT_GROUP_GPU_SPILL=100000 GPUSTAT_GROUP_GPU_SLOTS=1024
check "1024 slots, spill area of 1e5, 4 streams: stats state" stats --streams 4 --chunk-size 4M --by 1 -t i32,f32 -f state "$D/many.1200000"
check "1024 slots, spill area of 1e5: two keys" stats --by 1,3 -F 2,4 -t i16,f32,u8,f64 -f json "$D/two"
unset GPUSTAT_GROUP_GPU_SPILL GPUSTAT_GROUP_GPU_SLOTS
for th in 1 16; do
	export GPUSTAT_GROUP_GPU_THREADS=$th
	check "1e6 keys, merged on $th threads: stats state" stats --by 1 -t i32,f32 -f state "$D/nk.1000000"
done
unset GPUSTAT_GROUP_GPU_THREADS
check "two keys, -F" stats --by 1,3 -F 2,4 -t i16,f32,u8,f64 -f json "$D/two"
check "two keys, sum" sum --by 3,1 -t i16,f32,u8,f64 "$D/two"
check "big-endian one type" sum --by 1 -t '>i4' -c 2 "$D/be.i32"
check "big-endian stats state" stats --by 1 -t '>i4' -c 2 -f state "$D/be.i32"
check "64K chunks, 4 streams" stats --chunk-size 64K --streams 4 --by 1 -t i32,f32 -f state "$D/nk.100000"
export GPUSTAT_GROUP_GPU_SLOTS=16
check "16 slots (spills)" stats --by 1 -t i32,f32 -f state "$D/nk.10"
check "16 slots, 280 keys" sum --by 1,3 -t i16,f32,u8,f64 "$D/two"
unset GPUSTAT_GROUP_GPU_SLOTS
check "text keys" sum --header --by station -F temp "$D/t.csv"
check "text keys stats" stats --header --by station -F temp -f json "$D/t.csv"
# a GPU's state merges with a CPU's
head -c 4000000 "$D/nk.100000" > "$D/s1"
tail -c +4000001 "$D/nk.100000" > "$D/s2"
"$G" stats --backend cuda --by 1 -t i32,f32 -f state "$D/s1" > "$D/s1.st"
"$G" stats --backend cpu --by 1 -t i32,f32 -f state "$D/s2" > "$D/s2.st"
"$G" merge -q -f json "$D/s2.st" "$D/s1.st" > "$D/a"
"$G" stats -q --backend cpu --by 1 -t i32,f32 -f json "$D/nk.100000" > "$D/b"
if cmp -s "$D/a" "$D/b"; then p=$((p + 1)); echo "ok    state of cuda + state of cpu"
else f=$((f + 1)); echo "FAIL  state of cuda + state of cpu"; fi
if [ "$ngpu" -gt 1 ]; then
	check "--devices all" stats --devices all --chunk-size 4M --by 1 -t i32,f32 -f state "$D/nk.100000"
else
	echo "(one GPU: --devices not checked)"
fi
"$G" sum -v --by 1 -t u16,f32,i64 "$D/k.u2.1000" > "$D/a" 2> "$D/ae"
"$G" sum --backend cpu --by 1 -t u16,f32,i64 "$D/k.u2.1000" > "$D/b" 2> /dev/null
if cmp -s "$D/a" "$D/b"; then p=$((p + 1)); echo "ok    auto"
else f=$((f + 1)); echo "FAIL  auto"; fi
grep -i "backend\|group-by" "$D/ae" | head -3
echo "group-gpu: $p ok, $f failed"
[ "$f" -eq 0 ]
