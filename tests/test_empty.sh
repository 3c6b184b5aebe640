#!/bin/sh
# test_empty.sh - empty input follows numpy: sum, count, dot
# and the identities of prod/and/or/xor have a value (numpy's: 0, 1, all
# ones, 0); min, max, mode, quantile and median have none: one error
# line `gpustat: WHERE: no data: ...`, exit 1, nothing on stdout; stats
# prints its table with no min or max (empty fields, json's null) and a
# nan mean and variances, as numpy's mean and var of no data, with one
# note on stderr; an integer result never prints nan. For every type
# class, from /dev/null, an empty file, an empty pipe and an empty .npy;
# through -f json, -f state and merge, and --per-file.
#
# Usage: sh tests/test_empty.sh   (GPUSTAT=path overrides ./gpustat)
cd "$(dirname "$0")/.." || exit 2
NAME=empty
. tests/lib.sh

: > "$T/e.bin"
# an empty .npy of each type: a version 1.0 header, no data
npy() {
	python3 - "$1" "$2" <<'PY'
import sys
h = "{'descr': '%s', 'fortran_order': False, 'shape': (0,), }" % sys.argv[2]
h += " " * (63 - (10 + len(h)) % 64) + "\n"
open(sys.argv[1], "wb").write(b"\x93NUMPY\x01\x00" + len(h).to_bytes(2, "little") + h.encode())
PY
}

# run CMD... on each empty source of type t: out, err, rc in $T
each_source() {
	t=$1
	shift
	for src in devnull file pipe npy; do
		case $src in
		devnull) "$G" "$@" -t $t /dev/null ;;
		file) "$G" "$@" -t $t "$T/e.bin" ;;
		pipe) printf '' | "$G" "$@" -t $t ;;
		npy) "$G" "$@" "$T/e_$t.npy" ;;
		esac > "$T/out" 2> "$T/err"
		echo $? > "$T/rc"
		check "$t $src: $*"
	done
}

# a value: exit 0, exactly WANT on stdout, nothing on stderr
want_value() {
	WANT=$1
	check() {
		if [ "$(cat "$T/rc")" -eq 0 ] && [ "$(cat "$T/out")" = "$WANT" ] &&
		   [ ! -s "$T/err" ]; then ok; else
			bad "$1" "rc $(cat "$T/rc"): '$(cat "$T/out")' $(cat "$T/err")"
		fi
	}
}

# no value: exit 1, nothing on stdout, one line on stderr, "no data"
want_none() {
	check() {
		if [ "$(cat "$T/rc")" -eq 1 ] && [ ! -s "$T/out" ] &&
		   [ "$(wc -l < "$T/err")" -eq 1 ] &&
		   grep -q "^gpustat: .*: no data: empty input has no " "$T/err"; then
			ok
		else
			bad "$1" "rc $(cat "$T/rc"): '$(cat "$T/out")' $(cat "$T/err")"
		fi
	}
}

