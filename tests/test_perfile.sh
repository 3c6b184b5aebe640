#!/bin/sh
# test_perfile.sh - --per-file: one result per operand, then the total, as
# wc prints. Every operand's result must be byte for byte what a separate
# run over that operand prints, and the total what one run over all of
# them prints, labelled as perfile.h says for each format: text lines end
# with a tab and the name ("total" last); tsv/csv keep one header, with a
# last column "file"; json is a list (the total's "file" null); binary is
# the results in a row; npy stacks them along a new first axis; -f state
# writes each operand's state (their merge is the total); scan scans each
# operand from the start. The expected outputs are built here from the
# separate runs, with awk.
#
# Usage: sh tests/test_perfile.sh   (GPUSTAT=path overrides ./gpustat)
cd "$(dirname "$0")/.." || exit 2
NAME=perfile
. tests/lib.sh
IN=fixtures/in

# three operands of whole 2-column f64 records, one of them empty, and a
# fourth that is all of them in a row
mkdir "$T/d"
dd if=$IN/f64_mod.bin of="$T/d/a.bin" bs=16 count=37 2> /dev/null
dd if=$IN/f64_mod.bin of="$T/d/b.bin" bs=16 skip=40 count=200 2> /dev/null
: > "$T/d/e.bin"
ops="$T/d/a.bin $T/d/e.bin $T/d/b.bin"
cat $ops > "$T/d/all.bin"

same() {
	cmp -s "$2" "$3" && ok || bad "$1" "$(diff "$2" "$3" | head -c 300)"
}

# label FORMAT NAME: a separate run's output (stdin) as --per-file writes
# that operand's part (text, tsv, csv); HEAD=1 keeps a tsv/csv header
label() {
	awk -v f="$1" -v n="$2" -v head="${HEAD:-0}" '
	BEGIN { sep = f == "csv" ? "," : "\t" }
	(f == "tsv" || f == "csv") && NR == 1 { if (head) print $0 sep "file"; next }
	{ print $0 sep n }'
}

# want CMD FORMAT: the expected --per-file output, from separate runs
want() {
	cmd=$1 f=$2 first=1
	for op in $ops; do
		HEAD=$first
		case $f in
		text|tsv|csv) $G $cmd -f $f "$op" | label $f "$op" ;;
		binary|state) $G $cmd -f $f "$op" ;;
		esac
		first=0
	done
	case $f in
	text|tsv|csv) HEAD=0 $G $cmd -f $f "$T/d/all.bin" | HEAD=0 label $f total ;;
	binary) $G $cmd -f $f "$T/d/all.bin" ;;
	esac
}

cmds="sum|stats|dot --pairs|reduce --op max|reduce --op min|reduce --op sum|count|hist --bins 7 --range -50:50|hist --bins 5|hist -t u8"
IFS='|'
for cmd in $cmds; do
	IFS=' '
	case $cmd in *-t\ *) ;; *) cmd="$cmd -t f64 -c 2" ;; esac
	name=$(echo "$cmd" | tr ' :' '__')
	states=state
	case $cmd in "hist --bins 5"*) states= ;; esac	# needs --range
	for f in text tsv csv binary $states; do
		# no data has no min or max: --per-file fails as the empty
		# operand's own run does, with its one error line
		if [ $f != state ] && ! $G $cmd -f $f "$T/d/e.bin" > /dev/null 2> "$T/eerr"; then
			$G $cmd --per-file -f $f $ops > "$T/got" 2> "$T/err"
			[ $? -eq 1 ] && [ ! -s "$T/got" ] && cmp -s "$T/err" "$T/eerr" && ok ||
				bad "${name}_$f" "$(cat "$T/got" "$T/err")"
			continue
		fi
		want "$cmd" $f > "$T/want" 2> /dev/null
		$G $cmd --per-file -f $f $ops > "$T/got" 2> "$T/err" ||
			{ bad "${name}_$f" "exit $?: $(cat "$T/err")"; continue; }
		same "${name}_$f" "$T/want" "$T/got"
	done
	# the states' merge is the one run's result
	[ -z "$states" ] && { IFS='|'; continue; }
	$G $cmd -f state --per-file $ops | $G merge > "$T/got" 2>&1
	$G $cmd "$T/d/all.bin" > "$T/want" 2>&1
	same "${name}_merged" "$T/want" "$T/got"
	IFS='|'
