#!/bin/sh
# test_parallel.sh - the scale-out recipes of docs/SCALEOUT.md and the man
# page, run with GNU parallel itself: shards summarized as -f state by
# parallel jobs, locally and through --sshlogin (parallel's --ssh pointed
# at a stand-in that runs the command here, so no ssh server is needed),
# then merged; and the two-pass sharded scan. Each result must equal one
# run over the shards in a row, byte for byte. Skipped, with a note, where
# parallel is missing.
#
# Usage: sh tests/test_parallel.sh   (GPUSTAT=path overrides ./gpustat)
cd "$(dirname "$0")/.." || exit 2
NAME=parallel
. tests/lib.sh
IN=fixtures/in

if ! parallel --version 2>/dev/null | grep -q 'GNU parallel'; then
	echo "parallel: note: skipped (GNU parallel is not installed)"
	summary
	exit
fi
# gpustat as the recipes name it, on PATH
mkdir "$T/bin" && ln -s "$(cd "$(dirname "$G")" && pwd)/$(basename "$G")" \
	"$T/bin/gpustat" || exit 2
PATH=$T/bin:$PATH
export PATH
# ssh stand-in: skip ssh's options and the host, run the command here. A
# login through sshd always has SHELL set, and parallel's remote wrapper runs
# the job with $SHELL, so the stand-in sets it where the caller (CI) has none.
cat > "$T/bin/fakessh" <<'EOF'
#!/bin/sh
SHELL=${SHELL:-/bin/sh}
export SHELL
while [ $# -gt 0 ]; do
	case $1 in
	-l|-p|-o|-i|-F) shift 2 ;;
	-*) shift ;;
	*) break ;;
	esac
done
shift
[ "$1" = -- ] && shift
exec sh -c "$*"
EOF
chmod +x "$T/bin/fakessh"
par() { parallel --will-cite "$@"; }

# four shards of whole 2-column f64 records
mkdir "$T/shards"
i=0
for skip in 0 97 260 600; do
	i=$((i + 1))
	dd if=$IN/f64_mod.bin of="$T/shards/$i.f64" bs=8 skip=$skip count=$((i * 114)) 2> /dev/null
done
shards=$(ls "$T"/shards/*.f64)

# same NAME WANT GOT: files equal
same() {
	cmp -s "$2" "$3" && ok || bad "$1" "$(head -c 200 "$3")"
}

# local: states beside the shards, then merge
for cmd in "sum -t f64" "stats -t f64 -c 2" "hist -t f64 --bins 9 --range -100:100" \
	   "dot --pairs -t f64" "reduce --op max -t f64" "count -t f64"; do
	name=$(echo "$cmd" | tr ' :' '__')
	cat $shards | gpustat $cmd > "$T/want" 2>&1
	rm -f "$T"/shards/*.state
	par gpustat $cmd -f state -o {}.state {} ::: $shards
	gpustat merge "$T"/shards/*.state > "$T/got" 2>&1
	same "local_$name" "$T/want" "$T/got"
	# across machines: the states come back on the jobs' stdout
	par --ssh fakessh -S 1/host1,1/host2 gpustat $cmd -f state {} ::: $shards |
		gpustat merge > "$T/got" 2>&1
	same "remote_$name" "$T/want" "$T/got"
done

# the two-pass sharded scan: states of every shard, then each shard from
# the states of the shards before it (a file of several states is merged)
scan2() {
	ls $shards > "$T/list"
	"$@" gpustat scan -t f64 -f state -o "$T/{#}.state" {} :::: "$T/list"
	"$@" -k 'if [ {#} -eq 1 ]; then gpustat scan -t f64 {}; else
		cat $(seq -f '"$T"'/%.0f.state 1 $(({#} - 1))) > '"$T"'/{#}.carry &&
		gpustat scan -t f64 --carry-in '"$T"'/{#}.carry {}; fi' :::: "$T/list"
}
cat $shards | gpustat scan -t f64 > "$T/want"
scan2 par > "$T/got"
same scan_local "$T/want" "$T/got"
scan2 par --ssh fakessh -S 1/host1,1/host2 > "$T/got"
same scan_remote "$T/want" "$T/got"

summary
