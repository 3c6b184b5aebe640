#!/bin/sh
# group_gpu_device.sh - issue 31 item 4's run on a GPU machine: build with
# CUDA, the host test of the device form (unit_groupdev), --backend cuda
# against --backend cpu byte for byte (bench/group_gpu_check.sh, now with
# key counts past the GPU's table and small spill areas drained to the
# CPU), then the timing table (bench/bench_group_gpu.sh: 100 M records,
# 1,000, 1,000,000 and 4,000,000 keys, cpu against cuda).
#
# Usage (repository root; about 100 s to build on 16 cores, then some
# 3 minutes a step):
#   sh bench/group_gpu_device.sh [check] [bench]     (default: both)
cd "$(dirname "$0")/.." || exit 2
steps=${*:-check bench}
mkdir -p build
make -j"$(nproc)" gpustat unit > build/device.log 2>&1 || { tail -40 build/device.log; exit 1; }
grep -i "warning" build/device.log | head -5
build/tests/unit_groupdev | tail -3
rc=0
for s in $steps; do
	case $s in
	check) sh bench/group_gpu_check.sh || rc=1 ;;
	bench) KEYS=${KEYS:-1000 1000000 4000000} sh bench/bench_group_gpu.sh ${MREC:-100} || rc=1 ;;
	esac
done
exit $rc
