#!/bin/sh
# gzip input (issue 29, item 3): gpustat sum over MIB MiB of f32 normals and
# of a compressible i16 random walk, gzip -6, in page cache, best of RUNS
# (3), against the anchors of the same run: one member (written by pigz,
# which writes one) read by gpustat from the file and from a pipe, against
# `gzip -dc` and `pigz -dc` to /dev/null; BGZF (blocks of 65280 bytes built
# by Python's zlib on every core, bgzip's layout) read by gpustat on -j 1
# and on every core (-j 16), against `bgzip -dc -@ N` where bgzip is
# installed. gzip and pigz must be on PATH (carry /usr/bin/pigz).
# DEFLATE_DIR=dir builds with libdeflate from dir/libdeflate.h and
# dir/libdeflate.a (linked statically); without it, with libdeflate where
# the build finds it, else zlib (gpustat --version's decoders line says).
#   sh bench/bench_gzip.sh [DIR] [MIB]      (default /dev/shm/gpustat-gzip, 1024)
cd "$(dirname "$0")/.." || exit 2
. bench/lib.sh
D=${1:-/dev/shm/gpustat-gzip}
MIB=${2:-1024}
N=$(nproc)
mkdir -p "$D"
if [ -n "${DEFLATE_DIR:-}" ]; then
	make DEFLATE="$DEFLATE_DIR/libdeflate.a" CFLAGS="-O2 -g -I$DEFLATE_DIR" > /dev/null || exit 1
else
	make > /dev/null || exit 1
fi
./gpustat --version | sed -n 2p
python3 - "$D" "$MIB" <<'PY' || exit 1
import sys, struct, zlib, numpy as np
from multiprocessing import Pool
d, mib = sys.argv[1], int(sys.argv[2])
np.random.default_rng(1).standard_normal(mib << 18, dtype=np.float32).tofile(d + '/n.f32')
w = np.cumsum(np.random.default_rng(2).integers(-3, 4, mib << 19), dtype=np.int64)
w.astype(np.int16).tofile(d + '/w.i16')

def block(data):
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    body = c.compress(data) + c.flush()
    head = bytes([0x1F, 0x8B, 8, 4, 0, 0, 0, 0, 0, 0xFF, 6, 0, 66, 67, 2, 0])
    return head + struct.pack('<H', len(body) + 25) + body + \
        struct.pack('<II', zlib.crc32(data), len(data))

for f in ('n.f32', 'w.i16'):
    raw = open(d + '/' + f, 'rb').read()
    with Pool() as p:
        blocks = p.map(block, [raw[i:i + 65280] for i in range(0, len(raw), 65280)],
                       chunksize=256)
    with open(d + '/' + f + '.bgz', 'wb') as out:
        out.writelines(blocks)
        out.write(block(b''))
PY
printf '%-48s %8s %8s\n' "gzip, $MIB MiB in page cache, $N cores" "s" "ratio"
row() {	# row LABEL SECONDS ANCHOR_SECONDS
	printf '%-48s %8s %8s\n' "$1" "$2" \
		"$(awk -v a="$3" -v b="$2" 'BEGIN { printf "%.2fx", a / b }')"
}
for f in n.f32 w.i16; do
	t=${f#*.}
	pigz -6 -p "$N" -c < "$D/$f" > "$D/$f.gz"
	g=$(secs "gzip -dc $D/$f.gz")
	row "$f: gzip -dc (one member)" "$g" "$g"
	p=$(secs "pigz -dc $D/$f.gz")
	row "$f: pigz -dc" "$p" "$g"
	s=$(secs "./gpustat sum -t $t $D/$f.gz")
	row "$f: gpustat sum FILE.gz (vs gzip -dc)" "$s" "$g"
	row "$f: gpustat sum FILE.gz (vs pigz -dc)" "$s" "$p"
	s=$(secs "cat $D/$f.gz | ./gpustat sum -t $t")
	row "$f: cat FILE.gz | gpustat sum (vs gzip -dc)" "$s" "$g"
	one=$(secs "./gpustat sum -t $t -j 1 $D/$f.bgz")
	row "$f: BGZF gpustat sum -j 1" "$one" "$one"
	s=$(secs "./gpustat sum -t $t -j $N $D/$f.bgz")
	row "$f: BGZF gpustat sum -j $N (vs -j 1)" "$s" "$one"
	if command -v bgzip > /dev/null 2>&1; then
		b=$(secs "bgzip -dc -@ $N $D/$f.bgz")
		row "$f: BGZF bgzip -dc -@ $N (vs -j 1)" "$b" "$one"
	fi
done
rm -f "$D"/*.gz "$D"/*.bgz
