#!/bin/bash
# writer_compare.sh - every result command x -f format x option set x input
# (binary, npy, text, empty, NaNs), --per-file, merge and --edges, run by two
# gpustat binaries: prints each command line whose stdout, stderr or exit
# status differ, and a count. For a change that must keep every output
# byte-identical (the result writer was one):
#   A=/path/to/old/gpustat B=./gpustat bash tests/writer_compare.sh
[ -n "$A" ] && [ -n "$B" ] || { echo "usage: A=OLD B=NEW $0" >&2; exit 2; }
A=$(realpath "$A"); B=$(realpath "$B")
F=$(realpath "$(dirname "$0")/../fixtures/in")

W=$(mktemp -d); cd $W
n=0; d=0
cmp_run() {
	n=$((n+1))
	"$A" "$@" > a.out 2>a.err; ra=$?
	"$B" "$@" > b.out 2>b.err; rb=$?
	if ! cmp -s a.out b.out || ! cmp -s a.err b.err || [ $ra != $rb ]; then
		d=$((d+1)); echo "DIFF $* (rc $ra/$rb)"
	fi
}
printf '1\n2\n2\n3.5\nnan\n-0\n7\n' > t.txt
printf '1 2\n3 4\n5 nan\n' > t2.txt
: > empty.bin
printf 'nan\nnan\n' > nan.txt
inputs="$F/u8_rand.bin $F/f32_mod.bin $F/f32_empty.bin $F/f32_long.npy t.txt empty.bin nan.txt"
for fmt in text tsv csv json binary npy state; do
 for in in $inputs; do
  for cmd in sum count stats median mode "reduce --op min" "reduce --op max" "reduce --op prod" "quantile -q 0.1,0.5,0.9" "quantile -q 0.25 --method lower" "hist" "hist --bins 5" "hist --nonzero" "hist --bins 4 --range 0:1"; do
   for t in "" "-t u8" "-t i16" "-t f32" "-t f64 -c 2" "-t u8 -c 3" "-c 2" "-t f16"; do
     cmp_run $cmd $t -f $fmt $in
   done
  done
  cmp_run dot -t f32 -f $fmt $in $in
  cmp_run dot -t i16 --pairs -c 2 -f $fmt $in
 done
 cmp_run sum -f $fmt --per-file $F/f32_mod.bin $F/f32_mod2.bin t.txt
 cmp_run stats -f $fmt --per-file $F/f32_mod.bin $F/f32_mod2.bin
 cmp_run stats -t f64 -c 2 -f $fmt --per-file $F/f32_mod.bin empty.bin
 cmp_run count -f $fmt --per-file $F/f32_mod.bin $F/f32_mod2.bin
 cmp_run mode -t u8 -f $fmt --per-file $F/u8_rand.bin $F/f32_mod.bin
 cmp_run hist -f $fmt --per-file $F/u8_rand.bin $F/f32_mod.bin
 cmp_run hist -t f32 --bins 3 --range -1:1 -f $fmt --per-file $F/f32_mod.bin $F/f32_mod2.bin
 cmp_run hist -t f32 --bins 3 -f $fmt --per-file $F/f32_mod.bin $F/f32_mod2.bin
 cmp_run quantile -q 0.5,0.7 -f $fmt --per-file $F/f32_mod.bin $F/f32_mod2.bin "a,b.bin"
 cmp_run median -c 2 -f $fmt --per-file t2.txt t2.txt
 cmp_run hist --edges e.out -t f32 --bins 3 -f $fmt $F/f32_mod.bin
 cmp_run hist --edges e2.out -t u8 -f $fmt $F/u8_rand.bin
done
cp $F/f32_mod.bin "a,b.bin" 2>/dev/null
for s in sum stats count hist; do $A $s -f state -o $s.st $F/f32_mod.bin; $A $s -f state -o $s.st2 $F/f32_mod2.bin;
 for fmt in text tsv csv json binary npy; do cmp_run merge -f $fmt $s.st $s.st2; cmp_run merge --per-file -f $fmt $s.st $s.st2; done; done
echo "matrix: $n runs, $d differ"
rm -rf $W
