#!/bin/sh
# nvCOMP's batched deflate and gzip decoders on the device (issue 29, item 3's
# GPU part): does a GPU gzip decoder pay against gpustat's own CPU decode,
# and is it safe on corrupt members. One script, under 8 minutes on a
# 16-core H200:
#
#  1. builds bench/nvcomp_gz_probe.cu (build/nvc) and, unless G names a
#     gpustat, a CPU-only gpustat (build/gzcpu/gpustat, with TOOLS/dfl's
#     libdeflate where it is there, as the device builds have used), at once;
#  2. writes MIB (default 1024) MiB of f32 normals and of an i16 random walk
#     (bench_zstd.sh's data), each as
#       bgz  BGZF blocks (`bgzip -@ 16`, or python's zlib where there is no
#            bgzip): gzip members of at most 64 KiB, each giving its size
#       gzm  pieces of PIECE (default 16) MiB, each a gzip member (zlib
#            level 6, what `gzip -6 -n` writes), concatenated, with their
#            compressed sizes in FILE.sizes for the probe (a member does not
#            say where it ends: see bench/gzwalk.h);
#  3. for each file: the anchors `pigz -dc`, `bgzip -d -@ 16` and gpustat's
#     own CPU decode `gpustat sum -t T FILE -j 16`; the probe's full report
#     (stages on CUDA events from pinned memory, pipelined, streamed from
#     the file, every member against zlib) for each nvCOMP API that applies
#     (deflate data; whole gzip members, naive and lookahead); then the
#     probe's --e2e run (a whole process: start, CUDA init, dlopen, read,
#     decode, CRC32 on the GPU) with the API whose pipelined rate was best;
#  4. fuzz runs: one member through nvCOMP, corrupt 34 ways (truncated,
#     bit-flipped, size-lying, stored blocks and matches that run past the
#     input or the output), each case in a child process under an alarm;
#  5. one member of the whole f32 data (gz1: `pigz -6 -p 16`, the layout
#     most .gz files have): the probe's --e2e with nvCOMP's gzip lookahead
#     decoder (the one meant for large chunks), once, against gpustat and
#     pigz -dc;
#  6. the tables.
#
# Every step runs under a timeout, cut to what is left of BUDGET (default
# 450) seconds from the start; a step that would start past it is skipped
# and says so. Output goes straight to stdout, the reports also to DIR.
#
#   sh bench/bench_nvcomp_gz.sh [DIR]     (default /dev/shm/gpustat-nvgz)
#
# NVCOMP: a folder with include/nvcomp/gzip.h and lib64/libnvcomp.so.6
# (default .nvcomp); TOOLS (default build/tools): bgzip, pigz (its wrapper
# and pigz.bin, zlib/), lib/ (bgzip's libraries, put on LD_LIBRARY_PATH),
# dfl/ (libdeflate.a for gpustat's BGZF); BGZIP, PIGZ name others; RUNS
# (default 3) runs per time, best kept (pigz: 2); G=PATH: a built gpustat.
cd "$(dirname "$0")/.." || exit 2
. bench/lib.sh

D=${1:-/dev/shm/gpustat-nvgz}
MIB=${MIB:-1024}
PIECE=${PIECE:-16}
RUNS=${RUNS:-3}
BUDGET=${BUDGET:-450}
NVCOMP=${NVCOMP:-.nvcomp}
TOOLS=${TOOLS:-build/tools}
P=build/nvc/nvcomp_gz_probe
start=$(date +%s)
if [ -d "$TOOLS/lib" ]; then
	LD_LIBRARY_PATH="$(cd "$TOOLS/lib" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	export LD_LIBRARY_PATH
fi
BGZIP=${BGZIP-$(tool bgzip)}
PIGZ=${PIGZ:-$(tool pigz)}
NP=$(nproc)
mkdir -p "$D" || exit 2

