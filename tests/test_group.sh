#!/bin/sh
# test_group.sh - --by COLS (-g): sum, count, stats and reduce --op
# sum|min|max per key, for binary records (tests/group_ref.py makes the
# data with python3's struct; no numpy):
#  - every key's row is the key's value(s), as gpustat prints that value,
#    then exactly the bytes the ungrouped command prints for that key's
#    records alone (cut to the value columns), keys ascending: float keys
#    with -0 and +0 one key, NaNs of other payloads one key, last, the
#    infinities, a subnormal; u64 keys above 2^63 and negative i8 keys as
#    two key columns; i64 keys in the middle column of one type's
#    records; big-endian records, mixed and of one type; a structured
#    .npy; -F's value columns;
#  - the sums against exact fractions rounded once (cancellation as
#    1e308 + 1 - 1e308, overflow to inf, inf - inf, NaN, sums of -0);
#  - the same bytes with -j 1, 2 and 4, small and odd chunk sizes, from
#    stdin, copied instead of mapped; --per-file's total as one run;
#  - every format (tsv/csv header, json, npy, binary);
#  - the memory limit: past it, with no $TMPDIR to spill to, one line
#    naming the keys and the MiB;
#  - -f state of shards merged in any order and grouping (and merges of
#    merges, on stdin): one run's bytes; other groupings do not merge;
#  - --backend cuda of mixed records: the GPU's bytes, or (no GPU) a
#    runtime error, not the usage error of other mixed records;
#  - refusals, one line each: text keys (strings) -f npy,
#    --op prod|xor, every column a key, a key past the record
#    (test_group_text.sh checks text keys).
#
# Usage: sh tests/test_group.sh   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "group: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=group
. tests/lib.sh

if ! command -v python3 > /dev/null; then
	bad "python3" "needed to make the records"
	summary
	exit
fi
python3 tests/group_ref.py gen "$T" || bad "generate" "group_ref.py failed"

# want DIR CMD VT VSUF: the rows the grouped run must print: per key its
# key cells (reduce --op min of the one key value prints it as gpustat
# prints that value) and CMD's output on the key's records alone (stats:
# its value column(s) of each statistic, on one line).
want() {
	d=$1 cmd=$2 vt=$3 suf=$4
	i=0
	: > "$T/want"
	while [ "$i" -lt "$NK" ]; do
		line=
		c=0
		for kt in $KT; do
			v=$("$G" reduce --op min -t "$kt" "$d/k${i}_$c.bin") ||
				{ bad "$d key $i" "reduce failed"; return 1; }
			line="$line${line:+	}$v"
			c=$((c + 1))
		done
		"$G" $cmd -q -t "$vt" "$d/v$i$suf.bin" > "$T/one" ||
			{ bad "$d $cmd key $i" "ungrouped run failed"; return 1; }
		if [ "$cmd" = stats ]; then
			n=$(head -n 1 "$T/one" | awk -F '\t' '{ print NF - 1 }')
			j=2
			while [ "$j" -le $((n + 1)) ]; do
				line="$line	$(cut -f "$j" "$T/one" | paste -s -)"
				j=$((j + 1))
			done
		else
			line="$line	$(cat "$T/one")"
		fi
		printf '%s\n' "$line" >> "$T/want"
		i=$((i + 1))
	done
}

# same NAME: $T/got is $T/want (never empty: a run that failed on both
# sides is no pass), byte for byte.
same() {
	[ -s "$T/want" ] || { bad "$1" "no expected output"; return; }
	cmp -s "$T/got" "$T/want" && ok ||
		bad "$1" "got '$(head -c 300 "$T/got")', want '$(head -c 300 "$T/want")'"
}

