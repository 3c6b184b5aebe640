#!/bin/sh
# test_group_fold.sh - --by's fast fold (src/cpu/group_fold.c: one integer
# key column and one f32/f64/i32/i64 value column, keys in a small range
# through a direct array) prints the bytes of the generic fold: the same
# records written big-endian go through cpu_group.c's own loop (their
# bytes swapped first), little-endian through the fast one, and every
# command's output must agree byte for byte, for:
#  - keys dense around 0 (the window), keys just inside and outside its
#    edges, negative keys, the key type's min and max, tens of thousands
#    of scattered keys that fill the thread's table mid-call;
#  - values with NaN, -0, +0, +-inf, subnormals, huge and tiny magnitudes
#    (a ksum's base moving down, its 128 bits widening), i64 extremes
#    whose squares pass 128 bits;
#  - sum, count, stats, reduce --op sum|min|max; -j 1, 2 and 4, small and
#    odd chunk sizes, a 1K memory limit (no room for a window: every key
#    through the thread's table; spills) and a 256K one (a window of 64
#    keys, held against the limit, for one of the two threads; spills).
# numpy writes the records; skipped without it.
#
# Usage: sh tests/test_group_fold.sh   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "group_fold: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=group_fold
. tests/lib.sh

if ! python3 -c 'import numpy' 2> /dev/null; then
	echo "group_fold: numpy not importable, skipped"
	summary
	exit
fi
python3 - "$T" <<'PY' || bad "generate" "numpy failed"
import sys
import numpy as np
np.seterr(all="ignore")
d = sys.argv[1]
rng = np.random.default_rng(31)
n = 60000
W = 1 << 17                       # group_fold.c's WINDOW_MAX

def keys(kt):
    info = np.iinfo(kt)
    lo, hi = int(info.min), int(info.max)
    k = rng.integers(-40, 40, n)              # dense, first: the window
    part = rng.integers(0, 6, n)
    part[:1500] = 0
    edge = [W // 2 + o for o in range(-3, 4)] + [-W // 2 + o for o in range(-3, 4)]
    k = np.where(part == 1, rng.choice(edge, n), k)
    k = np.where(part == 2, rng.integers(-(1 << 20), 1 << 20, n), k)
    k = np.where(part == 3, rng.choice([lo, lo + 1, hi - 1, hi], n), k)
    k = np.where(part == 4, rng.integers(-W, W, n), k)
    if lo == 0:
        k = np.where(k < 0, k + (1 << 21), k)
        k = np.where(part == 3, rng.choice([0, 1, hi - 1, hi], n), k)
    return k.astype(kt)

def fvals(vt):
    f = np.finfo(vt)
    v = rng.normal(size=n) * 10.0 ** rng.integers(-3, 4, n)
    odd = rng.integers(0, 40, n)
    special = [np.nan, -0.0, 0.0, np.inf, -np.inf, float(f.tiny) / 8,
               -float(f.tiny) / 2, float(f.max) / 2, -float(f.max), 1e-30,
               2.0 ** -60, 3.0]
    v = np.where(odd < len(special), np.array(special)[odd % len(special)], v)
    return v.astype(vt)

def ivals(vt):
    info = np.iinfo(vt)
    v = rng.integers(-1000, 1000, n)
    odd = rng.integers(0, 30, n)
    ext = np.array([int(info.min), int(info.max), int(info.min) + 1, 0, 1 << 20])
    v = np.where(odd < 5, ext[odd % 5], v)
    return v.astype(vt)

for name, kt, vt in (("i32f32", "i4", "f4"), ("i64f64", "i8", "f8"),
                     ("u32i32", "u4", "i4"), ("u64i64", "u8", "i8"),
                     ("i32i64", "i4", "i8"), ("u64f32", "u8", "f4")):
    k = keys(np.dtype(kt))
    v = fvals(np.dtype(vt)) if vt[0] == "f" else ivals(np.dtype(vt))
    for order, suf in (("<", "le"), (">", "be")):
        a = np.empty(n, [("k", order + kt), ("v", order + vt)])
        a["k"] = k
        a["v"] = v
        a.tofile(f"{d}/{name}.{suf}")
    with open(f"{d}/{name}.t", "w") as t:
        # gpustat's names (i32,f32), then big-endian numpy's (>i4,>f4)
        t.write(f"{kt[0]}{int(kt[1]) * 8},{vt[0]}{int(vt[1]) * 8} >{kt},>{vt}\n")
PY

for f in i32f32 i64f64 u32i32 u64i64 i32i64 u64f32; do
	read -r t tb < "$T/$f.t"
	for cmd in sum count stats "reduce --op sum" "reduce --op min" \
		   "reduce --op max"; do
		"$G" $cmd --by 1 -t "$tb" "$T/$f.be" > "$T/want" 2>&1 ||
			{ bad "$f $cmd" "big-endian run failed: $(head -c 200 "$T/want")"; continue; }
		for o in "" "-j 1" "-j 2 --chunk-size 4K" "-j 4 --chunk-size 12345" \
			 "-j 2 limit=1K" "-j 2 limit=256K"; do
			case $o in
			*limit=*) GPUSTAT_GROUP_LIMIT=${o#*=} TMPDIR=$T "$G" $cmd \
					--by 1 -t "$t" -j 2 "$T/$f.le" > "$T/got" 2>&1 ;;
			*) "$G" $cmd --by 1 -t "$t" $o "$T/$f.le" > "$T/got" 2>&1 ;;
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
