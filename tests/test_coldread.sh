#!/bin/sh
# test_coldread.sh - a regular file whose pages are not in memory (dropped
# with posix_fadvise DONTNEED, as bench/bench_cold.sh drops them) is read
# as coldread.h says: every GPUSTAT_COLD_READ strategy, mapped in place and
# copied, gives the bytes a pipe gives (stdout, stderr and status against
# `cat FILE |`), for a payload after an .npy header (unaligned for
# O_DIRECT), records that straddle chunks, a tail of a few bytes and
# several operands; -v names each pass with its bytes (a histogram without
# --range and a median read the file twice, no more) and how much of the
# file was not in memory. No timing is asserted.
#
# Usage: sh tests/test_coldread.sh   (GPUSTAT=path overrides ./gpustat)
cd "$(dirname "$0")/.." || exit 2
NAME=coldread
. tests/lib.sh
M=1048576

if ! python3 -c 'import os; os.posix_fadvise' 2> /dev/null; then
	echo "coldread: skipped (no python3 with os.posix_fadvise)"
	summary
	exit
fi
# drop FILE...: their pages out of the page cache (written back first)
drop() {
	python3 - "$@" <<'EOF'
import os, sys
for f in sys.argv[1:]:
    fd = os.open(f, os.O_RDONLY)
    os.fsync(fd)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)
EOF
}

