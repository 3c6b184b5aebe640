#!/bin/sh
# End to end on the device machine: whole-process wall time (best of 3) of
# gpustat on page-cached files of a ladder of sizes, each command with
# --backend auto, cpu and cuda, as ratios to baselines measured in the same
# run: 16 dd's reading the same file at once (the machine's parallel read:
# "x par" is its time over gpustat's, so 1.00 is memory speed), `cat FILE >
# /dev/null` and, for pipes, `cat FILE | cat`. "auto/best" is auto's time
# over the faster of cpu and cuda (at most 1.05 is the target).
#
#   sh bench/bench_e2e.sh [options] [DIR] [SIZES]
#   GPUSTAT=path  the binary to time (default ./gpustat)
#     DIR    where the files go (default /dev/shm/gpustat; page-cached)
#     SIZES  sizes with M or G, or MiB as a number (default
#            "1M 64M 256M 1G 8G"; "4096" alone is the old form)
#     -c "sum sumw stats dot hist8 hist32 reduce scan"   commands (default all)
#     -b "auto cpu cuda"   backends for files (default all three)
#     -p "1G 8G"           sizes also read through a pipe (default; "" none)
#     -P "auto"            backends through a pipe (default auto)
#     -n 3                 runs per figure, the best taken (at least 7
#                          below 1 GiB, where a run takes milliseconds)
#     -s                   also each command's -v lines (stages, process) at
#                          the largest size
# At the default sizes it runs in about 5 to 8 minutes on 16 cores with an
# H100; split it by sizes
# or commands to run it in parts. The files are made once per size (f32
# normals, u8, and for sumw f32 of many magnitudes: blocks of 256 and 64
# MiB repeated) and removed after it. sumw is sum on values mixed over 41
# binades (bench_kernels --gen f32), which the CPU's f32 sum finds harder
# than normals: auto must not lose on it either.
cd "$(dirname "$0")/.." || exit 2
. bench/lib.sh
CMDS="sum sumw stats dot hist8 hist32 reduce scan"
BACKENDS="auto cpu cuda"
PIPES="1G 8G"
PIPE_BACKENDS=auto
RUNS=3
STAGES=
while getopts c:b:p:P:n:s o; do
	case $o in
	c) CMDS=$OPTARG ;;
	b) BACKENDS=$OPTARG ;;
	p) PIPES=$OPTARG ;;
	P) PIPE_BACKENDS=$OPTARG ;;
	n) RUNS=$OPTARG ;;
	s) STAGES=1 ;;
	*) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
D=${1:-/dev/shm/gpustat}
SIZES=${2:-1M 64M 256M 1G 8G}
G=${GPUSTAT:-./gpustat}
mkdir -p "$D" || exit 2
F=$D/e2e.f32
W=$D/e2e.wide.f32
U=$D/e2e.u8
R=$D/e2e.results
: > "$R"

mib() {		# 8G -> 8192, 64M -> 64, 64 -> 64
	case $1 in
	*G) echo $(( ${1%G} * 1024 )) ;;
	*M) echo "${1%M}" ;;
	*) echo "$1" ;;
	esac
}

# the command line of gpustat for command $1 on the files (without backend)
cmdline() {
	case $1 in
	sum) echo "$G sum $F" ;;
	sumw) echo "$G sum $W" ;;
	stats) echo "$G stats $F" ;;
	dot) echo "$G dot --pairs $F" ;;
	hist8) echo "$G hist $U" ;;
	hist32) echo "$G hist -q --bins 100 --range 0:1 -t f32 $F" ;;
	reduce) echo "$G reduce --op max $F" ;;
	scan) echo "$G scan $F" ;;
	esac
}

# ratio A B: A / B to 2 decimals, "-" when either is missing
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || a == "-" || b == "-" || b == 0) print "-"; else printf "%.2f\n", a / b }'
}

gbs() {		# bytes seconds -> GB/s
	awk -v n="$1" -v t="$2" 'BEGIN { printf "%.2f\n", n / t / 1e9 }'
}

min2() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || a == "") print b; else if (b == "-" || b == "" || a < b) print a; else print b }'
}

# make_file TYPE MIB BLOCK OUT [GEN]: MIB MiB of random TYPE elements
# (bench_kernels GEN, default --gen), a block of at most BLOCK MiB made once
# and repeated (generating 8 GiB of u8 one by one would take longer than
# the whole bench)
make_file() {
	b=$3
	[ "$2" -lt "$b" ] && b=$2
	build/bench_kernels "${5:---gen}" "$1" "$b" > "$4.block"
	k=0
	while [ $k -lt $(( $2 / b )) ]; do cat "$4.block"; k=$((k + 1)); done > "$4"
	head -c $(( ($2 % b) * 1048576 )) "$4.block" >> "$4"
	rm -f "$4.block"
}

