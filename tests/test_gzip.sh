#!/bin/sh
# test_gzip.sh - gzip input (issue 29, item 3): files written by gzip, pigz
# and bgzip, and by Python's gzip and zlib modules (tests/gzgen.py: several
# members with every optional header field, empty and stored members, BGZF
# blocks built by hand), must give what the uncompressed data gives, bit
# for bit, for sum, stats, hist and scan, with -j 1 and -j 4, from a file,
# stdin as a file and a pipe, and as one of several operands; a regular
# file's BGZF blocks are decoded on the workers (-v counts the chunks
# computed in the buffers they were decoded into: the stream has none).
# Broken files (truncated at many offsets, a byte inverted in a member's
# deflate data, CRC32 or ISIZE, of small members and of one of 42 MB,
# garbage after a member) fail with exit 1,
# nothing on stdout and one line naming the member by where it begins, the
# same with -j 1 and -j 4.
#
# gzip, pigz and bgzip are used where installed (a notice says which are
# not); python3 writes the rest.
#
# Usage: sh tests/test_gzip.sh   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "gzip: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=gzip
. tests/lib.sh
. tests/zcmp.sh
PY=
python3 -c 'import gzip, zlib' 2> /dev/null && PY="python3 tests/gzgen.py"
W4="GPUSTAT_ZPIPE_WORKERS=4"

# 3 MB: random bytes, lines of bytes (a \001 in each: not text) and bytes
# from a few letters: stored, fixed and dynamic deflate blocks
R=$T/raw
{ head -c 1000000 /dev/urandom; yes "$(printf 'gpustat\001 0123456789')" | head -c 1000000
  head -c 2000000 /dev/urandom | tr -c 'a-f' '\001' | head -c 1000000; } > "$R"

# the writers: NAME and the command that writes stdin's gzip to stdout
writers=
# a tool that runs (one carried without its libraries does not)
have() { echo | "$1" -c > /dev/null 2>&1; }
for w in gzip pigz bgzip; do
	have $w || echo "test_gzip: no $w: its files are not tested"
done
gz() {	# gz NAME OUT: RAW written by writer NAME
	case $1 in
	gzip) gzip -c < "$R" > "$2" ;;
	gzip1) gzip -1 -c < "$R" > "$2" ;;
	pigz) pigz -p 2 -c < "$R" > "$2" ;;
	pigz_i) pigz -i -b 128 -p 2 -c < "$R" > "$2" ;;
	bgzip) bgzip -c < "$R" > "$2" ;;
	bgzip_l0) bgzip -l 0 -c < "$R" > "$2" ;;
	cat) head -c 1200000 "$R" | gzip -c > "$2"
	     tail -c +1200001 "$R" | gzip -9 -c >> "$2" ;;
	py_members) $PY members "$R" "$2" ;;
	py_bgzf) $PY bgzf "$R" "$2" ;;
	esac
}
have gzip && writers="$writers gzip gzip1 cat"
have pigz && writers="$writers pigz pigz_i"
have bgzip && writers="$writers bgzip bgzip_l0"
[ -n "$PY" ] && writers="$writers py_members py_bgzf" ||
	echo "test_gzip: no python3: its files are not tested"

"$G" sum -t u8 "$R" > "$T/sum.want"
"$G" stats -t i16 "$R" > "$T/stats.want"
"$G" hist -t u8 --bins 7 --range 0:256 "$R" > "$T/hist.want"
"$G" hist -t i16 --bins 5 "$R" > "$T/hist2.want"
"$G" scan -t u16 "$R" > "$T/scan.want"

