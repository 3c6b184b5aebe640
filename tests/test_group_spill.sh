#!/bin/sh
# test_group_spill.sh - --by past its memory limit (issue 31 item 3): a tiny
# GPUSTAT_GROUP_LIMIT makes the key table spill sorted runs to $TMPDIR and
# merge them at the end; everything must be the bytes of the run that
# never spilled:
#  - sum, count, stats, reduce --op min|max of every data set of
#    tests/group_ref.py (widened sums: G's values span 2^-60..2^60 and C's
#    i64 squares pass 128 bits; NaN, -0 and inf keys) at limits of 1K and
#    64K, -j 1, 2 and 4, chunk sizes 1000 and 4K; text, json and npy;
#    text keys (strings);
#  - G's sums against exact fractions rounded once (group_ref.py);
#  - -f state of a spilled run, and states of spilled shards merged;
#    --per-file;
#  - no temp file left in $TMPDIR; $TMPDIR missing, or a write that fails
#    (a file size limit: EFBIG, as a full disk's ENOSPC), is one line
#    naming the keys and the memory, exit 1, nothing on stdout; a read
#    back that fails while the rows are written (tests/pread_shim.c) too,
#    the rows stopping at it;
#  - the rows streamed: a spilled run's peak memory (/usr/bin/time) below
#    the bytes it prints, the same bytes to a file, -o, a pipe; a failed
#    write leaves -o's FILE as it was.
#  - states streamed: -f state, merge (of files and of a pipe, -f state
#    and rows) and --per-file's states and rows, each one run's bytes, at
#    a peak memory below them; --per-file's rows in text, tsv, csv, json
#    and npy, labelled, the separate runs' bytes, to a file and a pipe,
#    at a peak within half their bytes of binary rows'; a state whose keys are out of order or
#    twice refused; a -f state whose write fails leaves -o's FILE as it was.
#
# Usage: sh tests/test_group_spill.sh   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "group_spill: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=group_spill
. tests/lib.sh

if ! command -v python3 > /dev/null; then
	bad "python3" "needed to make the records"
	summary
	exit
fi
python3 tests/group_ref.py gen "$T" || bad "generate" "group_ref.py failed"
printf "TYPES='i32,f64'\nBY='1'\n" > "$T/G/info"
mkdir "$T/tmp"
export TMPDIR="$T/tmp"

# same NAME: $T/got is $T/want byte for byte (never empty)
same() {
	[ -s "$T/want" ] || { bad "$1" "no expected output"; return; }
	cmp -s "$T/got" "$T/want" && ok ||
		bad "$1" "got '$(head -c 200 "$T/got")', want '$(head -c 200 "$T/want")'"
}

# spilled NAME ARGS...: ARGS at small limits, threads and chunks print
# $T/want's bytes
spilled() {
	name=$1
	shift
	for lim in 1K 64K; do
		for o in "-j 1" "-j 2 --chunk-size 1000" "-j 4 --chunk-size 4K"; do
			GPUSTAT_GROUP_LIMIT=$lim "$G" "$@" $o > "$T/got" 2>&1
			same "$name, limit $lim $o"
		done
	done
}

for set in A B C E F G; do
	d=$T/$set
	. "$d/info"
	for cmd in sum count stats "reduce --op min" "reduce --op max"; do
		"$G" $cmd --by "$BY" -t "$TYPES" "$d/data.bin" > "$T/want"
		spilled "$set $cmd" $cmd --by "$BY" -t "$TYPES" "$d/data.bin"
	done
	for f in json npy state; do
		"$G" stats --by "$BY" -t "$TYPES" -f $f "$d/data.bin" > "$T/want"
		GPUSTAT_GROUP_LIMIT=1K "$G" stats --by "$BY" -t "$TYPES" -f $f \
			-j 2 --chunk-size 1000 "$d/data.bin" > "$T/got" 2>&1
		same "$set stats -f $f"
	done
done
# limits below one empty table (--per-file's total takes keys one by one):
# nothing to spill yet is no empty run
d=$T/A
. "$d/info"
"$G" sum --by "$BY" -t "$TYPES" --per-file "$d/data.bin" "$d/data.bin" \
	> "$T/want"
for lim in 1 200; do
	GPUSTAT_GROUP_LIMIT=$lim "$G" sum --by "$BY" -t "$TYPES" -j 2 \
		--chunk-size 1000 --per-file "$d/data.bin" "$d/data.bin" \
		> "$T/got" 2>&1
	same "limit $lim"