one_size() {	# SIZE: every figure of one size
	m=$(mib "$1")
	make_file f32 "$m" 256 "$F" --gen-normal
	make_file u8 "$m" 64 "$U"
	case " $CMDS " in *" sumw "*) make_file f32 "$m" 256 "$W" ;; *) : > "$W" ;; esac
	bytes=$(stat -c %s "$F")
	cat "$F" "$U" "$W" > /dev/null
	# baselines: best of 5, so that no ratio rests on a slow first run
	par=$(best "$(pardd_cmd "$F" "$bytes")" 5)
	cat_s=$(best "cat $F" 5)
	printf '\n== %s: %s bytes of f32 normals (and as many u8), in %s\n' "$1" "$bytes" "$D"
	printf '%-26s %8s %8s %8s\n' "baseline" "s" "GB/s" "x par"
	printf '%-26s %8s %8s %8s\n' "16 x dd, one 16th each" "$par" "$(gbs "$bytes" "$par")" 1.00
	printf '%-26s %8s %8s %8s\n' "cat FILE > /dev/null" "$cat_s" "$(gbs "$bytes" "$cat_s")" "$(ratio "$par" "$cat_s")"
	printf '%-9s' "command"
	for be in $BACKENDS; do printf ' %8s' "$be s"; done
	printf ' %8s %8s %9s\n' "auto xpar" "best xpar" "auto/best"
	# small runs are quick and noisy: more of them
	runs=$RUNS
	[ "$m" -lt 1024 ] && [ "$runs" -lt 7 ] && runs=7
	for c in $CMDS; do
		auto=- cpu=- cuda=-
		printf '%-9s' "$c"
		for be in $BACKENDS; do
			t=$(best "$(cmdline "$c") --backend $be" "$runs")
			printf ' %8s' "$t"
			eval "$be=\$t"
		done
		b=$(min2 "$cpu" "$cuda")
		a=$auto
		printf ' %8s %8s %9s\n' "$(ratio "$par" "$a")" "$(ratio "$par" "$b")" "$(ratio "$a" "$b")"
		echo "$1 $c ${auto:--} $cpu $cuda $par" >> "$R"
	done
	one_pipe "$1" "$bytes"
	[ -n "$STAGES" ] && [ "$1" = "$LAST" ] && stages
	rm -f "$F" "$U" "$W"
}

one_pipe() {	# SIZE BYTES: sum, hist u8 and scan through a pipe
	case " $PIPES " in *" $1 "*) ;; *) return ;; esac
	pipe=$(best "cat $F | cat" 5)
	printf '%-26s %8s %8s\n' "cat FILE | cat" "$pipe" "$(gbs "$2" "$pipe")"
	for c in sum hist8 scan; do
		for be in $PIPE_BACKENDS; do
			f=$F; [ $c = hist8 ] && f=$U
			l=$(cmdline "$c" | sed "s| $f||")
			t=$(best "cat $f | $l --backend $be" "$RUNS")
			printf '%-26s %8s %8s %8s x cat|cat\n' "cat | $c ($be)" "$t" "$(gbs "$2" "$t")" "$(ratio "$pipe" "$t")"
		done
	done
}

stages() {	# each command's -v lines at this size, auto and cuda
	for c in $CMDS; do
		for be in auto cuda; do
			echo "-- $c --backend $be -v"
			sh -c "$(cmdline "$c") --backend $be -v" 2>&1 > /dev/null |
				grep -E 'backend:|stages:|process:' |
				sed 's/^gpustat: //'
		done
	done
}

for s in $SIZES; do LAST=$s; done
for s in $SIZES; do one_size "$s"; done

# The targets at a glance: auto x par (file) and auto/best, size by size
printf '\n%-9s' "auto xpar"
for s in $SIZES; do printf ' %7s' "$s"; done
printf '   %-9s' "auto/best"
for s in $SIZES; do printf ' %7s' "$s"; done
echo
for c in $CMDS; do
	printf '%-9s' "$c"
	for s in $SIZES; do
		printf ' %7s' "$(awk -v s="$s" -v c="$c" '$1 == s && $2 == c {
			if ($3 == "-") print "-"; else printf "%.2f", $6 / $3 }' "$R")"
	done
	printf '   %-9s' "$c"
	for s in $SIZES; do
		printf ' %7s' "$(awk -v s="$s" -v c="$c" '$1 == s && $2 == c {
			b = $4; if ($4 == "-" || ($5 != "-" && $5 < $4)) b = $5
			if ($3 == "-" || b == "-") print "-"; else printf "%.2f", $3 / b }' "$R")"
	done
	echo
done
rm -f "$R"
