#!/bin/sh
# test_zpipe.sh - zstd input decoded frame-parallel (a file of many
# frames, several .zst operands, frames read from a pipe) must give
# what one thread (-j 1) gives and what the raw data gives, bit for bit,
# through the CLI: many frames, frames of very different sizes, empty and
# skippable frames, frames without their content sizes (test_pzstd.sh has
# pzstd's and the seekable format's), a corrupt frame in the middle and a
# truncated last frame (the same message, offset and exit status as -j 1,
# nothing on stdout),
# stdin as a pipe and as a file, two .zst operands of dot, shards, and a
# histogram without --range (two passes), frames computed on in the
# buffers they were decoded into, and a scan's first error in stream order
# told alone.
#
# The .zst files are made here by bench/mkzst.c (libzstd), the data by
# head and tr: no zstd program is needed. The order-sensitive checks are
# dot against a second random file and scan: a frame served out of place
# changes them.
#
# Usage: sh tests/test_zpipe.sh   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "zpipe: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=zpipe
. tests/lib.sh
. tests/zcmp.sh
M=$T/mkzst
if ! ${CC:-cc} -O2 -o "$M" bench/mkzst.c -lzstd 2> "$T/err"; then
	bad mkzst "does not build: $(head -n 1 "$T/err")"
	summary
	exit
fi

# 3 MB: random bytes, then lines of bytes (not text: each has a \001, as
# text would be read as text), then bytes from a few letters (raw, well
# compressed and Huffman-coded blocks; a \001 among them, as letters
# after a few digits would be text); W is what dot weighs them by
R=$T/raw
W=$T/w
{ head -c 1000000 /dev/urandom; yes "$(printf 'gpustat\001 0123456789')" | head -c 1000000
  head -c 2000000 /dev/urandom | tr -c 'a-f' '\001' | head -c 1000000; } > "$R"
head -c 3000000 /dev/urandom > "$W"

"$G" dot -t u8 "$R" "$W" > "$T/dot.want"
"$G" scan -t u16 "$R" > "$T/scan.want"

# --- one file of many frames: as a file, as stdin (a file, and a pipe)
for spec in 64K 's12,300K,e,1M,1,s300,50K,e,7' '200K,u100K,200K' u300K,200K \
	    '17K,2M,s2M,300K' 1M; do
	z=$T/layout.zst
	"$M" -s "$spec" < "$R" > "$z"
	for j in 1 4; do
		same "file_$spec-j$j" "$T/dot.want" "\$G dot -t u8 -j $j \$z \$W"
		same "stdin_file_$spec-j$j" "$T/dot.want" \
			"\$G dot -t u8 -j $j - \$W < \$z"
		same "stdin_pipe_$spec-j$j" "$T/dot.want" \
			"cat \$z | \$G dot -t u8 -j $j - \$W"
	done
	same "scan_pipe_$spec" "$T/scan.want" "cat \$z | \$G scan -t u16 -j 4"
done

# --- shards, two .zst operands, concatenated files on a pipe
split -b 400000 "$R" "$T/part."
for p in "$T"/part.*; do "$M" -s 100K < "$p" > "$p.zst"; done
same shards_scan "$T/scan.want" '$G scan -t u16 -j 4 "$T"/part.*.zst'
same shards_mixed "$T/scan.want" \
	'$G scan -t u16 -j 4 "$T"/part.a[a-c].zst "$T/part.ad" "$T"/part.a[e-h].zst'
same shards_one_pipe "$T/scan.want" 'cat "$T"/part.*.zst | $G scan -t u16 -j 4'
head -c 1500000 "$R" | "$M" -s 100K > "$T/a.zst"
tail -c 1500000 "$R" | "$M" -s 's9,64K,e,300K' > "$T/b.zst"
head -c 1500000 "$R" > "$T/a.raw"
tail -c 1500000 "$R" > "$T/b.raw"
"$G" dot -t u8 "$T/a.raw" "$T/b.raw" > "$T/ab.want"
same dot_two_zst "$T/ab.want" '$G dot -t u8 -j 4 "$T/a.zst" "$T/b.zst"'
same dot_zst_pipe "$T/ab.want" 'cat "$T/b.zst" | $G dot -t u8 -j 4 "$T/a.zst" -'

