#!/bin/sh
# test_state.sh - -f state, gpustat merge and scan --carry-in. Every command that writes a
# state runs over a fixture input cut into shards at random record
# boundaries (empty shards included); the shards' states, merged in a
# random order and in a random grouping (merges of merges), must print
# byte for byte what one run over the whole input prints, in every format.
# The reference is that one run: tests/cli.sh checks it against values
# computed independently. Then the refusals: states that differ in any
# option, corrupt or truncated states, and the commands and options that
# cannot make a mergeable state.
#
# Usage: sh tests/test_state.sh   (GPUSTAT=path overrides ./gpustat)
cd "$(dirname "$0")/.." || exit 2
NAME=state
. tests/lib.sh
IN=fixtures/in
SEED=${SEED:-1}

# rand N: a number in [0, N), the next of a fixed sequence
rand() {
	SEED=$(( (SEED * 1103515245 + 12345) % 2147483648 ))
	echo $(( SEED / 65536 % $1 ))
}

# shard FILE RECORD K: cut FILE into K pieces $T/p.1 .. $T/p.K at random
# record boundaries (some may be empty)
shard() {
	size=$(wc -c < "$1")
	nrec=$((size / $2))
	cuts=$(i=1; while [ $i -lt "$3" ]; do rand $((nrec + 1)); i=$((i + 1)); done |
		sort -n)
	prev=0
	i=1
	for cut in $cuts $nrec; do
		dd if="$1" of="$T/p.$i" bs="$2" skip="$prev" count=$((cut - prev)) \
			2> /dev/null
		prev=$cut
		i=$((i + 1))
	done
}

# shuffle WORDS...: the words in a random order
shuffle() {
	for w in "$@"; do echo "$(rand 1000000) $w"; done | sort -n | cut -d' ' -f2
}

# check NAME RECORD FILE ARGS...: states of shards merge to one run's output
check() {
	name=$1 rec=$2 file=$3
	shift 3
	for k in 1 2 3 5; do
		shard "$file" "$rec" "$k"
		states=
		i=1
		while [ $i -le $k ]; do
			"$G" "$@" -f state -o "$T/s.$i" "$T/p.$i" 2> "$T/err" ||
				{ bad "${name}_k$k" "state of shard $i: $(cat "$T/err")"; return; }
			states="$states $T/s.$i"
			i=$((i + 1))
		done
		order=$(shuffle $states)
		# a random grouping: the first j states merged into one first
		j=$(( $(rand $k) + 1 ))
		"$G" merge -f state -o "$T/g" $(echo $order | cut -d' ' -f1-$j) 2> "$T/err" ||
			{ bad "${name}_k$k" "merge of a group: $(cat "$T/err")"; return; }
		rest=$(echo $order | cut -d' ' -f$((j + 1))- -s)
		[ $j -eq $k ] && rest=
		for f in text tsv csv json binary npy; do
			"$G" "$@" -f $f "$file" > "$T/want" 2> "$T/want.err"
			"$G" merge -f $f $order > "$T/got" 2> "$T/got.err"
			if cmp -s "$T/want" "$T/got" && cmp -s "$T/want.err" "$T/got.err"; then
				ok
			else
				bad "${name}_k${k}_$f" "merge differs: $(head -c 200 "$T/got" "$T/got.err")"
			fi
			"$G" merge -f $f "$T/g" $rest > "$T/got" 2> "$T/got.err"
			cmp -s "$T/want" "$T/got" && cmp -s "$T/want.err" "$T/got.err" && ok ||
				bad "${name}_k${k}_${f}_grouped" "merge of a merge differs"
		done
		# the states one after another on stdin
		cat $order | "$G" merge > "$T/got" 2>&1
		"$G" "$@" "$file" > "$T/want" 2>&1
		cmp -s "$T/want" "$T/got" && ok || bad "${name}_k${k}_stdin" "$(head -c 200 "$T/got")"
	done
}

