#!/bin/sh
# test_filesize.sh - a run that writes past the file size limit (ulimit -f)
# ends as the other stop signals end it (sig.h): with the status 153
# (128 + SIGXFSZ) and one line naming the file, not killed outright by
# SIGXFSZ;
#   - -o FILE: no temporary file is left and FILE keeps its old bytes;
#   - stdout redirected to a file: a scan keeps whole records only, a prefix
#     of the full scan; with -f npy the header's shape is the records kept
#     (it said (0,) before, and np.load returned an empty array);
#   - a text result keeps nothing (a number on stdout means a whole run),
#     nor do --by's rows, which are written as they are made.
# Each run is limited in a subshell: sh -c 'ulimit -f 64; ...' (64 blocks
# of 512 bytes). numpy, where python3 has it, reads the npy files back.
#
# Usage: sh tests/test_filesize.sh   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "filesize: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=filesize
. tests/lib.sh
case $G in /*) ;; *) G=$(pwd)/${G#./} ;; esac
cd "$T" || exit 2

if ! sh -c 'ulimit -f 64' 2> /dev/null; then
	echo "filesize: note: this shell cannot set ulimit -f: skipped"
	summary
	exit
fi
python3 -c 'import numpy' 2> /dev/null && have_numpy=1 || have_numpy=
[ -n "$have_numpy" ] ||
	echo "filesize: note: no numpy for python3: npy files checked by size only"

# check NAME COND WHY: ok when the shell condition COND holds.
check() {
	if eval "$2"; then ok; else bad "$1" "$3"; fi
}

# limited NAME CMD...: run CMD (a shell command line, in $T) under
# ulimit -f $LIMIT (64 unless set), its stderr in err; then check the
# status and the one line naming the file size limit.
limited() {
	name=$1
	shift
	sh -c "ulimit -f ${LIMIT:-64}; $*" 2> err
	rc=$?
	check "$name" '[ $rc -eq 153 ] && [ "$(grep -c "^gpustat: " err)" -eq 1 ] &&
		grep -q "file size limit" err && [ "$(wc -l < err)" -eq 1 ]' \
		"exit $rc, stderr: $(cat err)"
	left=$(ls -A | grep 'gpustat-' || true)
	check "$name (no temporary file)" '[ -z "$left" ]' "left behind: $left"
}

# 409,600 bytes of f32, 7 x 5 columns (records of 20 and 28 bytes, which
# the 32 KiB limit cuts inside a record)
python3 -c 'import struct, sys
sys.stdout.buffer.write(b"".join(struct.pack("<f", ((i * 7919) % 1000 - 500) / 8)
                                 for i in range(102410)))' > in.f32 2> /dev/null ||
	head -c 409640 /dev/urandom | tr '\377' '\0' > in.f32
head -c 409500 in.f32 > in35.f32	# 35 floats a record: 5 and 7 columns

# --- scan -o FILE: FILE as it was, no temporary file --------------------------
printf 'old\n' > keep
limited o_raw "'$G' scan -c 5 in35.f32 -o keep"
check "o_raw (kept)" '[ "$(cat keep)" = old ]' "keep: $(head -c 20 keep | od -An -c)"
limited o_npy "'$G' scan -c 7 -f npy in35.f32 -o keep"
check "o_npy (kept)" '[ "$(cat keep)" = old ]' "keep: $(head -c 20 keep | od -An -c)"

# --- scan > FILE: whole records, a prefix of the full scan ---------------------
"$G" scan -c 5 in35.f32 > full.raw
limited stdout_raw "'$G' scan -c 5 in35.f32 > out.raw"
n=$(wc -c < out.raw)
check "stdout_raw (whole records)" '[ "$n" -gt 0 ] && [ $((n % 20)) -eq 0 ] &&
	[ "$n" -le 32768 ]' "$n bytes, not whole records of 20"
check "stdout_raw (a prefix)" 'cmp -s out.raw full.raw ||
	cmp full.raw out.raw 2>&1 | grep -q "EOF on out.raw"' "differs from the full scan"

# npy: the header's shape is what follows it, a prefix of the full scan
"$G" scan -c 7 -f npy in35.f32 > full.npy
limited stdout_npy "'$G' scan -c 7 -f npy in35.f32 > out.npy"
# hlen FILE: the npy header's length (v1: 10 + the 2-byte little-endian
# HEADER_LEN at byte 8)
hlen() {
	set -- $(od -An -tu1 -j 8 -N 2 "$1")
	echo $((10 + $1 + 256 * $2))
}
h=$(hlen out.npy)
rows=$(head -c "$h" out.npy | tr -d "\n" | LC_ALL=C sed -n "s/.*'shape': (\([0-9]*\), 7,*).*/\1/p")
size=$(wc -c < out.npy)
check "stdout_npy (header)" '[ -n "$rows" ] && [ "$rows" -gt 0 ] &&
	[ "$size" -eq $((h + rows * 28)) ]' \
	"shape ($rows, 7) under a $h-byte header, $size bytes in all"
