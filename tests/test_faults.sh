#!/bin/sh
# test_faults.sh - faults that the fixture table (tests/cases.txt) does not
# reach: write errors beyond the plain `> /dev/full` cases, closed pipes on
# long streams, read errors, chunk sizes beyond memory, hostile .npy headers
# made here byte by byte, truncated zstd on a pipe, and SIGINT/SIGTERM in the
# middle of a scan. Every error must be exactly one stderr line starting
# "gpustat: " with the documented exit status; a stopped scan must leave
# whole elements only, each the true prefix sum, and a .npy header that
# matches them. docs/RELIABILITY.md lists what is tested where.
#
# Usage: sh tests/test_faults.sh   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "faults: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=faults
. tests/lib.sh
F=fixtures/in

# one_line: $T/err is exactly one line "gpustat: ..." holding $1.
one_line() {
	n=$(wc -l < "$T/err")
	if [ "$n" -ne 1 ]; then
		why="$n lines on stderr: $(head -n 3 "$T/err" | tr '\n' '|')"
		return 1
	fi
	grep -q '^gpustat: ' "$T/err" ||
		{ why="not 'gpustat: ...': $(cat "$T/err")"; return 1; }
	grep -qF -- "$1" "$T/err" || { why="stderr lacks \"$1\": $(cat "$T/err")"; return 1; }
}

# fault NAME STATUS PATTERN CMD: CMD (eval'd, $G for gpustat) exits STATUS
# with one error line holding PATTERN. stdout is left in $T/out.
fault() {
	name=$1 want=$2 pat=$3
	eval "$4" > "$T/out" 2> "$T/err" < /dev/null
	rc=$?
	# ASan warns when malloc fails under allocator_may_return_null (make
	# asan); without ASan, malloc just fails
	[ -n "$GPUSTAT_ASAN" ] && sed -i '/^==[0-9]*==WARNING: AddressSanitizer failed to allocate/d' "$T/err"
	if [ $rc -ne "$want" ]; then
		bad "$name" "exit $rc, wanted $want: $(head -n 1 "$T/err")"
	elif one_line "$pat"; then
		ok
	else
		bad "$name" "$why"
	fi
}

# quiet_pipe NAME CMD: CMD's stdout closes early (head -c 1); it must end
# by itself, with status 0 or death by SIGPIPE (141), saying nothing.
quiet_pipe() {
	name=$1
	{ (eval "$2") 2> "$T/err"; echo $? > "$T/rc"; } | head -c 1 > /dev/null
	rc=$(cat "$T/rc")
	if [ "$rc" != 0 ] && [ "$rc" != 141 ]; then
		bad "$name" "exit $rc: $(head -n 1 "$T/err")"
	elif [ -s "$T/err" ]; then
		bad "$name" "stderr: $(head -n 1 "$T/err")"
	else
		ok
	fi
}

# --- operands that cannot be read (missing, directory and the rest of
# operand handling are in cases.txt: operands_*)
fault stdin_directory 1 'stdin: is a directory' '$G sum < fixtures'
if [ -r /proc/self/mem ]; then
	# a read that fails after open: offset 0 of a process is never mapped
	fault read_error_eio 1 'read error at byte 0' '$G sum -t u8 /proc/self/mem'
fi
if [ "$(id -u)" != 0 ]; then
	cp $F/f32_mod.bin "$T/noread" && chmod 000 "$T/noread"
	fault unreadable_file 1 'noread' '$G sum "$T/noread"'
else
	echo "faults: note: running as root, which reads any file: unreadable_file skipped (operands_directory covers an operand that cannot be read)"
fi
fault hist_two_pass_missing 1 'nonexistent' \
	'$G hist -t f32 --bins 4 $F/f32_mod.bin $F/nonexistent'
fault dot_missing_side 1 'nonexistent' '$G dot $F/nonexistent $F/f32_mod.bin'

# --- write errors: -o, text formats, npy, and a scan long enough that
# several chunks are in flight when the first write fails
fault dev_full_ofile 1 '/dev/full' '$G sum -o /dev/full $F/f32_mod.bin'
fault dev_full_stats 1 'write error' '$G stats $F/f32_mod.bin > /dev/full'
fault dev_full_json 1 'write error' '$G sum -f json $F/f32_mod.bin > /dev/full'
fault dev_full_npy 1 'write error' '$G scan -f npy $F/f32_mod.bin > /dev/full'
head -c 4194304 /dev/zero > "$T/zero4m"
fault dev_full_long_scan 1 'write error' \
	'$G scan -t u8 --chunk-size 64K "$T/zero4m" > /dev/full'
fault dev_full_long_scan_o 1 '/dev/full' \
	'$G scan -t u8 --chunk-size 64K -o /dev/full "$T/zero4m"'

