#!/bin/sh
# Build and run tests/gpu/scan_host_check.cu (the scan kernels' phases,
# replayed on the host against cpu_scan.c). Needs nvcc and the C objects
# (make).
cd "$(dirname "$0")/../.." || exit 2
objs="build/cpu/cpu_scan.o build/cpu/cpu_reduce.o build/numerics/xsum.o build/numerics/numfmt.o build/numerics/types.o"
${NVCC:-nvcc} -std=c++17 -O2 -Isrc -Isrc/cli -Isrc/cmd -Isrc/cpu -Isrc/engine -Isrc/input -Isrc/numerics -Icuda -Xcompiler -Wall,-Wextra -o build/scan_host_check \
	tests/gpu/scan_host_check.cu $objs -lm || exit 1
exec build/scan_host_check
