#!/bin/sh
# cli.sh - end-to-end tests of the gpustat command line.
#
# Runs every case of tests/cases.txt (made with the expected outputs in
# fixtures/ by tests/gen_fixtures.py, which documents the table) and judges
# exit status, stdout and stderr. Cases marked with a record/payload size are
# run again with other chunk sizes, thread counts and --backend cpu: the
# same bytes whatever the split (man gpustat, NUMERICS). A few checks that a table
# cannot express follow (a terminal, a closed pipe, full u16 histograms).
#
# Usage: sh tests/cli.sh [NAME-PATTERN]   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "cli: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=cli
. tests/lib.sh
only=${1:-*}

# Insert options $2 right after the command word ("$G sum" -> "$G sum
# OPTS"), so a property re-run does not depend on options after operands.
with_opts() {
	pre=${1%%\$G *}
	rest=${1#*\$G }
	word=${rest%% *}
	cmd2="$pre\$G $word $2${rest#"$word"}"
}

# Run a case's command line; stdout, stderr and -o land in $T.
run() {
	[ -e "$T/o" ] && rm -f "$T/o"
	eval "$1" > "$T/out" 2> "$T/err" < /dev/null
}

# A .npy on $1 whose payload is $2 and whose header names descr $3 and shape
# $4 (compared without spaces, as numpy spells them: (10,3)).
npy_ok() {
	magic=$(head -c 8 "$1" | od -An -c | tr -d ' \n')
	[ "$magic" = '223NUMPY001\0' ] || { why="not a .npy v1.0: $magic"; return 1; }
	set -- "$1" "$2" "$3" "$4" $(od -An -tu1 -j8 -N2 "$1")
	hlen=$(($5 + 256 * $6))
	total=$(wc -c < "$1")
	plen=$(wc -c < "$2")
	[ $((10 + hlen + plen)) -eq "$total" ] ||
		{ why="npy size $total != 10 + header $hlen + payload $plen"; return 1; }
	[ $(((10 + hlen) % 16)) -eq 0 ] || { why="npy header not aligned"; return 1; }
	head -c $((10 + hlen)) "$1" | tail -c "$hlen" | tr -d ' ' > "$T/hdr"
	for w in "'descr':'$3'" "'shape':$4" "'fortran_order':False"; do
		# (10,3,) is as good a tuple as numpy's (10, 3)
		grep -qF -e "$w" -e "${w%)},)" "$T/hdr" ||
			{ why="npy header lacks $w: $(cat "$T/hdr")"; return 1; }
	done
	tail -c "$plen" "$1" | cmp -s - "$2" || { why="npy payload differs"; return 1; }
}

# Judge the last run: exit status $2 (wanted $1), stdout check $3 against
# expected file $5, stderr pattern $4. Sets $why on failure.
judge() {
	want=$1 got=$2 check=$3 pat=$4 exp=$5
	if [ "$want" = '*' ]; then
		[ "$got" -ne 0 ] || { why="exit 0, wanted an error"; return 1; }
	elif [ "$got" -ne "$want" ]; then
		why="exit $got, wanted $want: $(head -n 1 "$T/err")"
		return 1
	fi
	case $check in
	cmp) cmp -s "$T/out" "$exp" || { why="stdout differs from $exp"; return 1; } ;;
	ofile)	[ -s "$T/out" ] && { why="stdout not empty with -o"; return 1; }
		cmp -s "$T/o" "$exp" 2>/dev/null || { why="-o file differs from $exp"; return 1; } ;;
	empty) [ -s "$T/out" ] && { why="stdout not empty"; return 1; } ;;
	nonempty) [ -s "$T/out" ] || { why="stdout empty"; return 1; } ;;
	npy:*)	spec=${check#npy:}
		npy_ok "$T/out" "$exp" "${spec%%:*}" "${spec#*:}" || return 1 ;;
	esac
	case $pat in
	'*') ;;
	-)	if [ "$want" = 0 ] && [ -s "$T/err" ]; then
			why="unexpected stderr: $(head -n 1 "$T/err")"
			return 1
		fi ;;
	*)	grep -qiF -- "$pat" "$T/err" ||
			{ why="stderr lacks \"$pat\": $(head -n 1 "$T/err")"; return 1; } ;;
	esac
	[ "$want" = 0 ] && return 0
	# one line "gpustat: WHERE: WHAT" (a usage hint may follow)
	head -n 1 "$T/err" | grep -q '^gpustat: ' ||
		{ why="error line not 'gpustat: ...': $(head -n 1 "$T/err")"; return 1; }
	[ "$(wc -l < "$T/err")" -le 2 ] ||
		{ why="$(wc -l < "$T/err") lines on stderr"; return 1; }
	return 0
}

# Chunk sizes and thread counts for a case with record size $1 and payload
# $2 bytes: one record, a few, around the whole input, 1K; 1-3 threads.
variants() {
	r=$1 p=$2
	echo "--chunk-size $r"
	echo "--chunk-size $((3 * r)) -j 2"
	[ $((p - 1)) -ge "$r" ] && echo "--chunk-size $((p - 1)) -j 3"
	echo "--chunk-size $p"
	echo "--chunk-size $((p + 1)) -j 1 --backend cpu"
	echo "--backend=cpu --chunk-size 1K -j 3"
}

