#!/bin/sh
# Build and run tests/gpu/scan_host_check.cu (the scan's __host__ __device__
# rounding and sums against the one exact core and slow references). Needs
# nvcc and the C objects (make; make CUDA= is enough: no CUDA objects).
cd "$(dirname "$0")/../.." || exit 2
. tests/gpu/includes.sh
${NVCC:-nvcc} -std=c++17 -O2 $GS_INC -Xcompiler -Wall,-Wextra -o build/scan_host_check \
	tests/gpu/scan_host_check.cu build/numerics/xsum.o build/numerics/xprod.o \
	build/numerics/types.o -lm || exit 1
exec build/scan_host_check