el() { echo $(($(date +%s) - start)); }
# lim S: S seconds, or what is left of the budget where that is less
lim() {
	_r=$((BUDGET - $(el)))
	if [ "$_r" -lt "$1" ]; then echo "$_r"; else echo "$1"; fi
}
# run S CMD...: CMD under a timeout of lim S; 124 and a line where none is left
run() {
	_s=$(lim "$1")
	shift
	if [ "$_s" -le 0 ]; then
		echo "(skipped at $(el) s: the budget of $BUDGET s is spent): $*"
		return 124
	fi
	timeout "$_s" "$@"
}
# t S N CMD: the best wall seconds of N runs of shell command CMD (output
# dropped), each under run S; "-" where one failed or timed out
t() {
	_b=
	for _ in $(seq "$2"); do
		_t0=$(date +%s%N)
		run "$1" sh -c "$3" > /dev/null 2>&1 || { echo -; return; }
		_t=$(($(date +%s%N) - _t0))
		if [ -z "$_b" ] || [ "$_t" -lt "$_b" ]; then _b=$_t; fi
	done
	awk -v n="$_b" 'BEGIN { printf "%.3f\n", n / 1e9 }'
}
# x A B: A / B to 2 places, "-" where either is not a number
x() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2f\n", a / b; else print "-" }'
}

echo "== $(nvidia-smi -L 2> /dev/null | head -1); $NP cores; tools: bgzip=${BGZIP:-python} pigz=${PIGZ:-none}"
echo "== build (the probe and a CPU gpustat at once)"
run 240 make -s BUILD=build/nvc CUDA="$(command -v nvcc)" NVCOMP="$NVCOMP" $P &
pb=$!
if [ -z "${G:-}" ]; then
	G=build/gzcpu/gpustat
	if [ -f "$TOOLS/dfl/libdeflate.a" ]; then
		run 240 make -s BUILD=build/gzcpu CUDA= DEFLATE="$TOOLS/dfl/libdeflate.a" \
			CFLAGS="-O2 -g -I$TOOLS/dfl" $G
	else
		run 240 make -s BUILD=build/gzcpu CUDA= $G
	fi || echo "gpustat build failed"
fi
wait $pb || { echo "probe build failed"; exit 1; }
[ -x "$G" ] || G=
echo "built at $(el) s; gpustat: ${G:-none} ($([ -n "$G" ] && "$G" --version | head -1))"

echo "== data at $(el) s"
run 150 python3 - "$D" "$MIB" "$PIECE" "$NP" "${BGZIP:+bgzip}" <<'PY' || exit 1
import os, struct, sys, zlib, numpy as np
from multiprocessing import Pool
d, mib, piece, np_, have_bgzip = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) << 20, int(sys.argv[4]), len(sys.argv) > 5 and sys.argv[5]
arrs = {'n.f32': np.random.default_rng(1).standard_normal(mib << 18, dtype=np.float32).tobytes(),
        'w.i16': np.cumsum(np.random.default_rng(2).integers(-3, 4, mib << 19),
                           dtype=np.int64).astype(np.int16).tobytes()}
cur = None
def member(i):		# one gzip member of a piece, as `gzip -6 -n` writes it
    c = zlib.compressobj(6, zlib.DEFLATED, 31)
    return c.compress(arrs[cur][i:i + piece]) + c.flush()
def block(i):		# one BGZF block of 65280 bytes, as bgzip writes it
    b = arrs[cur][i:i + 65280]
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    z = c.compress(b) + c.flush()
    h = b'\x1f\x8b\x08\x04\0\0\0\0\0\xff\x06\0BC\x02\0' + struct.pack('<H', 18 + len(z) + 8 - 1)
    return h + z + struct.pack('<II', zlib.crc32(b), len(b))