prop_check() {
	name=$1 cmd=$2 check=$3 exp=$4 r=${5%%:*} p=${5#*:}
	variants "$r" "$p" > "$T/variants"
	while read -r opts; do
		with_opts "$cmd" "$opts"
		run "$cmd2"
		judge 0 $? "$check" '*' "$exp" || { why="with $opts: $why"; return 1; }
	done < "$T/variants"
}

table_cases() {
	while IFS='	' read -r name want check pat prop cmd; do
		case $name in '#'*|'') continue ;; esac
		# shellcheck disable=SC2254
		case $name in $only) ;; *) continue ;; esac
		exp=fixtures/expected/$name.out
		run "$cmd"
		if judge "$want" $? "$check" "$pat" "$exp"; then ok; else bad "$name" "$why"; fi
		[ "$prop" = - ] && continue
		if prop_check "$name" "$cmd" "$check" "$exp" "$prop"; then
			ok
		else
			bad "$name (chunks/threads)" "$why"
		fi
	done < tests/cases.txt
}

# A closed pipe ends the run quietly (exit 0 or SIGPIPE, nothing on stderr).
pipe_check() {
	name=$1 cmd=$2
	{ (eval "$cmd") 2> "$T/err"; echo $? > "$T/rc"; } | head -c 1 > /dev/null
	rc=$(cat "$T/rc")
	if [ "$rc" != 0 ] && [ "$rc" != 141 ]; then
		bad "$name" "exit $rc: $(head -n 1 "$T/err")"
	elif [ -s "$T/err" ]; then
		bad "$name" "stderr: $(head -n 1 "$T/err")"
	else
		ok
	fi
}

# scan refuses a terminal unless --force (needs script(1) for a pty).
tty_check() {
	if ! command -v script > /dev/null 2>&1; then
		echo "skip: no script(1) for the terminal test"
		return
	fi
	f=fixtures/in/f32_mod.bin
	script -qec "$G scan $f" /dev/null < /dev/null > "$T/tty" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		bad scan_tty_refused "exit 0 when writing binary to a terminal"
	elif ! grep -q 'gpustat: ' "$T/tty"; then
		bad scan_tty_refused "no 'gpustat: ' message (exit $rc)"
	else
		ok
	fi
	script -qec "$G scan --force $f" /dev/null < /dev/null > "$T/tty" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then ok; else bad scan_tty_force "exit $rc"; fi
}

# Every one of the 65536 u16 bins is printed; the non-zero ones match.
full_hist_check() {
	name=$1 cmd=$2 exp=$3
	run "$cmd"
	rc=$?
	n=$(wc -l < "$T/out")
	awk '{ for (i = 2; i <= NF; i++) if ($i != 0) { print; next } }' \
		"$T/out" > "$T/nz"
	if [ $rc -ne 0 ]; then
		bad "$name" "exit $rc: $(head -n 1 "$T/err")"
	elif [ "$n" -ne 65536 ]; then
		bad "$name" "$n lines, wanted 65536"
	elif ! cmp -s "$T/nz" "$exp"; then
		bad "$name" "non-zero bins differ from $exp"
	else
		ok
	fi
}

version_check() {
	run "\$G --version"
	if [ $? -ne 0 ]; then bad version_zstd "exit status"
	elif grep -qi zstd "$T/out"; then ok
	else bad version_zstd "--version does not name the zstd library"; fi
}

# Without a GPU, --backend cuda is an error; with one, the same numbers.
cuda_check() {
	f=fixtures/in/f64_mod.bin
	run "\$G sum -t f64 --backend cuda $f"
	rc=$?
	if [ -e /dev/nvidiactl ]; then
		judge 0 $rc cmp - fixtures/expected/sum_f64_mod.out
	else
		judge 1 $rc empty gpustat: -
	fi
	if [ $? -eq 0 ]; then ok; else bad backend_cuda "$why"; fi
}

extra_checks() {
	case full_hist in $only) ;; *) return ;; esac
	pipe_check pipe_head_hist "\$G hist -t u16 fixtures/in/u16_mod.bin"
	z=fixtures/in/i16_big.bin.zst
	pipe_check pipe_head_scan "\$G scan -t i16 $z $z $z $z $z"
	pipe_check pipe_head_text "\$G hist -t i16 -c 3 fixtures/in/i16_mod.bin"
	tty_check
	version_check
	cuda_check
	full_hist_check full_hist_u16 "\$G hist -t u16 fixtures/in/u16_mod.bin" \
		fixtures/expected/hist_u16_mod_nonzero.out
	full_hist_check full_hist_i16 "\$G hist --type i16 fixtures/in/i16_rand.bin" \
		fixtures/expected/hist_i16_rand_nonzero.out
}

if [ ! -x "${G%% *}" ]; then
	echo "FAIL cli: no executable $G (run make)"
	echo "cli: 0 passed, 1 failed"
	exit 1
fi
table_cases
extra_checks
summary