# --- two passes: a histogram without --range
"$G" hist -t i16 --bins 7 "$R" > "$T/hist.want"
same hist_file "$T/hist.want" '$G hist -t i16 --bins 7 -j 4 "$T/layout.zst"'
"$G" hist -t i16 --bins 7 "$T"/part.a? > "$T/hist_parts.want"
same hist_shards "$T/hist_parts.want" \
	'$G hist -t i16 --bins 7 -j 4 "$T"/part.*.zst'

# --- frames lent in place: a CPU run computes on a regular file's frames
# in the buffers they were decoded into (zpipe_view), a chunk or at least
# 4 MiB of one frame at a time, instead of copying them into its chunks.
# Frames of odd sizes (records straddle them), empty and small ones (a
# copy gathers those), 16 workers on any machine, shards whose pipes close
# while their last frames are still lent. -v counts the chunks read in
# place: a run that lent none would pass the rest unnoticed.
cat "$R" "$R" "$R" "$R" > "$T/big"		# 12 MB
"$G" scan -t u16 "$T/big" > "$T/bigscan.want"
"$G" stats -t f32 --backend cpu "$T/big" > "$T/bigstats.want"
for spec in 5M '3000001,4M,e,1,200K' 1M; do
	"$M" -s "$spec" < "$T/big" > "$T/big.zst"
	for cs in 1M 3000001 64M; do
		same "view_scan_$spec-$cs" "$T/bigscan.want" \
			"\$G scan -t u16 -j 4 --backend cpu --chunk-size $cs \$T/big.zst"
		same "view_stats_$spec-$cs" "$T/bigstats.want" \
			"GPUSTAT_ZPIPE_WORKERS=16 \$G stats -t f32 -j 16 --backend cpu --chunk-size $cs \$T/big.zst"
	done
done
"$M" -s 5M < "$T/big" > "$T/big.zst"
n=$("$G" stats -t f32 -j 4 --backend cpu --chunk-size 1M -v "$T/big.zst" 2>&1 >/dev/null |
	sed -n 's/.*; \([0-9]*\) of \([0-9]*\) chunks in place.*/\1 \2/p')
[ "${n% *}" -ge 10 ] 2>/dev/null && ok || bad view_counted "-v: '$n' chunks in place, wanted 10 or more"
n=$(GPUSTAT_NO_VIEWS=1 "$G" stats -t f32 -j 4 --backend cpu --chunk-size 1M -v "$T/big.zst" 2>&1 >/dev/null |
	grep -c 'chunks in place')
[ "$n" = 0 ] && ok || bad view_off "GPUSTAT_NO_VIEWS=1 still read chunks in place"
# a view still out while copies of small frames lap the ring: a chunk
# in place waits in the queue or is computed on while the reader copies
# the next, and one chunk's copy can take 128 frames of 64 KiB, so the
# lent slot came round as the ring's tail and its buffer was decoded into,
# or unmapped, under the consumer (a crash or a wrong count). Its buffer
# now goes to the orphans.
lap=8M$(i=0; while [ $i -lt 200 ]; do printf ',64K'; i=$((i + 1)); done)
cat "$T/big" "$T/big" "$T/big" > "$T/big3"	# 36 MB: 8M and 200 x 64K, twice
"$M" -s "$lap" < "$T/big3" > "$T/lap.zst"
"$G" stats -t u32 --backend cpu "$T/big3" > "$T/lap.want"
"$G" scan -t u32 "$T/big3" > "$T/lapscan.want"
for j in 2 4; do
	same "view_lap_stats-j$j" "$T/lap.want" \
		"\$G stats -t u32 --backend cpu -j $j --chunk-size 8M \$T/lap.zst"
	same "view_lap_scan-j$j" "$T/lapscan.want" \
		"\$G scan -t u32 --backend cpu -j $j --chunk-size 8M \$T/lap.zst"