for name in arrs:
    cur = name
    with Pool(np_) as pool:
        ms = pool.map(member, range(0, len(arrs[name]), piece))
        with open(f'{d}/{name}.gzm', 'wb') as f:
            f.writelines(ms)
        with open(f'{d}/{name}.gzm.sizes', 'w') as f:
            f.write(''.join(f'{len(m)}\n' for m in ms))
        with open(f'{d}/{name}', 'wb') as f:	# for bgzip and pigz
            f.write(arrs[name])
        if not have_bgzip:
            bs = pool.map(block, range(0, len(arrs[name]), 65280), chunksize=256)
            with open(f'{d}/{name}.bgz', 'wb') as f:
                f.writelines(bs)
                f.write(bytes.fromhex('1f8b08040000000000ff0600424302001b0003000000000000000000'))
PY
for f in n.f32 w.i16; do
	if [ -n "$BGZIP" ]; then
		run 60 "$BGZIP" -@ 16 -c "$D/$f" > "$D/$f.bgz" || echo "bgzip of $f failed"
	fi
done
# one member of the whole f32 file (pigz -p 16 writes one, its blocks
# flushed apart): only nvCOMP's gzip lookahead decoder takes a chunk that
# large (the naive one and deflate's decode a chunk on one warp)
if [ -n "$PIGZ" ]; then
	run 60 "$PIGZ" -6 -p 16 -c < "$D/n.f32" > "$D/n.f32.gz1" && wc -c < "$D/n.f32.gz1" > "$D/n.f32.gz1.sizes" ||
		rm -f "$D/n.f32.gz1"
fi
rm -f "$D/n.f32" "$D/w.i16"
ls -l "$D"
echo "files written at $(el) s"

ROWS=$D/rows
: > "$ROWS"
for f in n.f32.bgz w.i16.bgz n.f32.gzm w.i16.gzm; do
	z=$D/$f
	[ -s "$z" ] || continue
	ty=$(echo "$f" | cut -d. -f2)
	ix=
	[ -f "$z.sizes" ] && ix="-i $z.sizes"
	cat "$z" > /dev/null
	echo
	echo "== $f at $(el) s: $($P --list $ix "$z" | tail -1)"
	if [ -n "$G" ]; then
		"$G" sum -v -t "$ty" -j 16 "$z" 2>&1 > /dev/null | grep -iE 'gzip|bgzf|backend' | head -3
		gj=$(t 60 "$RUNS" "$G sum -t $ty -j 16 $z")
	else
		gj=-
	fi
	pz=-
	[ -n "$PIGZ" ] && pz=$(t 60 2 "$PIGZ -dc $z")
	bz=-
	[ -n "$BGZIP" ] && bz=$(t 60 "$RUNS" "$BGZIP -d -@ 16 -c $z")
	echo "gpustat -j 16: $gj s; pigz -dc: $pz s; bgzip -d -@ 16: $bz s"
	best_v= best_r=0
	case $f in
	*.bgz) vs="deflate gzip" m=256 ;;
	*) vs="deflate gzip gzip-lookahead" m=1024 ;;
	esac
	for v in $vs; do
		a="--api ${v%%-*}"
		[ "$v" = gzip-lookahead ] && a="$a --algo lookahead"
		echo "-- probe $a -m $m $f"
		run 60 $P $a -m $m $ix "$z" 2>&1 | tee "$D/report.$f.$v"
		rate=$(sed -n 's/^RATE decode \([0-9.]*\) pipelined \([0-9.]*\) streamed \([0-9.]*\) crc32 \([0-9.]*\) h2d \([0-9.]*\).*/\1 \2 \3 \4 \5/p' \
			"$D/report.$f.$v")
		ok=$(grep -q '^check against zlib: 0 of' "$D/report.$f.$v" &&
			grep -q 'zlib refused 0$' "$D/report.$f.$v" && echo ok || echo FAILED)
		[ -n "$rate" ] || { rate="- - - - -"; ok=FAILED; }
		echo "RATES $f $v $rate $ok" >> "$ROWS"
		pr=$(echo "$rate" | cut -d' ' -f2)
		if [ "$ok" = ok ] && awk -v a="$pr" -v b="$best_r" 'BEGIN { exit !(a + 0 > b + 0) }'; then
			best_v=$v best_r=$pr
		fi
	done
	e=- ev=none
	if [ -n "$best_v" ]; then
		ev=$best_v
		a="--api ${ev%%-*}"
		[ "$ev" = gzip-lookahead ] && a="$a --algo lookahead"
		run 60 $P --e2e $a -m $m $ix "$z" 2>&1
		e=$(t 60 "$RUNS" "$P --e2e $a -m $m $ix $z")
	fi
	out=$($P --list $ix "$z" | tail -1 | awk '{ printf "%.2f", $(NF - 1) / 1024 }')
	echo "E2E $f ${out:-?} $pz $bz $gj $e $ev" >> "$ROWS"