for t in u8 i32 u64 f32 f64; do
	case $t in
	u8) d='|u1' ones=255 ;;
	i32) d='<i4' ones=-1 ;;
	u64) d='<u8' ones=18446744073709551615 ;;
	f32) d='<f4' ones= ;;
	f64) d='<f8' ones= ;;
	esac
	npy "$T/e_$t.npy" "$d"

	want_value 0; each_source $t sum
	want_value "$(printf '0\t0')"; each_source $t count
	want_value 1; each_source $t reduce --op prod
	want_value 0; each_source $t reduce --op sum
	if [ -n "$ones" ]; then
		want_value "$ones"; each_source $t reduce --op and
		want_value 0; each_source $t reduce --op or
		want_value 0; each_source $t reduce --op xor
	fi
	want_value ""; each_source $t scan -o "$T/scan.out"
	want_none
	for c in "reduce --op min" "reduce --op max" "mode" "quantile" \
		 "median" "quantile -q 0.1,0.9 --method nearest" \
		 "reduce --op max -f binary" "mode -f csv" "quantile -f npy"; do
		each_source $t $c
	done

	# stats: the table, min and max with no value, mean and variances
	# nan; one note on stderr (none with -q)
	want_stats() {
		check() {
			if [ "$(cat "$T/rc")" -eq 0 ] && cmp -s "$T/out" "$T/stats.want" &&
			   [ "$(cat "$T/err")" = "$WANT_ERR" ]; then ok; else
				bad "$1" "rc $(cat "$T/rc"): '$(cat "$T/out")' $(cat "$T/err")"
			fi
		}
	}
	printf 'count\t0\nnan\t0\nmin\t\nmax\t\nsum\t0\nmean\tnan\npvar\tnan\nsvar\tnan\npstdev\tnan\nsstdev\tnan\n' > "$T/stats.want"
	WANT_ERR="gpustat: no data: min and max have no value; mean and variances are nan"
	want_stats; each_source $t stats
	WANT_ERR=; each_source $t stats -q
	printf '{"command":"stats","type":"%s","columns":1,"count":[0],"nan":[0],"min":[null],"max":[null],"sum":[0],"mean":["nan"],"pvar":["nan"],"svar":["nan"],"pstdev":["nan"],"sstdev":["nan"]}\n' $t > "$T/stats.want"
	each_source $t stats -q -f json

	# the error says where: the operand, or stdin
	"$G" median -t $t /dev/null 2>&1 | grep -q "^gpustat: /dev/null: no data" &&
		ok || bad "$t where" "$("$G" median -t $t /dev/null 2>&1)"
	printf '' | "$G" reduce --op min -t $t 2>&1 | grep -q "^gpustat: stdin: no data" &&
		ok || bad "$t where stdin" "$(printf '' | "$G" reduce --op min -t $t 2>&1)"

	# dot of two empty streams, and of no pairs
	out=$("$G" dot -t $t "$T/e.bin" /dev/null 2>&1)
	[ "$out" = 0 ] && ok || bad "$t dot" "$out"
	out=$("$G" dot --pairs -t $t "$T/e.bin" 2>&1)
	[ "$out" = 0 ] && ok || bad "$t dot --pairs" "$out"

	# json: the count is 0, the sum 0, never nan for an integer type
	out=$("$G" sum -f json -t $t "$T/e.bin" 2>&1)
	[ "$out" = "{\"command\":\"sum\",\"type\":\"$t\",\"columns\":1,\"count\":0,\"result\":[0]}" ] &&
		ok || bad "$t sum json" "$out"
	for c in "sum" "count" "reduce --op prod" "hist --bins 3"; do
		"$G" $c -f json -t $t "$T/e.bin" 2>&1 | grep -q '"nan"[],}]' &&
			bad "$t $c json" "prints nan" || ok
	done

	# merge: empty shards' states merge to what a run over nothing prints
	for c in sum count stats "reduce --op max" "reduce --op prod"; do
		"$G" $c -f state -t $t -o "$T/e.state" "$T/e.bin" &&
		"$G" $c -t $t "$T/e.bin" > "$T/want" 2> "$T/wanterr"
		wrc=$?
		"$G" merge "$T/e.state" "$T/e.state" > "$T/out" 2> "$T/err"
		rc=$?
		if [ $wrc -eq 0 ]; then
			[ $rc -eq 0 ] && cmp -s "$T/out" "$T/want" && ok ||
				bad "$t merge $c" "rc $rc: $(cat "$T/out" "$T/err")"
		else
			[ $rc -eq 1 ] && [ ! -s "$T/out" ] && grep -q "no data" "$T/err" &&
				ok || bad "$t merge $c" "rc $rc: $(cat "$T/out" "$T/err")"
		fi
	done
done