done
[ -z "$(ls -A "$T/tmp")" ] && ok || bad "temp files" "left: $(ls "$T/tmp")"

# text keys (strings, rows in the order of their bytes)
python3 -c '
import random
random.seed(3)
print("station,temp")
for i in range(20000):
    print("s%d,%.3f" % (random.randint(0, 3000), random.uniform(-50, 50)))
' > "$T/t.csv"
"$G" stats --header --by station -F temp "$T/t.csv" > "$T/want"
spilled "text stats" stats --header --by station -F temp "$T/t.csv"

# the sums exact, though every key went through many runs
GPUSTAT_GROUP_LIMIT=1K "$G" sum --by 1 -t i32,f64 -j 2 --chunk-size 4K \
	"$T/G/data.bin" > "$T/got"
[ "$(wc -l < "$T/got")" -gt 4000 ] && ok || bad "G keys" "too few keys"
python3 tests/group_ref.py sums "$T" G < "$T/got" && ok ||
	bad "G sums" "not the exact sums rounded once"

# states of spilled shards, merged (spilling too), are one run's bytes
d=$T/G
head -c 360000 "$d/data.bin" > "$T/s1"
head -c 840000 "$d/data.bin" | tail -c +360001 > "$T/s2"
tail -c +840001 "$d/data.bin" > "$T/s3"
for cmd in sum stats count; do
	"$G" $cmd --by 1 -t i32,f64 -f state "$d/data.bin" > "$T/whole"
	for i in 1 2 3; do
		GPUSTAT_GROUP_LIMIT=1K "$G" $cmd --by 1 -t i32,f64 -f state \
			-o "$T/st$i" -j 2 --chunk-size 4K "$T/s$i" ||
			bad "state $cmd $i" "failed"
	done
	GPUSTAT_GROUP_LIMIT=1K "$G" merge -f state "$T/st3" "$T/st1" \
		"$T/st2" > "$T/got" 2>&1
	cp "$T/whole" "$T/want"
	same "merge -f state $cmd of spilled shards"
	"$G" $cmd --by 1 -t i32,f64 "$d/data.bin" > "$T/want"
	GPUSTAT_GROUP_LIMIT=1K "$G" merge "$T/st1" "$T/st2" "$T/st3" \
		> "$T/got" 2>&1
	same "merge $cmd of spilled shards"
done
"$G" stats --by 1 -t i32,f64 --per-file "$T/s1" "$T/s2" "$T/s3" > "$T/want"
GPUSTAT_GROUP_LIMIT=1K "$G" stats --by 1 -t i32,f64 --per-file -j 2 \
	"$T/s1" "$T/s2" "$T/s3" > "$T/got" 2>&1
same "--per-file"
[ -z "$(ls -A "$T/tmp")" ] && ok || bad "temp files" "left: $(ls "$T/tmp")"