done
split -b 4000000 "$T/big" "$T/bigpart."
for p in "$T"/bigpart.*; do "$M" -s 1500000 < "$p" > "$p.zst"; done
same view_shards "$T/bigscan.want" \
	'$G scan -t u16 -j 4 --backend cpu --chunk-size 1M "$T"/bigpart.*.zst'
same view_shards_16 "$T/bigstats.want" \
	'GPUSTAT_ZPIPE_WORKERS=16 $G stats -t f32 -j 16 --backend cpu --chunk-size 1M "$T"/bigpart.*.zst'
"$M" -s 2M < "$T/big" > "$T/bigbad.zst"
n=$(($(wc -c < "$T/bigbad.zst") / 2))
printf 'corrupted!' | dd of="$T/bigbad.zst" bs=1 seek=$n conv=notrunc 2> /dev/null
alike view_corrupt "corrupt zstd frame at compressed byte" \
	'$G sum -t f32 -j 1 --chunk-size 1M "$T/bigbad.zst"' \
	'$G sum -t f32 -j 4 --backend cpu --chunk-size 1M "$T/bigbad.zst"'

# --- shards in place one after another: when a shard's frames are all
# served, the view goes on to the next operand (its header parsed, as a
# read would) instead of leaving every shard's chunk to a copy that opens
# the next one; and the bytes the format's detection peeked go back to
# their frame, so a stream's first chunk is in place too. Six shards of
# one 2 MB frame each, 2 MB chunks: all six chunks in place (none were
# before: each shard was copied). The same with .npy shards (a header in
# every operand, one frame each), a corrupt shard among them (the message
# of -j 1, nothing printed: a frame that decodes past the size its header
# gives is "corrupt" in parallel too, where it was "Destination buffer is
# too small" on some data), and shards ending inside a record.
head -c 12000000 "$T/big" > "$T/six"
split -b 2000000 "$T/six" "$T/six."
for p in "$T"/six.a?; do "$M" -s 2000000 < "$p" > "$p.zst"; done
"$G" stats -t f32 --backend cpu "$T/six" > "$T/six.want"
"$G" scan -t u16 "$T/six" > "$T/sixscan.want"
same view_shards_each "$T/six.want" \
	'$G stats -t f32 -j 4 --backend cpu --chunk-size 2000000 "$T"/six.a?.zst'
same view_shards_each_scan "$T/sixscan.want" \
	'$G scan -t u16 -j 4 --backend cpu --chunk-size 2000000 "$T"/six.a?.zst'
n=$("$G" stats -t f32 -j 4 --backend cpu --chunk-size 2000000 -v "$T"/six.a?.zst 2>&1 >/dev/null |
	sed -n 's/.*; \([0-9]*\) of \([0-9]*\) chunks in place.*/\1 \2/p')
[ "$n" = "6 6" ] && ok || bad view_shards_counted "-v: '$n' chunks in place, wanted 6 6"
"$M" -s 2000000 < "$T/six" > "$T/six.zst"
n=$("$G" stats -t f32 -j 4 --backend cpu --chunk-size 2000000 -v "$T/six.zst" 2>&1 >/dev/null |
	sed -n 's/.*; \([0-9]*\) of \([0-9]*\) chunks in place.*/\1 \2/p')
