#!/bin/sh
# test_bgzf.sh - BGZF (bgzip's independent gzip blocks) decoded in parallel
# where it is not a regular file of its own (issue 29, item 3): through a
# pipe (stdin, a FIFO) and as several operands (shards, decoded ahead of
# the one being read), written by bgzip and by python (tests/gzgen.py), it
# gives the raw bytes, bit for bit, for sum, stats, scan and dot, with -j 1
# and -j 4; -v says the bytes were decoded in parallel (a run that fell
# back to one stream would pass the rest unnoticed). Broken input
# (truncated at many offsets, a byte inverted in a middle block, a
# non-BGZF member after the blocks, garbage after the EOF block) gives the
# one line of -j 1 with -j 4, through a pipe and as a shard; a block whose
# 'BC' size lies (gzip reads it, a BGZF group does not inflate) is decoded
# again by the stream from where its group begins, with every byte read
# after it.
#
# Usage: sh tests/test_bgzf.sh   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "bgzf: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=bgzf
. tests/lib.sh
. tests/zcmp.sh
if ! python3 -c 'import gzip, zlib' 2> /dev/null; then
	echo "bgzf: note: skipped (python3 is not installed)"
	summary
	exit
fi
PY="python3 tests/gzgen.py"
W4="GPUSTAT_ZPIPE_WORKERS=4"

# decoded NAME MIB CMD: CMD's -v says all MIB of gzip were decoded in
# parallel on 4 threads
decoded() {
	eval "$3" 2> "$T/verr" > /dev/null
	line=$(grep '^gpustat: gzip: ' "$T/verr")
	want="gpustat: gzip: $2 MiB of frames decoded in parallel on 4 threads, 0.0 MiB as one stream"
	[ "$line" = "$want" ] && ok || bad "$1" "-v: '$line', wanted '$want'"
}
mib() { awk -v n="$(wc -c < "$1")" 'BEGIN { printf "%.1f", n / 1048576 }'; }

# 6 MB: random bytes, lines of bytes (a \001 in each: not text), bytes from
# a few letters; in groups of blocks that grow from 256 KiB, several groups
R=$T/raw
W=$T/w
{ head -c 2000000 /dev/urandom; yes "$(printf 'gpustat\001 0123456789')" | head -c 2000000
  head -c 4000000 /dev/urandom | tr -c 'a-f' '\001' | head -c 2000000; } > "$R"
head -c 6000000 /dev/urandom > "$W"
"$G" sum -t u8 "$R" > "$T/sum.want"
"$G" stats -t i16 "$R" > "$T/stats.want"
"$G" scan -t u16 "$R" > "$T/scan.want"
"$G" dot -t u8 "$R" "$W" > "$T/dot.want"
split -b 1600000 "$R" "$T/part."
mkdir "$T/small"
split -b 200000 "$R" "$T/small/s."	# a group each: alone, one stream

writers=py
# a bgzip that runs (one carried without its libraries does not)
if echo | bgzip -c > /dev/null 2>&1; then
	writers="bgzip $writers"
else
	echo "bgzf: note: no bgzip that runs: its files are not tested"
fi
bgzf() {	# bgzf WRITER IN OUT
	case $1 in
	bgzip) bgzip -c < "$2" > "$3" ;;
	py) $PY bgzf "$2" "$3" ;;
	esac
}

