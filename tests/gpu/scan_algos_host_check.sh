#!/bin/sh
# Build and run tests/gpu/scan_algos_host_check.cu (scan --algorithm
# hillis-steele and blelloch: their block scans replayed on the host
# against the default warp scan's). Needs nvcc and the C objects (make).
cd "$(dirname "$0")/../.." || exit 2
. tests/gpu/includes.sh
objs="build/numerics/types.o"
${NVCC:-nvcc} -std=c++17 -O2 $GS_INC -Xcompiler -Wall,-Wextra -o build/scan_algos_host_check \
	tests/gpu/scan_algos_host_check.cu $objs -lm || exit 1
exec build/scan_algos_host_check
