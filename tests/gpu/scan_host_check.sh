#!/bin/sh
# Build and run tests/gpu/scan_host_check.cu (the scan kernels' phases,
# replayed on the host against cpu_scan.c). Needs nvcc and the objects of a
# CUDA build (make): the check includes the scan's headers and links its
# host code (the dispatch, the seeding, the status messages).
cd "$(dirname "$0")/../.." || exit 2
. tests/gpu/includes.sh
objs="build/cpu/cpu_scan.o build/cpu/cpu_reduce.o build/cpu/cpu_fsum32.o build/cpu/cpu_avx2.o build/numerics/xsum.o build/numerics/xprod.o build/numerics/numfmt.o build/numerics/types.o build/ops/algorithm.o"
${NVCC:-nvcc} -std=c++17 -O2 $GS_INC -Xcompiler -Wall,-Wextra -o build/scan_host_check \
	tests/gpu/scan_host_check.cu build/cuda/scan/*.o $objs -lm || exit 1
exec build/scan_host_check