done
IFS=' '

# json and npy, where python3 can read them
if python3 -c 'import json' 2> /dev/null; then
	for cmd in "sum -t f64 -c 2" "stats -t f64" "hist -t f64 --bins 4" "count -t f64"; do
		name=$(echo "$cmd" | tr ' ' '_')
		for op in $ops "$T/d/all.bin"; do $G $cmd -f json "$op"; done > "$T/sep"
		$G $cmd --per-file -f json $ops > "$T/got"
		python3 - "$T/sep" "$T/got" $ops > "$T/py" 2>&1 <<'EOF' && ok || bad "${name}_json" "$(cat "$T/py")"
import json, sys
sep = [json.loads(l) for l in open(sys.argv[1])]
got = json.load(open(sys.argv[2]))
names = sys.argv[3:] + [None]
assert len(got) == len(sep), (len(got), len(sep))
for g, s, n in zip(got, sep, names):
    assert list(g)[0] == "file" and g.pop("file") == n, n
    assert g == s, (n, g, s)
EOF
		for op in $ops "$T/d/all.bin"; do $G $cmd -f npy "$op" > "$T/n.$(basename "$op")"; done
		$G $cmd --per-file -f npy $ops > "$T/got"
		python3 - "$T/got" "$T"/n.a.bin "$T"/n.e.bin "$T"/n.b.bin "$T"/n.all.bin > "$T/py" 2>&1 <<'EOF' && ok || bad "${name}_npy" "$(cat "$T/py")"
import ast, sys
def npy(path):
    b = open(path, 'rb').read()
    assert b[:8] == b'\x93NUMPY\x01\x00'
    n = b[8] | b[9] << 8
    return ast.literal_eval(b[10:10 + n].decode()), b[10 + n:]
h, data = npy(sys.argv[1])
parts = [npy(p) for p in sys.argv[2:]]
assert h['descr'] == parts[0][0]['descr'], h
assert h['shape'] == (len(parts),) + parts[0][0]['shape'], h['shape']
assert data == b''.join(p[1] for p in parts)
EOF
	done
else
	echo "perfile: note: no python3: the json and npy checks are skipped"
fi

# one operand: labelled, no total; stdin alone is "-"
$G sum -t f64 --per-file "$T/d/a.bin" > "$T/got"
printf '%s\t%s\n' "$($G sum -t f64 "$T/d/a.bin")" "$T/d/a.bin" > "$T/want"
same one_operand "$T/want" "$T/got"
$G sum -t f64 --per-file < "$T/d/a.bin" > "$T/got"
printf '%s\t-\n' "$($G sum -t f64 "$T/d/a.bin")" > "$T/want"
same stdin_alone "$T/want" "$T/got"

# the sign of a zero sum survives the total's merge: -0 + -0 is -0
printf '\000\000\000\200' > "$T/nz.f32"
printf '\000\000\000\000' > "$T/pz.f32"
$G sum --per-file "$T/nz.f32" "$T/nz.f32" | tail -n 1 > "$T/got"
printf -- '-0\ttotal\n' | cmp -s - "$T/got" && ok || bad negzero "$(cat "$T/got")"
$G sum --per-file "$T/nz.f32" "$T/pz.f32" | tail -n 1 > "$T/got"
printf '0\ttotal\n' | cmp -s - "$T/got" && ok || bad poszero "$(cat "$T/got")"

# merge --per-file: each state file's merge, then the total
for op in $ops; do $G sum -t f64 -c 2 -f state -o "$op.state" "$op"; done
cat "$T/d/a.bin.state" "$T/d/b.bin.state" > "$T/d/ab.state"
$G merge --per-file "$T/d/a.bin.state" "$T/d/ab.state" > "$T/got"
{
	printf '%s\t%s\n' "$($G sum -t f64 -c 2 "$T/d/a.bin")" "$T/d/a.bin.state"
	printf '%s\t%s\n' "$(cat "$T/d/a.bin" "$T/d/b.bin" | $G sum -t f64 -c 2)" "$T/d/ab.state"
	printf '%s\ttotal\n' "$(cat "$T/d/a.bin" "$T/d/a.bin" "$T/d/b.bin" | $G sum -t f64 -c 2)"
} > "$T/want"
same merge "$T/want" "$T/got"
# a state operand that is a pipe is read once, for its merge and the total
cat "$T/d/a.bin.state" | $G merge --per-file /dev/stdin "$T/d/ab.state" |
	sed "s#^\([^\t]*\t[^\t]*\)\t/dev/stdin\$#\1\t$T/d/a.bin.state#" > "$T/got"
