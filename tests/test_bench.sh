#!/bin/sh
# test_bench.sh - gpustat bench runs here (no GPU: the CPU rows, saying
# so), with a small --size: a text table with one row per command and CPU
# algorithm beside the read(2) row, -f json that parses with the same rows,
# one FILE instead of generated data, and its refusals (usage errors, exit
# 2). No timing is asserted.
#
# Usage: sh tests/test_bench.sh   (GPUSTAT=path overrides ./gpustat)
cd "$(dirname "$0")/.." || exit 2
NAME=bench
. tests/lib.sh

$G bench --size 64K > "$T/out" 2> "$T/err"
rc=$?
[ $rc -eq 0 ] && ok || bad "runs" "rc $rc: $(cat "$T/err")"
for c in read hist sum reduce dot scan; do
	grep -q "^$c " "$T/out" && ok || bad "text row $c" "$(cat "$T/out")"
done
grep -q '^hist    cpu ' "$T/out" && ok || bad "hist cpu row" "$(cat "$T/out")"
if ! grep -q '"gpu": true' "$T/out" && ! grep -q gpu "$T/out"; then
	grep -q "no GPU: CPU rows only" "$T/err" && ok || bad "no GPU note" "$(cat "$T/err")"
fi
awk 'NR > 2 && $NF !~ /^[0-9]+\.[0-9][0-9]$/ { exit 1 }' "$T/out" && ok ||
	bad "GB/s column" "$(cat "$T/out")"

$G bench hist sum -t u8 --size 4K -f json > "$T/json" 2> "$T/err" && ok ||
	bad "json runs" "$(cat "$T/err")"
if command -v python3 > /dev/null; then
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
cmds = sorted({r["command"] for r in d["rows"]})
assert cmds == ["hist", "read", "sum"], cmds
assert d["type"] == "u8" and d["bytes"] == 4096
for r in d["rows"]:
    assert r["gbps"] >= 0 and r["seconds"] >= 0 and r["measure"]
' "$T/json" && ok || bad "json parses" "$(head -c 300 "$T/json")"
fi

head -c 10000 /dev/urandom > "$T/data.bin"
$G bench sum -t u8 "$T/data.bin" > "$T/out" 2> "$T/err" &&
	grep -q "10000 bytes of u8 ($T/data.bin)" "$T/out" && ok ||
	bad "FILE" "$(cat "$T/out" "$T/err")"
$G bench scan --algorithm default -q --size 1K > "$T/out" 2> "$T/err" &&
	[ ! -s "$T/err" ] && [ "$(grep -c '^scan ' "$T/out")" -ge 1 ] && ok ||
	bad "one algorithm, -q" "$(cat "$T/out" "$T/err")"
# a --size that is no whole number of records: the data is cut to whole
# pairs (dot's records), so every command still has its row
$G bench sum dot -q --size 1001 > "$T/out" 2> "$T/err" &&
	[ ! -s "$T/err" ] && grep -q "^# 1000 bytes of f32" "$T/out" &&
	grep -q '^sum ' "$T/out" && grep -q '^dot ' "$T/out" && ok ||
	bad "odd size" "$(cat "$T/out" "$T/err")"
# FILE is an input: -o naming it is refused and leaves it as it was
cp "$T/data.bin" "$T/keep.bin"
$G bench sum -q -o "$T/keep.bin" "$T/keep.bin" > "$T/out" 2> "$T/err"
rc=$?
[ $rc -eq 1 ] && cmp -s "$T/data.bin" "$T/keep.bin" && grep -q "input" "$T/err" &&
	ok || bad "-o FILE FILE" "rc $rc: $(cat "$T/err")"

usage() {	# name, args...
	n=$1
	shift
	$G bench "$@" > "$T/out" 2> "$T/err"
	rc=$?
	[ $rc -eq 2 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" -eq 1 ] &&
		ok || bad "$n" "rc $rc: $(cat "$T/err")"
}
usage "size 0" --size 0
usage "bad algorithm" --algorithm fast
usage "two files" "$T/data.bin" "$T/data.bin"
usage "not a benched command" stats
usage "csv" -f csv --size 1K
summary
