# run_devscan.sh - tests/gpu/run.sh's part 2e, sourced by it (its
# functions and variables: gs, say, lap, $G, $OUT, $W, $DEVS, ...).
#
# 2e. scans over several pipelines (--devices): each chunk is scanned on
# its lane from its carry (the chunks before it reduced on their lanes and
# merged on the host), and the lanes write in stream order. Output, error
# line and exit status must be --backend cpu's, for every type and op, in
# many small chunks (1M), odd ones (7340033) and 3M, on 2 and 3 pipelines
# of GPU 0 and on every GPU of the host. Then the cases around it: the wide
# window, big-endian input, an overflow many chunks in, a carry-in, a pipe,
# -v's reason, faults on a lane and a reader that goes away.
dev_run() {	# name, args...: every --devices split = cpu
	dname=$1
	shift
	gs "$@" --backend cpu > "$W/ref" 2> "$W/ref.err"
	drc=$?
	for dev in $DEVS; do
		for opt in "--chunk-size 1M --streams 2" \
			   "--chunk-size 7340033 --streams 1" \
			   "--chunk-size 3M --streams 3"; do
			gs "$@" --devices $dev $opt > "$W/got" 2> "$W/got.err"
			dgot=$?
			if [ $dgot -eq $drc ] && cmp -s "$W/ref" "$W/got" &&
			   cmp -s "$W/ref.err" "$W/got.err"; then
				echo "pass --devices $dev $dname $opt"
			else
				echo "FAIL --devices $dev $dname $opt: exit $dgot, cpu $drc; $(head -c 300 "$W/got.err")"
				cmp "$W/ref" "$W/got" | head -2
			fi
		done
	done
}
dev_scans() {
	t=$1
	f=$D/r.$t.s
	W=$D/w.dev.$t
	mkdir -p "$W"
	dev_run "scan $t" scan -t $t "$f"
	dev_run "scan --exclusive $t" scan --exclusive -t $t "$f"
	dev_run "scan min $t" scan --op min -t $t "$f"
	dev_run "scan max -c3 $t" scan --op max -c 3 -t $t "$f"
	dev_run "scan -c4 $t" scan -c 4 -t $t "$f"
	dev_run "scan prod near 1 $t" scan --op prod -t $t "$D/n1.$t.s"
	case $t in
	bf16|f32|f64)
		dev_run "scan grid $t" scan -t $t "$D/g.$t"
		dev_run "scan grid --exclusive to f64 $t" scan --exclusive --out-type f64 -t $t "$D/g.$t"
		dev_run "scan grid, wide pair, NaN $t" scan -t $t "$D/g1.$t"
		dev_run "scan max, grid, wide pair, NaN $t" scan --op max -t $t "$D/g1.$t" ;;
	esac
	case $t in
	f*|bf16) dev_run "scan to f16 $t" scan --out-type f16 -t $t "$f" ;;
	*) dev_run "scan to i32 $t" scan --out-type i32 -t $t "$f" ;;
	esac
	rm -rf "$W"
}
for t in $DEVSCAN_TYPES; do
	dev_scans $t > "$OUT/devscan.$t.log" 2>&1 &
