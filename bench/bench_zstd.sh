#!/bin/sh
# Compressed input on the device machine (issues 15 and 29): gpustat sum
# over 1 GiB of f32 normals and of an i16 random walk, compressed
#   pz   by the real `pzstd -p 16 -3` (its frames, each behind a skippable
#        frame that gives its size; no content sizes),
#   mk   as 16 independent frames with content sizes (bench/mkzst, the
#        layout the earlier bench wrote for pzstd's),
#   one  as one frame (`zstd -T16 -3`; mkzst one frame without zstd),
# each read from the file and through `cat FILE |`, against the anchors of
# the same run: `zstd -dc > /dev/null` and `pzstd -d -p 16 -c > /dev/null`,
# from the file and through a pipe (x > 1: gpustat is faster). Then, where
# the built gpustat reads gzip, GZ_MIB (default 256) of the f32 normals
#   gz    one member, `gzip -6`,
#   pigz  `pigz -6 -p 16` (one member too, its blocks flushed apart),
#   bgzf  BGZF blocks (`bgzip -@ 16`, or written here by python's zlib),
# and GZM_MIB (default 1024) of them
#   members  cut in pieces of 16 MiB, each `gzip -6`'d, concatenated,
# against `gzip -dc` and `pigz -dc`, and BGZF and members on -j 16 against
# -j 1. The
# -v lines of the file rows come first, the table last. Files are in page
# cache (DIR defaults to /dev/shm); best of RUNS (default 2) runs.
#
#   sh bench/bench_zstd.sh [DIR] [MIB]   (default /dev/shm/gpustat-zstd, 1024)
#
# Tools: PZSTD, ZSTD, PIGZ, GZIP, BGZIP name the programs; otherwise
# TOOLS/NAME (TOOLS default build/tools), else the PATH. Where TOOLS/lib
# exists it goes on LD_LIBRARY_PATH (libraries carried beside the tools:
# zstd's liblzma.so.5 and liblz4.so.1, ...). P=16: the threads of pzstd,
# zstd -T and pigz; TYPES="n.f32 w.i16", LAYOUTS="pz mk one" pick rows;
# J1=1 adds gpustat -j 1 rows; NO_GZ=1 leaves gzip out (GZ_FORCE=1 keeps
# its rows where this gpustat cannot read gzip: the script's own test);
# BGZIP= (empty) writes BGZF with python; CORES=N runs everything on the
# first N cores.
cd "$(dirname "$0")/.." || exit 2
. bench/lib.sh

D=${1:-/dev/shm/gpustat-zstd}
MIB=${2:-1024}
P=${P:-16}
RUNS=${RUNS:-2}
GZ_MIB=${GZ_MIB:-256}
GZM_MIB=${GZM_MIB:-1024}
TOOLS=${TOOLS:-build/tools}
[ -d "$TOOLS/lib" ] &&
	export LD_LIBRARY_PATH="$(cd "$TOOLS/lib" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
PZSTD=${PZSTD:-$(tool pzstd)}
ZSTD=${ZSTD:-$(tool zstd)}
PIGZ=${PIGZ:-$(tool pigz)}
GZIP_=${GZIP:-$(tool gzip)}
BGZIP=${BGZIP-$(tool bgzip)}
unset GZIP	# gzip reads options from $GZIP
G=./gpustat
[ -x $G ] || { echo "no ./gpustat: run make first"; exit 1; }
T=
[ -n "${CORES:-}" ] && T="taskset -c 0-$((CORES - 1)) "
mkdir -p "$D" build
cc -O2 bench/mkzst.c -lzstd -o build/mkzst || exit 1
echo "tools: pzstd=${PZSTD:-none} zstd=${ZSTD:-none} pigz=${PIGZ:-none} gzip=${GZIP_:-none} bgzip=${BGZIP:-python}"
python3 - "$D" "$MIB" <<'PY' || exit 1
import sys, numpy as np
d, mib = sys.argv[1], int(sys.argv[2])
np.random.default_rng(1).standard_normal(mib << 18, dtype=np.float32).tofile(d + '/n.f32')
w = np.cumsum(np.random.default_rng(2).integers(-3, 4, mib << 19), dtype=np.int64)
w.astype(np.int16).tofile(d + '/w.i16')
PY