for set in A B C E F; do
	d=$T/$set
	. "$d/info"
	cmds="sum count stats min max"
	[ $set = A ] && cmds="$cmds reduce"
	for cmd in $cmds; do
		case $cmd in
		reduce) cmd="reduce --op sum" ;;
		min|max) cmd="reduce --op $cmd" ;;
		esac
		want "$d" "$cmd" "$VT" "" || continue
		"$G" $cmd --by "$BY" -t "$TYPES" "$d/data.bin" > "$T/got" 2>&1
		same "$set $cmd --by $BY"
		"$G" $cmd -g "$BY" -t "$TYPES" -j 1 "$d/data.bin" > "$T/got" 2>&1
		same "$set $cmd -j 1"
		"$G" $cmd -g "$BY" -t "$TYPES" -j 2 --chunk-size 1K \
			< "$d/data.bin" > "$T/got" 2>&1
		same "$set $cmd -j 2 --chunk-size 1K, stdin"
		if [ -n "${SEL_F:-}" ]; then
			want "$d" "$cmd" "$VT_F" _F || continue
			"$G" $cmd --by "$BY" -F "$SEL_F" -t "$TYPES" "$d/data.bin" \
				> "$T/got" 2>&1
			same "$set $cmd --by $BY -F $SEL_F"
		fi
	done
	"$G" sum --by "$BY" -t "$TYPES" "$d/data.bin" > "$T/got" 2>&1
	python3 tests/group_ref.py sums "$T" "$set" < "$T/got" && ok ||
		bad "$set sums" "not the exact sums rounded once"
	unset SEL_F VT_F
done

# a structured .npy is its records
d=$T/A
. "$d/info"
for cmd in sum count stats; do
	"$G" $cmd --by 1 -t "$TYPES" "$d/data.bin" > "$T/want"
	"$G" $cmd --by 1 "$d/data.npy" > "$T/got" 2>&1
	same "structured npy $cmd"
done

# many records and keys: the same bytes whatever the threads, chunks and
# reads; the sums exact
d=$T/G
cat > "$d/info" <<'EOF'
TYPES='i32,f64'
BY='1'
EOF
for cmd in sum count stats; do
	"$G" $cmd --by 1 -t i32,f64 -j 1 "$d/data.bin" > "$T/want"
	for o in "-j 2" "-j 4 --chunk-size 4K" "-j 2 --chunk-size 1000" \
		 "-j 3 --chunk-size 64K"; do
		"$G" $cmd --by 1 -t i32,f64 $o "$d/data.bin" > "$T/got" 2>&1
		same "G $cmd $o"
	done
	GPUSTAT_NO_VIEWS=1 "$G" $cmd --by 1 -t i32,f64 -j 4 "$d/data.bin" \
		> "$T/got" 2>&1
	same "G $cmd copied"
	"$G" $cmd --by 1 -t i32,f64 -j 2 < "$d/data.bin" > "$T/got" 2>&1
	same "G $cmd stdin"
done
"$G" sum --by 1 -t i32,f64 "$d/data.bin" > "$T/got" 2>&1
[ "$(wc -l < "$T/got")" -gt 4000 ] && ok || bad "G keys" "too few keys"
python3 tests/group_ref.py sums "$T" G < "$T/got" && ok ||
	bad "G sums" "not the exact sums rounded once"

# --per-file: each operand's rows then the total's, which is one run's
head -c 600000 "$d/data.bin" > "$T/p1"
tail -c +600001 "$d/data.bin" > "$T/p2"
"$G" stats --by 1 -t i32,f64 "$d/data.bin" > "$T/want"
"$G" stats --by 1 -t i32,f64 --per-file "$T/p1" "$T/p2" > "$T/all" 2>&1
grep '	total$' "$T/all" | sed 's/	total$//' > "$T/got"
same "per-file total"
"$G" stats --by 1 -t i32,f64 "$T/p1" > "$T/want"
grep "	$T/p1\$" "$T/all" | sed "s|	$T/p1\$||" > "$T/got"
same "per-file operand"

