#!/bin/sh
# CPU benchmark: kernel GB/s on in-memory data (one thread), then whole-process
# GB/s of each command on a page-cached file, next to `cat FILE > /dev/null`
# and `cat FILE | cat > /dev/null` measured in the same run.
#   sh bench/bench_cpu.sh [MIB]      (default 1024 MiB file in $TMPDIR)
set -e
cd "$(dirname "$0")/.."
. bench/lib.sh
MIB=${1:-1024}
TMP=${TMPDIR:-/tmp}
make -s gpustat build/bench_kernels >/dev/null

echo "== machine"
echo "$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "== kernels, in memory (256 MiB buffers)"
./build/bench_kernels 256

F32=$TMP/gpustat-bench.f32
U8=$TMP/gpustat-bench.u8
./build/bench_kernels --gen f32 "$MIB" > "$F32"
./build/bench_kernels --gen u8 "$MIB" > "$U8"
BYTES=$(stat -c %s "$F32")


cat "$F32" > /dev/null; cat "$U8" > /dev/null	# into the page cache
CAT=$(secs "cat $F32")
PIPE=$(secs "cat $F32 | cat")
echo "== end to end, page-cached ${MIB} MiB file"
printf '%-36s %8s %8s %10s\n' command seconds GB/s "x cat"
row() {
	t=$(secs "$2")
	printf '%-36s %8.3f %8.2f %10.2f\n' "$1" "$t" \
		"$(echo "$BYTES / $t / 1000000000" | bc -l)" "$(echo "$CAT / $t" | bc -l)"
}
row "cat FILE > /dev/null" "cat $F32"
row "cat FILE | cat > /dev/null" "cat $F32 | cat"
for j in 1 $(nproc); do
	row "sum f32 -j$j" "./gpustat sum -j$j $F32"
	row "stats f32 -j$j" "./gpustat stats -j$j $F32"
	row "dot --pairs f32 -j$j" "./gpustat dot --pairs -j$j $F32"
	row "hist u8 -j$j" "./gpustat hist -j$j $U8"
	row "hist f32 --bins 100 --range 0:1 -j$j" "./gpustat hist -q -t f32 --bins 100 --range 0:1 -j$j $F32"
	row "scan f32 -j$j > /dev/null" "./gpustat scan -j$j $F32"
done
row "cat FILE | gpustat sum" "cat $F32 | ./gpustat sum"
row "cat FILE | gpustat scan > /dev/null" "cat $F32 | ./gpustat scan"
rm -f "$F32" "$U8"
