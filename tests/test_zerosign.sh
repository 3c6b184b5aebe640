#!/bin/sh
# test_zerosign.sh - the sign of zero sums and scans (docs/NUMERICS.md: a
# sum of -0 terms only is -0, as numpy's sum and cumsum give), against a
# reference derived by IEEE's rule with python3's standard library (and
# against numpy too where python3 has it): sum and stats, scans inclusive
# and exclusive,
# continued from a --carry-in; leading runs of -0 of every length across
# chunks and threads, several columns, big-endian input. The kernels carry
# the sign in the exact sum itself (xsum.negzero); this checks it on random
# runs (tests/zerosign_ref.py).
cd "$(dirname "$0")/.." || exit 2
NAME=zerosign
. tests/lib.sh

python3 -c 'import numpy' 2> /dev/null ||
	echo "zerosign: note: no numpy for python3: the standard library's reference alone"
# ZS_ARGS adds options to every run (bench/scan_gpu_check.sh: --backend
# cuda, --devices 0,0); ZS_CASES sets the inputs per part (default 60)
for part in sum scan carry; do
	reference tests/zerosign_ref.py "$part" $(( ${ZS_CASES:-60} * 5 / 6 ))
done
summary