# failing: one line naming the keys and the memory, exit 1
failing() {
	name=$1
	rc=$2
	[ "$rc" -eq 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" -eq 1 ] &&
		grep -q '^gpustat: --by: [0-9]* keys .* [0-9.]* MiB of accumulators, over the limit of [0-9.]* MiB, and spilling them to .* failed: ' "$T/err" &&
		ok || bad "$name" "rc $rc: $(cat "$T/err")"
}
TMPDIR=$T/none GPUSTAT_GROUP_LIMIT=64K "$G" sum --by 1 -t i32,f64 \
	"$d/data.bin" > "$T/out" 2> "$T/err"
failing "no \$TMPDIR" $?
grep -q "$T/none failed: No such file" "$T/err" && ok ||
	bad "no \$TMPDIR" "not named: $(cat "$T/err")"
# a write that fails: a file size limit of 16 blocks (SIGXFSZ ignored, so
# write says EFBIG); stdout is a device, not limited
(trap '' XFSZ; ulimit -f 16 &&
	GPUSTAT_GROUP_LIMIT=64K exec "$G" stats --by 1 -t i32,f64 \
	"$d/data.bin" > /dev/null 2> "$T/err")
rc=$?
: > "$T/out"
failing "a write fails" $rc
[ -z "$(ls -A "$T/tmp")" ] && ok || bad "temp files" "left: $(ls "$T/tmp")"

# a read of the spilled table that fails while its rows are written (an
# LD_PRELOAD shim fails the Nth pread: EIO): one line, exit 1, nothing on
# stdout (a pipe), and the rows stop there: no read after the failed one
# (each one after it would have read on, rows of zeros for the block's
# entries the window could not give). The last reads are the rows'
# windows (100,000 keys: about 8 of them).
if [ -z "$GPUSTAT_ASAN" ] && command -v cc > /dev/null 2>&1 &&
   cc -shared -fPIC -o "$T/pread.so" tests/pread_shim.c -ldl 2> /dev/null; then
	python3 -c '
import random, struct, sys
random.seed(9)
k = list(range(100000))
random.shuffle(k)
sys.stdout.buffer.write(b"".join(struct.pack("<qd", x, x / 8) for x in k))
' > "$T/rd.bin"
	rd() {
		GPUSTAT_GROUP_LIMIT=64K GS_PREAD_COUNT=1 LD_PRELOAD=$T/pread.so \
			"$G" sum --by 1 -t i64,f64 -j 1 "$T/rd.bin" "$@"
	}
	calls=$(rd 2>&1 > /dev/null | tail -1 | sed 's/^pread_shim: //')
	for back in 0 3; do
		at=$((calls - back))
		(GS_PREAD_FAIL_AT=$at rd 2> "$T/err2"; echo $? > "$T/rc") |
			cat > "$T/out"
		grep -v '^pread_shim' "$T/err2" > "$T/err"
		failing "a read of the rows fails (pread $at of $calls)" \
			"$(cat "$T/rc")"
		last=$(grep '^pread_shim' "$T/err2" | tail -1 | sed 's/^.*: //')
		[ "$last" = $((at - 1)) ] && ok ||
			bad "rows stop at a failed read" "pread $last after $at"
	done
else
	echo "group_spill: note: no cc, or under ASan: failed reads skipped"
fi
[ -z "$(ls -A "$T/tmp")" ] && ok || bad "temp files" "left: $(ls "$T/tmp")"

# the result streams (result_out.h): 120,000 keys of 15 value columns
# print 30 MB of binary rows (and 8 MB of text), which a spilled run
# writes a MiB at a time, never holding them: its peak memory stays below
# the rows' bytes. The same bytes to a file, -o, a pipe (kept under
# $TMPDIR until whole) and a pipe without $TMPDIR (held in memory).
python3 -c '
import random, struct, sys
random.seed(5)
k = list(range(120000))
random.shuffle(k)
sys.stdout.buffer.write(b"".join(struct.pack("<i15B", x, *([x % 251] * 15))
				 for x in k))
' > "$T/wide.bin"
W="-t i32$(printf ',u8%.0s' 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)"
for f in binary text; do
	"$G" count --by 1 $W -f $f "$T/wide.bin" > "$T/want"
	GPUSTAT_GROUP_LIMIT=4M "$G" count --by 1 $W -f $f -j 2 "$T/wide.bin" \
		> "$T/got" 2>&1
	same "streamed -f $f"
	GPUSTAT_GROUP_LIMIT=4M "$G" count --by 1 $W -f $f -j 2 "$T/wide.bin" \
		-o "$T/got" 2>&1
	same "streamed -f $f -o"
	GPUSTAT_GROUP_LIMIT=4M "$G" count --by 1 $W -f $f -j 2 "$T/wide.bin" \
		2>&1 | cat > "$T/got"
	same "streamed -f $f, a pipe"
	TMPDIR=$T/none "$G" count --by 1 $W -f $f "$T/wide.bin" 2>&1 |
		cat > "$T/got"
	same "streamed -f $f, a pipe without \$TMPDIR"
done
[ "$(wc -c < "$T/want")" -gt 7000000 ] && ok || bad "streamed text" "short"
if [ -x /usr/bin/time ] && [ -z "$GPUSTAT_ASAN" ]; then
	GPUSTAT_GROUP_LIMIT=4M /usr/bin/time -f '%M' -o "$T/rss" "$G" count \
		--by 1 $W -f binary -j 2 "$T/wide.bin" > "$T/got"
	kib=$(tail -1 "$T/rss")
	bytes=$(wc -c < "$T/got")
	[ "$bytes" -eq 29760000 ] && [ "$kib" -lt $((bytes / 1024 * 3 / 4)) ] &&
		ok || bad "streamed memory" "peak $kib KiB for $bytes bytes of rows"
else	# ASan's shadow memory makes RSS meaningless
	echo "group_spill: note: skipped the memory check (no /usr/bin/time, or ASan)"
fi
# states stream too: -f state writes a key at a time, merge reads its
# states a piece at a time into a table bounded as a run's, --per-file's
# states and binary rows go out as they are made. The same bytes across
# -j, limits, shards (and a pipe of them); each run's peak memory below
# the bytes it writes (a 30 MB state; before, -f state held its payload
# twice, merge every state whole and its table unbounded)
"$G" count --by 1 $W -f state "$T/wide.bin" > "$T/wst"
head -c 1140000 "$T/wide.bin" > "$T/w1"	# 60,000 records of 19 bytes
tail -c +1140001 "$T/wide.bin" > "$T/w2"
"$G" count --by 1 $W -f state "$T/w1" > "$T/ws1"
GPUSTAT_GROUP_LIMIT=4M "$G" count --by 1 $W -f state -j 2 "$T/w2" > "$T/ws2"
cp "$T/wst" "$T/want"
for j in 1 2; do
	GPUSTAT_GROUP_LIMIT=4M "$G" count --by 1 $W -f state -j $j \
		"$T/wide.bin" > "$T/got" 2>&1
	same "streamed -f state -j $j"
done
GPUSTAT_GROUP_LIMIT=4M "$G" merge -f state "$T/ws2" "$T/ws1" > "$T/got" 2>&1
same "streamed merge -f state"
cat "$T/ws1" "$T/ws2" | GPUSTAT_GROUP_LIMIT=64K "$G" merge -f state \
	> "$T/got" 2>&1
same "streamed merge -f state of a pipe"
"$G" count --by 1 $W -f binary "$T/wide.bin" > "$T/want"
GPUSTAT_GROUP_LIMIT=4M "$G" merge -f binary "$T/ws1" "$T/ws2" > "$T/got" 2>&1
same "streamed merge -f binary"
"$G" count --by 1 $W -f binary --per-file "$T/w1" "$T/w2" > "$T/want"
GPUSTAT_GROUP_LIMIT=4M "$G" merge -f binary --per-file "$T/ws1" "$T/ws2" \
	> "$T/got" 2>&1
same "streamed merge --per-file"
cat "$T/ws1" "$T/ws2" > "$T/want"
GPUSTAT_GROUP_LIMIT=4M "$G" count --by 1 $W -f state --per-file -j 2 \
	"$T/w1" "$T/w2" > "$T/got" 2>&1
same "streamed --per-file -f state"
# --per-file's rows in text, tsv, csv, json and npy go out as they are
# made too, each operand's labelled as perfile.h says: byte for byte the
# separate runs' outputs, labelled here (the total: one run over both);
# npy's results must share a shape: wide.bin twice
pf_want() {	# pf_want FORMAT OPERAND... (the last: the total's data)
	f=$1
	shift
	i=0
	for op in "$@"; do
		i=$((i + 1))
		"$G" count --by 1 $W -f $f "$op" > "$T/pf$i"
	done
	python3 - "$f" "$T" "$#" "$@" <<'PY'
import json, sys
f, t, n, ops = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
res = [open("%s/pf%d" % (t, i + 1), "rb").read() for i in range(n)]
names = ops[:-1] + [None]
out = sys.stdout.buffer
if f == "json":
    out.write(b"[" + b",\n".join(
        b'{"file":' + json.dumps(nm).encode() + b"," + r.rstrip(b"\n")[1:]
        for r, nm in zip(res, names)) + b"]\n")
elif f == "npy":
    hl = res[0][8] | res[0][9] << 8
    d = res[0][10:10 + hl].rstrip(b" \n").replace(
        b"'shape': (", b"'shape': (%d, " % n)
    pad = -(10 + len(d) + 1) % 64
    out.write(b"\x93NUMPY\x01\x00" + bytes([(len(d) + pad + 1) & 255,
              (len(d) + pad + 1) >> 8]) + d + b" " * pad + b"\n")
    for r in res:
        out.write(r[10 + (r[8] | r[9] << 8):])
else:
    sep = b"," if f == "csv" else b"\t"
    for i, (r, nm) in enumerate(zip(res, names)):
        lines = r.split(b"\n")[:-1]
        if f != "text":
            if i == 0:
                out.write(lines[0] + sep + b"file\n")
            lines = lines[1:]
        for ln in lines:
            out.write(ln + sep + (nm or "total").encode() + b"\n")
PY
}
cat "$T/wide.bin" "$T/wide.bin" > "$T/wide2.bin"
for f in text tsv csv json npy; do
	case $f in
	npy) ops="$T/wide.bin $T/wide.bin" all=$T/wide2.bin ;;
	*) ops="$T/w1 $T/w2" all=$T/wide.bin ;;
	esac
	pf_want $f $ops "$all" > "$T/want"
	GPUSTAT_GROUP_LIMIT=4M "$G" count --by 1 $W -f $f --per-file -j 2 \
		$ops > "$T/got" 2>&1
	same "streamed --per-file -f $f"
	GPUSTAT_GROUP_LIMIT=4M "$G" count --by 1 $W -f $f --per-file $ops \
		2>&1 | cat > "$T/got"
	same "streamed --per-file -f $f, a pipe"
