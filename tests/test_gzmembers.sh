#!/bin/sh
# test_gzmembers.sh - a regular file of plain gzip members (issue 29, item
# 3: "concatenated members ... decode in parallel"), decoded in spans on
# the workers (src/input/gzmembers.c): files of many members of odd sizes
# and headers (tests/gzgen.py many), of pieces written by gzip and pigz and
# concatenated, of stored members whose data holds whole gzip members (a
# span's first member header is then one inside another member, and it
# decodes, CRC32 and all), of members of 32 MiB - 1, 32 MiB and 32 MiB + 1
# (a span's bound), of members whose header or trailer straddles a span's
# end give the raw bytes, bit for bit, for sum, scan and hist
# with -j 1 and -j 4, from a file and stdin as a file; -v says most of
# them were decoded in parallel (before, all of them as one stream). A
# byte inverted in a member's data, CRC32 or ISIZE, a cut in the last
# member and garbage after the last give the one line of -j 1 with -j 4.
#
# Usage: sh tests/test_gzmembers.sh   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "gzmembers: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=gzmembers
. tests/lib.sh
. tests/zcmp.sh
if ! python3 -c 'import gzip, zlib, random; random.Random().randbytes' 2> /dev/null; then
	echo "gzmembers: note: skipped (no python3 3.9 or later)"
	summary
	exit
fi
PY="python3 tests/gzgen.py"
W4="GPUSTAT_ZPIPE_WORKERS=4"

# parallel NAME FILE: -j 4's -v says at least half of FILE's decoded
# bytes (of TOTAL MiB) were decoded in parallel on 4 threads, the rest as
# one stream
parallel() {
	eval "$W4 \$G sum -v -t u8 -j 4 \"\$2\"" 2> "$T/verr" > /dev/null
	line=$(grep '^gpustat: gzip: ' "$T/verr")
	echo "$line" | awk -v t="$3" '
		/MiB of frames decoded in parallel on 4 threads/ {
			p = $3; s = $(NF - 4)
			exit !(p >= t / 2 && (p + s - t) ^ 2 < 0.04) }
		{ exit 1 }' && ok || bad "$1" "-v: '$line' for $3 MiB"
}
mib() { awk -v n="$(wc -c < "$1")" 'BEGIN { printf "%.1f", n / 1048576 }'; }

# 4 MB: random bytes, lines of bytes (a \001 in each: not text), random
# bytes with whole gzip members in them every 1.5 KB or so
R=$T/raw
$PY fakes 1500000 "$T/fakes1"
{ head -c 1500000 /dev/urandom; yes "$(printf 'gpustat\001 0123456789')" | head -c 1000000
  cat "$T/fakes1"; } > "$R"

# the files, each of many members
files="many fakes"
$PY many "$R" "$T/many.gz"
$PY fakes 3000000 "$T/fakes.raw"
split -b 100000 "$T/fakes.raw" "$T/fk."
for p in "$T"/fk.*; do	# stored: the fake members lie in the compressed bytes
	python3 -c 'import gzip, sys; sys.stdout.buffer.write(gzip.compress(sys.stdin.buffer.read(), 0, mtime=0))' \
		< "$p" >> "$T/fakes.gz"
done
split -b 300000 "$R" "$T/piece."
for w in gzip pigz; do
	if echo | $w -c > /dev/null 2>&1; then
		for p in "$T"/piece.*; do $w -c "$p" >> "$T/$w.gz"; done
		files="$files $w"
	else
		echo "gzmembers: note: no $w: its files are not tested"
	fi
done

for f in $files; do
	z=$T/$f.gz
	raw=$R
	[ $f = fakes ] && raw=$T/fakes.raw
	"$G" sum -t u8 "$raw" > "$T/sum.want"
	"$G" scan -t u16 "$raw" > "$T/scan.want"
	"$G" hist -t i16 --bins 7 "$raw" > "$T/hist.want"
	for j in 1 4; do
		e=; [ $j = 4 ] && e=$W4
		same "sum_$f-j$j" "$T/sum.want" "$e \$G sum -t u8 -j $j \$z"
		same "scan_$f-j$j" "$T/scan.want" "$e \$G scan -t u16 -j $j \$z"
		same "hist_$f-j$j" "$T/hist.want" "$e \$G hist -t i16 --bins 7 -j $j - < \$z"
	done
	parallel "parallel_$f" "$z" "$(mib "$raw")"
done

# a first member the stream begins on while a worker decodes it too: the
# worker takes over wherever the stream is (its workers slowed down by
# GPUSTAT_ZPIPE_RACE_US, so the stream gets further; small chunks, so
# it is asked between reads), the same bytes
head -c 2500000 "$R" | gzip -1 -c > "$T/race.gz" 2> /dev/null ||
	head -c 2500000 "$R" | python3 -c 'import gzip, sys; sys.stdout.buffer.write(gzip.compress(sys.stdin.buffer.read(), 1))' > "$T/race.gz"