ROWS=$D/rows
: > "$ROWS"
# row NAME SECONDS [ANCHOR_NAME ANCHOR_SECONDS]...: a line of the table
row() {
	_l="$1	$2"
	shift 2
	while [ $# -ge 2 ]; do _l="$_l	$1	$2"; shift 2; done
	echo "$_l" >> "$ROWS"
}
# t CMD: the best wall seconds of RUNS runs of CMD, "-" where one failed
t() {
	_b=
	for _ in $(seq "$RUNS"); do
		_t0=$(date +%s%N)
		sh -c "$1" > /dev/null 2>&1 || { echo -; return; }
		_t=$(( $(date +%s%N) - _t0 ))
		if [ -z "$_b" ] || [ "$_t" -lt "$_b" ]; then _b=$_t; fi
	done
	awk -v n="$_b" 'BEGIN { printf "%.4f\n", n / 1e9 }'
}
# vlines CMD: gpustat's -v lines of what it chose and what it cost
vlines() {
	echo "  -v $(echo "$1" | sed "s|$D/||g")"
	sh -c "$1 -v" 2>&1 > /dev/null | grep -E 'backend|stages|pass [0-9]|: (gzip|zstd): ' |
		grep -v 'plan' | cut -c 10-200 | sed 's/^/    /'
}

echo "-v of the file rows:"
for f in ${TYPES:-n.f32 w.i16}; do
	ty=${f#*.}
	src=$D/$f
	for k in ${LAYOUTS:-pz mk one}; do
		z=$D/$f.$k.zst
		case $k in
		pz) [ -n "$PZSTD" ] || continue
		    $PZSTD -q -f -p $P -3 -c < "$src" > "$z" 2> /dev/null || continue ;;
		mk) build/mkzst -c 3 $((MIB / 16)) < "$src" > "$z" 2> /dev/null || continue ;;
		one) if [ -n "$ZSTD" ]; then $ZSTD -q -f -T$P -3 -c < "$src" > "$z"
		     else build/mkzst -c 3 0 < "$src" > "$z"; fi 2> /dev/null || continue ;;
		esac
		cat "$z" > /dev/null
		if [ -n "$ZSTD" ]; then
			zd=$(t "$T$ZSTD -dc $z") zn="zstd -dc"
			zp=$(t "cat $z | $T$ZSTD -dc") 
		else
			zd=$(t "${T}build/mkzst -d < $z") zn="mkzst -d" zp=$zd
		fi
		pd=- pp=-
		if [ -n "$PZSTD" ]; then
			pd=$(t "$T$PZSTD -d -p $P -c $z")
			pp=$(t "cat $z | $T$PZSTD -d -p $P -c")
		fi
		row "$f $k: $zn (file)" "$zd"
		# one stream: the libzstd gpustat links, decoding as zstd -dc
		# does, apart from the zstd program's own (static) build of it
		[ $k = one ] && [ -n "$ZSTD" ] &&
			row "$f $k: mkzst -d (gpustat's libzstd)" \
				"$(t "${T}build/mkzst -d < $z")" "$zn" "$zd"
		row "$f $k: pzstd -d -p $P -c (file)" "$pd"
		row "$f $k: gpustat sum (file)" "$(t "$T$G sum -t $ty $z")" \
			"$zn" "$zd" "pzstd" "$pd"
		[ -n "${J1:-}" ] &&
			row "$f $k: gpustat sum -j 1 (file)" "$(t "$T$G sum -t $ty -j 1 $z")" \
				"$zn" "$zd" "pzstd" "$pd"
		row "$f $k: gpustat sum (pipe)" "$(t "cat $z | $T$G sum -t $ty")" \
			"$zn" "$zp" "pzstd" "$pp"
		row "$f $k: pzstd -d -p $P -c (pipe)" "$pp"
		vlines "$T$G sum -t $ty $z"
		rm -f "$z"
	done
done

# gzip, where this gpustat reads it (a helper adds it beside zstd)
gz_ok=0
[ -n "$GZIP_" ] && [ -z "${NO_GZ:-}" ] &&
	[ "$(printf '\001\002\003\004' | $GZIP_ -c | $G sum -t u8 2> /dev/null)" = 10 ] && gz_ok=1