done
# a state is read a key at a time, each after the one before: a key out
# of order, or twice, is no state (and nothing is written)
python3 -c '
import sys
s = open(sys.argv[1], "rb").read()
e = s.index(b"\n\n") + 2 + 88	# the header, the grouping: 15 u32 columns
n = 248				# a key of 15 counts
open(sys.argv[2], "wb").write(s[:e] + s[e + n:e + 2 * n] + s[e:e + n] + s[e + 2 * n:])
open(sys.argv[3], "wb").write(s[:e] + s[e:e + n] + s[e:e + 2 * n] + s[e + 2 * n:])
' "$T/ws1" "$T/swapped" "$T/twice"
for f in swapped twice; do
	"$G" merge "$T/ws2" "$T/$f" > "$T/out" 2> "$T/err"
	rc=$?
	[ "$rc" -eq 1 ] && [ ! -s "$T/out" ] &&
		grep -q "^gpustat: $T/$f: state payload: not what a group state holds$" "$T/err" &&
		ok || bad "merge of a state with a key $f" "rc $rc: $(cat "$T/err")"
done
# a merge's table past its limit spills as a run's: where it cannot, one
# line (not one per state after), nothing written
TMPDIR=$T/none GPUSTAT_GROUP_LIMIT=64K "$G" merge -f state "$T/ws1" \
	"$T/ws2" "$T/ws1" > "$T/out" 2> "$T/err"