check sum_f32 4 $IN/f32_rand.bin sum -t f32
check sum_f64_c3 24 $IN/f64_mod.bin sum -t f64 -c 3
check sum_f64_negzero 8 $IN/f64_negzero.bin sum -t f64
check sum_f64_inf 8 $IN/f64_inf.bin sum -t f64
check sum_u64 8 $IN/u64_rand.bin sum -t u64
check sum_i64_big 8 $IN/i64_big.bin sum -t i64
check sum_f16 2 $IN/f16_rand.bin sum -t f16
check sum_bf16_c2 4 $IN/bf16_mod.bin sum -t bf16 -c 2
check stats_f32 4 $IN/f32_special.bin stats -t f32
check stats_i16_c3 6 $IN/i16_mod.bin stats -t i16 -c 3
check stats_f64_nan 8 $IN/f64_nan.bin stats -t f64
check stats_u8 1 $IN/u8_rand.bin stats -t u8
check count_f32_c2 8 $IN/f32_special.bin count -t f32 -c 2
check dot_pairs_f32 8 $IN/f32_mod.bin dot --pairs -t f32
check dot_pairs_i32_c6 24 $IN/i32_mod.bin dot --pairs -t i32 -c 6
check reduce_max_f64 8 $IN/f64_zeros.bin reduce --op max -t f64
check reduce_min_i16 2 $IN/i16_rand.bin reduce --op min -t i16
check reduce_min_f64_nan 8 $IN/f64_nan.bin reduce --op min -t f64
check reduce_max_f32_special 4 $IN/f32_special.bin reduce --op max -t f32
check reduce_prod_f64 8 $IN/f64_near1.bin reduce --op prod -t f64
check reduce_prod_i32 4 $IN/i32_prod.bin reduce --op prod -t i32
check reduce_and_u32_c2 8 $IN/u32_mod.bin reduce --op and -t u32 -c 2
check reduce_xor_i64 8 $IN/i64_rand.bin reduce --op xor -t i64
check hist_u8 1 $IN/u8_rand.bin hist
check hist_i16_c2 4 $IN/i16_mod.bin hist -t i16 -c 2
check hist_f32_ranged 4 $IN/f32_hist_special.bin hist -t f32 --bins 4 --range 0:4
check hist_f16_ranged 2 $IN/f16_edges.bin hist -t f16 --bins 7 --range 0:1
check hist_i32_c3 12 $IN/i32_mod.bin hist -t i32 -c 3 --bins 5 --range 0:1000

# check_scan NAME RECORD FILE ARGS...: a sharded scan in two passes. The
# states of the shards first; then each shard scanned from the carry of
# every shard before it (their states merged, in a random order), its
# output appended: the whole must be one scan's output, byte for byte. The
# carries are also chained (-f state --carry-in: the state after a shard).
check_scan() {
	name=$1 rec=$2 file=$3
	shift 3
	"$G" scan "$@" "$file" > "$T/want" 2>&1
	for k in 2 3 5; do
		shard "$file" "$rec" "$k"
		: > "$T/got"
		: > "$T/chained"
		before=
		i=1
		while [ $i -le $k ]; do
			"$G" scan "$@" -f state -o "$T/s.$i" "$T/p.$i"
			if [ -z "$before" ]; then
				"$G" scan "$@" "$T/p.$i" >> "$T/got" 2>&1
				"$G" scan "$@" "$T/p.$i" >> "$T/chained" 2>&1
				"$G" scan "$@" -f state -o "$T/c.$i" "$T/p.$i"
			else
				"$G" merge -f state -o "$T/carry" $(shuffle $before)
				"$G" scan "$@" --carry-in "$T/carry" "$T/p.$i" >> "$T/got" 2>&1
				"$G" scan "$@" --carry-in "$T/c.$((i - 1))" "$T/p.$i" >> "$T/chained" 2>&1
				"$G" scan "$@" --carry-in "$T/c.$((i - 1))" -f state -o "$T/c.$i" "$T/p.$i"
			fi
			before="$before $T/s.$i"
			i=$((i + 1))
		done
		cmp -s "$T/want" "$T/got" && ok || bad "${name}_k$k" "sharded scan differs"
		cmp -s "$T/want" "$T/chained" && ok || bad "${name}_k${k}_chained" "chained scan differs"
	done
}

