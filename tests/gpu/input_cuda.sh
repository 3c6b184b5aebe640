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
# holding the files they name, once per backend (BACKENDS="cpu cpu" tries
# the harness where there is no GPU)
W=$(mktemp -d "${TMPDIR:-/tmp}/gpustat-examples.XXXXXX")
trap 'rm -rf "$W"' EXIT
G=$(pwd)/gpustat
(cd "$W" && printf 'x,y\n1,2\n3,4\n5,6\n' > hdr.csv &&
 printf '1\n-inf\n2.5\n3000\n' > f && seq 1 1000 > s.txt &&
 python3 -c "import numpy as np; np.linspace(-3, 7, 100001).tofile('big.f64'); np.arange(1000, dtype='f4').tofile('in.f32'); np.arange(1000, dtype='i2').reshape(250, 4).tofile('rec.i16')")
# $GS: gpustat with --backend after the command, as gpustat-cuda adds it
for b in ${BACKENDS:-cpu cuda}; do
	printf '#!/bin/sh\ncmd=$1\nshift\nexec "%s" "$cmd" --backend %s "$@"\n' "$G" $b > "$W/gs-$b"
	chmod +x "$W/gs-$b"
done
set -- ${BACKENDS:-cpu cuda}
pass=0 fail=0
while IFS= read -r line; do
	case $line in ''|'#'*) continue ;; esac
	(cd "$W" && GS="$W/gs-$1" sh -c "$line" > "$W/out.a" 2> "$W/err.a"; echo $? >> "$W/out.a")
	(cd "$W" && GS="$W/gs-$2" sh -c "$line" > "$W/out.b" 2> "$W/err.b"; echo $? >> "$W/out.b")
	# an option the run refused is no comparison of backends
	if ! grep -q "unknown option" "$W/err.a" &&
	   cmp -s "$W/out.a" "$W/out.b" && cmp -s "$W/err.a" "$W/err.b"; then
		pass=$((pass + 1))
		echo "pass $line: $(tr '\n' ' ' < "$W/out.b" | cut -c1-80) $(head -c 160 "$W/err.b")"
	else
		fail=$((fail + 1))
		echo "FAIL $line: $1 $(tr '\n' ' ' < "$W/out.a" | cut -c1-80) $(head -c 160 "$W/err.a") / $2 $(tr '\n' ' ' < "$W/out.b" | cut -c1-80) $(head -c 160 "$W/err.b")"
	fi
done < tests/gpu/examples_cuda.txt > "$OUT/examples.log"
for s in $SCRIPTS; do
	[ -f "$OUT/cuda_$s.log" ] && echo "cuda $(tail -n 1 "$OUT/cuda_$s.log")"
done
echo "examples, cpu = cuda: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && ! grep -qs '^FAIL' "$OUT"/cuda_*.log