# --- each writer's file: a file, stdin as a file, a pipe; -j 1 and -j 4
for w in $writers; do
	z=$T/$w.gz
	gz $w "$z"
	for j in 1 4; do
		e=; [ $j = 4 ] && e=$W4
		same "sum_$w-j$j" "$T/sum.want" "$e \$G sum -t u8 -j $j \$z"
		same "stats_$w-j$j" "$T/stats.want" "$e \$G stats -t i16 -j $j - < \$z"
		same "hist_$w-j$j" "$T/hist.want" \
			"cat \$z | $e \$G hist -t u8 --bins 7 --range 0:256 -j $j"
		same "hist2_$w-j$j" "$T/hist2.want" "$e \$G hist -t i16 --bins 5 -j $j \$z"
		same "scan_$w-j$j" "$T/scan.want" "$e \$G scan -t u16 -j $j \$z"
		same "scan_pipe_$w-j$j" "$T/scan.want" "cat \$z | $e \$G scan -t u16 -j $j"
	done
	# its name says gzip even where another name would not
	cp "$z" "$T/named.gz"
	same "named_$w" "$T/sum.want" '$G sum -t u8 "$T/named.gz"'
done

# --- BGZF decoded on the workers: chunks computed in place, which the
# stream never lends
for w in bgzip py_bgzf; do
	case " $writers " in *" $w "*) ;; *) continue ;; esac
	n=$(GPUSTAT_ZPIPE_WORKERS=4 "$G" sum -t u8 -j 4 --backend cpu --chunk-size 64K -v "$T/$w.gz" 2>&1 >/dev/null |
		sed -n 's/.*; \([0-9]*\) of \([0-9]*\) chunks in place.*/\1/p')
	[ "${n:-0}" -ge 5 ] 2>/dev/null && ok || bad "parallel_$w" "-v: '$n' chunks in place, wanted 5 or more"
done

