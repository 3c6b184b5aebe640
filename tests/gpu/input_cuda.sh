#!/bin/sh
# The input checks on the GPU (the device machine): the CLI scripts about
# what is read (text recognised by what it is, headers and fields, typed
# names, empty input, per-file totals, decimal quantiles, ulimit -f) with
# every command on --backend cuda (tests/gpu/gpustat-cuda), several scripts
# at once; then each example of examples_cuda.txt run on both backends,
# whose stdout, stderr and exit status must be equal. gpustat is built
# beforehand (make). Logs go to $OUT; a summary is printed last.
#   SCRIPTS="textdetect fields" LIMIT=400 sh tests/gpu/input_cuda.sh
cd "$(dirname "$0")/../.." || exit 2
OUT=${OUT:-/tmp/gpustat-gpu}
mkdir -p "$OUT"
SCRIPTS=${SCRIPTS:-textdetect textauto fields suffix perfile empty quantile filesize}
for s in $SCRIPTS; do
	[ -f "tests/test_$s.sh" ] || continue
	GPUSTAT=tests/gpu/gpustat-cuda GPUSTAT_REAL=$(pwd)/gpustat timeout "${LIMIT:-420}" \
		sh "tests/test_$s.sh" > "$OUT/cuda_$s.log" 2>&1 &
done
wait

# examples: one command line each, run under sh in a scratch directory
# holding the files they name, once per backend
W=$(mktemp -d "${TMPDIR:-/tmp}/gpustat-examples.XXXXXX")
trap 'rm -rf "$W"' EXIT
G=$(pwd)/gpustat
(cd "$W" && printf 'x,y\n1,2\n3,4\n5,6\n' > hdr.csv &&
 printf '1\n-inf\n2.5\n3000\n' > f && seq 1 1000 > s.txt &&
 python3 -c "import numpy as np; np.linspace(-3, 7, 100001).tofile('big.f64'); np.arange(1000, dtype='f4').tofile('in.f32'); np.arange(1000, dtype='i2').reshape(250, 4).tofile('rec.i16')")
pass=0 fail=0
while IFS= read -r line; do
	case $line in ''|'#'*) continue ;; esac
	for b in cpu cuda; do
		(cd "$W" && GS="$G --backend $b" sh -c "$line" > "$W/out.$b" 2> "$W/err.$b"
		 echo $? >> "$W/out.$b")
	done
	if cmp -s "$W/out.cpu" "$W/out.cuda" && cmp -s "$W/err.cpu" "$W/err.cuda"; then
		pass=$((pass + 1))
		echo "pass $line: $(tr '\n' ' ' < "$W/out.cuda" | cut -c1-80) $(head -c 160 "$W/err.cuda")"
	else
		fail=$((fail + 1))
		echo "FAIL $line: cpu $(tr '\n' ' ' < "$W/out.cpu" | cut -c1-80) $(head -c 160 "$W/err.cpu") / cuda $(tr '\n' ' ' < "$W/out.cuda" | cut -c1-80) $(head -c 160 "$W/err.cuda")"
	fi
done < tests/gpu/examples_cuda.txt > "$OUT/examples.log"
for s in $SCRIPTS; do
	[ -f "$OUT/cuda_$s.log" ] && echo "cuda $(tail -n 1 "$OUT/cuda_$s.log")"
done
echo "examples, cpu = cuda: $pass passed, $fail failed"
