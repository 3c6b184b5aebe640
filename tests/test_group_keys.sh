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
# python3's standard library writes the records (no numpy: CI has none).
#
# Usage: sh tests/test_group_keys.sh   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "group_keys: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=group_keys
. tests/lib.sh

python3 - "$T" <<'PY' || bad "generate" "python failed"
import random
import struct
import sys
d = sys.argv[1]
rng = random.Random(37)
INF, NAN = float("inf"), float("nan")
# (tiny, max) of each float type; (min, max) of each integer type
FINFO = {"f16": (2.0 ** -14, 65504.0),
         "f32": (2.0 ** -126, (2 - 2.0 ** -23) * 2.0 ** 127),
         "f64": (sys.float_info.min, sys.float_info.max)}
IINFO = {"u8": (0, 255), "i16": (-2 ** 15, 2 ** 15 - 1),
         "i32": (-2 ** 31, 2 ** 31 - 1), "i64": (-2 ** 63, 2 ** 63 - 1),
         "u64": (0, 2 ** 64 - 1)}
FMT = {"i16": "h", "u8": "B", "i32": "i", "f32": "f", "i64": "q",
       "u64": "Q", "f64": "d", "f16": "e"}

def fvals(n, vt):
    tiny, fmax = FINFO[vt]
    special = [NAN, -0.0, 0.0, INF, -INF, tiny / 8, fmax / 2, -fmax,
               2.0 ** -60, 3.0]
    out = []
    for _ in range(n):
        odd = rng.randrange(60)
        if odd < len(special):
            v = special[odd]
        else:
            v = rng.gauss(0, 1) * 10.0 ** rng.randrange(-3, 4)
            if abs(v) > fmax:             # rounds to an infinity (struct
                v = INF if v > 0 else -INF    # refuses; numpy's cast did)
        out.append(v)
    return out

def ivals(n, vt):
    lo, hi = IINFO[vt]
    ext = [lo, hi, lo + 1, 0, 1 << 40]
    out = []
    for _ in range(n):
        odd = rng.randrange(30)
        v = ext[odd] if odd < 5 else rng.randrange(-1000, 1000)
        out.append((v - lo) % (hi - lo + 1) + lo)   # wraps as a cast does
    return out

def write(name, cols, types, by):
    n = len(cols[0])
    order = list(range(n))
    rng.shuffle(order)
    rec = struct.Struct("<" + "".join(FMT[t] for t in types))
    with open(f"{d}/{name}.bin", "wb") as f:
        f.write(b"".join(rec.pack(*[c[i] for c in cols]) for i in order))
    with open(f"{d}/{name}.t", "w") as t:
        t.write(",".join(types) + " " + by + "\n")

def scattered(nk, kt, reps):
    lo, hi = IINFO[kt]
    k = sorted(set(rng.randint(lo, hi) for _ in range(nk)))
    return [x for x in k for _ in range(reps)]

k = scattered(60000, "i32", 3)
write("i32f32", [k, fvals(len(k), "f32")], ["i32", "f32"], "1")
k = scattered(40000, "i64", 2)
write("i64f64", [k, fvals(len(k), "f64")], ["i64", "f64"], "1")
k = scattered(30000, "u64", 3)
write("u64i64", [k, ivals(len(k), "i64")], ["u64", "i64"], "1")
for nk in (16383, 16384, 16385):
    k = [i * 1000003 - (1 << 40) for i in range(nk)]
    write(f"n{nk}", [k, fvals(nk, "f64")], ["i64", "f64"], "1")
a = [x for x in (rng.randrange(-300, 300) for _ in range(40000)) for _ in (0, 1)]
b = [rng.randrange(256) for _ in a]
write("two", [a, b, fvals(len(a), "f64"), ivals(len(a), "i32")],
      ["i16", "u8", "f64", "i32"], "1,2")
fk = fvals(50000, "f32")
fk[::97] = [-0.0] * len(fk[::97])
write("fkey", [[x for x in fk for _ in (0, 1)], fvals(100000, "f16")],
      ["f32", "f16"], "1")
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
