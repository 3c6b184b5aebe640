#!/bin/sh
# The libFuzzer harnesses (fuzz/) over their committed seeds and crash
# fixtures, each input once: a regression run, not fuzzing (that is
# `make fuzz`). Skipped with a note where clang cannot build fuzz targets.
cd "$(dirname "$0")/.." || exit 2
FUZZ_CC=${FUZZ_CC:-clang}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0

printf 'int LLVMFuzzerTestOneInput(const char *p, unsigned long n) { return 0; }\n' > "$T/probe.c"
if ! $FUZZ_CC -fsanitize=fuzzer,address,undefined -o "$T/probe" "$T/probe.c" >/dev/null 2>&1; then
	echo "fuzz: note: skipped ($FUZZ_CC with libFuzzer not found)"
	echo "fuzz: 0 passed, 0 failed"
	exit 0
fi
if ! ${MAKE:-make} -s FUZZ_CC="$FUZZ_CC" fuzz-build > "$T/build.log" 2>&1; then
	tail -20 "$T/build.log"
	echo "FAIL building the fuzz harnesses"
	echo "fuzz: 0 passed, 1 failed"
	exit 1
fi

for h in fuzz/fuzz_*.c; do
	n=${h#fuzz/fuzz_}
	n=${n%.c}
	[ "$n" = io ] && continue
	files=$(find "fuzz/corpus/$n" "fuzz/regress/$n" -type f 2>/dev/null | sort)
	if [ -z "$files" ]; then
		fail=$((fail + 1))
		echo "FAIL fuzz_$n: no seeds"
		continue
	fi
	# shellcheck disable=SC2086 # one argument per file, names have no spaces
	if build/fuzz/fuzz_$n -rss_limit_mb=2048 -malloc_limit_mb=4096 $files > "$T/$n.log" 2>&1; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		grep -E 'Running:|invariant|ERROR|SUMMARY' "$T/$n.log" | tail -5
		echo "FAIL fuzz_$n on its corpus or crash fixtures"
	fi
done
echo "fuzz: $pass passed, $fail failed"
[ $fail -eq 0 ]