# --- several operands: gzip, BGZF, zstd-less raw and stdin in one stream
if have gzip && have bgzip; then
	split -b 700000 "$R" "$T/part."
	i=0
	for p in "$T"/part.*; do
		case $((i % 3)) in
		0) gzip -c "$p" > "$p.gz" ;;
		1) bgzip -c "$p" > "$p.gz" ;;
		2) cp "$p" "$p.gz.no" ;;
		esac
		i=$((i + 1))
	done
	ops=
	for p in "$T"/part.??; do
		for f in "$p.gz" "$p.gz.no"; do
			[ -f "$f" ] && ops="$ops $f"
		done
	done
	for j in 1 4; do
		e=; [ $j = 4 ] && e=$W4
		same "operands_scan-j$j" "$T/scan.want" "$e \$G scan -t u16 -j $j $ops"
		same "operands_hist2-j$j" "$T/hist2.want" "$e \$G hist -t i16 --bins 5 -j $j $ops"
	done
	first=${ops# }
	first=${first%% *}
	rest=${ops# }
	rest=${rest#* }
	same operands_stdin "$T/scan.want" "cat \$first | $W4 \$G scan -t u16 -j 4 - $rest"
	# the .gz suffix says the type as .zst does
	cp "$T/bgzip.gz" "$T/data.i16.gz" 2> /dev/null || bgzip -c "$R" > "$T/data.i16.gz"
	same suffix_type "$T/stats.want" '$G stats "$T/data.i16.gz"'
	$G sum -v "$T/data.i16.gz" 2>&1 > /dev/null | grep -q 'input: raw (gzip), i16' && ok ||
		bad verbose_format "$($G sum -v "$T/data.i16.gz" 2>&1 > /dev/null | grep input:)"
fi

# --- empty input: a member of nothing
if have gzip; then
	: | gzip -c > "$T/empty.gz"
	echo 0 > "$T/zero"
	same empty_sum "$T/zero" '$G sum -t u8 "$T/empty.gz"'
fi

# --- a header with every optional field, each long (the name runs past
# a read's 128 KiB), from a file, a pipe and a pipe that brings it a
# piece at a time; cut at and just past where each of its parts begins it
# is truncated where it ends, and a wrong FHCRC is corrupt
if [ -n "$PY" ]; then
	parts=$($PY flags "$R" "$T/flags.gz")
	same flags_file "$T/sum.want" '$G sum -t u8 "$T/flags.gz"'
	same flags_pipe "$T/scan.want" 'cat "$T/flags.gz" | $G scan -t u16'
	cuts=2
	for p in $parts; do
		cuts="$cuts $((p - 1)) $((p + 1))"
	done
	same flags_pieces "$T/sum.want" '$PY pieces "$T/flags.gz" $cuts | $G sum -t u8'
	for p in $parts; do
		for at in $p $((p + 1)); do
			head -c $at "$T/flags.gz" > "$T/cut.gz"
			alike "flags_trunc_$at" "truncated gzip member at compressed byte $at" \
				'$G sum -t u8 -j 1 "$T/cut.gz"' \
				"$W4 \$G sum -t u8 -j 4 \"\$T/cut.gz\""
			alike "flags_trunc_pipe_$at" "truncated gzip member at compressed byte $at" \
				'cat "$T/cut.gz" | $G sum -t u8 -j 1' \
				"\$PY pieces \"\$T/cut.gz\" \$cuts | $W4 \$G sum -t u8 -j 4"
		done
	done
	$PY flags "$R" "$T/badh.gz" bad > /dev/null
	alike flags_hcrc "corrupt gzip member at compressed byte 0: header crc mismatch" \
		'$G sum -t u8 -j 1 "$T/badh.gz"' \
		"$W4 \$G sum -t u8 -j 4 \"\$T/badh.gz\""
	alike flags_hcrc_pipe "corrupt gzip member at compressed byte 0: header crc mismatch" \
		'cat "$T/badh.gz" | $G sum -t u8 -j 1' \
		"\$PY pieces \"\$T/badh.gz\" \$cuts | $W4 \$G sum -t u8 -j 4"
fi

# --- broken files: the same one line with -j 1 and -j 4, exit 1
# trunc NAME FILE: FILE cut at offsets inside its members
trunc() {
	size=$(wc -c < "$2")
	$PY starts "$2" > "$T/starts"
	for at in 1 2 3 10 17 18 19 30 1000 $((size / 3)) $((size / 2)) \
		  $((size - 9)) $((size - 8)) $((size - 5)) $((size - 1)); do
		grep -qx "$at" "$T/starts" && continue	# a whole shorter file
		head -c $at "$2" > "$T/cut.gz"
		alike "trunc_$1_$at" "gzip member at compressed byte" \
			'$G sum -t u8 -j 1 "$T/cut.gz"' \
			"$W4 \$G sum -t u8 -j 4 \"\$T/cut.gz\""
		grep -q "truncated gzip member at compressed byte $at\$" "$T/e1" ||
			bad "trunc_$1_${at}_where" "$(cat "$T/e1")"
	done
	head -c $((size - 1)) "$2" > "$T/cut.gz"
	alike "trunc_pipe_$1" "truncated gzip member at compressed byte $((size - 1))" \
		'cat "$T/cut.gz" | $G sum -t u8 -j 1' \
		"cat \"\$T/cut.gz\" | $W4 \$G sum -t u8 -j 4"
}

# flips NAME FILE: a byte inverted in a member's deflate data and in its
# trailer (CRC32, ISIZE), in the first, a middle and the last member with
# data; the error names the member, and a flipped trailer says which
# check failed
flips() {
	$PY starts "$2" > "$T/starts"
	size=$(wc -c < "$2")
	echo "$size" >> "$T/starts"
	nm=$(($(wc -l < "$T/starts") - 1))
	for m in 1 $(((nm + 1) / 2)) $((nm - 1)); do
		[ "$m" -ge 1 ] || continue
		s=$(sed -n "${m}p" "$T/starts")
		e=$(sed -n "$((m + 1))p" "$T/starts")
		[ $((e - s)) -gt 60 ] || continue	# an empty member
		for at in $((s + 40)) $(((s + e) / 2)) $((e - 8)) $((e - 6)) \
			  $((e - 5)) $((e - 3)) $((e - 1)); do
			$PY flip "$2" "$T/flip.gz" $at
			case $((e - at)) in
			[5-8]) why=": incorrect data check" ;;
			[1-4]) why=": incorrect length check" ;;
			*) why=: ;;
			esac
			alike "flip_$1_$at" "corrupt gzip member at compressed byte $s$why" \
				'$G sum -t u8 -j 1 "$T/flip.gz"' \
				"$W4 \$G sum -t u8 -j 4 \"\$T/flip.gz\""
		done
	done
	$PY flip "$2" "$T/flip.gz" $(((size) / 2))
	alike "flip_scan_$1" "corrupt gzip member at compressed byte" \
		'$G scan -t u16 -j 1 "$T/flip.gz"' \
		"$W4 \$G scan -t u16 -j 4 \"\$T/flip.gz\""
	alike "flip_pipe_$1" "corrupt gzip member at compressed byte" \
		'cat "$T/flip.gz" | $G sum -t u8 -j 1' \
		"cat \"\$T/flip.gz\" | $W4 \$G sum -t u8 -j 4"
}

