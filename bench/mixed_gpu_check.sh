#!/bin/sh
# mixed_gpu_check.sh - records of mixed types on a GPU machine: columns of
# one type cut from mixed records (-F) run on the GPU and must print the
# bytes of the same command on the columns extracted; several types stay on
# the CPU (auto says so with -v, --backend cuda is a usage error).
#
# Usage (repository root, after make): sh bench/mixed_gpu_check.sh [N]
# N records of (i32, f32, >f8) (default 50M, 800 MB). Prints one line per
# check, "ok" or "DIFF", and a last line "mixed-gpu: P ok, F failed".
cd "$(dirname "$0")/.." || exit 2
G=${GPUSTAT:-./gpustat}
N=${1:-50000000}
D=$(mktemp -d "${TMPDIR:-/tmp}/mixedgpu.XXXXXX") || exit 2
trap 'rm -rf "$D"' EXIT
python3 - "$D" "$N" <<'EOF' || exit 2
import sys, numpy as np
d, n = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(32)
a = np.zeros(n, dtype=[('k', '<i4'), ('v', '<f4'), ('w', '>f8')])
a['k'] = rng.integers(-2**31, 2**31 - 1, n, dtype=np.int64)
a['v'] = rng.standard_normal(n, dtype=np.float32)
a['w'] = rng.standard_normal(n) * 1e6
a.tofile(d + '/mix.bin')
np.save(d + '/mix.npy', a)
a['k'].tofile(d + '/k.bin')
a['v'].tofile(d + '/v.bin')
a['w'].astype('>f8').tofile(d + '/w.bin')
EOF
T='i32,f32,>f8'
p=0 f=0
check() {	# NAME: $D/a and $D/b, byte for byte
	name=$1
	shift
	if cmp -s "$D/a" "$D/b"; then p=$((p + 1)); echo "ok    $name"
	else f=$((f + 1)); echo "DIFF  $name"; fi
}
for c in sum stats median "hist --bins 100" "quantile -q 0.001,0.5"; do
	for col in "2 f32 v" "1 i32 k" "3 >f8 w"; do
		set -- $col
		"$G" $c --backend cuda -F $1 -t "$T" "$D/mix.bin" > "$D/a" 2>&1
		"$G" $c --backend cpu -t "$2" "$D/$3.bin" > "$D/b" 2>&1
		check "$c -F $1 ($2) cuda vs the column on the cpu"
	done
done
"$G" scan --backend cuda -F 2 "$D/mix.npy" | cksum > "$D/a"
"$G" scan --backend cpu -t f32 "$D/v.bin" | cksum > "$D/b"
check "scan -F 2 of the npy, cuda vs cpu"
"$G" sum -v -t "$T" "$D/mix.bin" > "$D/a" 2> "$D/err"
"$G" sum --backend cpu -t "$T" "$D/mix.bin" > "$D/b"
check "sum of $T, auto vs cpu"
grep "backend:" "$D/err"
"$G" sum --backend cuda -t "$T" "$D/mix.bin" > /dev/null 2> "$D/err"
[ $? -eq 2 ] && grep -q 'CPU only' "$D/err" && p=$((p + 1)) ||
	{ f=$((f + 1)); echo "DIFF  --backend cuda of $T: $(cat "$D/err")"; }
echo "mixed-gpu: $p ok, $f failed"
[ "$f" -eq 0 ]