failing "merge, no \$TMPDIR" $?
# peak NAME BYTES CMD...: CMD's peak memory below 3/4 of BYTES
peak() {
	name=$1
	bytes=$2
	shift 2
	GPUSTAT_GROUP_LIMIT=4M /usr/bin/time -f '%M' -o "$T/rss" "$@" \
		> "$T/got" 2> "$T/err"
	kib=$(tail -1 "$T/rss")
	[ "$(wc -c < "$T/got")" -eq "$bytes" ] &&
		[ "$kib" -lt $((bytes / 1024 * 3 / 4)) ] && ok ||
		bad "$name" "peak $kib KiB for $(wc -c < "$T/got") of $bytes bytes: $(head -c 200 "$T/err")"
}
if [ -x /usr/bin/time ] && [ -z "$GPUSTAT_ASAN" ]; then
	n=$(wc -c < "$T/wst")
	peak "streamed -f state memory" "$n" "$G" count --by 1 $W -f state \
		-j 2 "$T/wide.bin"
	peak "streamed merge -f state memory" "$n" "$G" merge -f state \
		"$T/ws1" "$T/ws2"
	peak "streamed merge memory" 29760000 "$G" merge -f binary \
		"$T/ws1" "$T/ws2"
	peak "streamed --per-file -f state memory" $(($(wc -c < "$T/ws1") * 2)) \
		"$G" count --by 1 $W -f state --per-file "$T/w1" "$T/w2"
	peak "streamed merge --per-file memory" 59520000 "$G" merge -f binary \
		--per-file "$T/ws1" "$T/ws2"
	# --per-file's labelled rows: never a result held whole (before,
	# each operand's was, and then all of them joined): the peak within
	# half the output's bytes of binary rows' (which stream) peak
	GPUSTAT_GROUP_LIMIT=4M /usr/bin/time -f '%M' -o "$T/rss" "$G" count \
		--by 1 $W -f binary --per-file "$T/w1" "$T/w2" > /dev/null
	base=$(tail -1 "$T/rss")
	for f in text csv json npy; do
		ops="$T/w1 $T/w2"
		[ $f = npy ] && ops="$T/wide.bin $T/wide.bin"
		GPUSTAT_GROUP_LIMIT=4M /usr/bin/time -f '%M' -o "$T/rss" "$G" \
			count --by 1 $W -f $f --per-file $ops > "$T/got"
		kib=$(tail -1 "$T/rss")
		bytes=$(wc -c < "$T/got")
		[ "$bytes" -gt 16000000 ] &&
			[ "$kib" -lt $((base + bytes / 2048)) ] && ok ||
			bad "streamed --per-file -f $f memory" \
				"peak $kib KiB for $bytes bytes (binary's $base KiB)"
	done