# --- closed pipes on streams far longer than the pipe buffer
quiet_pipe pipe_long_scan \
	'head -c 67108864 /dev/zero | $G scan -t u8 --chunk-size 1M'
quiet_pipe pipe_long_scan_npy '$G scan -t u8 -f npy --chunk-size 64K "$T/zero4m"'
# a parent that ignores SIGPIPE (Python's subprocess did, nohup-like
# wrappers do): still quiet, as cat would be
quiet_pipe pipe_sigpipe_ignored \
	"trap '' PIPE; \$G scan -t u8 --chunk-size 64K \"\$T/zero4m\""

# --- buffers beyond memory: an allocation failure, not a crash or a usage
# error; beyond 2^64 it is a usage error (usage_bad_chunk_* in cases.txt)
fault chunk_1T 1 'chunk-size' '$G sum --chunk-size 1T $F/f32_mod.bin'
fault chunk_1T_pipe 1 'chunk-size' 'cat $F/f32_mod.bin | $G scan --chunk-size 1T'
fault chunk_16E 2 'chunk-size' '$G sum --chunk-size 16E $F/f32_mod.bin'

# --- zstd: truncated and corrupt files are cases.txt zst_*; here a pipe,
# a frame cut inside its header, and a scan that must not write past it
fault zst_truncated_pipe 1 'stdin: truncated zstd' \
	'cat $F/i16_trunc.zst | $G sum -t i16'
printf '\050\265\057\375' > "$T/magic.zst"
fault zst_magic_only 1 'magic.zst' '$G sum "$T/magic.zst"'
fault zst_truncated_scan 1 'i16_trunc.zst' \
	'$G scan -t i16 $F/i16_trunc.zst'
[ $(($(wc -c < "$T/out") % 8)) -eq 0 ] && ok ||
	bad zst_truncated_scan "output of $(wc -c < "$T/out") bytes is not whole i64"
# with -o the target is left as it was (here: not made at all)
fault zst_truncated_scan_o 1 'i16_trunc.zst' \
	'$G scan -t i16 -o "$T/o" $F/i16_trunc.zst'
[ ! -e "$T/o" ] && ok || bad zst_truncated_scan_o "-o file made by a failed run"

# --- a trailing partial element on a pipe: whole elements only are written
fault trailing_pipe_scan 1 'trailing 3 bytes' \
	'cat $F/f32_trail3.bin | $G scan'
[ $(($(wc -c < "$T/out") % 4)) -eq 0 ] && ok ||
	bad trailing_pipe_scan "output of $(wc -c < "$T/out") bytes is not whole f32"