tail -c +2500001 "$R" | $PY many /dev/stdin "$T/race2.gz"
cat "$T/race2.gz" >> "$T/race.gz"
"$G" scan -t u16 "$R" > "$T/scan.want"
for us in 0 2000 20000; do
	same "race_$us" "$T/scan.want" \
		"GPUSTAT_ZPIPE_RACE_US=$us $W4 \$G scan -t u16 -j 4 --chunk-size 64K \$T/race.gz"
done

# members at a span's bound, over it and under it: the stream decodes
# those that do not fit, the workers the rest
$PY bound "$T/bound.gz" "$T/bound.raw"
"$G" sum -t u8 "$T/bound.raw" > "$T/sum.want"
"$G" hist -t u8 --bins 5 "$T/bound.raw" > "$T/hist.want"
for j in 1 4; do
	e=; [ $j = 4 ] && e=$W4
	same "bound_sum-j$j" "$T/sum.want" "$e \$G sum -t u8 -j $j \$T/bound.gz"
	same "bound_hist-j$j" "$T/hist.want" "$e \$G hist -t u8 --bins 5 -j $j \$T/bound.gz"
done
line=$(env $W4 "$G" sum -v -t u8 -j 4 "$T/bound.gz" 2>&1 > /dev/null | grep '^gpustat: gzip: ')
case $line in
*" 0.0 MiB of frames"*|*" 0.0 MiB as one"*|"") bad bound_parallel "-v: '$line'" ;;
*"in parallel on 4 threads"*) ok ;;
*) bad bound_parallel "-v: '$line'" ;;
esac

# members whose header (every optional field, or an empty member before
# it) begins a few bytes before, at or after a span's end, or whose trailer
# ends past it (spans of 64 KiB here): the same bytes, decoded in
# parallel; a byte changed near each span's end gives -j 1's one line
$PY straddle "$T/st.gz" "$T/st.raw"
"$G" scan -t u8 "$T/st.raw" > "$T/scan.want"
same straddle "$T/scan.want" "$W4 \$G scan -t u8 -j 4 \$T/st.gz"
parallel straddle_parallel "$T/st.gz" "$(mib "$T/st.raw")"
for at in 65533 131071 196610 262146 327680 327683 393216 458754 524290; do
	python3 -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[int(sys.argv[3])] ^= 0x5a; open(sys.argv[2], "wb").write(d)' \
		"$T/st.gz" "$T/stx.gz" $at
	want=$("$G" scan -t u8 -j 1 "$T/stx.gz" 2>&1 | cksum)
	got=$(env $W4 "$G" scan -t u8 -j 4 "$T/stx.gz" 2>&1 | cksum)
	[ "$got" = "$want" ] && ok || bad "straddle_flip_$at" "-j 4 differs from -j 1"
done

# --- broken files: the same one line with -j 1 and -j 4, exit 1
z=$T/many.gz
$PY starts "$z" > "$T/starts"
size=$(wc -c < "$z")
echo "$size" >> "$T/starts"
nm=$(($(wc -l < "$T/starts") - 1))
for m in 2 $((nm / 3)) $((nm / 2)) $nm; do
	s=$(sed -n "${m}p" "$T/starts")
	e=$(sed -n "$((m + 1))p" "$T/starts")
	[ $((e - s)) -gt 60 ] || continue	# an empty member
	for at in $((s + 40)) $(((s + e) / 2)) $((e - 7)) $((e - 2)); do
		$PY flip "$z" "$T/flip.gz" $at
		alike "flip_$m-$at" "corrupt gzip member at compressed byte $s:" \
			'$G sum -t u8 -j 1 "$T/flip.gz"' \
			"$W4 \$G sum -t u8 -j 4 \"\$T/flip.gz\""
	done
done
s=$(sed -n "${nm}p" "$T/starts")
for at in $((s + 1)) $((s + 5)) $((s + 30)) $(((s + size) / 2)) $((size - 8)) $((size - 1)); do
	[ "$at" -gt "$s" ] && [ "$at" -lt "$size" ] || continue
	head -c $at "$z" > "$T/cut.gz"
	alike "trunc_$at" "truncated gzip member at compressed byte $at" \
		'$G sum -t u8 -j 1 "$T/cut.gz"' \
		"$W4 \$G sum -t u8 -j 4 \"\$T/cut.gz\""
done
k=0
for tail in 'garbage' '\037\213\010\0\0\0\0\0\0\0\0\0\0\0\0\0\0' '\037\213\010\040'; do
	k=$((k + 1))
	{ cat "$z"; printf "$tail"; } > "$T/garbage.gz"
	alike "garbage_$k" "gzip member at compressed byte $size" \
		'$G scan -t u16 -j 1 "$T/garbage.gz"' \
		"$W4 \$G scan -t u16 -j 4 \"\$T/garbage.gz\""
done

summary
