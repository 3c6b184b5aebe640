#!/bin/sh
# test_group_fold.sh - --by's fast fold (src/cpu/group_fold.c: one i32,
# i64, u32, u64 or f64 key column (f64: NaNs of any payload one key, -0
# with +0) and one f32/f64/i32/i64 value column, keys in a small range
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
# python3's standard library writes the records (no numpy: CI has none).
#
# Usage: sh tests/test_group_fold.sh   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "group_fold: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=group_fold
. tests/lib.sh

python3 - "$T" <<'PY' || bad "generate" "python failed"
import random
import struct
import sys
d = sys.argv[1]
rng = random.Random(31)
n = 60000
W = 1 << 17                       # group_fold.c's WINDOW_MAX
INF, NAN = float("inf"), float("nan")
# (min, max) of each integer type, (tiny, max) of each float type
INFO = {"i4": (-2 ** 31, 2 ** 31 - 1), "u4": (0, 2 ** 32 - 1),
        "i8": (-2 ** 63, 2 ** 63 - 1), "u8": (0, 2 ** 64 - 1),
        "f4": (2.0 ** -126, (2 - 2.0 ** -23) * 2.0 ** 127),
        "f8": (sys.float_info.min, sys.float_info.max)}
FMT = {"i4": "i", "u4": "I", "i8": "q", "u8": "Q", "f4": "f", "f8": "d"}

def keys(kt):
    lo, hi = INFO[kt]
    edge = [W // 2 + o for o in range(-3, 4)] + [-W // 2 + o for o in range(-3, 4)]
    ext = [0, 1, hi - 1, hi] if lo == 0 else [lo, lo + 1, hi - 1, hi]
    out = []
    for i in range(n):
        part = 0 if i < 1500 else rng.randrange(6)
        if part == 1:
            k = rng.choice(edge)
        elif part == 2:
            k = rng.randrange(-(1 << 20), 1 << 20)
        elif part == 3:
            k = rng.choice(ext)
        elif part == 4:
            k = rng.randrange(-W, W)
        else:
            k = rng.randrange(-40, 40)        # dense, first: the window
        if lo == 0 and k < 0:
            k += 1 << 21
        out.append(k)
    return out

def fvals(vt):
    tiny, fmax = INFO[vt]
    special = [NAN, -0.0, 0.0, INF, -INF, tiny / 8, -tiny / 2, fmax / 2,
               -fmax, 1e-30, 2.0 ** -60, 3.0]
    out = []
    for _ in range(n):
        odd = rng.randrange(40)
        out.append(special[odd] if odd < len(special) else
                   rng.gauss(0, 1) * 10.0 ** rng.randrange(-3, 4))
    return out

def ivals(vt):
    lo, hi = INFO[vt]
    ext = [lo, hi, lo + 1, 0, 1 << 20]
    out = []
    for _ in range(n):
        odd = rng.randrange(30)
        out.append(ext[odd] if odd < 5 else rng.randrange(-1000, 1000))
    return out

def fkeys():
    # integers (text's key ids), then floats: NaNs of other payloads and
    # signs (one key), -0 with +0 (one key), infs, subnormals, fractions
    nans = [struct.unpack("<d", struct.pack("<Q", b))[0] for b in
            (0x7ff8000000000000, 0xfff8000000000001, 0x7ff0000000000001)]
    special = nans + [-0.0, 0.0, INF, -INF, 5e-324, -5e-324, 0.5, -2.5,
                      2.0 ** 53, -(2.0 ** 53) - 2]
    # the first 1,500 integers alone: they place the window, whose
    # indices for f64 keys are the integers' values
    return [float(k) if i < 1500 or rng.randrange(4) else
            rng.choice(special) for i, k in enumerate(keys("i4"))]

for name, kt, vt in (("i32f32", "i4", "f4"), ("i64f64", "i8", "f8"),
                     ("u32i32", "u4", "i4"), ("u64i64", "u8", "i8"),
                     ("i32i64", "i4", "i8"), ("u64f32", "u8", "f4"),
                     ("f64f64", "f8", "f8"), ("f64i32", "f8", "i4")):
    k = fkeys() if kt == "f8" else keys(kt)
    v = fvals(vt) if vt[0] == "f" else ivals(vt)
    for order, suf in (("<", "le"), (">", "be")):
        rec = struct.Struct(order + FMT[kt] + FMT[vt])
        with open(f"{d}/{name}.{suf}", "wb") as f:
            f.write(b"".join(map(rec.pack, k, v)))
    with open(f"{d}/{name}.t", "w") as t:
        # gpustat's names (i32,f32), then big-endian ones (>i4,>f4)
        t.write(f"{kt[0]}{int(kt[1]) * 8},{vt[0]}{int(vt[1]) * 8} >{kt},>{vt}\n")
PY

for f in i32f32 i64f64 u32i32 u64i64 i32i64 u64f32 f64f64 f64i32; do
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
# sums reaching the fast fold's bound (|acc| past 2^126 - 1: refused
# there, not wrapped, so the ASan build's UBSan finds no signed overflow),
# against their exact values: 2 * 6917529027641081857 and 1 + 2^126
# (rounded once: 2^126)
printf '1,6917529027641081857\n1,6917529027641081857\n' |
	"$G" stats --by 1 -t i64 --text > "$T/got" 2>&1
printf '1\t2\t0\t6917529027641081857\t6917529027641081857\t13835058055282163714\t6.917529027641082e+18\t0\t0\t0\t0\n' > "$T/want"
cmp -s "$T/got" "$T/want" && ok || bad "stats --by, a sum past 2^126" "$(head -c 200 "$T/got")"
python3 -c 'import struct, sys
sys.stdout.buffer.write(b"".join(struct.pack("<qd", 7, v)
                                 for v in (1.0, 2.0 ** 125, 2.0 ** 125)))' > "$T/big.le"
"$G" sum --by 1 -t i64,f64 "$T/big.le" > "$T/got" 2>&1
printf '7\t8.507059173023462e+37\n' > "$T/want"
cmp -s "$T/got" "$T/want" && ok || bad "sum --by, 1 + 2^126" "$(head -c 200 "$T/got")"
summary