# -0 runs across shards: 5 x -0, 1, 3 x -0 (f64); 4 x -0, 1, 3 x -0 (f32)
z64='\000\000\000\000\000\000\000\200'
z32='\000\000\000\200'
printf "$z64$z64$z64$z64$z64\000\000\000\000\000\000\360\077$z64$z64$z64" > "$T/negzero.f64"
printf "$z32$z32$z32$z32\000\000\200\077$z32$z32$z32" > "$T/negzero.f32"
check_scan scan_f32 4 $IN/f32_rand.bin -t f32
check_scan scan_f64_excl 8 $IN/f64_mod.bin -t f64 --exclusive
check_scan scan_negzero 8 "$T/negzero.f64" -t f64
check_scan scan_negzero_excl 8 "$T/negzero.f64" -t f64 --exclusive
check_scan scan_negzero_f32_c2 8 "$T/negzero.f32" -t f32 -c 2 --exclusive
check_scan scan_negzero_f32_to_f64 4 "$T/negzero.f32" -t f32 --out-type f64
check_scan scan_i16_c3 6 $IN/i16_mod.bin -t i16 -c 3
check_scan scan_u8_u32 1 $IN/u8_rand.bin -t u8 --out-type u32
check_scan scan_max_f64 8 $IN/f64_zeros.bin -t f64 --op max
check_scan scan_min_i32_excl 4 $IN/i32_rand.bin -t i32 --op min --exclusive
check_scan scan_prod_f64 8 $IN/f64_near1.bin -t f64 --op prod
check_scan scan_prod_i32 4 $IN/i32_prod.bin -t i32 --op prod
check_scan scan_bf16 2 $IN/bf16_mod.bin -t bf16

# an integer product that overflows: an error, and no result, either way
"$G" reduce --op prod -t i64 $IN/i64_rand.bin > /dev/null 2>&1; want=$?
shard $IN/i64_rand.bin 8 3
for i in 1 2 3; do "$G" reduce --op prod -t i64 -f state -o "$T/s.$i" "$T/p.$i"; done
"$G" merge "$T/s.3" "$T/s.1" "$T/s.2" > "$T/out" 2> "$T/err"
[ $? -eq "$want" ] && [ ! -s "$T/out" ] && ok || bad prod_overflow "exit $?, wanted $want"
# ... and the same message whatever the order of the states
"$G" merge "$T/s.1" "$T/s.2" "$T/s.3" > "$T/out" 2> "$T/err2"
cmp -s "$T/err" "$T/err2" && ok || bad prod_overflow_order "$(cat "$T/err") / $(cat "$T/err2")"

