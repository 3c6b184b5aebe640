#!/bin/sh
# test_output.sh - gpustat never destroys a file it is given and never
# leaves a partial result where a whole one is expected:
#   - an output that is one of the inputs (-o FILE, or stdout redirected to
#     it; the same inode through a hard link or a symlink too; operands and
#     scan's --carry-in STATE alike) is refused
#     before anything is written, and the file is left as it was;
#   - -o FILE is replaced only by a run that succeeds: failed, overflowing
#     and interrupted runs leave it as it was, with no temporary file left
#     beside it; a new FILE keeps the old one's mode;
#   - scan -f npy patches its header where its output began (after other
#     output in the same file), appends as a stream under >>, and matches
#     the kept elements after an error;
#   - dot with both sides on one open stream is a usage error;
#   - a stop request ends a scan whose output is blocked;
#   - text output that cannot grow its buffer is an error, not a cut result.
#
# Usage: sh tests/test_output.sh   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "output: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=output
. tests/lib.sh
# absolute: the checks run in a directory of their own
case $G in /*) ;; *) G=$(pwd)/${G#./} ;; esac
F=$(pwd)/fixtures/in

# check NAME COND WHY: ok when the shell condition COND holds.
check() {
	if eval "$2"; then ok; else bad "$1" "$3"; fi
}

# no_tmp NAME DIR: no temporary output file was left in DIR.
no_tmp() {
	left=$(ls -A "$2" | grep 'gpustat-' || true)
	check "$1 (no temporary file)" '[ -z "$left" ]' "left behind: $left"
}

# status NAME WANT PATTERN: the last run ($rc, $T/err) exited WANT with one
# "gpustat: " line holding PATTERN.
status() {
	if [ "$rc" -ne "$2" ]; then
		bad "$1" "exit $rc, wanted $2: $(head -n 1 "$T/err")"
	elif [ "$(grep -c '^gpustat: ' "$T/err")" -ne 1 ] ||
	     ! grep -qF -- "$3" "$T/err"; then
		bad "$1" "stderr: $(cat "$T/err")"
	else
		ok
	fi
}

W=$T/w
mkdir "$W"
cp "$F/f32_rand.bin" "$W/data.f32"
cp "$W/data.f32" "$W/orig"

# --- an output that is an input --------------------------------------------
cd "$W" || exit 2
for how in same symlink hardlink; do
	case $how in
	same) in=data.f32 ;;
	symlink) ln -sf data.f32 link.f32; in=link.f32 ;;
	hardlink) ln -f data.f32 hard.f32; in=hard.f32 ;;
	esac
	for cmd in "scan" "sum" "hist -t f32 --bins 4 --range 0:1"; do
		"$G" $cmd "$in" -o data.f32 > "$T/out" 2> "$T/err"
		rc=$?
		status "o_is_input_${how}_${cmd%% *}" 1 "data.f32"
		check "o_is_input_${how}_${cmd%% *} (intact)" 'cmp -s data.f32 orig' \
			"data.f32 changed"
	done
done
# -o naming the input through a symlink to it
ln -sf data.f32 out_link
"$G" scan data.f32 -o out_link > "$T/out" 2> "$T/err"
rc=$?
status o_symlink_to_input 1 "out_link"
check "o_symlink_to_input (intact)" 'cmp -s data.f32 orig' "data.f32 changed"
# stdout appended to the input: grew without end before
# (timeout: a gpustat that reads its own output never ends)
to=; command -v timeout > /dev/null 2>&1 && to="timeout 3"
$to "$G" scan data.f32 >> data.f32 2> "$T/err"
rc=$?
status stdout_is_input 1 "data.f32"
check "stdout_is_input (intact)" 'cmp -s data.f32 orig' "data.f32 changed"
$to "$G" sum < data.f32 >> data.f32 2> "$T/err"
rc=$?
status stdout_is_stdin 1 "stdin"
check "stdout_is_stdin (intact)" 'cmp -s data.f32 orig' "data.f32 changed"
# an unrelated file on stdout is fine
"$G" sum data.f32 > other.txt 2> "$T/err"
rc=$?
check stdout_other '[ $rc -eq 0 ] && [ -s other.txt ]' "exit $rc: $(cat "$T/err")"
# scan --carry-in reads its STATE: -o or stdout naming it (or a hard link
# to it) overwrote or grew the carry before
"$G" scan -f state -o carry data.f32
cp carry carry.orig
ln -f carry carry.hard
"$G" scan --carry-in carry -o carry data.f32 > "$T/out" 2> "$T/err"
rc=$?
status carry_is_o 1 "-o names an input file (carry)"
check "carry_is_o (intact)" 'cmp -s carry carry.orig' "carry changed"
"$G" scan -f state --carry-in carry.hard -o carry data.f32 > "$T/out" 2> "$T/err"
rc=$?
status carry_is_o_hardlink 1 "carry.hard"
check "carry_is_o_hardlink (intact)" 'cmp -s carry carry.orig' "carry changed"
$to "$G" scan --carry-in carry data.f32 >> carry 2> "$T/err"
rc=$?
status carry_is_stdout_append 1 "input file is the output (stdout)"
check "carry_is_stdout_append (intact)" 'cmp -s carry carry.orig' "carry changed"
$to "$G" scan -f state --carry-in carry data.f32 > carry 2> "$T/err"
rc=$?
status carry_is_stdout 1 "input file is the output (stdout)"
check "carry_is_stdout (nothing written)" '[ ! -s carry ]' "$(wc -c < carry) bytes"
cp carry.orig carry
no_tmp o_is_input "$W"

# --- -o FILE only replaced on success ---------------------------------------
printf 'old\n' > keep
chmod 640 keep
"$G" scan data.f32 -o keep 2> "$T/err"
rc=$?
check o_success '[ $rc -eq 0 ] && [ "$(wc -c < keep)" -eq "$(wc -c < data.f32)" ]' \
	"exit $rc, $(wc -c < keep) bytes"
check o_success_mode '[ "$(stat -c %a keep)" = 640 ]' "mode $(stat -c %a keep)"
mode_new=$(umask 022; "$G" sum data.f32 -o new.txt; stat -c %a new.txt)
check o_new_mode '[ "$mode_new" = 644 ]' "mode $mode_new under umask 022"

# fail_keeps NAME STATUS CMD...: CMD (-o keep) fails with STATUS and keep
# still reads "old".
fail_keeps() {
	name=$1 want=$2
	shift 2
	printf 'old\n' > keep
	"$@" > "$T/out" 2> "$T/err"
	rc=$?
	if [ $rc -ne "$want" ]; then
		bad "$name" "exit $rc, wanted $want: $(head -n 1 "$T/err")"
	elif [ "$(cat keep)" != old ]; then
		bad "$name" "keep now holds $(wc -c < keep) bytes"
	else
		ok
	fi
	no_tmp "$name" "$W"
}
# -o naming the descriptor stdout is on: written in place, where stdout
# stands (renaming a file over it lost what else the script wrote there)
for dev in /dev/stdout /proc/self/fd/1; do
	{ echo header; "$G" sum data.f32 -o $dev; echo trailer; } > log.txt 2> "$T/err"
	check "o_dev_stdout_$dev" '[ "$(head -n 1 log.txt)" = header ] &&
		[ "$(tail -n 1 log.txt)" = trailer ] && [ "$(wc -l < log.txt)" -eq 3 ]' \
		"log: $(tr '\n' '|' < log.txt) $(cat "$T/err")"
done
# a name too long to take the temporary file's 17 more bytes
long=$(printf '%0250d' 0)
"$G" sum data.f32 -o "$long" 2> "$T/err"
rc=$?
check o_long_name '[ $rc -eq 0 ] && [ -s "$long" ]' "exit $rc: $(cat "$T/err")"
rm -f "$long"
# a dangling symlink: its target is made, the link stays a link
ln -sf made.txt dangling
"$G" sum data.f32 -o dangling 2> "$T/err"
rc=$?
check o_dangling_symlink '[ $rc -eq 0 ] && [ -L dangling ] && [ -s made.txt ]' \
	"exit $rc: $(ls -l dangling made.txt 2>&1)"
# a file that > could not write is not replaced (root may write anything)
if [ "$(id -u)" != 0 ]; then
	printf 'old\n' > ro.txt
	chmod 444 ro.txt
	"$G" sum data.f32 -o ro.txt 2> "$T/err"
	rc=$?
	check o_read_only '[ $rc -eq 1 ] && [ "$(cat ro.txt)" = old ]' "exit $rc"
fi
# set-id bits do not move to the file that replaces FILE
printf 'old\n' > sid.txt
chmod 4755 sid.txt
"$G" sum data.f32 -o sid.txt 2> "$T/err"
check o_no_setid '[ "$(stat -c %a sid.txt)" = 755 ]' "mode $(stat -c %a sid.txt)"

fail_keeps o_missing_operand 1 "$G" scan data.f32 nonexistent -o keep
fail_keeps o_missing_operand_sum 1 "$G" sum data.f32 nonexistent -o keep
fail_keeps o_trailing 1 "$G" scan "$F/f32_trail3.bin" -o keep
fail_keeps o_overflow 1 "$G" scan -t i64 -f npy "$F/i64_ovf.bin" -o keep
fail_keeps o_truncated_zst 1 "$G" stats -t i16 -f json "$F/i16_trunc.zst" -o keep
fail_keeps o_usage 2 "$G" scan --op nope data.f32 -o keep

# SIGINT, SIGTERM and SIGXFSZ (sent by kill) during a scan -o: keep is
# left as it was
mkfifo fifo || exit 2
for sig in INT TERM XFSZ; do
	printf 'old\n' > keep
	(head -c 4096 data.f32; sleep 30) > fifo 2> /dev/null &
	pp=$!
	"$G" scan -o keep < fifo 2> "$T/err" &
	gp=$!
	(sleep 20; kill -KILL $gp) > /dev/null 2>&1 &
	wd=$!
	sleep 1
	kill -$sig $gp
	wait $gp
	rc=$?
	kill $pp $wd 2> /dev/null
	wait $pp $wd 2> /dev/null
	check "o_sig$sig" '[ $rc -ge 129 ] && [ $rc -ne 137 ] && [ "$(cat keep)" = old ]' \
		"exit $rc, keep: $(head -c 20 keep | od -An -c | head -n 1)"
	no_tmp "o_sig$sig" "$W"
done

# --- scan -f npy where the output began --------------------------------------
python3 -c 'import ast' 2> /dev/null && have_py=1 || have_py=
# npy_list FILE SKIP: the arrays in FILE after SKIP bytes, read with the
# standard library only: "descr shape v0 v1 ...;" per array.
npy_list() {
	python3 - "$1" "$2" <<'EOF'
import ast, struct, sys
f = open(sys.argv[1], 'rb')
f.read(int(sys.argv[2]))
out = []
while True:
    magic = f.read(8)
    if not magic:
        break
    assert magic[:6] == b'\x93NUMPY', magic
    n = struct.unpack('<H', f.read(2))[0]
    h = ast.literal_eval(f.read(n).decode('latin1'))
    count = 1
    for d in h['shape']:
        count *= d
    code = {'<f4': 'f', '<f8': 'd', '<i8': 'q', '<u8': 'Q'}[h['descr']]
    size = struct.calcsize(code)
    vals = struct.unpack('<%d%s' % (count, code), f.read(count * size))
    out.append('%s %s %s;' % (h['descr'], h['shape'],
                              ' '.join(repr(v) for v in vals)))
print(''.join(out))
EOF
}
printf '\0\0\200?\0\0\0@\0\0@@' > w.f32		# 1 2 3
printf '\0\0\0\0\0\0\360?\0\0\0\0\0\0\0@' > b.f64	# 1 2
if [ -n "$have_py" ]; then
	{ "$G" scan -f npy w.f32; "$G" scan -t f64 -f npy b.f64; } > both.npy
	got=$(npy_list both.npy 0)
	check npy_two_in_one_file \
		'[ "$got" = "<f4 (3,) 1.0 3.0 6.0;<f8 (2,) 1.0 3.0;" ]' "read: $got"
	{ printf 'hi\n'; "$G" scan -f npy w.f32; } > c.npy
	got=$(npy_list c.npy 3)
	check npy_after_text \
		'[ "$(head -n 1 c.npy)" = hi ] && [ "$got" = "<f4 (3,) 1.0 3.0 6.0;" ]' \
		"read: $(head -c 3 c.npy) / $got"
	rm -f a.npy
	"$G" scan -f npy w.f32 >> a.npy
	"$G" scan -f npy w.f32 >> a.npy
	got=$(npy_list a.npy 0)
	check npy_append \
		'[ "$got" = "<f4 (3,) 1.0 3.0 6.0;<f4 (3,) 1.0 3.0 6.0;" ]' "read: $got"
	# 2^62 2^62 5: the prefix overflows at element 1; the header says
	# the one element kept
	printf '\0\0\0\0\0\0\0\100\0\0\0\0\0\0\0\100\5\0\0\0\0\0\0\0' > ovf.i64
	"$G" scan -t i64 -f npy ovf.i64 > ovf.npy 2> "$T/err"
	rc=$?
	got=$(npy_list ovf.npy 0)
	check npy_overflow_header \
		'[ $rc -eq 1 ] && [ "$got" = "<i8 (1,) 4611686018427387904;" ]' \
		"exit $rc, read: $got"
else
	echo "output: note: no python3: the npy layout checks are skipped"
fi

# --- dot with both sides on one stream ---------------------------------------
"$G" dot - - < data.f32 > "$T/out" 2> "$T/err"
rc=$?
status dot_stdin_twice 2 "same stream"
check "dot_stdin_twice (no result)" '[ ! -s "$T/out" ]' "stdout: $(cat "$T/out")"
mkfifo dotfifo || exit 2
"$G" dot dotfifo dotfifo > "$T/out" 2> "$T/err"
rc=$?
status dot_fifo_twice 2 "same stream"
"$G" dot data.f32 data.f32 > "$T/out" 2> "$T/err"
rc=$?
check dot_file_twice '[ $rc -eq 0 ] && [ -s "$T/out" ]' "exit $rc: $(cat "$T/err")"

# --- closed standard descriptors ---------------------------------------------
# A closed 0, 1 or 2 must not be taken by a file gpustat opens: "-" read
# another operand (dot printed a wrong number, exit 0), -o's result was
# lost, messages landed in the output file.
"$G" sum data.f32 - <&- > "$T/out" 2> "$T/err"
rc=$?
status closed_stdin 1 "stdin"
check "closed_stdin (no result)" '[ ! -s "$T/out" ]' "stdout: $(cat "$T/out")"
"$G" dot data.f32 - <&- > "$T/out" 2> "$T/err"
rc=$?
status closed_stdin_dot 1 "stdin"
printf 'old\n' > keep
"$G" sum data.f32 -o keep >&- 2> "$T/err"
rc=$?
"$G" sum data.f32 > "$T/want"
check closed_stdout_o '[ $rc -eq 0 ] && cmp -s keep "$T/want"' "exit $rc, keep: $(cat keep)"
"$G" scan -v -o so.bin < data.f32 2>&-
check closed_stderr_o '[ "$(wc -c < so.bin)" -eq "$(wc -c < data.f32)" ]' \
	"$(wc -c < so.bin) bytes for $(wc -c < data.f32) of input"
"$G" sum -o '' data.f32 > "$T/out" 2> "$T/err"
rc=$?
status o_empty_name 2 "--output"

# --- --edges and the result in one file ----------------------------------------
rm -f y e
"$G" hist -t f32 --bins 4 data.f32 --edges ./y -o y > "$T/out" 2> "$T/err"
rc=$?
status edges_is_o 2 "--edges"
check "edges_is_o (nothing made)" '[ ! -e y ]' "y made"
"$G" hist -t f32 --bins 3 data.f32 --edges e > e 2> "$T/err"
rc=$?
status edges_is_stdout 2 "--edges"

# --- a scan stops at a bad operand ------------------------------------------------
# every operand that cannot be opened is named before anything is written
"$G" scan data.f32 nosuch1 data.f32 nosuch2 > "$T/out" 2> "$T/err"
rc=$?
check scan_missing_operands '[ $rc -eq 1 ] && [ ! -s "$T/out" ] &&
	[ "$(grep -c nosuch "$T/err")" -eq 2 ]' "exit $rc, $(wc -c < "$T/out") bytes, $(cat "$T/err")"
# one that fails later ends the output there: nothing of the operand after
"$G" scan data.f32 "$F/f32_short.npy" data.f32 > "$T/out" 2> "$T/err"
rc=$?
check scan_stops_at_bad_operand '[ $rc -eq 1 ] &&
	[ "$(wc -c < "$T/out")" -le $(($(wc -c < data.f32) + 360)) ]' \
	"exit $rc, $(wc -c < "$T/out") bytes"
# stdin named twice is read once: the npy header's count holds on a pipe
if [ -n "$have_py" ]; then
	"$G" scan -f npy - - < w.f32 2> "$T/err" | cat > p.npy
	got=$(npy_list p.npy 0)
	check npy_stdin_twice '[ "$got" = "<f4 (3,) 1.0 3.0 6.0;" ]' "read: $got $(cat "$T/err")"
fi

# --- one line per error ----------------------------------------------------------
head -c 202 "$F/f32_short.npy" > short_odd.npy		# 2 bytes into an element
"$G" sum short_odd.npy > "$T/out" 2> "$T/err"
rc=$?
status npy_short_odd_one_line 1 "short_odd.npy"
"$G" hist -t f32 --bins 3 --range 0:0.5 data.f32 > /dev/full 2> "$T/err"
rc=$?
status hist_note_dev_full 1 "write error"

# a dangling chain of links: its last target is made, the links stay links
rm -f made3
ln -sf dang2 dang1
ln -sf made3 dang2
"$G" sum data.f32 -o dang1 2> "$T/err"
rc=$?
check o_dangling_chain '[ $rc -eq 0 ] && [ -L dang1 ] && [ -L dang2 ] && [ -s made3 ]' \
	"exit $rc: $(ls -l dang1 dang2 made3 2>&1 | tr '\n' '|')"

# --- a stop request while the output is blocked --------------------------------
# A FIFO that is open for reading but never read: the scan's writes block.
mkfifo blocked || exit 2
head -c 8388608 /dev/zero > zero8m
exec 7<> blocked
"$G" scan -t u8 zero8m > blocked 2> "$T/err" &
gp=$!
(sleep 20; kill -KILL $gp) > /dev/null 2>&1 &
wd=$!
sleep 1
kill -INT $gp
wait $gp
rc=$?
kill $wd 2> /dev/null
wait $wd 2> /dev/null
exec 7>&-
check sigint_blocked_output '[ $rc -eq 130 ]' "exit $rc (137: it had to be killed)"

# --- text output whose buffer cannot grow ------------------------------------
if [ -z "$GPUSTAT_ASAN" ] && command -v cc > /dev/null 2>&1 &&
   cc -shared -fPIC -o "$T/oom.so" "$OLDPWD/tests/oom_shim.c" -ldl 2> /dev/null; then
	LD_PRELOAD=$T/oom.so "$G" hist -q -t f64 --bins 200000 --range 0:1 \
		"$F/f64_rand.bin" > "$T/out" 2> "$T/err"
	rc=$?
	status oom_text 1 "out of memory"
	check "oom_text (no result)" '[ ! -s "$T/out" ]' "$(wc -c < "$T/out") bytes on stdout"
	LD_PRELOAD=$T/oom.so "$G" hist -q -t f64 --bins 200000 --range 0:1 -f json \
		"$F/f64_rand.bin" > "$T/out" 2> "$T/err"
	rc=$?
	status oom_json 1 "out of memory"
	check "oom_json (no result)" '[ ! -s "$T/out" ]' "$(wc -c < "$T/out") bytes on stdout"
else
	echo "output: note: no cc, or under ASan: the out-of-memory checks are skipped"
fi

cd "$OLDPWD" || exit 2
summary
