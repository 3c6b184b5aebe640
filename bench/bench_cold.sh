#!/bin/sh
# Cold files (issue 29): an 8 GiB file of f32 normals on the machine's
# disk, its pages dropped before every run (posix_fadvise DONTNEED, no root
# needed), read by `cat`, `dd iflag=direct bs=16M`, gpustat's one-pass
# commands (sum, stats, hist -t u8, scan > /dev/null), its two-pass ones
# (hist -t f32 --bins 100 without --range, median) and numpy (fromfile +
# sum), each as a ratio to cat's rate in the same run (x cat > 1: faster
# than cat). Then every GPUSTAT_COLD_READ strategy (src/input/coldread.h)
# on `sum`, on the default backend (copies into pinned buffers where a GPU
# is used) and on --backend cpu (the file mapped in place); and, page-cached,
# the default against GPUSTAT_COLD_READ=off (the sample each read pays).
# The -v pass lines of the gpustat rows come before the table, which is
# last. One run per cold row (a run reads the whole file from disk).
#
#   sh bench/bench_cold.sh [DIR]     (default build/cold, on the disk)
# SIZE_MB=N: the file's size (default 8192); MODES="...": the strategies
# (default "off auto seq share direct copy ahead:256"); NO_MODES=1 leaves
# them out; PY=python3.
cd "$(dirname "$0")/.." || exit 2
. bench/lib.sh
D=${1:-build/cold}
MB=${SIZE_MB:-8192}
PY=${PY:-python3}
F=$D/cold.bin
LOG=$D/log
mkdir -p "$D" || exit 1
: > "$LOG"
fs=$(stat -f -c %T "$D" 2> /dev/null)
[ "$fs" = tmpfs ] && echo "note: $D is on tmpfs: its pages cannot be dropped, nothing is cold"

# the file: 256 MiB of normals (or all of it when smaller), repeated
$PY - "$F" "$MB" <<'EOF' || exit 1
import os, sys
import numpy as np
path, mb = sys.argv[1], int(sys.argv[2])
block = min(mb, 256)
x = np.random.default_rng(1).standard_normal(block << 18, dtype=np.float32)
with open(path, "wb") as f:
    for _ in range(mb // block):
        x.tofile(f)
    f.flush()
    os.fsync(f.fileno())
EOF

# drop: F's pages out of the page cache
drop() {
	$PY -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
os.close(fd)' "$F"
}

# cold CMD: the wall seconds of CMD (stdout to /dev/null, stderr to the
# log) after F's pages were dropped; "-" when it failed
cold() {
	drop
	echo "== $1" >> "$LOG"
	_t0=$(date +%s%N)
	if sh -c "$1" > /dev/null 2>> "$LOG"; then
		awk -v n=$(( $(date +%s%N) - _t0 )) 'BEGIN { printf "%.3f\n", n / 1e9 }'
	else
		echo -
	fi
}

ROWS=$D/rows
: > "$ROWS"
# row NAME SECONDS: a line of the table (name, s, GB/s, x cat)
row() {
	printf '%s\t%s\n' "$1" "$2" >> "$ROWS"
}

G=./gpustat
have_g=1
[ -x $G ] || { have_g=0; echo "note: no ./gpustat (run make): its rows are left out"; }
$PY -c 'import numpy' 2> /dev/null && have_np=1 || have_np=0

cat_s=$(cold "cat $F")
row "cat FILE > /dev/null" "$cat_s"
row "dd iflag=direct bs=16M" "$(cold "dd if=$F of=/dev/null bs=16M iflag=direct status=none")"
if [ $have_g = 1 ]; then
	for c in "sum -t f32" "stats -t f32" "hist -t u8" "hist -t f32 --bins 100" \
		 "scan -t f32" "median -t f32"; do
		row "gpustat $c" "$(cold "$G $c -v $F")"
	done
fi
[ $have_np = 1 ] && row "numpy fromfile + sum" "$(cold "$PY -c 'import numpy as np, sys
print(np.fromfile(sys.argv[1], dtype=np.float32).sum(dtype=np.float64))' $F")"
if [ $have_g = 1 ] && [ -z "${NO_MODES:-}" ]; then
	for m in ${MODES:-off auto seq share direct copy ahead:256}; do
		row "COLD_READ=$m sum" "$(cold "GPUSTAT_COLD_READ=$m $G sum -t f32 -v $F")"
		row "COLD_READ=$m sum --backend cpu" \
		    "$(cold "GPUSTAT_COLD_READ=$m $G sum -t f32 -v --backend cpu $F")"
	done
fi
cat2_s=$(cold "cat $F")
row "cat FILE > /dev/null (again, last)" "$cat2_s"
# page-cached: what the default's sample costs where nothing is cold
if [ $have_g = 1 ]; then
	cat "$F" > /dev/null
	for b in "" "--backend cpu"; do
		for m in off auto; do
			row "cached: COLD_READ=$m sum $b" \
			    "$(best "GPUSTAT_COLD_READ=$m $G sum -t f32 $b $F" 3)"
		done
	done
fi
cached_s=$(best "cat $F" 3)
row "cached: cat FILE > /dev/null" "$cached_s"

echo "-v of the gpustat rows (backend, passes):"
grep -E '^== |backend:|pass [0-9]' "$LOG" | grep -v '^gpustat: backend: .*plan' |
	sed 's/^gpustat: /    /; s/^== /  /' | cut -c 1-200
echo
printf '%-40s %8s %7s %7s\n' "$MB MiB file, pages dropped before each" "s" "GB/s" "x cat"
# x cat: against cold cat, a cached row against cached cat
awk -F '\t' -v cc="$cat_s" -v wc="$cached_s" -v mb="$MB" '{
	c = $1 ~ /^cached:/ ? wc : cc
	if ($2 == "-" || $2 == "")
		printf "%-40s %8s %7s %7s\n", $1, "failed", "-", "-"
	else
		printf "%-40s %8.3f %7.2f %7.2f\n", $1, $2, mb * 1048576 / $2 / 1e9,
		       (c > 0 && c != "-") ? c / $2 : 0
}' "$ROWS"
rm -f "$F"