# -f state of shards, merged in any order and grouping, on stdin too:
# the bytes of one run
d=$T/G
head -c 360000 "$d/data.bin" > "$T/s1"
head -c 840000 "$d/data.bin" | tail -c +360001 > "$T/s2"
tail -c +840001 "$d/data.bin" > "$T/s3"
for cmd in sum stats count "reduce --op min"; do
	"$G" $cmd --by 1 -t i32,f64 "$d/data.bin" > "$T/want"
	for i in 1 2 3; do
		"$G" $cmd --by 1 -t i32,f64 -f state -o "$T/st$i" -j 2 \
			--chunk-size 64K "$T/s$i" || bad "state $cmd $i" "failed"
	done
	"$G" merge "$T/st1" "$T/st2" "$T/st3" > "$T/got" 2>&1
	same "merge $cmd"
	"$G" merge "$T/st3" "$T/st1" "$T/st2" > "$T/got" 2>&1
	same "merge $cmd, another order"
	"$G" merge -f state "$T/st2" "$T/st3" | "$G" merge "$T/st1" - \
		> "$T/got" 2>&1
	same "merge $cmd of a merge"
	cat "$T/st2" "$T/st1" "$T/st3" | "$G" merge > "$T/got" 2>&1
	same "merge $cmd on stdin"
	"$G" merge -f json "$T/st1" "$T/st2" "$T/st3" > "$T/got" 2>&1
	"$G" $cmd --by 1 -t i32,f64 -f json "$d/data.bin" > "$T/want"
	same "merge $cmd -f json"
done
# merge --per-file: each operand's merge (a copy of it in the total),
# as stats --per-file prints them; --per-file -f state merges to one run
for i in 1 2; do
	"$G" stats --by 1 -t i32,f64 -f state -o "$T/st$i" "$T/s$i"
done
"$G" stats --by 1 -t i32,f64 --per-file "$T/s1" "$T/s2" > "$T/want"
"$G" merge --per-file "$T/st1" "$T/st2" | sed "s|st\([12]\)\$|s\1|" \
	> "$T/got" 2>&1
same "merge --per-file"
"$G" stats --by 1 -t i32,f64 "$T/s1" "$T/s2" > "$T/want"
"$G" stats --by 1 -t i32,f64 --per-file -f state "$T/s1" "$T/s2" |
	"$G" merge > "$T/got" 2>&1
