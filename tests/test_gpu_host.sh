#!/bin/sh
# The GPU kernels' arithmetic on the host, no GPU needed: each check
# includes the kernels' code (exact_host and prod_host_check a
# cuda/*_kernels.cu; scan_host_check the headers of cuda/scan/), replays
# the kernels' grouping (threads,
# blocks, tiles, chunks, streams) with their __host__ __device__ code and
# compares the result with the CPU backend's, bit for bit:
#   exact_host       the exact sums' window paths against struct xsum
#   prod_host_check  numerics/xprod_core.h against __int128 arithmetic and
#                    the exact product; reduce --op prod against cpu_reduce.c
#   scan_host_check  the scan's rounding, windows, one-limb hardware sums
#                    and wide walk against slow references and the one
#                    exact core (numerics/xsum_core.h)
#   scan_algos_host_check  scan --algorithm hillis-steele and blelloch:
#                    their block scans against the default's, every monoid
#   multi_host_check --devices scans (backend_multi.c's carry chain and
#                    turns) on lanes played by the CPU, against cpu_scan.c
#   select_host_check quantile's select and collect passes (every type,
#                    digit width, prefix, column count) against
#                    cpu_select.c
#   algos_host_check --algorithm atomic and block-tree sums and dots
#                    (cuda/algos/exact_algos.cuh) against struct xsum
#   hist_algos_host_check  hist shared-atomic's windows and sort's keys
#                    and runs against each element's slot
#   histw_host_check hist --weights and hist2d --weights
#                    (cuda/histw_kernels.cu: shared and global paths,
#                    carries, merge_host) against cpu_hist_w.c and
#                    cpu_hist2d_w.c's state bytes
# Skipped with a note where nvcc is missing (it compiles them; only
# multi_host_check, which cc builds, runs then), and under make asan (the
# same code, minutes longer; the C objects it links are the plain build's).
cd "$(dirname "$0")/.." || exit 2
NVCC=${NVCC:-${CUDA:-nvcc}}
no_nvcc=
if [ "${CUDA-unset}" = "" ] || grep -qx 'CUDA = ' build/config.mk 2>/dev/null; then
	no_nvcc="a CPU-only build, make CUDA="
elif ! command -v "$NVCC" >/dev/null 2>&1; then
	no_nvcc="$NVCC not found"
fi
if ! [ -f build/numerics/xsum.o ] || ! [ -f build/cpu/cpu_scan.o ]; then
	echo "gpu_host: note: skipped (build/*.o missing: run make first)"
	echo "gpu_host: 0 passed, 0 failed"
	exit 0
fi
if [ -n "${GPUSTAT_ASAN:-}" ]; then
	echo "gpu_host: note: skipped under ASan (run by make check)"
	echo "gpu_host: 0 passed, 0 failed"
	exit 0
fi
[ -z "$no_nvcc" ] || echo "gpu_host: note: skipped all but multi_host_check ($no_nvcc)"
pass=0
fail=0
# the three at once: each is mostly one nvcc run
checks=
for c in exact_host prod_host_check scan_host_check multi_host_check \
	 select_host_check algos_host_check hist_algos_host_check \
	 scan_algos_host_check histw_host_check; do
	[ -z "$no_nvcc" ] || [ $c = multi_host_check ] || continue
	checks="$checks $c"
	{ NVCC=$NVCC sh "tests/gpu/$c.sh" > "build/$c.log" 2>&1; echo $? > "build/$c.rc"; } &
done
wait
for c in $checks; do
	if [ "$(cat "build/$c.rc")" = 0 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		tail -5 "build/$c.log"
		echo "FAIL $c (build/$c.log)"
	fi
	tail -1 "build/$c.log" | sed "s/^/gpu_host: note: /"
done
echo "gpu_host: $pass passed, $fail failed"
[ $fail -eq 0 ]
