#!/bin/sh
# test_algos.sh - --algorithm (algorithm.h) where this machine can run it:
# hist's cpu gives the default's bytes on every fixture type and format;
# every name is listed by --help and gpustat --options; a name a command
# does not have, a GPU algorithm with --backend cpu, and cpu with --backend
# cuda are usage errors (exit 2, one line); a GPU algorithm without a
# usable GPU fails (exit 1 without CUDA or a GPU, 2 where the GPU kernels
# lack it) and prints nothing on stdout. The GPU algorithms' outputs are
# checked against --backend cpu by tests/gpu/run.sh's part "algos".
#
# Usage: sh tests/test_algos.sh   (GPUSTAT=path overrides ./gpustat)
cd "$(dirname "$0")/.." || exit 2
NAME=algos
. tests/lib.sh
IN=fixtures/in

same_run() {	# name, then the args of both runs: default vs --algorithm cpu
	n=$1
	shift
	$G "$@" --backend cpu > "$T/a" 2> "$T/ea"
	ra=$?
	$G "$@" --algorithm cpu > "$T/b" 2> "$T/eb"
	rb=$?
	if [ $ra -ne $rb ] || ! cmp -s "$T/a" "$T/b"; then
		bad "$n" "default rc $ra, cpu rc $rb: $(head -c 200 "$T/eb")"
	else
		ok
	fi
}

for t in u8 i8 u16 i16; do
	for f in text json csv binary; do
		same_run "hist $t $f" hist -t $t -f $f $IN/u8_rand.bin
	done
	same_run "hist $t -c 3" hist -t $t -c 3 $IN/u8_rand.bin
done
for t in f16 bf16 f32 f64 i32 u64; do
	[ -f $IN/${t}_rand.bin ] || continue
	same_run "hist $t ranged" hist -t $t --bins 37 --range -1:1 $IN/${t}_rand.bin
	same_run "hist $t data range" hist -t $t --bins 11 $IN/${t}_rand.bin
done
same_run "hist empty" hist -t u8 $IN/f32_empty.bin

# default is every command's own kernel, on either backend
for c in sum dot scan reduce; do
	args="-t f32 $IN/f32_rand.bin"
	[ $c = dot ] && args="--pairs -c 2 $args"
	[ $c = scan ] && args="$args -o $T/scan.out"
	$G $c $args --backend cpu > "$T/a" 2>&1
	[ $c = scan ] && cp "$T/scan.out" "$T/a"
	$G $c $args --backend cpu --algorithm default > "$T/b" 2>&1
	[ $c = scan ] && cp "$T/scan.out" "$T/b"
	cmp -s "$T/a" "$T/b" && ok || bad "$c default" "$(head -c 200 "$T/b")"
done

usage() {	# name, expected text, args...
	n=$1
	want=$2
	shift 2
	$G "$@" > "$T/out" 2> "$T/err"
	rc=$?
	if [ $rc -ne 2 ] || [ -s "$T/out" ] || [ "$(wc -l < "$T/err")" -ne 1 ] ||
	   ! grep -q -- "$want" "$T/err"; then
		bad "$n" "rc $rc: $(cat "$T/err")"
	else
		ok
	fi
}
usage "unknown name" "default cpu global-atomic shared-atomic sort" \
	hist --algorithm atomic $IN/u8_rand.bin
usage "sum has no sort" "default atomic block-tree" \
	sum --algorithm sort $IN/f32_rand.bin
usage "scan names" "default hillis-steele blelloch" \
	scan --algorithm block-tree -o $T/x $IN/f32_rand.bin
usage "gpu algo on cpu" "runs on the GPU; --backend cpu runs default and cpu" \
	hist --backend cpu --algorithm shared-atomic $IN/u8_rand.bin
usage "gpu algo on cpu, sum" "runs on the GPU; --backend cpu runs default" \
	sum --backend cpu --algorithm block-tree $IN/f32_rand.bin
for a in hillis-steele blelloch; do
	usage "gpu algo on cpu, scan $a" "algorithm $a runs on the GPU; --backend cpu runs default" \
		scan --backend cpu --algorithm $a -o $T/x $IN/f32_rand.bin
	usage "$a not for sum" "default atomic block-tree" \
		sum --algorithm $a $IN/f32_rand.bin
done
usage "cpu on cuda" "does not go with --backend cuda" \
	hist --backend cuda --algorithm cpu $IN/u8_rand.bin
usage "cpu not for dot" "default atomic block-tree" \
	dot --pairs -c 2 --algorithm cpu $IN/f32_rand.bin
usage "no such option for stats" "algorithm" \
	stats --algorithm atomic $IN/f32_rand.bin

# without a usable GPU a GPU algorithm fails, nothing on stdout
if ! $G sum --backend cuda $IN/f32_one.bin > /dev/null 2>&1; then
	for a in "hist --algorithm global-atomic" "hist --algorithm sort" \
		 "sum --algorithm atomic" "reduce --algorithm block-tree" \
		 "dot --pairs -c 2 --algorithm atomic" \
		 "scan --algorithm hillis-steele" "scan --algorithm blelloch"; do
		$G $a $IN/u8_rand.bin > "$T/out" 2> "$T/err"
		rc=$?
		if [ $rc -eq 0 ] || [ -s "$T/out" ]; then
			bad "$a without a GPU" "rc $rc"
		else
			ok
		fi
	done
fi

# every name in --help and in the completion table
for c in hist sum reduce dot scan; do
	$G $c --help > "$T/help"
	names=$($G --options | awk -F '\t' -v c=$c '$1 == c && $2 == "--algorithm" { print $5 }')
	[ -n "$names" ] && ok || bad "$c --options" "no --algorithm row"
	for a in $names; do
		[ $a = default ] && continue
		grep -q -- "$a" "$T/help" && ok || bad "$c --help" "no $a"
	done
done
summary
