#!/bin/sh
# Build and run tests/gpu/histw_host_check.cu (the weighted histograms'
# GPU kernels replayed on the host, against the CPU's state bytes). Needs
# nvcc and the C objects (make).
cd "$(dirname "$0")/../.." || exit 2
. tests/gpu/includes.sh
${NVCC:-nvcc} -std=c++17 -O2 $GS_INC -Xcompiler -Wall,-Wextra -o build/histw_host_check \
	tests/gpu/histw_host_check.cu build/libgs.a $GS_LIBS || exit 1
exec build/histw_host_check
