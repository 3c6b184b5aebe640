#!/bin/sh
# Run every test level and print "N passed, N failed" last.
# Unit binaries (build/tests/unit_*) print "unit: P passed, F failed"; each
# script tests/test_*.sh and tests/cli.sh prints "NAME: P passed, F failed".
# BUILD=dir takes the unit binaries from dir/tests (make asan: build-asan);
# the scripts take the gpustat binary from GPUSTAT (default ./gpustat).
cd "$(dirname "$0")/.." || exit 2
B=${BUILD:-build}
log=$B/tests/run.log
mkdir -p "$B/tests"
: > "$log"
status=0

# run NAME CMD...: log the output; a crash without a summary counts as a failure
run() {
	name=$1
	shift
	echo "== $name" >> "$log"
	out=$("$@" 2>&1); rc=$?
	printf '%s\n' "$out" >> "$log"
	if [ $rc -ne 0 ] && ! printf '%s\n' "$out" | grep -qE '^[a-z_]+: [0-9]+ passed, [0-9]+ failed$'; then
		echo "FAIL $name exited with status $rc" >> "$log"
		echo "crash: 0 passed, 1 failed" >> "$log"
	fi
	[ $rc -eq 0 ] || status=1
}

for t in "$B"/tests/unit_*; do
	[ -x "$t" ] && run "$t" "$t"
done
for t in tests/cli.sh tests/test_*.sh; do
	[ -f "$t" ] && run "$t" sh "$t"
done
grep -E '^(FAIL|== )' "$log" | grep -B1 '^FAIL' | grep -v '^--$'
awk '/^[a-z_]+: [0-9]+ passed, [0-9]+ failed$/ { p += $2; f += $4 }
     END { printf "%d passed, %d failed\n", p, f }' "$log"
exit $status
