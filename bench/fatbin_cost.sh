#!/bin/sh
# fatbin_cost.sh - what the Makefile's -Xfatbin=-compress-all costs on a
# GPU machine: gpustat built with it (./gpustat, make's default) and without
# it (build-fatbin/gpustat), each one's size and build time, and the seconds
# of a short CUDA run (the context and the kernels' module loads, where the
# driver decompresses), best of 5, with the driver's lazy loading (its
# default) and with every module loaded at start (CUDA_MODULE_LOADING=EAGER).
#
# Usage: sh bench/fatbin_cost.sh   (needs nvcc and a GPU; about 5 minutes
# on 16 cores)
cd "$(dirname "$0")/.." || exit 2
J=$(nproc 2>/dev/null || echo 4)
T=$(mktemp -d "${TMPDIR:-/tmp}/fatbin.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT

s0=$(date +%s)
make -j"$J" >"$T/on.log" 2>&1 || { tail -20 "$T/on.log"; exit 1; }
s1=$(date +%s)
# the same flags as the Makefile's NVCCFLAGS, less -Xfatbin=-compress-all
off=$(make -s -p -n gpustat 2>/dev/null | sed -n 's/^NVCCFLAGS = //p' | head -n 1 |
	sed 's/ -Xfatbin=-compress-all//')
make -j"$J" BUILD=build-fatbin NVCCFLAGS="$off" build-fatbin/gpustat >"$T/off.log" 2>&1 ||
	{ tail -20 "$T/off.log"; exit 1; }
s2=$(date +%s)

python3 -c 'import numpy as np; np.arange(1 << 18, dtype=np.float32).tofile("'"$T"'/x.f32")' ||
	head -c 1048576 /dev/zero > "$T/x.f32"

# best of 5 wall seconds of: gpustat sum --backend cuda (env in $1)
best() {
	b=
	for i in 1 2 3 4 5; do
		a=$(date +%s%N)
		env $1 "$2" sum --backend cuda -t f32 "$T/x.f32" > /dev/null || return 1
		z=$(date +%s%N)
		t=$(( (z - a) / 1000000 ))
		[ -z "$b" ] || [ "$t" -lt "$b" ] && b=$t
	done
	echo "$b ms"
}

strip -o "$T/on.stripped" gpustat
strip -o "$T/off.stripped" build-fatbin/gpustat
printf '%-22s %12s %12s %10s %12s %12s\n' build bytes stripped make_s lazy_run eager_run
printf '%-22s %12s %12s %10s %12s %12s\n' compress-all "$(stat -c %s gpustat)" \
	"$(stat -c %s "$T/on.stripped")" $((s1 - s0)) \
	"$(best CUDA_MODULE_LOADING=LAZY ./gpustat)" "$(best CUDA_MODULE_LOADING=EAGER ./gpustat)"
printf '%-22s %12s %12s %10s %12s %12s\n' "PTX only (before)" "$(stat -c %s build-fatbin/gpustat)" \
	"$(stat -c %s "$T/off.stripped")" $((s2 - s1)) \
	"$(best CUDA_MODULE_LOADING=LAZY build-fatbin/gpustat)" "$(best CUDA_MODULE_LOADING=EAGER build-fatbin/gpustat)"