head -c $((21 * M + 5)) /dev/urandom > "$T/rand"
head -c $((13 * M + 3)) "$T/rand" > "$T/a"
tail -c $((7 * M + 1)) "$T/rand" > "$T/b"
python3 - "$T/rand" "$T/c.npy" <<'EOF'
import sys
n = 1500001
h = "{'descr': '<f8', 'fortran_order': False, 'shape': (%d,), }" % n
h += " " * ((64 - (10 + len(h) + 1) % 64) % 64) + "\n"
data = open(sys.argv[1], "rb").read(8 * n)
with open(sys.argv[2], "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + len(h).to_bytes(2, "little") + h.encode() + data)
EOF
# u8 sums stay exact whatever bytes; f64 of random bits has NaNs and infs,
# so the stats table and the scan's checksum say whether a byte moved
head -c $((9 * M)) "$T/rand" > "$T/d"

# cold NAME FILES -- ARGS...: with FILES dropped before each run, every
# strategy, viewed and copied, against the pipe of the same bytes
cold() {
	name=$1
	shift
	files=
	while [ "$1" != -- ]; do files="$files $1"; shift; done
	shift
	cat $files | "$G" "$@" 2> "$T/e0" | cksum > "$T/o0"
	for how in off auto ahead ahead:1 seq share direct copy; do
		for nv in 0 1; do
			drop $files
			GPUSTAT_COLD_READ=$how GPUSTAT_NO_VIEWS=$nv "$G" "$@" $files \
				2> "$T/e1" | cksum > "$T/o1"
			sed "s|$T/[a-z.0-9]*|stdin|g" "$T/e1" > "$T/e1s"
			if cmp -s "$T/o0" "$T/o1" && cmp -s "$T/e0" "$T/e1s"; then
				ok
			else
				bad "$name, GPUSTAT_COLD_READ=$how, NO_VIEWS=$nv" \
				    "stdout $(cat "$T/o1") against $(cat "$T/o0"); stderr '$(head -n 1 "$T/e1s")' against '$(head -n 1 "$T/e0")'"
			fi
		done
	done
}
cold "sum u8, two operands" "$T/a" "$T/b" -- sum -t u8 -j 3 --chunk-size 5M --backend cpu
cold "u8 -c 3, records across chunks" "$T/a" -- sum -t u8 -c 3 -j 2 --chunk-size 6M --backend cpu
cold "stats of an .npy payload" "$T/c.npy" -- stats -j 3 --chunk-size 5M --backend cpu
cold "scan f64" "$T/d" -- scan -j 2 --chunk-size 4M --backend cpu
cold "a file ending inside an element" "$T/a" -- sum -t f32 -j 2 --chunk-size 5M --backend cpu

# finite values for the passes: 9 MiB of f32
python3 - "$T/n" <<'EOF'
import array, random, sys
r = random.Random(3)
array.array("f", (r.random() - 0.5 for _ in range(9 << 18))).tofile(open(sys.argv[1], "wb"))
EOF

# -v: one line per pass with its bytes; dropped, the file is not in
# memory, and read again at once it is (a file system that keeps every
# page, tmpfs, cannot drop them)
passes() {	# the "pass N: MiB" of -v's lines, one a line
	sed -n 's/^gpustat: \(pass [0-9]*: [0-9.]* MiB\) in .*/\1/p' "$1"
}
payload=$(awk -v n=$((9 * M)) 'BEGIN { printf "%.1f", n / 1048576 }')
"$G" hist -t f32 --bins 10 -v "$T/n" 2> "$T/e" > /dev/null
[ "$(passes "$T/e" | tr '\n' ,)" = "pass 1: $payload MiB,pass 2: $payload MiB," ] && ok ||
	bad "-v hist without --range: two passes" "$(grep pass "$T/e")"
"$G" median -t f32 -v "$T/n" 2> "$T/e" > /dev/null
[ "$(passes "$T/e" | tr '\n' ,)" = "pass 1: $payload MiB,pass 2: $payload MiB," ] && ok ||
	bad "-v median of f32: two passes" "$(grep pass "$T/e")"
"$G" sum -t u8 -v "$T/a" 2> "$T/e" > /dev/null
[ "$(passes "$T/e" | wc -l)" -eq 1 ] && ok || bad "-v sum: one pass" "$(grep pass "$T/e")"
if [ "$(stat -f -c %T "$T" 2> /dev/null)" != tmpfs ]; then
	for nv in 0 1; do
		drop "$T/d"
		GPUSTAT_NO_VIEWS=$nv "$G" sum -t f64 -v --backend cpu "$T/d" 2> "$T/e" > /dev/null
		grep -q "pass 1: .*; [1-9][0-9.]* of [0-9.]* MiB of its file reads not in memory (cold reads: auto)" "$T/e" &&
			ok || bad "-v, NO_VIEWS=$nv: a dropped file is not in memory" "$(grep pass "$T/e")"
		GPUSTAT_NO_VIEWS=$nv "$G" sum -t f64 -v --backend cpu "$T/d" 2> "$T/e" > /dev/null
		grep -q "pass 1: .*; 0.0 of [1-9][0-9.]* MiB of its file reads not in memory" "$T/e" &&
			ok || bad "-v, NO_VIEWS=$nv: read again, it is in memory" "$(grep pass "$T/e")"
	done
	# auto plans a cold file as a pipe (the disk's rate), a cached one not
	drop "$T/d"
	"$G" sum -t f64 -v "$T/d" 2> "$T/e" > /dev/null
	grep -q "^gpustat: input: a file mostly on disk" "$T/e" && ok ||
		bad "-v: a dropped file is mostly on disk" "$(head -n 3 "$T/e")"
	"$G" sum -t f64 -v "$T/d" 2> "$T/e" > /dev/null
	grep -q "mostly on disk" "$T/e" && bad "-v: read again, not on disk" ||
		ok
	drop "$T/d"
	GPUSTAT_COLD_READ=off "$G" sum -t f64 -v "$T/d" 2> "$T/e" > /dev/null
	grep -q "mostly on disk" "$T/e" && bad "-v: COLD_READ=off asks nothing" ||
		ok
fi
GPUSTAT_COLD_READ=off "$G" sum -t f64 -v "$T/d" 2> "$T/e" > /dev/null
grep -q "pass 1: [0-9.]* MiB in [0-9.]* s ([0-9.]* GB/s)$" "$T/e" && ok ||
	bad "-v with GPUSTAT_COLD_READ=off: no pages asked about" "$(grep pass "$T/e")"
# O_DIRECT reads in pieces that start at an aligned offset before the
# first byte: the pieces of a 512 MiB read 3 bytes past a page (the first
# read after the 131075 bytes peeked at for a magic) numbered 257, one past
# the piece table on the stack. A sparse file: holes are never in memory.
truncate -s $((512 * 1048576 + 131075)) "$T/sparse" 2> /dev/null &&
if [ "$(GPUSTAT_COLD_READ=direct "$G" sum -t u8 -j 4 "$T/sparse" 2>&1)" = 0 ]; then ok
else bad "direct: 257 pieces" "$(GPUSTAT_COLD_READ=direct "$G" sum -t u8 -j 4 "$T/sparse" 2>&1 | head -n 2)"; fi
rm -f "$T/sparse"
summary
