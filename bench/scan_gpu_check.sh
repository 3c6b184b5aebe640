#!/bin/sh
# scan_gpu_check.sh - issue 30 item 1 on a GPU machine: the scan's outputs
# rounded by the one core (numerics/xsum_core.h, ieee.h), and the sign of a zero
# sum is a flag of the exact sum (xsum.negzero), which the GPU backend notes
# from the chunks on the host (cuda_load), sets on its share (cuda_finish),
# writes into scan output (the writer) and merges into a lane's carry; the
# engine no longer fixes anything. Builds (make -j16), then one line per
# check and a table last:
#
#  1. zerosign: tests/test_zerosign.sh (numpy's sign of zero for sum, stats,
#     scans inclusive and exclusive, --carry-in) with --backend cuda, with
#     --devices 0,0 (two pipelines on one GPU: scan lanes), and --backend
#     auto handing over after one chunk (GPUSTAT_AUTO_CPU_CHUNKS=1);
#  2. host checks: tests/gpu/scan_host_check.sh (the scan's rounding,
#     windows, one-limb hardware sums and wide walk against the one core
#     and slow references; whole scans are part 4's, on the GPU) and
#     tests/gpu/multi_host_check.sh;
#  3. xsum_compare: tests/xsum_compare.sh BACKENDS="cpu cuda" on its zero
#     inputs (ONLY='*zero*'; cuda = cpu, and cpu was checked here against
#     the commit before, 3912/0);
#  4. tests/gpu/run.sh PARTS="fixtures scans hybrid shards devscan devbench"
#     (the fixtures' -0 cases; every scan cuda = cpu, its outputs now rounded
#     by xsum_core.h's exact_top_round and ieee.h's ieee_round_fast; auto's
#     hand-over, --carry-in and --devices scans; devbench's wide f64 scan
#     time, to compare with RESULTS.md's last figure).
#
# The one limb reader (xsum_core.h's exact_limbs_round, which sum_round<K>
# and xsum_round both call) is checked against a slow reference by
# tests/unit_xsum_core.c; part 2's scan_host_check checks ieee_round_fast
# against a slow reference and the wide walk against sum_round.
#
# Usage (repository root of the branch): sh bench/scan_gpu_check.sh
# PARTS4 overrides part 4's PARTS ("" skips it); OUT: where logs go.
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-/tmp/scan_gpu_check}
mkdir -p "$OUT"
PARTS4=${PARTS4-fixtures scans hybrid shards devscan devbench}
t0=$(date +%s)
if ! make -j16 all > "$OUT/build.log" 2>&1; then
	echo "build failed:"; tail -n 20 "$OUT/build.log"; exit 1
fi
echo "built in $(( $(date +%s) - t0 )) s"
rows=""
row() { rows="$rows$(printf '%-36s %s' "$1" "$2")
"; }
last() { tail -n 1 "$1" | tr -d '\n'; }

ZS_CASES=${ZS_CASES:-20}
export ZS_CASES
ZS_ARGS="--backend cuda" sh tests/test_zerosign.sh > "$OUT/zs_cuda.log" 2>&1
row "zerosign --backend cuda" "$(last "$OUT/zs_cuda.log")"
ZS_ARGS="--backend cuda --devices 0,0" sh tests/test_zerosign.sh \
	> "$OUT/zs_lanes.log" 2>&1
row "zerosign --devices 0,0" "$(last "$OUT/zs_lanes.log")"
GPUSTAT_AUTO_CPU_CHUNKS=1 ZS_ARGS="--backend auto" sh tests/test_zerosign.sh \
	> "$OUT/zs_auto.log" 2>&1
row "zerosign auto, hand-over" "$(last "$OUT/zs_auto.log")"

sh tests/gpu/scan_host_check.sh > "$OUT/scan_host.log" 2>&1
row "scan_host_check (rc $?)" "$(last "$OUT/scan_host.log")"
sh tests/gpu/multi_host_check.sh > "$OUT/multi_host.log" 2>&1
row "multi_host_check (rc $?)" "$(last "$OUT/multi_host.log")"

N=${N:-100000} ONLY='*zero*' BACKENDS="cpu cuda" \
	sh tests/xsum_compare.sh ./gpustat ./gpustat > "$OUT/xsum.log" 2>&1
row "xsum_compare cpu cuda, *zero*" "$(last "$OUT/xsum.log")"

if [ -n "$PARTS4" ]; then
	OUT=$OUT/run PARTS="$PARTS4" DEVSCAN_TYPES="f16 bf16 f32 f64" \
		sh tests/gpu/run.sh > "$OUT/run.log" 2>&1
	row "run.sh $PARTS4" "see below"
fi
echo
grep -h '^FAIL' "$OUT"/zs_*.log "$OUT/scan_host.log" "$OUT/multi_host.log" \
	"$OUT/xsum.log" 2> /dev/null | head -n 20
printf '%s' "$rows"
[ -n "$PARTS4" ] && cat "$OUT/run/summary.txt"
echo "total $(( $(date +%s) - t0 )) s"
