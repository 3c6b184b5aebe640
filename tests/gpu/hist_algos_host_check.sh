#!/bin/sh
# Build and run tests/gpu/hist_algos_host_check.cu (hist --algorithm
# shared-atomic's windows and sort's keys and runs, on the host). Needs
# nvcc and the C objects (make).
cd "$(dirname "$0")/../.." || exit 2
. tests/gpu/includes.sh
objs="build/numerics/xsum.o build/numerics/numfmt.o build/numerics/types.o"
${NVCC:-nvcc} -std=c++17 -O2 $GS_INC -Xcompiler -Wall,-Wextra -o build/hist_algos_host_check \
	tests/gpu/hist_algos_host_check.cu $objs -lzstd -lpthread -lm || exit 1
exec build/hist_algos_host_check