# --- .npy headers that lie (about the data length: cases.txt npy_lying_*)
# npy FILE HEADER-DICT PAYLOAD-BYTES: a v1.0 file, header padded as numpy
# pads it (10 + header a multiple of 16, ending in a newline).
npy() {
	h=$2
	while [ $(((10 + ${#h} + 1) % 16)) -ne 0 ]; do h="$h "; done
	n=$((${#h} + 1))
	{ printf '\223NUMPY\001\000'
	  printf "\\$(printf %03o $((n % 256)))\\$(printf %03o $((n / 256)))"
	  printf '%s\n' "$h"
	  head -c "$3" /dev/zero; } > "$T/$1"
}
npy huge.npy "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904,), }" 16
npy overflow.npy "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }" 16
npy negative.npy "{'descr': '<f4', 'fortran_order': False, 'shape': (-4,), }" 16
npy unclosed.npy "{'descr': '<f4', 'fortran_order': False, 'shape': (4,) " 16
npy complex.npy "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }" 16
npy good.npy "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }" 16
printf '\223NUMPY\001\000\377\377{' > "$T/hlen.npy"
printf '\223NUMPY\001\000' > "$T/cut.npy"
printf '\223NUMPY\011\000\020\000' > "$T/v9.npy"
# the same generator's honest file reads back, so the faults below are the
# headers' own
if "$G" sum "$T/good.npy" > "$T/out" 2> "$T/err" && [ "$(cat "$T/out")" = 0 ] &&
   [ ! -s "$T/err" ]; then ok
else bad npy_good "$(cat "$T/out" "$T/err")"; fi
for f in huge overflow negative unclosed complex hlen cut v9; do
	fault "npy_$f" 1 "$f.npy" '$G sum "$T/$f.npy"'
done

# --- SIGINT/SIGTERM in the middle of a scan: the run stops, the writes in
# flight finish, and the output holds whole elements only. The input is u8
# ones from a slow producer, so element k-1 of the u64 scan must be k.
head -c 4096 /dev/zero | tr '\0' '\1' > "$T/ones"
mkfifo "$T/fifo" || exit 2

# scan_ones FILE: FILE (raw u64) holds 1, 2, ..., n for some n > 0.
scan_ones() {
	sz=$(wc -c < "$1")
	[ "$sz" -gt 0 ] || { why="no output"; return 1; }
	[ $((sz % 8)) -eq 0 ] || { why="$sz bytes: a partial element"; return 1; }
	od -An -v -tu8 -w8 "$1" | awk '$1 != NR { print NR ": " $1; exit 1 }' > "$T/odd" ||
		{ why="not the scan of ones at element $(cat "$T/odd")"; return 1; }
}

# npy_ones FILE: a v1 .npy of '<u8' whose shape matches its data, which
# scan_ones accepts.
npy_ones() {
	magic=$(head -c 8 "$1" | od -An -c | tr -d ' \n')
	[ "$magic" = '223NUMPY001\0' ] || { why="not a .npy v1.0: $magic"; return 1; }
	set -- "$1" $(od -An -tu1 -j8 -N2 "$1")
	hlen=$(($2 + 256 * $3))
	data=$(($(wc -c < "$1") - 10 - hlen))
	head -c $((10 + hlen)) "$1" | tail -c "$hlen" | tr -d ' ' > "$T/hdr"
	grep -qF "'descr':'<u8'" "$T/hdr" || { why="header: $(cat "$T/hdr")"; return 1; }
	grep -qE "'shape':\\($((data / 8)),?\\)" "$T/hdr" ||
		{ why="$data data bytes, header: $(cat "$T/hdr")"; return 1; }
	tail -c "$data" "$1" > "$T/npydata"
	scan_ones "$T/npydata"
}

# wait_size FILE BYTES: up to 20 s for FILE to reach BYTES.
wait_size() {
	i=0
	while ! [ -s "$1" ] || [ "$(wc -c < "$1")" -lt "$2" ]; do
		i=$((i + 1))
		[ $i -le 200 ] || return 1
		sleep 0.1
	done
}

# stop NAME SIGNAL STATUS PRODUCER CHECK OPTS...: scan from PRODUCER's
# fifo into $T/s with OPTS, send SIGNAL once $need bytes of output have
# appeared, and expect STATUS, at most one "gpustat: " line, and CHECK on
# $T/s.
stop() {
	name=$1 sig=$2 want=$3 prod=$4 check=$5
	shift 5
	rm -f "$T/s"
	(eval "$prod") > "$T/fifo" 2> /dev/null &
	pp=$!
	# stdout, not -o: a stopped run leaves -o FILE as it was
	"$G" scan -t u8 "$@" < "$T/fifo" > "$T/s" 2> "$T/err" &
	gp=$!
	# a stuck gpustat must not hang the suite
	(sleep 20; kill -KILL $gp) > /dev/null 2>&1 &
	wd=$!
	if wait_size "$T/s" "$need"; then
		sleep 0.2
		kill -"$sig" $gp
	fi
	wait $gp
	rc=$?
	kill $pp $wd 2> /dev/null
	wait $pp $wd 2> /dev/null
	if [ $rc -ne "$want" ]; then
		bad "$name" "exit $rc, wanted $want: $(head -n 1 "$T/err")"
	elif [ -s "$T/err" ] && ! one_line ''; then
		bad "$name" "$why"
	elif ! $check "$T/s"; then
		bad "$name" "$why"
	else
		ok
	fi
}

# --- a backend made in part: the second thread's accumulator cannot be ----
# hist2d's 4096 x 4096 counters, 32 MiB a thread (calloc_shim.c): the
# first thread's is made, the second's fails; the open undoes the first's
# and the run ends in one line, exit 1 (glibc's calloc; not under ASan)
if [ -z "$GPUSTAT_ASAN" ] && command -v cc > /dev/null 2>&1 &&
   cc -shared -fPIC -o "$T/calloc.so" tests/calloc_shim.c 2> /dev/null; then
	awk 'BEGIN { for (i = 0; i < 4096; i++) print "0.5 0.25" }' \
		> "$T/pts"
	fault partial_acc 1 "out of memory" "GS_CALLOC_ABOVE=16000000 \
		GS_CALLOC_SKIP=1 LD_PRELOAD=$T/calloc.so \$G hist2d -t f32 \
		--backend cpu -j 2 --bins 4096 --range 0:1 --text $T/pts"
fi

need=200
steady='while cat "$T/ones"; do sleep 0.05; done'
stalled='cat "$T/ones"; exec sleep 30'
stop sigint_raw INT 130 "$steady" scan_ones
stop sigint_npy INT 130 "$steady" npy_ones -f npy
stop sigterm_raw TERM 143 "$steady" scan_ones
stop sigint_npy_threads INT 130 "$steady" npy_ones -f npy -j 2 --chunk-size 1K
# the reader is blocked in read() on a silent pipe when the signal comes
need=32768
stop sigint_stalled INT 130 "$stalled" scan_ones
[ "$(wc -c < "$T/s")" -eq 32768 ] && ok ||
	bad sigint_stalled "$(wc -c < "$T/s") bytes, wanted all 4096 elements"

summary
