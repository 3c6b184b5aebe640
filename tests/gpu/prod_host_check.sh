#!/bin/sh
# Build and run tests/gpu/prod_host_check.cu (reduce --op prod's GPU
# grouping, replayed on the host against cpu_reduce.c). Needs nvcc and the C
# objects (make).
cd "$(dirname "$0")/../.." || exit 2
. tests/gpu/includes.sh
objs="build/cpu/cpu_reduce.o build/cpu/cpu_fsum32.o build/cpu/cpu_avx2.o build/numerics/xsum.o build/numerics/xprod.o build/numerics/numfmt.o build/numerics/types.o"
${NVCC:-nvcc} -std=c++17 -O2 $GS_INC -Xcompiler -Wall,-Wextra -o build/prod_host_check \
	tests/gpu/prod_host_check.cu $objs -lm || exit 1
exec build/prod_host_check
