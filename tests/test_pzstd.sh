#!/bin/sh
# test_pzstd.sh - zstd files whose frames carry no content size, as the
# real pzstd writes them (each frame behind a skippable frame that gives
# its compressed size) and as zstd's seekable format lays them out (a seek
# table in a trailing skippable frame), are decoded frame-parallel (issue
# 29): from a file, from a pipe and as shards, with the bytes of -j 1 and
# of the raw data, bit for bit, and the messages of -j 1 for a corrupt or
# truncated frame. -v says how the bytes were decoded: a run that fell
# back to one stream would pass the rest unnoticed. One frame of no
# content size from a pipe (zstd < pipe) is one stream still, and read
# right when the feeding thread hands it back.
#
# The files are written by pzstd and zstd (Debian's zstd package, which
# .ci/run installs); the seek table by python. Skipped without them.
#
# Usage: sh tests/test_pzstd.sh   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "pzstd: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=pzstd
. tests/lib.sh
. tests/zcmp.sh
for tool in pzstd zstd python3; do
	if ! command -v $tool > /dev/null 2>&1; then
		echo "pzstd: note: skipped ($tool is not installed)"
		summary
		exit
	fi
done
export GPUSTAT_ZPIPE_WORKERS=4

# decoded NAME HOW CMD: CMD's -v says the zstd bytes were decoded HOW:
# "in parallel" (none as one stream) or "as one stream" (all of them)
decoded() {
	eval "$3" 2> "$T/verr" > /dev/null
	line=$(grep '^gpustat: zstd: ' "$T/verr")
	case $2 in
	parallel) case $line in *"in parallel"*", 0.0 MiB as one stream") ok ;;
		  *) bad "$1" "not all in parallel: '$line'" ;; esac ;;
	stream) case $line in *"MiB decoded as one stream") ok ;;
		*) bad "$1" "not one stream: '$line'" ;; esac ;;
	esac
}

# 20 MB: random bytes (raw blocks), lines of bytes (not text: a \001 in
# each), bytes from a few letters (compressed blocks); pzstd -1 writes 10
# frames of 2 MiB of it, -3 three of 8 MiB. W weighs it for dot.
R=$T/raw
W=$T/w
{ head -c 8000000 /dev/urandom; yes "$(printf 'gpustat\001 0123456789')" | head -c 8000000
  head -c 8000000 /dev/urandom | tr -c 'a-f' '\001' | head -c 4000000; } > "$R"
head -c 20000000 /dev/urandom > "$W"
"$G" dot -t u8 "$R" "$W" > "$T/dot.want"
"$G" scan -t u16 "$R" > "$T/scan.want"

for level in 1 3; do
	z=$T/p$level.zst
	pzstd -q -p 2 -$level -c "$R" > "$z"
	for j in 1 4; do
		same "file_$level-j$j" "$T/dot.want" "\$G dot -t u8 -j $j \$z \$W"
		same "stdin_file_$level-j$j" "$T/dot.want" \
			"\$G dot -t u8 -j $j - \$W < \$z"
		same "pipe_$level-j$j" "$T/dot.want" \
			"cat \$z | \$G dot -t u8 -j $j - \$W"
	done
	same "scan_file_$level" "$T/scan.want" "\$G scan -t u16 -j 4 \$z"
	same "scan_pipe_$level" "$T/scan.want" "cat \$z | \$G scan -t u16 -j 4"
	decoded "parallel_file_$level" parallel "\$G sum -v -t u8 -j 4 \$z"
	decoded "parallel_pipe_$level" parallel "cat \$z | \$G sum -v -t u8 -j 4"
	decoded "one_thread_$level" stream "\$G sum -v -t u8 -j 1 \$z"
done

# shards, each pzstd's, decoded ahead of the one being read
split -b 7000000 "$R" "$T/part."
for p in "$T"/part.a?; do pzstd -q -p 2 -1 -c "$p" > "$p.zst"; done
same shards_scan "$T/scan.want" '$G scan -t u16 -j 4 "$T"/part.a?.zst'
decoded shards_parallel parallel '$G sum -v -t u8 -j 4 "$T"/part.a?.zst'
same shards_pipe "$T/scan.want" 'cat "$T"/part.a?.zst | $G scan -t u16 -j 4'

# zstd's seekable format: frames of 1 MiB without content sizes (zstd
# reading a pipe writes none), then the seek table in a skippable frame
# (magic 0x184D2A5E): an entry of compressed and decoded size per frame,
# the frame count, a descriptor (no checksums) and the seekable magic
split -b 1048576 "$R" "$T/sk."
for p in "$T"/sk.*; do zstd -q -1 -c < "$p" > "$p.zst"; done
python3 - "$T" <<'EOF' || bad seekable_table "python could not write it"
import glob, os, struct, sys
t = sys.argv[1]
parts = sorted(p for p in glob.glob(t + "/sk.*") if not p.endswith(".zst"))
entries = b"".join(struct.pack("<II", os.path.getsize(p + ".zst"),
                               os.path.getsize(p)) for p in parts)
table = entries + struct.pack("<IBI", len(parts), 0, 0x8F92EAB1)
with open(t + "/seekable.zst", "wb") as out:
    for p in parts:
        out.write(open(p + ".zst", "rb").read())
    out.write(struct.pack("<II", 0x184D2A5E, len(table)) + table)
EOF
same seekable_file "$T/dot.want" '$G dot -t u8 -j 4 "$T/seekable.zst" "$W"'
same seekable_pipe "$T/scan.want" 'cat "$T/seekable.zst" | $G scan -t u16 -j 4'
decoded seekable_parallel parallel '$G sum -v -t u8 -j 4 "$T/seekable.zst"'
decoded seekable_pipe_parallel parallel 'cat "$T/seekable.zst" | $G sum -v -t u8 -j 4'