for w in $writers; do
	z=$T/$w.gz
	bgzf $w "$R" "$z"
	m=$(mib "$R")
	# --- through a pipe, and a FIFO
	for j in 1 4; do
		e=; [ $j = 4 ] && e=$W4
		same "sum_pipe_$w-j$j" "$T/sum.want" "cat \$z | $e \$G sum -t u8 -j $j"
		same "stats_pipe_$w-j$j" "$T/stats.want" "cat \$z | $e \$G stats -t i16 -j $j"
		same "scan_pipe_$w-j$j" "$T/scan.want" "cat \$z | $e \$G scan -t u16 -j $j"
		same "dot_pipe_$w-j$j" "$T/dot.want" "cat \$z | $e \$G dot -t u8 -j $j - \$W"
	done
	decoded "parallel_pipe_$w" "$m" "cat \$z | $W4 \$G sum -v -t u8 -j 4"
	decoded "parallel_stats_pipe_$w" "$m" "cat \$z | $W4 \$G stats -v -t i16 -j 4"
	rm -f "$T/fifo"
	mkfifo "$T/fifo"
	same "fifo_$w" "$T/scan.want" "cat \$z > \$T/fifo & $W4 \$G scan -t u16 -j 4 \$T/fifo"
	decoded "parallel_fifo_$w" "$m" "cat \$z > \$T/fifo & $W4 \$G sum -v -t u8 -j 4 \$T/fifo"

	# --- as shards, named .gz or found by their magic; stdin among them
	shards=
	for p in "$T"/part.a?; do
		bgzf $w "$p" "$p.$w.gz"
		shards="$shards $p.$w.gz"
	done
	for j in 1 4; do
		e=; [ $j = 4 ] && e=$W4
		same "shards_sum_$w-j$j" "$T/sum.want" "$e \$G sum -t u8 -j $j $shards"
		same "shards_stats_$w-j$j" "$T/stats.want" "$e \$G stats -t i16 -j $j $shards"
		same "shards_scan_$w-j$j" "$T/scan.want" "$e \$G scan -t u16 -j $j $shards"
	done
	decoded "parallel_shards_$w" "$m" "$W4 \$G sum -v -t u8 -j 4 $shards"
	small=
	for p in "$T"/small/s.??; do
		bgzf $w "$p" "$p.$w.gz"
		small="$small $p.$w.gz"
	done
	same "small_shards_$w" "$T/scan.want" "$W4 \$G scan -t u16 -j 4 $small"
	decoded "parallel_small_shards_$w" "$m" "$W4 \$G sum -v -t u8 -j 4 $small"
	unnamed=
	for s in $shards; do
		cp "$s" "${s%.gz}.bin"
		unnamed="$unnamed ${s%.gz}.bin"
	done
	decoded "parallel_unnamed_$w" "$m" "$W4 \$G sum -v -t u8 -j 4 $unnamed"
	first=${shards# }
	first=${first%% *}
	rest=${shards# }
	rest=${rest#* }
	same "shards_stdin_$w" "$T/scan.want" "cat \$first | $W4 \$G scan -t u16 -j 4 - $rest"

	# a block whose 'BC' size lies: the stream reads it from where its
	# group begins, and every byte after it, as -j 1 does
	cat "$T/part.aa" "$R" "$T/part.ac" > "$T/raw3"
	"$G" scan -t u16 "$T/raw3" > "$T/scan3.want"
	for k in 0 3 30; do
		$PY lie "$z" "$T/lie.gz" $k
		same "lie_pipe_$w-$k" "$T/scan.want" "cat \$T/lie.gz | $W4 \$G scan -t u16 -j 4"
		same "lie_file_$w-$k" "$T/scan.want" "$W4 \$G scan -t u16 -j 4 \$T/lie.gz"
		same "lie_shard_$w-$k" "$T/scan3.want" \
			"$W4 \$G scan -t u16 -j 4 \$T/part.aa.$w.gz \$T/lie.gz \$T/part.ac.$w.gz"
	done
done

# --- broken input: the one line of -j 1 with -j 4, through a pipe and as
# the second of three shards
# broken NAME TEXT FILE
broken() {
	alike "$1_pipe" "$2" "cat \"$3\" | \$G sum -t u8 -j 1" \
		"cat \"$3\" | $W4 \$G sum -t u8 -j 4"
	alike "$1_shard" "$2" "\$G sum -t u8 -j 1 $s1 \"$3\" $s3" \
		"$W4 \$G sum -t u8 -j 4 $s1 \"$3\" $s3"
}
for w in $writers; do
	z=$T/$w.gz
	s1=$T/part.aa.$w.gz
	s3=$T/part.ac.$w.gz
	size=$(wc -c < "$z")
	$PY starts "$z" > "$T/starts"
	for at in 10 18 30 1000 $((size / 3)) $((size / 2)) $((size - 29)) \
		  $((size - 9)) $((size - 1)); do
		grep -qx "$at" "$T/starts" && continue	# a whole shorter file
		head -c $at "$z" > "$T/cut.gz"
		broken "trunc_${w}_$at" "truncated gzip member at compressed byte $at" "$T/cut.gz"
	done
	# a middle block: its deflate data, its CRC32, its ISIZE
	echo "$size" >> "$T/starts"
	nm=$(($(wc -l < "$T/starts") - 1))
	s=$(sed -n "$((nm / 2))p" "$T/starts")
	e=$(sed -n "$((nm / 2 + 1))p" "$T/starts")
	for at in $(((s + e) / 2)) $((e - 6)) $((e - 2)); do
		$PY flip "$z" "$T/flip.gz" $at
		broken "flip_${w}_$at" "corrupt gzip member at compressed byte $s:" "$T/flip.gz"
	done
	# gzip that is not BGZF after the blocks: the stream reads it from
	# exactly where the blocks end (python writes it: no gzip needed)
	yes 'not bgzf' | head -c 150000 > "$T/tail"
	cat "$R" "$T/tail" > "$T/raw_tail"
	cat "$T/part.aa" "$T/raw_tail" "$T/part.ac" > "$T/raw_tail3"
	python3 -c 'import gzip, sys; sys.stdout.buffer.write(gzip.compress(sys.stdin.buffer.read()))' \
		< "$T/tail" > "$T/tail.gz"
	cat "$z" "$T/tail.gz" > "$T/mixed.gz"
	"$G" scan -t u16 "$T/raw_tail" > "$T/scan_tail.want"
	"$G" scan -t u16 "$T/raw_tail3" > "$T/scan_tail3.want"
	same "mixed_pipe_$w" "$T/scan_tail.want" "cat \$T/mixed.gz | $W4 \$G scan -t u16 -j 4"
	same "mixed_shard_$w" "$T/scan_tail3.want" "$W4 \$G scan -t u16 -j 4 $s1 \$T/mixed.gz $s3"
	cat "$T/mixed.gz" | GPUSTAT_ZPIPE_WORKERS=4 "$G" sum -v -t u8 -j 4 2> "$T/verr" > /dev/null
	line=$(grep '^gpustat: gzip: ' "$T/verr")
	want="gpustat: gzip: $(mib "$R") MiB of frames decoded in parallel on 4 threads, $(mib "$T/tail") MiB as one stream"
	[ "$line" = "$want" ] && ok || bad "mixed_decoded_$w" "-v: '$line', wanted '$want'"
	$PY flip "$T/mixed.gz" "$T/flip.gz" $((size + 40))
	broken "flip_mixed_$w" "corrupt gzip member at compressed byte $size:" "$T/flip.gz"
	# garbage and zeros after the EOF block
	for tail in 'garbage' '\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0'; do
		{ cat "$z"; printf "$tail"; } > "$T/garbage.gz"
		broken "garbage_$w" "corrupt gzip member at compressed byte $size: incorrect header check" "$T/garbage.gz"
	done
done

summary