same merge_pipe "$T/want" "$T/got"

# scan: each operand from the start, one after another; npy counts them all
for op in $ops; do $G scan -t f64 -c 2 "$op"; done > "$T/want"
$G scan -t f64 -c 2 --per-file $ops > "$T/got"
same scan "$T/want" "$T/got"
$G scan -t f64 -c 2 --per-file -f npy $ops > "$T/got"
$G scan -t f64 -c 2 -f npy "$T/d/all.bin" | head -c 128 > "$T/h"
head -c 128 "$T/got" | cmp -s - "$T/h" && tail -c +129 "$T/got" | cmp -s - "$T/want" &&
	ok || bad scan_npy "header or payload differs"

# refusals: no output, the right exit status
refuse() {
	name=$1 want=$2
	shift 2
	"$@" > "$T/out" 2> "$T/err"
	rc=$?
	[ $rc -eq "$want" ] && [ ! -s "$T/out" ] && [ -s "$T/err" ] && ok ||
		bad "refuse_$name" "exit $rc, out $(head -c 80 "$T/out"), err $(cat "$T/err")"
}
refuse stdin_beside 2 $G sum --per-file "$T/d/a.bin" - < "$T/d/b.bin"
refuse dot_a_b 2 $G dot --per-file "$T/d/a.bin" "$T/d/b.bin"
refuse plot 2 $G hist -t f64 --plot --per-file "$T/d/a.bin" "$T/d/b.bin"
refuse edges_no_range 2 $G hist -t f64 --bins 4 -f npy --edges "$T/e.npy" --per-file "$T/d/a.bin" "$T/d/b.bin"
refuse carry_in 2 $G scan -t f64 --per-file --carry-in "$T/d/a.bin.state" "$T/d/a.bin"
# a total of several passes (quantile of 32/64-bit types) reads the
# operands again: a pipe among them would be empty by then
refuse pipe_total 2 sh -c 'cat "$1" | "$2" median -t f64 -c 2 --per-file "$3" /dev/stdin' \
	sh "$T/d/b.bin" "$G" "$T/d/a.bin"
refuse missing 1 $G sum -t f64 --per-file "$T/d/a.bin" "$T/d/nope" "$T/d/b.bin"
grep -q nope "$T/err" && ok || bad missing_named "$(cat "$T/err")"
# a missing operand after one read in several passes is still named
refuse missing_multipass 1 $G median -t f64 --per-file "$T/d/a.bin" "$T/d/nope"
grep -q nope "$T/err" && ok || bad missing_multipass_named "$(cat "$T/err")"
refuse missing_hist_range 1 $G hist -t f64 --bins 3 --per-file "$T/d/a.bin" "$T/d/nope"
grep -q nope "$T/err" && ok || bad missing_hist_range_named "$(cat "$T/err")"
refuse product_overflow 1 $G reduce --op prod -t i64 --per-file "$T/d/b.bin" "$T/d/a.bin"
grep -q "b.bin" "$T/err" && ok || bad product_overflow_named "$(cat "$T/err")"

# ---- the total is one run over the operands, each read as that run reads
# it: the stream's first operand decides text or raw (and the type), later
# ones are read so, with or without --per-file; where that fails, both
# modes fail alike
mkdir "$T/m"
printf '1 2.5 3\n' > "$T/m/t1"
printf '4 -5e-1\n\n' > "$T/m/t2"
: > "$T/m/t0"
printf '1 2 3 4\n' > "$T/m/t8"		# text of 8 bytes: one f64 when raw
printf '1 2 3\n' > "$T/m/t6"		# text of 6 bytes: no whole f64
dd if=$IN/f64_mod.bin of="$T/m/r" bs=8 count=50 2> /dev/null
$G scan -t f64 -f npy -o "$T/m/n.npy" - < "$T/m/r"

