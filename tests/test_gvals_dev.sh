#!/bin/sh
# test_gvals_dev.sh - the host's side of quantile, median and mode --by
# with their records on a device, on a machine without a GPU: the tests'
# device in host memory (GPUSTAT_GVALS_HOSTDEV=WORDS, src/cpu/
# gvals_hostdev.c) takes the records the GPU would, and every output must
# be the plain CPU's, byte for byte (stdout, stderr and the exit status):
#  - key columns of every integer type of 32 bits at most, bool keys,
#    values of f16, bf16, f32 and the integers with NaN, +-inf, -0,
#    extremes and subnormals; median, five quantiles by four methods, and
#    mode (read back to the host); text, csv, json and npy;
#  - 1 to 100,000 keys and keys across the u32 range, on 1 to 4 threads
#    (each thread's device moved or appended at the merge) and in 64K
#    chunks;
#  - rooms of 10^9 words (every record there), 30,000 (read back to the
#    host when full, put back at the result), 5,000 (the merges' appends
#    and the result's put find no room: taken to the host), 7 (slices of
#    7 records);
#  - --per-file; past half of GPUSTAT_GROUP_LIMIT, one key too many (the
#    CPU's error) and keys that fit;
#  - that the device was used: records on it are not counted against the
#    limit, so a run that the CPU must spill succeeds with an unwritable
#    $TMPDIR, with the unlimited run's bytes.
# bench/gvals_gpu_check.sh makes the same comparison against a real GPU.
#
# Usage: sh tests/test_gvals_dev.sh   (GPUSTAT=path overrides ./gpustat)
cd "$(dirname "$0")/.." || exit 2
NAME=gvals_dev
. tests/lib.sh

python3 - "$T" <<'EOF' || { bad "data" "python3 failed"; summary; exit 1; }
import math, random, struct, sys
d = sys.argv[1]
rnd = random.Random(5)
n = 60000
ints = {'b': (-128, 127), 'B': (0, 255), 'h': (-32768, 32767),
        'H': (0, 65535), 'i': (-2**31, 2**31 - 1), 'I': (0, 2**32 - 1)}
def keys(c, nk, m=n):
    lo, hi = ints[c]
    span = min(nk, hi - lo + 1)
    base = max(lo, -(span // 2)) if lo < 0 else 0
    k = [rnd.randrange(span) + base for _ in range(m)]
    for i in rnd.sample(range(m), 50):
        k[i] = rnd.choice((lo, hi))
    return k
def f32bits(x):
    return struct.unpack('<I', struct.pack('<f', x))[0]
def values(c, m=n):
    if c in ints:
        lo, hi = ints[c]
        return [rnd.choice((lo, hi, 0)) if rnd.random() < 0.01
                else rnd.randint(lo, hi) for _ in range(m)]
    sp = {'e': [math.nan, math.inf, -math.inf, -0.0, 0.0, 65504.0, -65504.0,
                2.0 ** -14, 2.0 ** -24, 3.0],
          'f': [math.nan, math.inf, -math.inf, -0.0, 0.0, 3.4028234663852886e38,
                -3.4028234663852886e38, 2.0 ** -126, 2.0 ** -149, 3.0]}[c]
    return [rnd.choice(sp) if rnd.random() < 0.02
            else rnd.gauss(0, 1000) for _ in range(m)]
def write(name, kc, k, vc, v):
    with open(f'{d}/{name}', 'wb') as f:
        f.write(b''.join(struct.pack('<' + kc + vc, a, b) for a, b in zip(k, v)))
for c in 'bBhHiI':
    for nk in (1, 1000):
        write(f'k.{c}.{nk}', c, keys(c, nk), 'f', values('f'))
write('k.bool', 'B', [rnd.randrange(3) for _ in range(n)], 'f', values('f'))
for c in 'efbBhHiI':
    write(f'v.{c}', 'i', keys('i', 500), c, values(c))
# bf16: an f32's top half
write('v.x16', 'i', keys('i', 500), 'H',
      [f32bits(x) >> 16 for x in values('f')])
write('k8', 'B', keys('B', 256, 3 * n), 'f', values('f', 3 * n))
for nk in (10, 100000):
    write(f'nk.{nk}', 'i', keys('i', nk, 3 * n), 'f', values('f', 3 * n))
write('span', 'I', [rnd.randrange(2**32) for _ in range(n)], 'f', values('f'))
one = values('f', 4 * n)
for i in range(0, len(one), 97):
    one[i] = math.nan
write('one', 'i', [-7] * len(one), 'f', one)
EOF

# same NAME ROOM ARGS...: with a device of ROOM words the plain run's bytes;
# the plain run exits $RC (0: with a result)
RC=0
same() {
	name=$1 room=$2
	shift 2
	"$G" "$@" --backend cpu > "$T/want" 2> "$T/want.err"
	wrc=$?
	GPUSTAT_GVALS_HOSTDEV=$room "$G" "$@" --backend cpu > "$T/got" 2> "$T/got.err"
	grc=$?
	if [ $wrc -ne $RC ] || { [ $RC -eq 0 ] && [ ! -s "$T/want" ]; }; then
		bad "$name" "the plain run: exit $wrc, $(wc -c < "$T/want") bytes; $(head -c 200 "$T/want.err")"
	elif [ $grc -eq $wrc ] && cmp -s "$T/want" "$T/got" &&
	   cmp -s "$T/want.err" "$T/got.err"; then
		ok
	else
		bad "$name (room $room)" "exit $grc, cpu $wrc; $(cmp "$T/want" "$T/got" 2>&1 | head -1); $(head -c 200 "$T/got.err")"
	fi
}
B=1000000000
Q="-q 0,0.1,0.5,0.9,1"
for c in b B h H i I; do
	case $c in b) t=i8 ;; B) t=u8 ;; h) t=i16 ;; H) t=u16 ;; i) t=i32 ;; I) t=u32 ;; esac
	for nk in 1 1000; do
		same "key $t $nk: median" $B median --by 1 -t $t,f32 "$T/k.$c.$nk"
		# shellcheck disable=SC2086
		same "key $t $nk: quantile csv" 30000 quantile $Q -f csv --by 1 -t $t,f32 "$T/k.$c.$nk"
	done
