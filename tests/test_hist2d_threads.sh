#!/bin/sh
# test_hist2d_threads.sh - hist2d's CPU counts across threads, exactly,
# against counts made here by Python (collections.Counter of the points'
# bins: integer points over a range of one bin per integer, so a point's
# bin is its value):
#  - a thread counts in 16-bit counters and lists each wrap (cpu_hist2d.c):
#    bins of 65535, 65536 and 600000 points, a whole run of 2^24 + 2^20
#    points in one bin (the list of wraps grows past its first size);
#  - the threads' tables are merged a part each (merge_part): 4096 x 3,
#    1 x 4096 and 4096 x 4096 bins, whose parts end mid-row, on -j 1, 2
#    and 3 and chunks of 1 MiB, every bin of the table compared, and the
#    records outside the range counted; 4096 x 4096 on 16 threads, which
#    the accumulators' limit now allows.
#
# Usage: sh tests/test_hist2d_threads.sh   (GPUSTAT=path overrides ./gpustat)
cd "$(dirname "$0")/.." || exit 2
NAME=hist2d_threads
. tests/lib.sh

# ---- the points, and each case's table as Python counts it ------------------

# u16 (x, y): 600000 at (7, 1), 65536 at (4095, 2), 65535 at (0, 0), 300000
# spread over x < 4096, y < 3, and 1000 with x = 5000: outside 0:4096. The
# hot points are spread through the file, so every thread's slice has some.
# Each case's expected --nonzero table: x bin, y bin, count (bins in [x][y]
# order, numpy's H).
python3 - "$T" <<'PY'
import array, random, sys
from collections import Counter
t = sys.argv[1]
random.seed(32)
pts = [(7, 1)] * 600000 + [(4095, 2)] * 65536 + [(0, 0)] * 65535
pts += [(random.randrange(4096), random.randrange(3)) for _ in range(300000)]
pts += [(5000, random.randrange(3)) for _ in range(1000)]
random.shuffle(pts)
a = array.array("H", [v for p in pts for v in p])
if sys.byteorder != "little":
    a.byteswap()
open(t + "/p.u16", "wb").write(a.tobytes())

def table(name, key):
    c = Counter(key(x, y) for x, y in pts if x < 4096)
    with open(t + "/" + name, "w") as f:
        for (i, j), n in sorted(c.items()):
            f.write("%d\t%d\t%d\n" % (i, j, n))

table("x4096y3", lambda x, y: (x, y))
table("x1y4096", lambda x, y: (0, x))	# -F 2,1: x is y, y is x
table("x4096y4096", lambda x, y: (x, y))
PY

# CASE BINS RANGE [ARGS]: every -j and chunking gives Python's table, and
# the 1000 points past 4096 as outside
tcase() {
	case_=$1
	bins=$2
	range=$3
	shift 3
	for run in "-j 1" "-j 2" "-j 3" "-j 2 --chunk-size 1M" \
		   "-j 3 --chunk-size 1M"; do
		# shellcheck disable=SC2086
		"$G" hist2d --backend cpu -t u16 --bins "$bins" --range "$range" \
			--nonzero "$@" $run "$T/p.u16" > "$T/out" 2> "$T/err"
		if cmp -s "$T/out" "$T/$case_"; then
			ok
		else
			bad "$case_ $run" "$(diff "$T/$case_" "$T/out" | head -4)"
		fi
		grep -q "1000 outside the range, 0 with a nan" "$T/err" && ok ||
			bad "${case_}_outside $run" "$(cat "$T/err")"
	done
}
tcase x4096y3 4096,3 0:4096,0:3
tcase x1y4096 1,4096 0:3,0:4096 -F 2,1
tcase x4096y4096 4096 0:4096,0:4096

# 4096 x 4096 on 16 threads: 16-bit counts fit the accumulators' limit
# (1 GiB: 128 MiB of result and 32 MiB a thread; 64-bit counts left 6),
# and 16 parts merge them
"$G" hist2d -v --backend cpu -t u16 -j 16 --bins 4096 --range 0:4096 \
	--nonzero "$T/p.u16" > "$T/out" 2> "$T/err"
grep -q 'cpu (16 threads)' "$T/err" && ok ||
	bad j16_threads "$(grep backend "$T/err")"
cmp -s "$T/out" "$T/x4096y4096" && ok ||
	bad j16 "$(diff "$T/x4096y4096" "$T/out" | head -4)"

# ---- one bin past many wraps a thread ---------------------------

# u8 (1, 2) 2^24 + 2^20 times (34 MB): 272 wraps of one thread's counter
python3 - "$T/c.u8" <<'PY'
import sys
open(sys.argv[1], "wb").write(b"\x01\x02" * ((1 << 24) + (1 << 20)))
PY
for j in 1 2; do
	"$G" hist2d -q --backend cpu -t u8 -j "$j" --bins 3 --range 0:3 \
		--nonzero "$T/c.u8" > "$T/out" &&
		printf '1\t2\t17825792\n' | cmp -s - "$T/out" && ok ||
		bad "one_bin -j $j" "$(cat "$T/out")"
done

summary
