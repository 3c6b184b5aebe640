#!/bin/sh
# Run every test level and print "N passed, N failed" last.
# Unit binaries print "unit: P passed, F failed"; tests/cli.sh prints
# "cli: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
log=build/tests/run.log
mkdir -p build/tests
: > "$log"
status=0
for t in build/tests/unit_*; do
	[ -x "$t" ] || continue
	echo "== $t" >> "$log"
	out=$("$t" 2>&1); rc=$?
	printf '%s\n' "$out" >> "$log"
	if [ $rc -ne 0 ] && ! printf '%s\n' "$out" | grep -q '^unit: '; then
		echo "FAIL $t exited with status $rc" >> "$log"
		echo "unit: 0 passed, 1 failed" >> "$log"
	fi
	[ $rc -eq 0 ] || status=1
done
if [ -f tests/cli.sh ]; then
	echo "== tests/cli.sh" >> "$log"
	sh tests/cli.sh >> "$log" 2>&1 || status=1
fi
grep -E '^(FAIL|==)' "$log" | grep -B1 '^FAIL' | grep -v '^--$'
awk '/^(unit|cli): [0-9]+ passed, [0-9]+ failed$/ { p += $2; f += $4; n++ }
     END { printf "%d passed, %d failed\n", p, f }' "$log"
grep -qE '^(unit|cli): [0-9]+ passed, [1-9][0-9]* failed$' "$log" && status=1
exit $status