done
wait
{
W=$D/w.dev
mkdir -p "$W"
# f32 bits read as doubles: hundreds of binades, the wide 34-limb sum
dev_run "scan f64 of f32 bits (wide window)" scan -t f64 "$D/r.f32.s"
dev_run "scan big-endian f32" scan -t '>f4' "$D/r.f32.s"
dev_run "scan max big-endian i16 -c2" scan --op max -t '>i2' -c 2 "$D/r.i16.s"
# a u32 prefix overflows near record 33.7M: dozens of chunks in
cat "$D/r.u8.s" "$D/r.u8.s" > "$W/r.u8.ss"
dev_run "scan u8 to u32 overflowing" scan -t u8 --out-type u32 "$W/r.u8.ss"
# a carry-in (the CPU's state of the first third) seeds the lanes
for args in "-t f32" "-t i32 --op max"; do
	f=$D/r.$(echo $args | cut -d' ' -f2).s
	cut1=$(( $(stat -c %s "$f") / 12 * 4 ))
	head -c $cut1 "$f" > "$W/p1"
	tail -c +$((cut1 + 1)) "$f" > "$W/p2"
	gs scan $args --backend cpu "$f" > "$W/whole"
	gs scan $args -f state --backend cpu "$W/p1" > "$W/c2"
	{ gs scan $args --backend cpu "$W/p1"
	  gs scan $args --devices 0,0 --chunk-size 1M --carry-in "$W/c2" "$W/p2"; } > "$W/pieces"
	cmp -s "$W/whole" "$W/pieces" && echo "pass --devices 0,0 carry-in scan $args" ||
		echo "FAIL --devices 0,0 carry-in scan $args: the pieces differ from the whole"
done
# a pipe (unknown length)
gs scan -t f32 --backend cpu "$D/r.f32.s" > "$W/ref"
cat "$D/r.f32.s" | gs scan -t f32 --devices 0,0 --chunk-size 1M > "$W/got"
cmp -s "$W/ref" "$W/got" && echo "pass --devices 0,0 scan of a pipe" ||
	echo "FAIL --devices 0,0 scan of a pipe"
# -v: which backend ran, and why
r=$(gs scan -t f32 --devices 0,0 -v "$D/r.f32.s" 2>&1 >/dev/null | grep '^gpustat: backend: ')
case $r in
*"backend: cuda (several GPUs) ("*"each scanned from its carry"*) echo "pass -v --devices scan: $r" ;;
*) echo "FAIL -v --devices scan: $r" ;;
esac
r=$(gs scan --op prod -t f32 --devices 0,0 -v "$D/n1.f32.s" 2>&1 >/dev/null | grep '^gpustat: backend: ')
case $r in
*"backend: cuda ("*"a product scan runs on the first GPU"*) echo "pass -v --devices prod scan: $r" ;;
*) echo "FAIL -v --devices prod scan: $r" ;;
esac
# a fault on the lanes: one error line, a failing exit, and what was
# written a prefix of the CPU's output
for at in 1 2 5; do
	GPUSTAT_FAULT_CHUNK=$at timeout 60 $G scan -t f32 --devices 0,0 \
		--chunk-size 1M "$D/r.f32.s" > "$W/got" 2> "$W/got.err"
	frc=$?
	n=$(wc -c < "$W/got")
	if [ $frc -ne 0 ] && [ $frc -ne 124 ] && [ "$(wc -l < "$W/got.err")" -eq 1 ] &&
	   cmp -s -n "$n" "$W/got" "$W/ref"; then
		echo "pass --devices 0,0 scan, fault in chunk $at of each lane: exit $frc, $n bytes"
	else
		echo "FAIL --devices 0,0 scan, fault in chunk $at of each lane: exit $frc, $n bytes; $(head -c 300 "$W/got.err")"
	fi
done
# the reader goes away: the run ends, no lane waits for its turn forever
{ gs scan -t f32 --devices 0,0,0 --chunk-size 1M "$D/r.f32.s" 2> /dev/null
  echo $? > "$W/rc"; } | head -c 100000 > /dev/null
[ "$(cat "$W/rc")" != 124 ] && echo "pass --devices 0,0,0 scan into a closed pipe ends (exit $(cat "$W/rc"))" ||
	echo "FAIL --devices 0,0,0 scan into a closed pipe: timed out"
rm -rf "$W"
} > "$OUT/devscan.more.log" 2>&1
cat "$OUT"/devscan.*.log > "$OUT/devscan.log"
rm -f "$OUT"/devscan.*.log
say "scans over several pipelines (--devices), = cpu: $(grep -c '^pass' "$OUT/devscan.log") passed, $(grep -c '^FAIL' "$OUT/devscan.log") failed"
grep '^FAIL' "$OUT/devscan.log" | cut -c1-300 >> "$summary"
lap devscan