[ -n "$GZIP_" ] && [ -n "${GZ_FORCE:-}" ] && gz_ok=1	# the script's own test
if [ -z "${NO_GZ:-}" ] && [ $gz_ok = 0 ]; then
	echo "gzip: not read by this gpustat (or no gzip): its rows are left out"
fi
if [ $gz_ok = 1 ]; then
	src=$D/g.f32
	head -c $((GZ_MIB << 20)) "$D/n.f32" > "$src"
	$GZIP_ -6 -c < "$src" > "$src.gz.gz"
	[ -n "$PIGZ" ] && $PIGZ -6 -p $P -c < "$src" > "$src.pigz.gz"
	if [ -n "$BGZIP" ]; then
		$BGZIP -@ $P -c < "$src" > "$src.bgzf.gz"
	else
		python3 - "$src" "$src.bgzf.gz" "$P" <<'PY'
import struct, sys, zlib
from multiprocessing import Pool
BLOCK = 0xff00			# bgzip's block of input
def block(data):
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    d = c.compress(data) + c.flush()
    hdr = struct.pack('<4BI2BH2BHH', 31, 139, 8, 4, 0, 0, 255, 6, 66, 67, 2,
                      18 + len(d) + 8 - 1)
    return hdr + d + struct.pack('<II', zlib.crc32(data), len(data))
data = open(sys.argv[1], 'rb').read()
with Pool(int(sys.argv[3])) as p, open(sys.argv[2], 'wb') as out:
    for b in p.imap(block, (data[i:i + BLOCK] for i in range(0, len(data), BLOCK)), 64):
        out.write(b)
    out.write(block(b''))	# BGZF's end-of-file block
PY
	fi
	# members: the pieces compressed on P cores at once
	head -c $((GZM_MIB << 20)) "$D/n.f32" > "$D/m.f32"
	mkdir -p "$D/pieces"
	split -b 16M -a 4 "$D/m.f32" "$D/pieces/p."
	ls "$D"/pieces/p.* | xargs -P $P -n 1 $GZIP_ -6
	cat "$D"/pieces/p.*.gz > "$src.members.gz"
	rm -rf "$D/pieces" "$D/m.f32"
	for k in gz pigz bgzf members; do
		z=$src.$k.gz
		[ -s "$z" ] || continue
		m=$GZ_MIB
		[ $k = members ] && m=$GZM_MIB
		cat "$z" > /dev/null
		gd=$(t "$T$GZIP_ -dc $z") gp=$(t "cat $z | $T$GZIP_ -dc")
		pd=- pp=-
		if [ -n "$PIGZ" ]; then
			pd=$(t "$T$PIGZ -dc $z")
			pp=$(t "cat $z | $T$PIGZ -dc")
		fi
		row "gzip $m MiB $k: gzip -dc (file)" "$gd"
		row "gzip $m MiB $k: pigz -dc (file)" "$pd"
		g16=$(t "$T$G sum -t f32 $z")
		row "gzip $m MiB $k: gpustat sum (file)" "$g16" \
			"gzip" "$gd" "pigz" "$pd"
		row "gzip $m MiB $k: gpustat sum (pipe)" "$(t "cat $z | $T$G sum -t f32")" \
			"gzip" "$gp" "pigz" "$pp"
		if [ $k = bgzf ] || [ $k = members ]; then
			g1=$(t "$T$G sum -t f32 -j 1 $z")
			row "gzip $m MiB $k: gpustat sum -j 1 (file)" "$g1"
			row "gzip $m MiB $k: gpustat sum -j $P (file)" \
				"$(t "$T$G sum -t f32 -j $P $z")" "-j 1" "$g1"
		fi
		vlines "$T$G sum -t f32 $z"
	done
	rm -f "$src"*
fi

echo
printf '%-46s %8s  %s\n' "gpustat sum, files in page cache${CORES:+, $CORES cores}" "s" "x anchor (anchor s / s)"
awk -F '\t' '{
	if ($2 == "-") { printf "%-46s %8s\n", $1, "failed"; next }
	printf "%-46s %8.3f", $1, $2
	for (i = 3; i + 1 <= NF; i += 2)
		if ($(i + 1) != "-" && $(i + 1) > 0)
			printf "  x %s %.2f", $i, $(i + 1) / $2
	printf "\n"
}' "$ROWS"
rm -rf "$D"
