#!/bin/sh
# Build and run tests/gpu/select_host_check.cu (quantile's GPU passes,
# replayed on the host against cpu_select.c). Needs nvcc and the C objects
# (make).
cd "$(dirname "$0")/../.." || exit 2
. tests/gpu/includes.sh
objs="build/cpu/cpu_select.o build/numerics/types.o build/numerics/numfmt.o"
${NVCC:-nvcc} -std=c++17 -O2 $GS_INC -Xcompiler -Wall,-Wextra -o build/select_host_check \
	tests/gpu/select_host_check.cu $objs -lm || exit 1
exec build/select_host_check
