#!/bin/sh
# test_writer.sh - the one result writer (src/cli/writer.h):
#   - the result commands describe their results and format nothing
#     themselves: no text, json or npy is written in their files;
#   - every command's result in every -f format, with one and several
#     columns, --per-file, no data and the usage errors of formats, is the
#     bytes (and exit status, and stderr) recorded in tests/writer_expect.txt.
#
# The record was made by the emitters that each command had before the
# writer; a change of any output byte fails here. After a deliberate change
# of an output (and of docs/OUTPUT.md): sh tests/test_writer.sh --update.
#
# Usage: sh tests/test_writer.sh [--update]   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "writer: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=writer
. tests/lib.sh
EXPECT=tests/writer_expect.txt
F=fixtures/in

for f in src/cmd/cmd_count.c src/cmd/cmd_stats.c src/cmd/cmd_mode.c \
	 src/cmd/cmd_quantile.c src/cmd/cmd_hist.c src/cmd/results.c; do
	n=$(grep -c 'sb_add(\|sb_addf(\|sb_u64(\|sb_double(\|sb_json_double(\|report_sep(' "$f")
	if [ "$n" -eq 0 ]; then ok; else bad "layout $f" "$n lines format output"; fi
done

printf '1 2\n3 nan\n-0 7\n2 2\n' > "$T/two.txt"
: > "$T/empty.bin"
# the cases: one command line a line, operands relative to the repository
cases() {
	for fmt in text tsv csv json binary npy; do
		for cmd in sum "reduce --op max" "reduce --op prod" count stats \
			   median "quantile -q 0.1,0.5,1" "quantile -q 0.3 --method lower" \
			   mode hist "hist --nonzero" "hist --bins 4" \
			   "hist --bins 3 --range 0:1"; do
			echo "$cmd -f $fmt -t u8 $F/u8_rand.bin"
			echo "$cmd -f $fmt -t i16 -c 3 $F/f32_mod.bin"
			echo "$cmd -f $fmt -t f32 $F/f32_mod.bin"
			echo "$cmd -f $fmt -c 2 @two.txt"
			echo "$cmd -f $fmt -t f64 @empty.bin"
			echo "$cmd -f $fmt --per-file -t f32 $F/f32_mod.bin $F/f32_mod2.bin"
		done
		echo "dot -f $fmt -t i16 --pairs -c 2 $F/u8_rand.bin"
		echo "dot -f $fmt -t f32 $F/f32_mod.bin $F/f32_mod.bin"
		echo "mode -f $fmt -c 2 -t i64 $F/u8_rand.bin"
	done
	echo "mode -f state $F/u8_rand.bin"
	echo "median -f state $F/u8_rand.bin"
}

run_case() {
	# shellcheck disable=SC2086
	set -- $(echo "$1" | sed "s|@|$T/|g")
	"$G" "$@" > "$T/out" 2> "$T/err"
	rc=$?
	sed "s|$T/||g" "$T/err" > "$T/err2"
	echo "$rc $(cksum < "$T/out" | tr ' ' :) $(cksum < "$T/err2" | tr ' ' :)"
}

if [ "${1-}" = --update ]; then
	cases | while IFS= read -r c; do
		printf '%s | %s\n' "$(run_case "$c")" "$c"
	done > "$EXPECT"
	echo "writer: wrote $EXPECT"
	exit 0
fi
cases > "$T/cases"
if ! cut -d'|' -f2- "$EXPECT" | sed 's/^ //' | cmp -s - "$T/cases"; then
	bad "cases" "$EXPECT lists other cases (sh tests/test_writer.sh --update)"
fi
while IFS= read -r line; do
	c=${line#*| }
	got=$(run_case "$c")
	if [ "$got | $c" = "$line" ]; then ok; else bad "$c" "got $got, want ${line%% |*}"; fi
done < "$EXPECT"
summary
