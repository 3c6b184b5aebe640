#!/bin/sh
# quantile_gpu.sh - quantile, median and mode on a machine with a GPU (the
# CUDA build): they run on the CPU only for now, so --backend cuda and
# --devices refuse them, auto keeps them on the CPU for a large file with
# the CPU's bits, and their throughput is timed against cat and stats.
#
#   sh tests/gpu/quantile_gpu.sh      (GPUSTAT, DATA=dir, SIZE_MB=4096)
cd "$(dirname "$0")/../.." || exit 2
G=${GPUSTAT:-./gpustat}
D=${DATA:-/dev/shm/gpustat-q}
MB=${SIZE_MB:-4096}
mkdir -p "$D"
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }

# MB of random bytes as f32 and f64 (NaNs are counted and left out)
[ -s "$D/x.f32" ] || head -c $((MB << 20)) /dev/urandom > "$D/x.f32"
[ -s "$D/x.f64" ] || cp "$D/x.f32" "$D/x.f64"

for c in "quantile -q 0.5,0.99" median mode; do
	"$G" $c --backend cuda -t f32 "$D/x.f32" > /dev/null 2> "$D/err"
	[ $? -eq 1 ] && grep -q "does not run on the GPU yet" "$D/err" && ok ||
		bad "$c --backend cuda" "$(cat "$D/err")"
	"$G" $c --devices all -t f32 "$D/x.f32" > /dev/null 2> "$D/err"
	[ $? -eq 1 ] && grep -q "does not run on the GPU yet" "$D/err" && ok ||
		bad "$c --devices all" "$(cat "$D/err")"
done
for t in f32 f64; do
	"$G" quantile -v -q 0,0.5,0.9,0.999,1 -t $t "$D/x.$t" > "$D/auto" 2> "$D/err"
	grep -q "backend: cpu.*does not run on the GPU yet" "$D/err" && ok ||
		bad "auto $t" "$(cat "$D/err")"
	"$G" quantile --backend cpu -q 0,0.5,0.9,0.999,1 -t $t "$D/x.$t" > "$D/cpu" 2> /dev/null
	cmp -s "$D/auto" "$D/cpu" && [ -s "$D/cpu" ] && ok || bad "auto $t" "differs from cpu"
done

# throughput: seconds for the file from the page cache
t() { s=$(date +%s.%N); "$@" > /dev/null 2>&1; e=$(date +%s.%N); echo "$e - $s" | bc; }
for t in f32 f64; do
	cat "$D/x.$t" > /dev/null
	echo "$MB MiB $t: cat $(t cat "$D/x.$t") s, stats $(t "$G" stats -t $t "$D/x.$t") s," \
	     "quantile -q 0.5,0.9,0.99 $(t "$G" quantile -q 0.5,0.9,0.99 -t $t "$D/x.$t") s," \
	     "median $(t "$G" median -t $t "$D/x.$t") s"
done
echo "pipe f32: $(t sh -c "cat $D/x.f32 | $G median -t f32") s (spilled to \$TMPDIR)"
echo "mode u16: $(t "$G" mode -t u16 "$D/x.f32") s, mode u8: $(t "$G" mode -t u8 "$D/x.f32") s"
echo "quantile_gpu: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