# one frame of no content size from a pipe, bounded by its blocks past
# what the feeding thread reads of a frame pzstd did not announce (32
# MiB): one stream, from the bytes the thread read. Behind a skippable
# frame of pzstd's, giving its compressed size, it is taken whole.
cat "$R" "$R" > "$T/raw2"
zstd -q -1 -c < "$T/raw2" > "$T/one.zst"
"$G" scan -t u16 "$T/raw2" > "$T/scan2.want"
same one_frame_pipe "$T/scan2.want" 'cat "$T/one.zst" | $G scan -t u16 -j 4'
decoded one_frame_stream stream 'cat "$T/one.zst" | $G sum -v -t u8 -j 4'
python3 - "$T" <<'EOF' || bad announced "python could not write it"
import os, struct, sys
t = sys.argv[1]
frame = open(t + "/one.zst", "rb").read()
with open(t + "/announced.zst", "wb") as out:
    for _ in range(2):
        out.write(struct.pack("<III", 0x184D2A50, 4, len(frame)) + frame)
EOF
cat "$T/raw2" "$T/raw2" > "$T/raw4"
"$G" sum -t u16 "$T/raw4" > "$T/sum4.want"
same announced_pipe "$T/sum4.want" 'cat "$T/announced.zst" | $G sum -t u16 -j 4'
decoded announced_parallel parallel 'cat "$T/announced.zst" | $G sum -v -t u8 -j 4'
# a skippable frame of pzstd's that gives a wrong length (shorter, longer,
# shorter than the frame's header): the frame is walked where it lies, and
# the stream goes on from it
for lie in -5 3 tiny; do
	python3 - "$T" $lie <<'EOF' || bad lying "python could not write it"
import struct, sys
t, lie = sys.argv[1], sys.argv[2]
frame = open(t + "/one.zst", "rb").read()
size = 2 if lie == "tiny" else len(frame) + int(lie)
with open(t + "/lying.zst", "wb") as out:
    for _ in range(2):
        out.write(struct.pack("<III", 0x184D2A50, 4, size) + frame)
EOF
	same "lying_pipe$lie" "$T/sum4.want" 'cat "$T/lying.zst" | $G sum -t u16 -j 4'
	same "lying_file$lie" "$T/sum4.want" '$G sum -t u16 -j 4 "$T/lying.zst"'
done

# one stream from a regular file is decoded from a mapping of it (over 16
# MiB of it; zsrcmap.c), not read: the same bytes and messages as a pipe
# gives, for zstd and gzip, a second operand after a mapped one, stdin a
# file, a frame cut short and one corrupt in its middle
cat "$R" "$R" "$R" > "$T/raw3"
zstd -q -1 -c < "$T/raw3" > "$T/one3.zst"
gzip -1 -c < "$T/raw3" > "$T/one3.gz"
"$G" scan -t u16 "$T/raw3" > "$T/scan3.want"
cat "$T/raw3" "$T/raw3" > "$T/raw6"
"$G" scan -t u16 "$T/raw6" > "$T/scan6.want"
for z in one3.zst one3.gz; do
	same "mapped_$z" "$T/scan3.want" "\$G scan -t u16 -j 1 \$T/$z"
	same "mapped_stdin_$z" "$T/scan3.want" "\$G scan -t u16 -j 4 - < \$T/$z"
	same "mapped_twice_$z" "$T/scan6.want" "\$G scan -t u16 -j 1 \$T/$z \$T/$z"
	size=$(wc -c < "$T/$z")
	head -c $((size - 7)) "$T/$z" > "$T/cut_$z"
	alike "mapped_cut_$z" "truncated" \
		"cat \$T/cut_$z | \$G sum -t u8 -j 1" "\$G sum -t u8 -j 1 < \$T/cut_$z"
	cp "$T/$z" "$T/bad_$z"
	printf 'corrupted!' | dd of="$T/bad_$z" bs=1 seek=$((size / 2)) conv=notrunc 2> /dev/null
	alike "mapped_corrupt_$z" "corrupt" \
		"cat \$T/bad_$z | \$G sum -t u8 -j 1" "\$G sum -t u8 -j 1 < \$T/bad_$z"
done

# a corrupt frame in the middle, a truncated last frame: -j 1's message
z=$T/p1.zst
cp "$z" "$T/bad.zst"
n=$(($(wc -c < "$z") / 2))
printf 'corrupted!' | dd of="$T/bad.zst" bs=1 seek=$n conv=notrunc 2> /dev/null
alike corrupt_file "corrupt zstd frame at compressed byte" \
	'$G sum -t u8 -j 1 "$T/bad.zst"' '$G sum -t u8 -j 4 "$T/bad.zst"'
alike corrupt_pipe "stdin: corrupt zstd frame at compressed byte" \
	'cat "$T/bad.zst" | $G sum -t u8 -j 1' 'cat "$T/bad.zst" | $G sum -t u8 -j 4'
size=$(wc -c < "$z")
head -c $((size - 7)) "$z" > "$T/cut.zst"
alike truncated_file "truncated zstd frame at compressed byte $((size - 7))" \
	'$G sum -t u8 -j 1 "$T/cut.zst"' '$G sum -t u8 -j 4 "$T/cut.zst"'
alike truncated_pipe "stdin: truncated zstd frame at compressed byte $((size - 7))" \
	'cat "$T/cut.zst" | $G sum -t u8 -j 1' 'cat "$T/cut.zst" | $G sum -t u8 -j 4'
head -c $((size / 2)) "$z" > "$T/half.zst"
alike truncated_mid "truncated zstd frame" \
	'cat "$T/half.zst" | $G scan -t u8 -j 1' 'cat "$T/half.zst" | $G scan -t u8 -j 4'

summary