fi
# a write that fails half-way: -o FILE is left as it was, no temp file
echo before > "$T/keep"
(trap '' XFSZ; ulimit -f 4096 && GPUSTAT_GROUP_LIMIT=4M exec "$G" count \
	--by 1 $W -f binary "$T/wide.bin" -o "$T/keep" 2> "$T/err")
rc=$?
[ "$rc" -ne 0 ] && [ "$(cat "$T/keep")" = before ] &&
	[ "$(wc -l < "$T/err")" -eq 1 ] && ok ||
	bad "streamed, a write fails" "rc $rc, $(head -c 100 "$T/keep"): $(cat "$T/err")"
(trap '' XFSZ; ulimit -f 4096 && GPUSTAT_GROUP_LIMIT=4M exec "$G" count \
	--by 1 $W -f state "$T/wide.bin" -o "$T/keep" 2> "$T/err")
rc=$?
[ "$rc" -ne 0 ] && [ "$(cat "$T/keep")" = before ] &&
	[ "$(wc -l < "$T/err")" -eq 1 ] && ok ||
	bad "streamed state, a write fails" "rc $rc, $(head -c 100 "$T/keep"): $(cat "$T/err")"
# a spool that fills (a file-size limit on $TMPDIR's file): what it held
# goes back into memory, and the pipe gets the whole result once
"$G" count --by 1 $W -f text "$T/wide.bin" > "$T/want"
(trap '' XFSZ; ulimit -f 2048 && exec "$G" count --by 1 $W -f text \
	"$T/wide.bin") 2>&1 | cat > "$T/got"
same "streamed, a spool that fills"
# appending: the result waits in the spool (what is appended cannot be
# cut back), the file's bytes before it stay
echo before > "$T/app"
cp "$T/app" "$T/want2"
cat "$T/want" >> "$T/want2"
"$G" count --by 1 $W -f text "$T/wide.bin" >> "$T/app" 2>&1
cmp -s "$T/app" "$T/want2" && ok || bad "streamed >>" "not the file plus the rows"
[ -z "$(ls -A "$T/tmp")" ] && ok || bad "temp files" "left: $(ls "$T/tmp")"
[ -z "$(ls -A "$T" | grep '^\.keep')" ] && ok || bad "temp files" "-o's left"


# each thread's own table and scatter buffers are held within the limit
# (cpu_group.c): 1e6 keys under a 16 MiB limit on 8 threads peak within
# the plain sum's peak (the reading buffers) and 1.5 times the limit
# (8 threads' arrays of a sixteenth of the limit each, twice, would be 2
# times it). glibc's per-thread arenas keep what the threads freed, which is
# not what the run holds: one arena, so that the peak is what it holds.
if [ -x /usr/bin/time ] && [ -z "$GPUSTAT_ASAN" ]; then
	python3 -c '
import array, random, sys
random.seed(9)
k = array.array("i", range(1000000)) * 2
random.shuffle(k)
r = array.array("i", [0x3fc00000]) * (2 * len(k))
r[0::2] = k
sys.stdout.buffer.write(r.tobytes())
' > "$T/many.bin"
	export MALLOC_ARENA_MAX=1 GPUSTAT_NO_VIEWS=1
	set -- -t i32,f32 -j 8 --chunk-size 1M --backend cpu "$T/many.bin"
	/usr/bin/time -f '%M' -o "$T/rss" "$G" sum "$@" > /dev/null
	base=$(tail -1 "$T/rss")
	"$G" sum --by 1 "$@" > "$T/want"
	GPUSTAT_GROUP_LIMIT=16M /usr/bin/time -f '%M' -o "$T/rss" "$G" sum \
		--by 1 "$@" > "$T/got"
	kib=$(tail -1 "$T/rss")
	same "threads' arrays within the limit: bytes"
	why="peak $kib KiB, the plain sum's $base KiB, the limit 16384 KiB"
	[ "$kib" -lt $((base + 16384 * 3 / 2)) ] && ok ||
		bad "threads' arrays within the limit" "$why"
	unset MALLOC_ARENA_MAX GPUSTAT_NO_VIEWS
fi

summary
