#!/bin/sh
# test_pread.sh - regular files are read by several threads at once
# (src/input/parread.c), pipes by one read(2) after another: the same bytes
# must make the same output, byte for byte, whatever the size, -j or chunk
# size. Each case runs gpustat on the file and on `cat FILE |`, and compares
# stdout, the exit status and stderr (the file's name read as "stdin").
# Sizes on purpose: 0, 1, a tail of 3 bytes, just under and over the
# parallel reads' minimum (4 MiB) and a 64 MiB chunk; payloads after .npy
# and PGM headers (sized, with bytes too many or too few); the two inputs of
# dot A B; the second pass of a histogram without --range.
#
# Usage: sh tests/test_pread.sh   (GPUSTAT=path overrides ./gpustat)
cd "$(dirname "$0")/.." || exit 2
NAME=pread
. tests/lib.sh
M=1048576

# both NAME FILE ARGS...: gpustat ARGS FILE and cat FILE | gpustat ARGS
# agree in stdout, status and stderr.
both() {
	name=$1 f=$2
	shift 2
	"$G" "$@" "$f" > "$T/o1" 2> "$T/e1"
	r1=$?
	cat "$f" | "$G" "$@" > "$T/o2" 2> "$T/e2"
	r2=$?
	sed "s|$f|stdin|g" "$T/e1" > "$T/e1s"
	if [ $r1 -ne $r2 ]; then
		bad "$name" "exit $r1 from the file, $r2 from a pipe: $(head -n 1 "$T/e1")"
	elif ! cmp -s "$T/o1" "$T/o2"; then
		bad "$name" "stdout differs from the pipe's ($(wc -c < "$T/o1") and $(wc -c < "$T/o2") bytes)"
	elif ! cmp -s "$T/e1s" "$T/e2"; then
		bad "$name" "stderr: '$(head -n 1 "$T/e1s")' vs '$(head -n 1 "$T/e2")'"
	else
		ok
	fi
}

head -c $((70 * M + 5)) /dev/urandom > "$T/rand"
for n in 0 1 3 $((4 * M - 1)) $((4 * M + 3)) $((13 * M + 5)) $((64 * M)) $((70 * M + 5)); do
	head -c $n "$T/rand" > "$T/f"
	for j in 1 3 16; do
		both "scan f64, $n bytes, -j $j" "$T/f" scan -t f64 -j $j
		both "sum u8, $n bytes, -j $j" "$T/f" sum -t u8 -j $j
	done
	both "scan f64, $n bytes, 5M chunks" "$T/f" scan -t f64 -j 4 --chunk-size 5M
	both "scan f64 -c 3, $n bytes, 7M chunks" "$T/f" scan -t f64 -c 3 -j 2 --chunk-size 7M
done

# payloads after a header: .npy (exact, a byte too many, 8 too few) and a
# 16-bit PGM, each in 1M chunks so the payload spans many reads
npy() {	# npy OUT ELEMENTS EXTRA: an <f8 .npy of rand's first bytes
	python3 - "$1" "$2" "$3" "$T/rand" <<'EOF'
import sys
out, n, extra, src = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
h = "{'descr': '<f8', 'fortran_order': False, 'shape': (%d,), }" % n
h += " " * ((64 - (10 + len(h) + 1) % 64) % 64) + "\n"
with open(src, "rb") as f:
    data = f.read(8 * n + extra) if extra >= 0 else f.read(8 * n + extra)
with open(out, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + len(h).to_bytes(2, "little") + h.encode() + data)
EOF
}
npy "$T/a.npy" $((1 * M + 3)) 0
npy "$T/long.npy" $((1 * M + 3)) 1
npy "$T/short.npy" $((1 * M + 3)) -8
for k in a long short; do
	both "npy ($k) scan" "$T/$k.npy" scan -j 3 --chunk-size 1M
	both "npy ($k) sum" "$T/$k.npy" sum -j 16
done
{ printf 'P5\n2048 3001\n65535\n'; head -c $((2048 * 3001 * 2)) "$T/rand"; } > "$T/a.pgm"
both "pgm 16-bit hist" "$T/a.pgm" hist -j 3 --chunk-size 1M
both "pgm 16-bit scan" "$T/a.pgm" scan -j 2

# a histogram's two passes (the range, then the counts), which a pipe
# cannot give: the file read by one thread (-j 1) against several
head -c $((9 * M)) "$T/rand" > "$T/h.i32"
ln "$T/h.i32" "$T/h.bin"	# the same bytes under a name of no type
"$G" hist -t i32 --bins 100 -j 1 -f tsv "$T/h.i32" > "$T/h1" 2>&1
for j in 3 16; do
	"$G" hist -t i32 --bins 100 -j $j -f tsv "$T/h.i32" > "$T/h2" 2>&1
	[ "$(wc -l < "$T/h1")" -eq 101 ] && cmp -s "$T/h1" "$T/h2" && ok ||
		bad "hist i32, two passes, -j $j" "$(head -n 2 "$T/h2")"
done

# dot A B: each side read on its own, equal and unequal lengths
head -c $((9 * M + 4)) "$T/rand" > "$T/a.f32"
tail -c $((9 * M + 4)) "$T/rand" > "$T/b.f32"
head -c $((9 * M)) "$T/rand" > "$T/c.f32"
for j in 1 3 16; do
	"$G" dot -t f32 -j $j "$T/a.f32" "$T/b.f32" > "$T/d1" 2>&1
	cat "$T/b.f32" | "$G" dot -t f32 -j $j "$T/a.f32" - > "$T/d2" 2>&1
	cmp -s "$T/d1" "$T/d2" && ok || bad "dot A B, -j $j" "$(cat "$T/d1") vs $(cat "$T/d2")"