done
same "bool key: median json" $B median -f json --by 1 -t bool,f32 "$T/k.bool"
for c in e f b B h H i I x16; do
	case $c in e) t=f16 ;; f) t=f32 ;; b) t=i8 ;; B) t=u8 ;; h) t=i16 ;;
		   H) t=u16 ;; i) t=i32 ;; I) t=u32 ;; x16) t=bf16 ;; esac
	same "value $t: median json" $B median -f json --by 1 -t i32,$t "$T/v.$c"
	for m in linear lower nearest midpoint; do
		# shellcheck disable=SC2086
		same "value $t: quantile $m npy" $B quantile $Q --method $m -f npy --by 1 -t i32,$t "$T/v.$c"
	done
	same "value $t: mode" $B mode --by 1 -t i32,$t "$T/v.$c"
done
for nk in 10 100000; do
	for room in $B 30000 5000 7; do
		for j in 1 2 4; do
			same "$nk keys, -j $j: median" $room median -j $j --by 1 -t i32,f32 "$T/nk.$nk"
		done
		# shellcheck disable=SC2086
		same "$nk keys, 64K chunks: quantile json" $room quantile $Q -f json -j 3 --chunk-size 64K --by 1 -t i32,f32 "$T/nk.$nk"
		same "$nk keys: mode" $room mode -j 2 --by 1 -t i32,f32 "$T/nk.$nk"
	done
done
same "keys across u32: median" $B median -j 2 --by 1 -t u32,f32 "$T/span"
same "one key: quantile" $B quantile -q 0.001,0.5,0.999 --by 1 -t i32,f32 "$T/one"
for room in $B 30000; do
	same "--per-file" $room median --per-file -j 2 --by 1 -t i32,f32 "$T/nk.10" "$T/nk.100000" "$T/v.f"
done
# past half the limit one key's values must fit it, on the device as on
# the CPU (which sorts them in runs there): the same error
export GPUSTAT_GROUP_LIMIT=1M
RC=1 same "one key past the limit: the CPU's error" $B median --by 1 -t i32,f32 "$T/one"
same "10 keys past half the limit: median" $B median -j 2 --by 1 -t i32,f32 "$T/nk.10"
# the device took the records: nothing counted, nothing spilled (keys
# of 32 and 8 bits, one thread and four)
for args in "-t i32,f32 $T/nk.10" "-j 4 -t u8,f32 $T/k8"; do
	# shellcheck disable=SC2086
	"$G" median --backend cpu --by 1 $args > "$T/want" 2> /dev/null
	# shellcheck disable=SC2086
	if TMPDIR=$T/none "$G" median --backend cpu --by 1 $args > /dev/null 2>&1; then
		bad "a spill into a missing TMPDIR ($args)" "the CPU did not fail"
	elif TMPDIR=$T/none GPUSTAT_GVALS_HOSTDEV=$B "$G" median --backend cpu \
		--by 1 $args > "$T/got" 2> "$T/got.err" && [ -s "$T/got" ] &&
	     cmp -s "$T/want" "$T/got"; then
		ok
	else
		bad "records on the device, not spilled ($args)" "$(head -c 200 "$T/got.err")"
	fi
done
unset GPUSTAT_GROUP_LIMIT
summary