# hist: every bin 0; a ranged histogram of no data has numpy's range 0..1
out=$("$G" hist -t u8 "$T/e.bin" | awk '$2 != 0' | wc -l)
[ "$out" -eq 0 ] && ok || bad "hist u8" "$out nonzero bins"
out=$("$G" hist --bins 4 -t f64 "$T/e.bin" | tr '\t\n' ', ')
[ "$out" = "0,0.25,0 0.25,0.5,0 0.5,0.75,0 0.75,1,0 " ] && ok || bad "hist --bins 4" "$out"
# numpy.histogram([], bins=4) as tests/np_ref.py computes it (and numpy,
# where python3 has it, agrees with np_ref)
python3 -c 'import sys; sys.path.insert(0, "tests"); import np_ref
e, bins = np_ref.histogram([], "f64", 4)
np = np_ref.np_cross()
if np is not None:
    c, e2 = np.histogram([], bins=4)
    assert e2.tolist() == e and not c.any(), "np_ref is not numpy"
print("".join("%g,%g,0 " % (e[i], e[i + 1]) for i in range(4)), end="")' \
	> "$T/want"
[ "$out" = "$(cat "$T/want")" ] && ok || bad "hist numpy" "$out vs $(cat "$T/want")"

# a record width: zero records are no data in every column
out=$("$G" stats -q -t i32 -c 3 "$T/e.bin" | sed -n 3,4p)
[ "$out" = "$(printf 'min\t\t\t\nmax\t\t\t')" ] && ok || bad "stats -c 3" "$out"
out=$("$G" sum -t i32 -c 3 "$T/e.bin" 2>&1)
[ "$out" = "$(printf '0\t0\t0')" ] && ok || bad "sum -c 3" "$out"
# a float column of NaNs only is not empty: numpy's nanmin gives nan
printf 'nan\nnan\n' > "$T/nan.txt"
out=$("$G" reduce --op min --text -t f64 "$T/nan.txt" 2>&1)
[ "$out" = nan ] && ok || bad "all-NaN min" "$out"

# --per-file: an empty operand has the result a run over it alone has:
# a value (sum: 0), or the run's one error, naming it
printf '\1\0\0\0\2\0\0\0' > "$T/a.i32"
out=$("$G" sum -t i32 --per-file "$T/a.i32" "$T/e.bin" 2>&1)
[ "$out" = "$(printf '3\t%s\n0\t%s\n3\ttotal' "$T/a.i32" "$T/e.bin")" ] && ok ||
	bad "--per-file sum" "$out"
for c in "reduce --op min" "reduce --op max" mode median; do
	"$G" $c -t i32 --per-file "$T/a.i32" "$T/e.bin" > "$T/out" 2> "$T/err"
	rc=$?
	[ $rc -eq 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" -eq 1 ] &&
		grep -q "^gpustat: $T/e.bin: no data" "$T/err" && ok ||
		bad "--per-file $c" "rc $rc: $(cat "$T/out" "$T/err")"
done
# stats --per-file: the empty operand's table beside the others
out=$("$G" stats -q -t i32 --per-file "$T/a.i32" "$T/e.bin" | awk '$1 == "min"')
[ "$out" = "$(printf 'min\t1\t%s\nmin\t\t%s\nmin\t1\ttotal' "$T/a.i32" "$T/e.bin")" ] &&
	ok || bad "--per-file stats" "$out"
# merge --per-file names the empty shard's state
"$G" reduce --op min -t i32 -f state -o "$T/a.state" "$T/a.i32"
"$G" reduce --op min -t i32 -f state -o "$T/e.state" "$T/e.bin"
"$G" merge "$T/a.state" "$T/e.state" > "$T/out" 2> /dev/null &&
	"$G" reduce --op min -t i32 "$T/a.i32" | cmp -s - "$T/out" && ok ||
	bad "merge with an empty shard" "$(cat "$T/out")"
"$G" merge --per-file "$T/a.state" "$T/e.state" > "$T/out" 2> "$T/err"
[ $? -eq 1 ] && [ ! -s "$T/out" ] && grep -q "^gpustat: $T/e.state: no data" "$T/err" &&
	ok || bad "merge --per-file" "$(cat "$T/out" "$T/err")"

# -q silences notes, never the error
"$G" median -q -t f64 "$T/e.bin" 2> "$T/err" > /dev/null
grep -q "no data" "$T/err" && ok || bad "-q" "the error was silenced"

summary
