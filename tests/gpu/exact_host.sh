#!/bin/sh
# Build and run tests/gpu/exact_host.cu (the GPU sums' window paths, emulated
# on the host against struct xsum). Needs nvcc and the C objects (make).
cd "$(dirname "$0")/../.." || exit 2
objs="build/xsum.o build/types.o build/cpu_stats.o build/cpu_hist.o build/cpu_dot.o build/cpu_reduce.o build/cpu_scan.o"
${NVCC:-nvcc} -std=c++17 -O2 -Isrc -Xcompiler -Wall,-Wextra -o build/exact_host \
	tests/gpu/exact_host.cu $objs -lzstd -lpthread -lm || exit 1
exec build/exact_host
