#!/bin/sh
# --text input speed: whole-process GB/s of text parsed by `gpustat sum
# --text` (CPU backend) on page-cached files, on 1 thread and on all of them,
# next to `cat FILE > /dev/null` measured in the same run (best of 3 each).
# Three texts: seq's integers, repr()-style 17-digit floats, and the same
# floats as CSV lines of 4 read with -c 4 and -t f32.
#   sh bench/bench_textin.sh [DIR] [MIB]     (default /dev/shm/gpustat, 2048)
#   GPUSTAT=path times another binary (default ./gpustat)
set -e
cd "$(dirname "$0")/.."
. bench/lib.sh
D=${1:-/dev/shm/gpustat}
MIB=${2:-2048}
G=${GPUSTAT:-./gpustat}
mkdir -p "$D"
SEQ=$D/text-seq.txt
FLT=$D/text-float.txt
CSV=$D/text-float.csv
# seq's lines average 9 bytes near 1e8; floats 20 bytes a field
seq 1 $((MIB * 1048576 / 9)) > "$SEQ"
awk -v n=$((MIB * 1048576 / 80 * 4)) 'BEGIN { srand(1); for (i = 0; i < n; i++)
	printf "%.17g\n", (rand() - 0.5) * 2000 }' > "$FLT"
paste -d, - - - - < "$FLT" > "$CSV"

echo "== machine"
echo "$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
printf '%-44s %8s %8s %8s\n' run seconds "GB/s" "x cat"
row() {	# FILE LABEL OPTIONS
	bytes=$(stat -c %s "$1")
	cat "$1" > /dev/null
	c=$(secs "cat $1")
	t=$(secs "$G sum --text --backend cpu $3 $1")
	awk -v b="$bytes" -v t="$t" -v c="$c" -v l="$2 $3" \
		'BEGIN { printf "%-44s %8.3f %8.2f %8.2f\n", l, t, b / t / 1e9, t / c }'
}
for f in "$SEQ seq" "$FLT floats" "$CSV csv"; do
	set -- $f
	o=
	[ "$2" = csv ] && o="-c 4 -t f32"
	row "$1" "$2" "-j 1 $o"
	row "$1" "$2" "$o"
done
rm -f "$SEQ" "$FLT" "$CSV"