done
"$G" dot -t f32 "$T/a.f32" "$T/c.f32" > "$T/d1" 2>&1
grep -q "differ in length.*9437188 bytes.*9437184 bytes" "$T/d1" && ok ||
	bad "dot A B of unequal lengths" "$(cat "$T/d1")"
# -v: the process's parts add up to its time from main to exit (each is
# printed to 3 decimals: 9 roundings), and none is negative
for cmd in "sum -t f32" "hist -t i32 --bins 10" "scan -t f64"; do
	$G $cmd -v "$T/h.bin" 2>&1 > /dev/null | awk '/process:/ {
		total = $3; sum = 0; neg = 0
		for (i = 1; i <= NF; i++)
			if ($i ~ /^-?[0-9]+[.][0-9]+;?$/ && i > 3 && $(i - 1) != "about") {
				sum += $i; if ($i + 0 < 0) neg = 1
			}
		found = 1
	}
	END {
		if (!found) { print "no process line"; exit 1 }
		d = total - sum; if (d < 0) d = -d
		if (d > 0.005 || neg) { printf "total %s, parts %.3f\n", total, sum; exit 1 }
	}' > "$T/v" && ok || bad "-v process line of $cmd" "$(cat "$T/v")"
done
# a FIFO named as an operand whose writer has written all and gone: the
# stream's size probe must not open it again and wait for a writer
mkfifo "$T/fifo" || exit 2
printf '\001\002\003' > "$T/fifo" &
out=$(timeout 10 "$G" sum -t u8 "$T/fifo" 2>&1)
[ "$out" = 6 ] && ok || bad "named FIFO, writer gone" "got '$out' (a hang is 124)"
wait
# CPU runs map a regular file's payload in place (engine.h: views); with
# GPUSTAT_NO_VIEWS=1 they copy it as before: the same bytes out, for
# records that straddle operands, a file ending inside a record, a
# big-endian .npy (swapped in the mapping's private copy), bools (never
# mapped), and chunks that do not divide a page
views() {	# NAME COMMAND ARGS...: with and without views: stdout, stderr, status
	name=$1 cmd=$2
	shift 2
	"$G" $cmd --backend cpu "$@" > "$T/v1" 2> "$T/w1"
	r1=$?
	GPUSTAT_NO_VIEWS=1 "$G" $cmd --backend cpu "$@" > "$T/v2" 2> "$T/w2"
	r2=$?
	if [ $r1 -ne $r2 ] || ! cmp -s "$T/v1" "$T/v2" || ! cmp -s "$T/w1" "$T/w2"; then
		bad "views: $name" "exit $r1/$r2, stdout $(wc -c < "$T/v1")/$(wc -c < "$T/v2") bytes, stderr '$(head -n 1 "$T/w1")'"
	else
		ok
	fi
}
head -c $((3 * M + 7)) "$T/rand" > "$T/p1"
head -c $((2 * M + 5)) "$T/rand" > "$T/p2"
head -c $((5 * M)) "$T/rand" > "$T/p3"
for cs in 4096 1000004 3M 64M; do
	views "scan f32 -c 3 over three operands, chunks $cs" scan -t f32 -c 3 \
		--chunk-size $cs "$T/p1" "$T/p2" "$T/p3"
	views "stats f64 -c 2, chunks $cs" stats -t f64 -c 2 -f json \
		--chunk-size $cs "$T/p1" "$T/p3"
	views "a record cut by the end, chunks $cs" sum -t f64 --chunk-size $cs "$T/p1"
	views "sum u8 -j 7, chunks $cs" sum -t u8 -j 7 --chunk-size $cs "$T/p2" "$T/p1"
done
python3 - "$T" <<'PY'
import struct, sys, random
t = sys.argv[1]
r = random.Random(5)
def npy(name, descr, payload):
    h = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % descr
    h += " " * ((64 - (10 + len(h) + 1) % 64) % 64) + "\n"
    with open(t + "/" + name, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(h).to_bytes(2, "little") + h.encode() + payload)
n = 600000
npy("be.npy", (">f4", n), struct.pack(">%df" % n, *[r.gauss(0, 1) for _ in range(n)]))
npy("b.npy", ("|b1", n), bytes(r.choice([0, 1, 2, 255]) for _ in range(n)))
PY
for cs in 4096 1M; do
	views "big-endian f4 .npy, chunks $cs" stats --chunk-size $cs "$T/be.npy"
	views "big-endian f4 .npy scan, chunks $cs" scan --chunk-size $cs "$T/be.npy"
	views "bool .npy, chunks $cs" sum --chunk-size $cs "$T/b.npy"
done
"$G" scan --backend cpu "$T/be.npy" | cksum > "$T/k1"
"$G" scan --backend cpu "$T/be.npy" | cksum > "$T/k2"
cmp -s "$T/k1" "$T/k2" && ok || bad "views: a swapped file read twice" "another output"
# leaving the teardown to the exit changes nothing but the time
"$G" scan -t f64 "$T/h.bin" | cksum > "$T/k1"
GPUSTAT_NO_TEARDOWN=1 "$G" scan -t f64 "$T/h.bin" | cksum > "$T/k2"
cmp -s "$T/k1" "$T/k2" && ok || bad "GPUSTAT_NO_TEARDOWN=1" "another output"
summary