tail -c +$((h + 1)) out.npy > got.bin
tail -c +$(($(hlen full.npy) + 1)) full.npy | head -c $((rows * 28)) > want.bin
check "stdout_npy (a prefix)" 'cmp -s got.bin want.bin' "differs from the full scan"
if [ -n "$have_numpy" ]; then
	py=$(python3 -c 'import numpy as np, sys
a, f = np.load("out.npy"), np.load("full.npy")
print(a.shape[0] > 0 and a.shape[1:] == (7,) and a.tobytes() == f[:len(a)].tobytes())' 2>&1)
	check "stdout_npy (numpy)" '[ "$py" = True ]' "np.load: $py"
fi
# a type wider than the input: f32 scanned into f64, 40-byte records
"$G" scan -c 5 --out-type f64 -f npy in35.f32 > full64.npy
limited stdout_npy_f64 "'$G' scan -c 5 --out-type f64 -f npy in35.f32 > out64.npy"
if [ -n "$have_numpy" ]; then
	py=$(python3 -c 'import numpy as np
a, f = np.load("out64.npy"), np.load("full64.npy")
print(a.shape[0] > 0 and a.dtype == np.float64 and a.tobytes() == f[:len(a)].tobytes())' 2>&1)
	check "stdout_npy_f64 (numpy)" '[ "$py" = True ]' "np.load: $py"
fi

# --- a text result: nothing kept ---------------------------------------------
limited stdout_text "'$G' hist -t f32 --bins 20000 --range -100:100 in.f32 > out.txt"
check "stdout_text (nothing kept)" '[ ! -s out.txt ]' "$(wc -c < out.txt) bytes kept"
printf 'old\n' > keep
limited o_text "'$G' hist -t f32 --bins 20000 --range -100:100 in.f32 -o keep"
check "o_text (kept)" '[ "$(cat keep)" = old ]' "keep: $(head -c 20 keep | od -An -c)"

# --- --by's rows, written as they are made (on a thread of their own for a
# file): the first write past the limit (64 blocks), or a later one (4096
# blocks, 2 MiB: the rows are 2.7 MB), fails the run, and nothing is kept
awk 'BEGIN { for (i = 0; i < 200000; i++) print i, i * 0.5 }' > kv.txt
for LIMIT in 64 4096; do
	limited "stdout_by_$LIMIT" "'$G' sum --by 1 -c 2 kv.txt > outby.txt"
	check "stdout_by_$LIMIT (nothing kept)" '[ ! -s outby.txt ]' \
		"$(wc -c < outby.txt) bytes kept"
	printf 'old\n' > keep
	limited "o_by_$LIMIT" "'$G' sum --by 1 -c 2 kv.txt -o keep"
	check "o_by_$LIMIT (kept)" '[ "$(cat keep)" = old ]' \
		"keep: $(head -c 20 keep | od -An -c)"
done
LIMIT=

summary