done

for fv in n.f32.bgz:deflate:3 n.f32.gzm:gzip:5 n.f32.bgz:gzip:3; do
	f=${fv%%:*} v=${fv#*:} s=${v#*:} v=${v%:*}
	z=$D/$f
	[ -s "$z" ] || continue
	ix=
	[ -f "$z.sizes" ] && ix="-i $z.sizes"
	echo
	echo "== fuzz: $f, api $v, at $(el) s"
	run 75 $P --fuzz -t "$s" --api "$v" $ix "$z" 2>&1
	echo "(fuzz exit $?: 0 all safe, 1 something unsafe, faulted or hung, 124 timeout)"
done

# one member (last: the extra row of this run; one run each)
z=$D/n.f32.gz1
if [ -s "$z" ]; then
	echo
	echo "== n.f32.gz1 (one member, pigz -6 -p 16) at $(el) s: $($P --list -i "$z.sizes" "$z" | tail -1)"
	gj=-
	[ -n "$G" ] && gj=$(t 30 1 "$G sum -t f32 -j 16 $z")
	pz=$(t 30 1 "$PIGZ -dc $z")
	echo "gpustat -j 16: $gj s; pigz -dc: $pz s"
	echo "-- probe --e2e --api gzip --algo lookahead -m 1024 n.f32.gz1"
	_t0=$(date +%s%N)
	if run 45 $P --e2e --api gzip --algo lookahead -m 1024 -i "$z.sizes" "$z" 2>&1; then
		e=$(awk -v n="$(($(date +%s%N) - _t0))" 'BEGIN { printf "%.3f\n", n / 1e9 }')
	else
		e=-
	fi
	echo "E2E n.f32.gz1 $($P --list -i "$z.sizes" "$z" | tail -1 | awk '{ printf "%.2f", $(NF - 1) / 1024 }') $pz - $gj $e gzip-lookahead" >> "$ROWS"
fi

echo
echo "== nvCOMP's rates, GB/s of output (data in pinned memory unless streamed; h2d: of the compressed bytes; check: every member against zlib)"
printf '%-11s %-15s %8s %10s %9s %7s %7s  %s\n' file api decode pipelined streamed crc32 h2d check
grep '^RATES ' "$ROWS" | while read -r _ f v a b c r h ok; do
	printf '%-11s %-15s %8s %10s %9s %7s %7s  %s\n' "$f" "$v" "$a" "$b" "$c" "$r" "$h" "$ok"
done
echo
echo "== end to end, seconds (a whole process each, best of $RUNS; pigz best of 2; x > 1: the probe is faster)"
printf '%-11s %6s %8s %10s %11s %9s %9s %10s  %s\n' file "GiB" "pigz -dc" "bgzip -@16" "gpustat j16" "probe" \
	"x pigz" "x gpustat" "probe api"
grep '^E2E ' "$ROWS" | while read -r _ f out pz bz gj e ev; do
	printf '%-11s %6s %8s %10s %11s %9s %9s %10s  %s\n' "$f" "$out" "$pz" "$bz" "$gj" "$e" \
		"$(x "$pz" "$e")" "$(x "$gj" "$e")" "$ev"
done
echo "total $(el) s"
