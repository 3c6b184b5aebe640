#!/bin/sh
# Build and run tests/gpu/multi_host_check.c: backend_multi.c's scans over
# several lanes, with the lanes played on the CPU (no GPU, no nvcc). Links
# the CPU scan and reduce objects of a build (make).
cd "$(dirname "$0")/../.." || exit 2
. tests/gpu/includes.sh
objs="build/cpu/cpu_scan.o build/cpu/cpu_reduce.o build/cpu/cpu_fsum32.o build/cpu/cpu_avx2.o build/numerics/xsum.o build/numerics/xprod.o build/numerics/numfmt.o build/numerics/types.o"
${CC:-cc} -std=c11 -O2 -g -DGS_HAVE_CUDA -D_GNU_SOURCE $GS_INC \
	-Wall -Wextra -o build/multi_host_check tests/gpu/multi_host_check.c \
	src/engine/backend_multi.c $objs -lm -lpthread || exit 1
exec build/multi_host_check
