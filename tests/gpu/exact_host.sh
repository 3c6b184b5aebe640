#!/bin/sh
# Build and run tests/gpu/exact_host.cu (the GPU sums' window paths, emulated
# on the host against struct xsum). Needs nvcc and the C objects (make).
cd "$(dirname "$0")/../.." || exit 2
. tests/gpu/includes.sh
objs="build/numerics/xsum.o build/numerics/xprod.o build/numerics/numfmt.o build/numerics/types.o build/cpu/cpu_stats.o build/cpu/cpu_hist.o build/cpu/cpu_dot.o build/cpu/cpu_reduce.o build/cpu/cpu_fsum32.o build/cpu/cpu_avx2.o build/cpu/cpu_scan.o"
${NVCC:-nvcc} -std=c++17 -O2 $GS_INC -Xcompiler -Wall,-Wextra -o build/exact_host \
	tests/gpu/exact_host.cu $objs -lzstd -lpthread -lm || exit 1
exec build/exact_host
