#!/bin/sh
# test_group_keys.sh - --by with more keys than a thread's table holds
# (src/cpu/group_scatter.c: a thread whose table fills with fewer than 4
# records a key sends its records by partition to the run's table) prints
# the bytes of the thread's own table: the reference runs -j 1 with chunks
# of fewer records than the table's 16384 keys, so its table never fills
# and never hands over; the others run -j 1, 2 and 4, default and odd
# chunk sizes and small limits (spills, small batches), and every output
# must agree byte for byte, for:
#  - the fast fold's shapes (i32 key f32 value, i64/f64, u64/i64 with
#    extremes whose squares widen the ksums) with keys scattered over the
#    type's range, a few records each, shuffled;
#  - 16383, 16384 and 16385 keys of one record each (the table just not
#    full, full at the last record, one record past it);
#  - the generic loop: two key columns (--by 1,2) with two value columns,
#    and float keys (NaN, -0 and +0 one key each) with f16 values;
#  - sum, count, stats, reduce --op sum|min|max.
# numpy writes the records; skipped without it.
#
# Usage: sh tests/test_group_keys.sh   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "group_keys: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=group_keys
. tests/lib.sh

if ! python3 -c 'import numpy' 2> /dev/null; then
	echo "group_keys: numpy not importable, skipped"
	summary
	exit
fi
python3 - "$T" <<'PY' || bad "generate" "numpy failed"
import sys
import numpy as np
np.seterr(all="ignore")
d = sys.argv[1]
rng = np.random.default_rng(37)

def fvals(n, vt):
    f = np.finfo(vt)
    v = rng.normal(size=n) * 10.0 ** rng.integers(-3, 4, n)
    odd = rng.integers(0, 60, n)
    special = [np.nan, -0.0, 0.0, np.inf, -np.inf, float(f.tiny) / 8,
               float(f.max) / 2, -float(f.max), 2.0 ** -60, 3.0]
    v = np.where(odd < len(special), np.array(special)[odd % len(special)], v)
    return v.astype(vt)

def ivals(n, vt):
    info = np.iinfo(vt)
    v = rng.integers(-1000, 1000, n)
    odd = rng.integers(0, 30, n)
    ext = np.array([int(info.min), int(info.max), int(info.min) + 1, 0, 1 << 40])
    v = np.where(odd < 5, ext[odd % 5], v)
    return v.astype(vt)

NP = {"i16": "<i2", "u8": "u1", "i32": "<i4", "f32": "<f4", "i64": "<i8",
      "u64": "<u8", "f64": "<f8", "f16": "<f2"}

def write(name, cols, types, by):
    n = len(cols[0])
    order = rng.permutation(n)
    a = np.empty(n, [(f"c{i}", NP[t]) for i, t in enumerate(types)])
    for i, c in enumerate(cols):
        a[f"c{i}"] = c[order]
    a.tofile(f"{d}/{name}.bin")
    with open(f"{d}/{name}.t", "w") as t:
        t.write(",".join(types) + " " + by + "\n")

def scattered(nk, kt, reps):
    info = np.iinfo(kt)
    k = rng.integers(int(info.min), int(info.max), nk, dtype=kt, endpoint=True)
    k = np.unique(k)
    return np.repeat(k, reps)

k = scattered(60000, np.int32, 3)
write("i32f32", [k, fvals(len(k), np.float32)], ["i32", "f32"], "1")
k = scattered(40000, np.int64, 2)
write("i64f64", [k, fvals(len(k), np.float64)], ["i64", "f64"], "1")
k = scattered(30000, np.uint64, 3)
write("u64i64", [k, ivals(len(k), np.int64)], ["u64", "i64"], "1")
for nk in (16383, 16384, 16385):
    k = np.arange(nk, dtype=np.int64) * 1000003 - (1 << 40)
    write(f"n{nk}", [k, fvals(nk, np.float64)], ["i64", "f64"], "1")
a = np.repeat(rng.integers(-300, 300, 40000), 2).astype(np.int16)
b = rng.integers(0, 256, len(a)).astype(np.uint8)
write("two", [a, b, fvals(len(a), np.float64), ivals(len(a), np.int32)],
      ["i16", "u8", "f64", "i32"], "1,2")
fk = fvals(50000, np.float32)
fk[::97] = -0.0
write("fkey", [np.repeat(fk, 2), fvals(100000, np.float16)], ["f32", "f16"], "1")
PY

for f in i32f32 i64f64 u64i64 n16383 n16384 n16385 two fkey; do
	read -r t by < "$T/$f.t"
	for cmd in sum count stats "reduce --op sum" "reduce --op min" \
		   "reduce --op max"; do
		"$G" $cmd --by "$by" -t "$t" -j 1 --chunk-size 64K "$T/$f.bin" \
			> "$T/want" 2>&1 ||
			{ bad "$f $cmd" "reference run failed: $(head -c 200 "$T/want")"; continue; }
		for o in "-j 1" "-j 2" "-j 4 --chunk-size 1000003" \
			 "-j 2 limit=1K" "-j 4 limit=300K"; do
			case $o in
			*limit=*) GPUSTAT_GROUP_LIMIT=${o#*limit=} TMPDIR=$T "$G" \
					$cmd --by "$by" -t "$t" ${o%% limit=*} \
					"$T/$f.bin" > "$T/got" 2>&1 ;;
			*) "$G" $cmd --by "$by" -t "$t" $o "$T/$f.bin" > "$T/got" 2>&1 ;;
			esac
			if cmp -s "$T/got" "$T/want"; then
				ok
			else
				bad "$f $cmd $o" "$(diff "$T/want" "$T/got" | head -n 4 | tr '\n' ' ')"
			fi
		done
	done
done
summary