if [ -n "$PY" ]; then
	for w in gzip cat pigz bgzip py_members py_bgzf; do
		[ -f "$T/$w.gz" ] || continue
		trunc $w "$T/$w.gz"
		flips $w "$T/$w.gz"
	done
fi

# one member of 42 MB, read in chunks of 8 MiB that are inflated 1 MiB
# at a time (the CRC32 computed on a thread beside the inflate where -j
# allows, gzsrc.c): its CRC32 or ISIZE changed fails at the trailer with
# the line of -j 1, from a file and a pipe, and prints nothing
if have gzip && [ -n "$PY" ]; then
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14; do cat "$R"; done | gzip -1 -c > "$T/big.gz"
	echo $(($(cat "$T/sum.want") * 14)) > "$T/big.want"
	same big_sum-j1 "$T/big.want" '$G sum -t u8 -j 1 "$T/big.gz"'
	same big_sum-j4 "$T/big.want" '$G sum -t u8 -j 4 "$T/big.gz"'
	same big_sum_pipe "$T/big.want" 'cat "$T/big.gz" | $G sum -t u8 -j 4'
	size=$(wc -c < "$T/big.gz")
	for at in $((size - 8)) $((size - 5)) $((size - 4)) $((size - 1)); do
		$PY flip "$T/big.gz" "$T/bigflip.gz" $at
		case $((size - at)) in
		[5-8]) why="corrupt gzip member at compressed byte 0: incorrect data check" ;;
		*) why="corrupt gzip member at compressed byte 0: incorrect length check" ;;
		esac
		for cmd in sum stats; do
			alike "big_$cmd-$at" "gpustat: $T/bigflip.gz: $why" \
				"\$G $cmd -t u8 -j 1 \"\$T/bigflip.gz\"" \
				"\$G $cmd -t u8 -j 4 \"\$T/bigflip.gz\""
		done
		alike "big_pipe-$at" "gpustat: stdin: $why" \
			'cat "$T/bigflip.gz" | $G sum -t u8 -j 1' \
			'cat "$T/bigflip.gz" | $G sum -t u8 -j 4'
	done
fi

# garbage after a member, and zeros: the next "member" is corrupt; so is
# one of another method or with a reserved flag, and one byte is a member
# cut short
for w in gzip bgzip py_bgzf; do
	[ -f "$T/$w.gz" ] || continue
	size=$(wc -c < "$T/$w.gz")
	for tail in 'garbage' '\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0' \
		    '\037\213\007\0\0\0\0\0\0\0' '\037\213\010\040\0\0\0\0\0\0' 'g'; do
		case $tail in
		*007*) why="corrupt gzip member at compressed byte $size: unknown compression method" ;;
		*040*) why="corrupt gzip member at compressed byte $size: unknown header flags set" ;;
		g) why="truncated gzip member at compressed byte $((size + 1))" ;;
		*) why="corrupt gzip member at compressed byte $size: incorrect header check" ;;
		esac
		{ cat "$T/$w.gz"; printf "$tail"; } > "$T/garbage.gz"
		alike "garbage_$w" "$why" \
			'$G sum -t u8 -j 1 "$T/garbage.gz"' \
			"$W4 \$G sum -t u8 -j 4 \"\$T/garbage.gz\""
	done
done

summary