[ "$n" = "6 6" ] && ok || bad view_first_chunk "-v: '$n' chunks in place, wanted 6 6"
# npy shards: the header of '<f4' with (n,) items, padded to 64 bytes
npy_f4() {
	h="{'descr': '<f4', 'fortran_order': False, 'shape': ($(( $(wc -c < "$1") / 4 )),), }"
	pad=$(( 64 - (10 + ${#h} + 1) % 64 ))
	{ printf '\223NUMPY\001\000'
	  printf "\\$(printf %o $(( (${#h} + pad + 1) % 256 )))\\$(printf %o $(( (${#h} + pad + 1) / 256 )))"
	  printf '%s%*s\n' "$h" $pad ''
	  cat "$1"; } > "$2"
}
for p in "$T"/six.a?; do npy_f4 "$p" "$p.npy"; "$M" -s 4M < "$p.npy" > "$p.npy.zst"; done
same view_shards_npy "$T/six.want" \
	'$G stats -j 4 --backend cpu --chunk-size 2000000 "$T"/six.a?.npy.zst'
n=$("$G" stats -j 4 --backend cpu --chunk-size 2000000 -v "$T"/six.a?.npy.zst 2>&1 >/dev/null |
	sed -n 's/.*; \([0-9]*\) of \([0-9]*\) chunks in place.*/\1/p')
[ "${n:-0}" -ge 1 ] && ok || bad view_shards_npy_counted "-v: '$n' chunks in place, wanted some"
cp "$T"/six.ac.zst "$T/sixbad.zst"
printf 'corrupted!' | dd of="$T/sixbad.zst" bs=1 seek=$(($(wc -c < "$T/sixbad.zst") / 2)) conv=notrunc 2> /dev/null
alike view_shards_corrupt "sixbad.zst: corrupt zstd frame at compressed byte" \
	'$G sum -t f32 -j 1 --chunk-size 2000000 "$T"/six.aa.zst "$T"/six.ab.zst "$T/sixbad.zst" "$T"/six.ad.zst' \
	'$G sum -t f32 -j 4 --backend cpu --chunk-size 2000000 "$T"/six.aa.zst "$T"/six.ab.zst "$T/sixbad.zst" "$T"/six.ad.zst'
# A frame whose header gives 5 bytes fewer than it decodes to: -j 1's
# stream decoder said "Destination buffer is too small" for it first in
# the list (one segment, no room to spare) and "Data corruption detected"
# after a larger frame, and the workers said one or the other; now every
# path calls it corrupt. mkzst's 1 MiB frames are single-segment with the
# 4-byte size at byte 5: 1048576 - 5 is fb ff 0f 00.
yes "$(printf 'gpustat\001 0123456789')" | head -c 3000000 | "$M" -s 1M > "$T/long.zst"
cp "$T/long.zst" "$T/short.zst"
printf '\373\377\017\000' | dd of="$T/short.zst" bs=1 seek=5 conv=notrunc 2> /dev/null
for first in "" '"$T/long.zst"'; do
	alike "size_short${first:+_after}" "short.zst: corrupt zstd frame at compressed byte 0: Data corruption detected" \
		"\$G sum -t u8 --backend cpu -j 1 $first \"\$T/short.zst\"" \
		"\$G sum -t u8 --backend cpu -j 4 $first \"\$T/short.zst\""
done
alike size_short_pipe "stdin: corrupt zstd frame at compressed byte 0: Data corruption detected" \
	'cat "$T/short.zst" | $G sum -t u8 -j 1' 'cat "$T/short.zst" | $G sum -t u8 -j 4'
split -b 1999999 "$T/six" "$T/odd."
for p in "$T"/odd.a?; do "$M" -s 2000000 < "$p" > "$p.zst"; done
same view_shards_straddle "$T/six.want" \
	'$G stats -t f32 -j 4 --backend cpu --chunk-size 1999996 "$T"/odd.a?.zst'

# --- a worker woken to help with a copy that the reader finished before
# the worker looked again claimed the slot past the queue as its frame;
# the frame later queued there was never decoded, and the reader waited
# for it forever (256 frames of 4 MiB, stats on 16 cores). 16 workers,
# many small frames (a full ring, every frame claimed: the consumer is
# the slower) and a wider window between seeing work and taking it.
cat "$R" "$R" "$R" "$R" > "$T/small"	# 12 MB
"$M" -s 128K < "$T/small" > "$T/small.zst"
"$G" stats -t f32 "$T/small" > "$T/small.want"
for c in "stats -t f32" "scan -t u16"; do
	[ "$c" = "scan -t u16" ] && "$G" scan -t u16 "$T/small" > "$T/small.want"
	same "copy_race_${c%% *}" "$T/small.want" \
		"GPUSTAT_ZPIPE_WORKERS=16 GPUSTAT_ZPIPE_RACE_US=200 timeout 60 \$G $c -j 2 --backend cpu \$T/small.zst"
done

# --- a corrupt frame in the middle, a truncated last frame
split -b 750000 "$R" "$T/q."
for p in "$T"/q.*; do "$M" -s 250K < "$p" > "$p.zst"; done
n=$(($(wc -c < "$T/q.ab.zst") / 2))
printf 'corrupted!' | dd of="$T/q.ab.zst" bs=1 seek=$n conv=notrunc 2> /dev/null
cat "$T"/q.*.zst > "$T/bad.zst"
at=$(wc -c < "$T/q.aa.zst")
# the message names where the corrupt frame begins: one of q.ab's
alike corrupt_file "corrupt zstd frame at compressed byte" \
	'$G sum -t u8 -j 1 "$T/bad.zst"' '$G sum -t u8 -j 4 "$T/bad.zst"'
off=$(sed -n 's/.*at compressed byte \([0-9]*\).*/\1/p' "$T/e1")
[ -n "$off" ] && [ "$off" -ge "$at" ] && [ "$off" -lt $((at + n)) ] && ok ||
	bad corrupt_offset "frame at byte '$off', not in q.ab (bytes $at to $((at + n)))"
alike corrupt_pipe "stdin: corrupt zstd frame at compressed byte $off:" \
	'cat "$T/bad.zst" | $G sum -t u8 -j 1' 'cat "$T/bad.zst" | $G sum -t u8 -j 4'
alike corrupt_shard "q.ab.zst: corrupt zstd frame at compressed byte $((off - at)):" \
	'$G sum -t u8 -j 1 "$T"/q.*.zst' '$G sum -t u8 -j 4 "$T"/q.*.zst'
alike corrupt_scan "corrupt zstd frame at compressed byte $off:" \
	'$G scan -t u8 -j 1 "$T/bad.zst"' '$G scan -t u8 -j 4 "$T/bad.zst"'
"$M" -s 's5,300K,e,200K' < "$R" > "$T/cut.zst"
size=$(wc -c < "$T/cut.zst")
head -c $((size - 7)) "$T/cut.zst" > "$T/cut7.zst"
alike truncated_file "truncated zstd frame at compressed byte $((size - 7))" \
	'$G sum -t u8 -j 1 "$T/cut7.zst"' '$G sum -t u8 -j 4 "$T/cut7.zst"'
alike truncated_pipe "stdin: truncated zstd frame at compressed byte $((size - 7))" \
	'cat "$T/cut7.zst" | $G sum -t u8 -j 1' 'cat "$T/cut7.zst" | $G sum -t u8 -j 4'
head -c $((size - 100000)) "$T/cut.zst" > "$T/cutmid.zst"
alike truncated_pipe_mid "stdin: truncated zstd frame" \
	'cat "$T/cutmid.zst" | $G sum -t u8 -j 1' 'cat "$T/cutmid.zst" | $G sum -t u8 -j 4'

# A scan that overflows early in a .npy.zst whose end is bad (3 bytes past
# the header's size): one error line, the first in stream order. The
# reader, ahead of the scan, found the bad end and told it at once, so
# about one run in three printed both lines.
printf '\0\0\0\0\0\0\0@' > "$T/u"	# 2^62 as little-endian u64
for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18; do
	cat "$T/u" "$T/u" > "$T/u2" && mv "$T/u2" "$T/u"
done
{ printf '\223NUMPY\001\000\166\000'
  printf "%-117s\n" "{'descr': '<u8', 'fortran_order': False, 'shape': (200000,), }"
  head -c 1600000 "$T/u"; printf xyz; } > "$T/o.npy"
"$M" -c 3 0 < "$T/o.npy" > "$T/o.npy.zst"
n=0
for _ in 1 2 3 4 5 6 7 8 9 10; do
	$G scan --chunk-size 1M "$T/o.npy.zst" > /dev/null 2> "$T/err"
	[ "$(wc -l < "$T/err")" -eq 1 ] &&
		grep -q 'element 3 column 0: .* overflows u64' "$T/err" && n=$((n + 1))
done
[ $n -eq 10 ] && ok ||
	bad scan_first_error "$((10 - n)) of 10 runs: $(tr '\n' '|' < "$T/err")"

summary