# total_of TEXT: the total's part of --per-file's output (stdin), in the
# one run's format (f; text, csv or json)
total_of() {
	case $f in
	text) sed -n 's/\ttotal$//p' ;;
	csv) sed -n '1s/,file$//p; s/,total$//p' ;;
	json) got=$(cat); got=${got##*'{"file":null,'}; printf '{%s\n' "${got%]}" ;;
	esac
}

# alike NAME CMD OPERANDS...: the one run and --per-file over the operands
# exit alike, with the same stderr; where they succeed, the total (state:
# the merge of the operands' states) is the one run's output byte for byte
alike() {
	an=$1 ac=$2
	shift 2
	for f in text csv json state; do
		$G $ac -f $f "$@" > "$T/one" 2> "$T/one.err"
		rc1=$?
		$G $ac -f $f --per-file "$@" > "$T/pf.out" 2> "$T/pf.err"
		rc2=$?
		if [ $f = state ]; then
			$G merge -f state < "$T/pf.out" > "$T/pf" 2>&1
		else
			total_of < "$T/pf.out" > "$T/pf"
		fi
		if [ $rc1 -ne $rc2 ] || ! cmp -s "$T/one.err" "$T/pf.err"; then
			bad "alike_${an}_$f" "one run: exit $rc1 $(cat "$T/one.err"); --per-file: exit $rc2 $(cat "$T/pf.err")"
		elif [ $rc1 -eq 0 ] && ! cmp -s "$T/one" "$T/pf"; then
			bad "alike_${an}_$f" "total $(head -c 200 "$T/pf"), one run $(head -c 200 "$T/one")"
		elif [ $rc1 -ne 0 ] && [ -s "$T/pf.out" ]; then
			bad "alike_${an}_$f" "--per-file failed, but wrote $(head -c 100 "$T/pf.out")"
		else
			ok
		fi
	done
}

for cmd in "sum" "stats" "count" "hist --bins 4 --range -2:6" "sum -t f32" "stats -t i32"; do
	name=$(echo "$cmd" | tr ' :' '__')
	# text found in the first operand: every one of them is text
	alike "text_$name" "$cmd" "$T/m/t1" "$T/m/t0" "$T/m/t2" "$T/m/t8"
	alike "empty_first_$name" "$cmd" "$T/m/t0" "$T/m/t1" "$T/m/t2"
done
for cmd in "sum -t f64" "stats -t f64" "count -t f64" "hist -t f64 --bins 4 --range -50:50" \
	   "hist -t f64 --bins 3"; do
	name=$(echo "$cmd" | tr ' :' '__')
	# raw first: text after it is read as raw bytes (8 of them: one f64)
	alike "raw_text_$name" "$cmd" "$T/m/r" "$T/m/t8"
	alike "npy_text_$name" "$cmd" "$T/m/n.npy" "$T/m/t8"
	# where the operands disagree, both fail alike: text bytes that make
	# no whole element, raw bytes that are no text, an npy among text
	alike "raw_text6_$name" "$cmd" "$T/m/r" "$T/m/t6"
	alike "text_raw_$name" "$cmd" "$T/m/t1" "$T/m/r"
	alike "text_npy_$name" "$cmd" "$T/m/t1" "$T/m/n.npy"
done
# and they did fail: nothing on stdout, exit 1, the operand named
refuse text_raw 1 $G sum --per-file "$T/m/t1" "$T/m/r"
grep -q "$T/m/r" "$T/err" && ok || bad text_raw_named "$(cat "$T/err")"
refuse raw_text6 1 $G sum -t f64 --per-file "$T/m/r" "$T/m/t6"
grep -q "$T/m/t6" "$T/err" && ok || bad raw_text6_named "$(cat "$T/err")"
refuse text_npy 1 $G sum --per-file "$T/m/t1" "$T/m/n.npy"
grep -q "npy data, not text like the operands before it" "$T/err" && ok ||
	bad text_npy_message "$(cat "$T/err")"
# the issue's case: a typed raw file, then text
cp "$T/m/r" "$T/m/b.f64"
alike issue_b_s "sum -t f64" "$T/m/b.f64" "$T/m/t6"
alike issue_b_s8 "sum" "$T/m/b.f64" "$T/m/t8"

summary
