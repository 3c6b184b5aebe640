#!/bin/sh
# What only a terminal shows: the progress line (under a pseudo-terminal made
# by script(1)) and hist --plot. No timing is asserted: the slow producer
# only makes the run long enough for a progress update to be due.
cd "$(dirname "$0")/.." || exit 2
G=${GPUSTAT:-./gpustat}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
check() {	# name, condition...
	n=$1
	shift
	if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $n"; fi
}
has() { grep -q "$1" "$2"; }
hasnt() { ! grep -q "$1" "$2"; }

# progress: forced, automatic after about a second, silenced, never to a file
if command -v script >/dev/null 2>&1; then
	slow="(head -c 1048576 /dev/zero; sleep 1.6; head -c 1048576 /dev/zero)"
	script -qec "sh -c '$slow | $G sum -t u8 --progress'" /dev/null > "$T/forced" 2>&1
	check "progress forced shows bytes and rate" has 'MiB  .*/s' "$T/forced"
	check "progress line is erased" has "$(printf '\033\\[K')" "$T/forced"
	# the result follows the erased line on the terminal
	check "progress forced: result" test "$(tail -c 3 "$T/forced" | tr -d '\r\n')" = 0
	script -qec "sh -c '$slow | $G sum -t u8'" /dev/null > "$T/auto" 2>&1
	check "progress on a terminal after a second" has '/s' "$T/auto"
	script -qec "sh -c '$slow | $G sum -t u8 -q'" /dev/null > "$T/quiet" 2>&1
	check "-q silences progress" hasnt '/s' "$T/quiet"
	script -qec "sh -c '$slow | $G sum -t u8 --no-progress'" /dev/null > "$T/none" 2>&1
	check "--no-progress silences progress" hasnt '/s' "$T/none"
	head -c 4096 /dev/zero > "$T/z"
	script -qec "sh -c '$G sum -t u8 --progress $T/z; $G sum -t u8 --progress $T/z'" /dev/null > "$T/sized" 2>&1
	check "short runs still print their result" test "$(tr -d '\r' < "$T/sized" | grep -c '0$')" -ge 2
else
	echo "tty: note: skipped progress checks (no script)"
fi
sh -c "$slow | $G sum -t u8" > "$T/out" 2> "$T/err"
check "no progress when stderr is not a terminal" test ! -s "$T/err"

# hist --plot: 32 grouped rows for bytes, labels, bars; --log; ranged edges
COLUMNS=60 NO_COLOR=1 LC_ALL=C $G hist --plot fixtures/demo/photo.pgm > "$T/plot"
check "plot: 32 rows of 8 byte values" test "$(wc -l < "$T/plot")" -eq 32
check "plot: labels" has '^  *0-7 ' "$T/plot"
check "plot: ASCII bars without UTF-8" has '#' "$T/plot"
check "plot: fits COLUMNS" test "$(awk '{ if (length > m) m = length } END { print m }' "$T/plot")" -le 60
check "plot: no colour with NO_COLOR" hasnt "$(printf '\033')" "$T/plot"
COLUMNS=60 LC_ALL=C $G hist --plot --log fixtures/demo/photo.pgm > "$T/log"
check "plot --log differs" test -n "$(cmp "$T/plot" "$T/log")"
COLUMNS=80 LC_ALL=C.UTF-8 $G hist --plot -q -t f32 --bins 4 --range 0:20 fixtures/demo/samples.f32.zst > "$T/ranged"
check "plot: ranged labels with edges" has '\[0, 5)' "$T/ranged"
check "plot: last bin closed" has '\[15, 20\]' "$T/ranged"
check "plot: UTF-8 blocks" has '█' "$T/ranged"
$G hist --plot -f json fixtures/demo/photo.pgm > /dev/null 2>&1
check "plot takes no --format" test $? -eq 2

echo "tty: $pass passed, $fail failed"
[ $fail -eq 0 ]