same "--per-file -f state, merged"
# states of other groupings, or of an ungrouped run, do not merge: one
# line, exit 1
"$G" sum --by 1 -t i32,f64 -f state -o "$T/a" "$T/s1"
"$G" sum --by 2 -t i32,f64 -f state -o "$T/b" "$T/s1"
"$G" sum -t i32,f64 -f state -o "$T/c" "$T/s1"
"$G" stats --by 1 -t i32,f64 -f state -o "$T/e" "$T/s1"
for other in b c e; do
	"$G" merge "$T/a" "$T/$other" > "$T/out" 2> "$T/err"
	rc=$?
	[ $rc -eq 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" -eq 1 ] &&
		grep -q 'cannot merge' "$T/err" && ok ||
		bad "merge with $other" "rc $rc: $(cat "$T/err")"
done
# a payload cut short is no state
head -c -8 "$T/a" > "$T/cut"
"$G" merge "$T/cut" > "$T/out" 2> "$T/err"
rc=$?
[ -s "$T/a" ] && [ $rc -eq 1 ] && [ ! -s "$T/out" ] &&
	[ "$(wc -l < "$T/err")" -eq 1 ] && ok ||
	bad "merge cut" "rc $rc: $(cat "$T/err")"
# a compact sum of 2^127 - 1 is no run's (|acc| < 2^126): no state, and
# no wrapped sum merged with another
printf '\001\000\000\000\003\000\000\000\000\000\000\000' > "$T/one"
"$G" sum --by 1 -t i32,i64 -f state "$T/one" > "$T/n3"
python3 - "$T/n3" "$T/huge" <<'PY' || bad "huge state" "python failed"
import struct, sys
s = bytearray(open(sys.argv[1], 'rb').read())
h = s.index(b'\n\n') + 2  # header 32, key 8, count, nan, min, max, ksum
assert struct.unpack_from('<IIQQ', s, h + 72) == (24, 0, 3, 0), 'layout'
struct.pack_into('<QQ', s, h + 80, 2**64 - 1, 2**63 - 1)
open(sys.argv[2], 'wb').write(s)
PY
"$G" merge "$T/huge" "$T/n3" > "$T/out" 2> "$T/err"
rc=$?
[ $rc -eq 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" -eq 1 ] && ok ||
	bad "merge huge compact sum" "rc $rc: $(cat "$T/out" "$T/err")"

# a state's bytes are the value's, not the way there: 2^100, -2^100 and
# 2^-100 sum compactly in a row, while a thread or shard holding the last
# two alone widens (2^200 apart); -j 1, -j 2 and the merge of the shards
# write the same state
python3 -c '
import struct, sys
p = lambda rs: b"".join(struct.pack("<qd", *r) for r in rs)
open(sys.argv[1], "wb").write(p([(1, 2.0**100)] + [(2, 1.0)] * 100000))
open(sys.argv[2], "wb").write(p([(1, -2.0**100), (1, 2.0**-100)]))
' "$T/wa" "$T/wb"
cat "$T/wa" "$T/wb" > "$T/wab"
for cmd in sum stats; do
	"$G" $cmd --by 1 -t i64,f64 -f state -j 1 "$T/wab" > "$T/w1"
	"$G" $cmd --by 1 -t i64,f64 -f state -j 2 "$T/wab" > "$T/w2"
	"$G" $cmd --by 1 -t i64,f64 -f state "$T/wa" > "$T/sa"
	"$G" $cmd --by 1 -t i64,f64 -f state "$T/wb" > "$T/sb"
	"$G" merge -f state "$T/sa" "$T/sb" > "$T/w3"
	[ -s "$T/w1" ] && cmp -s "$T/w1" "$T/w2" && cmp -s "$T/w1" "$T/w3" &&
		ok || bad "$cmd state bytes" "-j 1, -j 2 and a merge differ"
done

# keys no run writes are no state: 256 in a u8 column, -0 (the order key
# 2^63 - 1, +0's being 2^63) in an f64 one
for kt in u8 f64; do
	head -c "$([ $kt = u8 ] && echo 5 || echo 12)" /dev/zero > "$T/one"
	"$G" count --by 1 -t "$kt,f32" -f state "$T/one" > "$T/k1" 2> /dev/null
	python3 - "$T/k1" "$T/k2" "$kt" <<'PY' || bad "key state $kt" "python failed"
import struct, sys
s = bytearray(open(sys.argv[1], 'rb').read())
h = s.index(b'\n\n') + 2 + 32	# the first key, after the grouping
struct.pack_into('<Q', s, h, 256 if sys.argv[3] == 'u8' else 2**63 - 1)
open(sys.argv[2], 'wb').write(s)
PY
	"$G" merge "$T/k1" "$T/k2" > "$T/out" 2> "$T/err"
	rc=$?
	[ $rc -eq 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" -eq 1 ] &&
		"$G" merge "$T/k1" > /dev/null && ok ||
		bad "merge key $kt no run writes" "rc $rc: $(cat "$T/out" "$T/err")"
done

# formats: the header names, json, npy's structured array, binary
d=$T/B
"$G" count --by 1,2 -t u64,i8,f32,f16 -f tsv "$d/data.bin" | head -n 1 > "$T/got"
printf 'key_0\tkey_1\tcount_0\tnan_0\tcount_1\tnan_1\n' > "$T/want"
same "tsv header"
"$G" sum --by 2 -F 3 -t u64,i8,f32,f16 -f csv "$d/data.bin" | head -n 2 > "$T/got"
"$G" sum -F 3 -t u64,i8,f32,f16 -f csv "$d/data.bin" > /dev/null
printf 'key,sum\n' > "$T/want"
head -n 1 "$T/got" > "$T/g1"
cmp -s "$T/g1" "$T/want" && ok || bad "csv header" "$(cat "$T/g1")"
"$G" sum --by 1 -t i32,f64 -f json "$T/p2" > "$T/got"
python3 - "$T/got" "$T/p2" <<'PY' && ok || bad "json" "see above"
import json, struct, sys
j = json.load(open(sys.argv[1]))
recs = list(struct.iter_unpack('<id', open(sys.argv[2], 'rb').read()))
keys = sorted(set(k for k, v in recs))
assert j["command"] == "sum", j["command"]
assert j["keys"] == [[k] for k in keys], "keys"
assert j["count"] == [sum(1 for r in recs if r[0] == k) for k in keys], "count"
assert len(j["result"]) == len(keys) and all(len(r) == 1 for r in j["result"])
PY
"$G" sum --by 1 -t i32,f64 -f npy "$T/p2" > "$T/got.npy"
"$G" sum --by 1 -t i32,f64 "$T/p2" > "$T/txt"
python3 - "$T/got.npy" "$T/txt" <<'PY' && ok || bad "npy" "see above"
import struct, sys
b = open(sys.argv[1], 'rb').read()
hl = struct.unpack('<H', b[8:10])[0]
h = b[10:10 + hl].decode()
assert "'descr': [('f0', '<i8'), ('f1', '<f8')]" in h, h
rows = [l.split('\t') for l in open(sys.argv[2]).read().splitlines()]
assert "'shape': (%d,)" % len(rows) in h, h
got = list(struct.iter_unpack('<qd', b[10 + hl:]))
assert [(int(k), float(v)) for k, v in rows] == got, "values"
PY
"$G" count --by 1 -t i32,f64 -f binary "$T/p2" | od -An -v -tu8 |
	tr -s ' \n' '\n\n' | sed '/^$/d' | paste - - - > "$T/got"
"$G" count --by 1 -t i32,f64 "$T/p2" | awk -F '\t' '{ printf "%s\t%s\t%s\n",
	($1 < 0 ? $1 + 18446744073709551616 : $1), $2, $3 }' > "$T/want"
# awk's doubles: compare the counts only, the keys by their count of rows
cut -f 2,3 "$T/got" > "$T/g"; cut -f 2,3 "$T/want" > "$T/w"
[ -s "$T/w" ] && cmp -s "$T/g" "$T/w" && ok || bad "binary" "counts differ"

# past the memory limit with nowhere to spill: one line naming the keys
# and the memory (test_group_spill.sh spills)
TMPDIR=$T/none GPUSTAT_GROUP_LIMIT=64K "$G" sum --by 1 -t i32,f64 "$T/$set/../G/data.bin" \
	> "$T/out" 2> "$T/err"
rc=$?
[ $rc -eq 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" -eq 1 ] &&
	grep -q '^gpustat: --by: [0-9]* keys .*MiB of accumulators, over the limit' "$T/err" &&
	ok || bad "limit" "rc $rc: $(cat "$T/err")"

# refusals: one line, exit 2, saying why
refused() {
	name=$1 why=$2
	shift 2
	"$G" "$@" > "$T/out" 2> "$T/err"
	rc=$?
	[ $rc -eq 2 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" -eq 1 ] &&
		grep -q -- "^gpustat: .*--by: .*$why" "$T/err" && ok ||
		bad "refused $name" "rc $rc: $(cat "$T/err")"
}
printf '1 2\n3 4\n' > "$T/t.txt"
refused text_npy "text keys are strings: -f npy" sum --by 1 --text -c 2 -f npy "$T/t.txt"
refused op_prod "--op prod" reduce --op prod --by 1 -t f32,f64 "$T/p2"
refused op_xor "--op xor" reduce --op xor --by 1 -t i32,i32 "$T/p2"
refused all_keys "no values left" sum --by 1,2 -t i32,f64 "$T/p2"
refused past "column 3 is past" sum --by 3 -t i32,f64 "$T/p2"
refused zero "'0' is not a column" stats --by 0 -t i32,f64 "$T/p2"

# mixed records go to the GPU for a group-by (cuda/group_kernels.cu): not
# the usage error of other commands' mixed records; without CUDA built in
# (or a GPU) the runtime error that says so
"$G" sum --backend cuda --by 1 -t i32,f64 "$T/p2" > "$T/out" 2> "$T/err"
rc=$?
if [ $rc -eq 0 ]; then
	"$G" sum --backend cpu --by 1 -t i32,f64 "$T/p2" | cmp -s - "$T/out" &&
		ok || bad "cuda" "--backend cuda printed other bytes"
else
	[ $rc -eq 1 ] && [ ! -s "$T/out" ] && ! grep -q "CPU only" "$T/err" &&
		ok || bad "cuda" "rc $rc: $(cat "$T/err")"
fi

# --help and the completions' table name it
"$G" stats --help | grep -q -- '-g, --by COLS' && ok || bad help "no --by"
"$G" --options | grep -q "^sum	--by	-g	COLS" && ok || bad options "no --by"

summary
