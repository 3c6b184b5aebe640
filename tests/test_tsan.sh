#!/bin/sh
# test_tsan.sh - tests/tsan_threads.c built with ThreadSanitizer, with the
# sources it tests (cpu_avx2.c, gzcrc.c, gzinflate.c, textkeys.c): a data
# race between the threads sharing their state ends the run (TSAN_OPTIONS
# halt_on_error), and so does a wrong CRC32. Skipped with a note where the
# compiler cannot build with -fsanitize=thread, and under make asan (the
# two sanitizers do not mix).
#
# Usage: sh tests/test_tsan.sh
# Prints "FAIL name: reason" lines and last "tsan: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=tsan
. tests/lib.sh
. tests/gpu/includes.sh
CC=${CC:-cc}
if [ -n "${GPUSTAT_ASAN:-}" ]; then
	echo "tsan: note: skipped under make asan"
	summary
	exit
fi
echo 'int main(void) { return 0; }' > "$T/probe.c"
if ! "$CC" -fsanitize=thread "$T/probe.c" -o "$T/probe" 2> /dev/null ||
   ! "$T/probe"; then
	echo "tsan: note: skipped ($CC cannot build or run with -fsanitize=thread)"
	summary
	exit
fi
# shellcheck disable=SC2086 # GS_INC is a list of -I options
if "$CC" -std=c11 -D_GNU_SOURCE -fsanitize=thread -g -O1 $GS_INC \
	tests/tsan_threads.c src/cpu/cpu_avx2.c src/input/gzcrc.c \
	src/input/gzinflate.c src/input/textkeys.c -lz -lpthread -o "$T/tsan_threads" 2> "$T/cc"; then
	ok
else
	bad build "$(head -n 3 "$T/cc")"
fi
if [ -x "$T/tsan_threads" ]; then
	TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$T/tsan_threads" > "$T/out" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && grep -q '^unit: [0-9]* passed, 0 failed$' "$T/out"; then
		ok
	else
		bad run "exit $rc: $(grep -m 3 -E 'WARNING|FAIL|SUMMARY|  (Write|Read|Previous)' "$T/out" | tr '\n' ' ')"
	fi
fi
summary