# ---- refusals ---------------------------------------------------------------
# expect NAME RC STDERR_SUBSTRING CMD...: the status, nothing on stdout, and
# one line on stderr holding the substring
expect() {
	name=$1 rc=$2 msg=$3
	shift 3
	"$@" > "$T/out" 2> "$T/err"
	got=$?
	if [ $got -ne "$rc" ] || [ -s "$T/out" ] || [ "$(wc -l < "$T/err")" -ne 1 ] ||
	   ! grep -qF -- "$msg" "$T/err"; then
		bad "$name" "exit $got (wanted $rc), stderr '$(cat "$T/err")'"
	else
		ok
	fi
}
f=$IN/f32_mod.bin
"$G" sum -t f32 -f state -o "$T/sum" $f
"$G" sum -t f32 -c 2 -f state -o "$T/sum_c2" $f
"$G" sum -t f64 -f state -o "$T/sum_f64" $f
"$G" stats -t f32 -f state -o "$T/stats" $f
"$G" reduce --op min -t f32 -f state -o "$T/min" $f
"$G" reduce --op max -t f32 -f state -o "$T/max" $f
"$G" hist -t f32 --bins 4 --range 0:1 -f state -o "$T/h4" $f
"$G" hist -t f32 --bins 5 --range 0:1 -f state -o "$T/h5" $f
"$G" hist -t f32 --bins 4 --range 0:2 -f state -o "$T/h4b" $f
"$G" dot -t f32 -c 2 -f state -o "$T/dot" $f $f
"$G" dot --pairs -t f32 -f state -o "$T/pairs" $f
expect mismatch_command 1 "cannot merge with $T/sum: command stats, not sum" "$G" merge "$T/sum" "$T/stats"
expect mismatch_type 1 "type f64, not f32" "$G" merge "$T/sum" "$T/sum_f64"
expect mismatch_columns 1 "columns 2, not 1" "$G" merge "$T/sum" "$T/sum_c2"
expect mismatch_op 1 "op max, not min" "$G" merge "$T/min" "$T/max"
expect mismatch_bins 1 "bins 5, not 4" "$G" merge "$T/h4" "$T/h5"
expect mismatch_range 1 "hi 2, not 1" "$G" merge "$T/h4" "$T/h4b"
expect mismatch_pairs 1 "pairs 1, not 0" "$G" merge "$T/dot" "$T/pairs"
head -c 100 "$T/sum" > "$T/cut"
expect truncated_header 1 "truncated state" "$G" merge "$T/cut"
size=$(wc -c < "$T/sum")
head -c $((size - 1)) "$T/sum" > "$T/cut"
expect truncated_payload 1 "truncated state" "$G" merge "$T/cut"
expect not_a_state 1 "not a gpustat state" "$G" merge $f
sed 's/^GPUSTATE 1$/GPUSTATE 2/' "$T/sum" > "$T/v2"
expect version 1 "state version 2" "$G" merge "$T/v2"
sed 's/^columns 1$/columns 3/' "$T/sum" > "$T/bad"
expect payload_size 1 "payload" "$G" merge "$T/bad"
# headers the command line would refuse
sed 's/^bins 4$/bins 0/' "$T/h4" > "$T/bad"
expect bad_bins 1 "no ranged bins" "$G" merge "$T/bad"
sed 's/^lo .*/lo nan/' "$T/h4" > "$T/bad"
expect bad_range 1 "no ranged bins" "$G" merge "$T/bad"
sed 's/^op min$/op xor/' "$T/min" > "$T/bad"
expect bad_op 1 "op xor of f32" "$G" merge "$T/bad"
sed 's/^pairs 0$/pairs 1/' "$T/sum" > "$T/bad"
expect bad_pairs 1 "bad pairs" "$G" merge "$T/bad"
expect empty 1 "no state" "$G" merge /dev/null
expect missing_operand 1 "nosuch" "$G" merge "$T/sum" "$T/nosuch"
expect hist_no_range 2 "needs --range" "$G" hist -t f32 -f state $f
expect hist_nonzero 2 "--nonzero does not go with -f state" "$G" hist --nonzero -f state $IN/u8_rand.bin
expect hist_edges 2 "--edges does not go with -f state" "$G" hist --edges "$T/e" -f state $IN/u8_rand.bin
"$G" scan -t f32 -f state -o "$T/scan" $f
"$G" scan -t f32 --op max -f state -o "$T/scanmax" $f
expect scan_merge_text 2 "scan states merge into a state" "$G" merge "$T/scan"
expect carry_op 2 "the carry is --op max" "$G" scan -t f32 --carry-in "$T/scanmax" $f
expect carry_type 2 "of f64" "$G" scan -t f64 --carry-in "$T/scan" $IN/f64_mod.bin
expect carry_stats 2 "a stats state is no carry" "$G" scan -t f32 --carry-in "$T/stats" $f
expect carry_missing 1 "nosuch" "$G" scan -t f32 --carry-in "$T/nosuch" $f
expect merge_type 2 "unknown option '-t'" "$G" merge -t f32 "$T/sum"
expect merge_state_hist_plot 2 "takes no --format" "$G" hist --plot -f state $IN/u8_rand.bin
# A scan that overflows after --carry-in names the element within its own
# shard (docs/STATE.md), not one counted from the first shard: 100 ones,
# then M zeros and 30 ones, scanned into i8, pass 127 at the second shard's
# element M + 27; the M + 27 outputs before it are kept. On one thread and
# on two (the overflow in the second slice).
head -c 100 /dev/zero | tr '\0' '\1' > "$T/ones"
M=300000
{ head -c $M /dev/zero; head -c 30 /dev/zero | tr '\0' '\1'; } > "$T/shard2"
"$G" scan -t i8 -f state -o "$T/c_ones" "$T/ones"
for j in 1 2; do
	"$G" scan -t i8 --out-type i8 -j $j --carry-in "$T/c_ones" "$T/shard2" \
		> "$T/out" 2> "$T/err"
	got=$?
	[ $got -eq 1 ] && [ "$(wc -l < "$T/err")" -eq 1 ] &&
		grep -qF "element $((M + 27)) column 0: prefix sum 128 overflows i8" \
			"$T/err" &&
		[ "$(wc -c < "$T/out")" -eq $((M + 27)) ] && ok ||
		bad carry_overflow_j$j "exit $got, $(wc -c < "$T/out") bytes, $(cat "$T/err")"
done
# every bad operand is named, then no result
"$G" merge "$T/nosuch1" "$T/sum" "$T/nosuch2" > "$T/out" 2> "$T/err"
[ $? -eq 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" -eq 2 ] && ok ||
	bad bad_operands "$(cat "$T/err")"

# The format is fixed (docs/STATE.md): states committed with the tests
# (fixtures/state/CASE.state, made by CASE of tests/cases.txt with -f state)
# still merge to CASE's expected output, computed independently.
for s in fixtures/state/*.state; do
	case=$(basename "$s" .state)
	"$G" merge "$s" > "$T/out" 2> /dev/null &&
		cmp -s "$T/out" "fixtures/expected/$case.out" && ok ||
		bad "golden_$case" "$(head -c 200 "$T/out")"
done

summary
