#!/bin/sh
# test_input_edges.sh - what the input layer must read and what it must
# refuse ("trust at the edges"): plain P2/P3 Netpbm read as their
# binary twins; bzip2, xz, lz4, PNG, JPEG, PBM, PAM and PFM refused
# (never read as raw data) unless --raw (gzip is read: test_gzip.sh); binary samples above maxval; .npy
# headers numpy refuses, bool, Fortran order, a column count over -c's cap;
# zstd frames whose window is over 128 MiB without --long/--memory.
#
# Inputs and expected outputs are in fixtures/input/, written and computed by
# numpy (tests/gen_input_edges.py), never by gpustat.
#
# Usage: sh tests/test_input_edges.sh   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "input_edges: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=input_edges
. tests/lib.sh
# ulimit -v caps the memory a refusal may touch; ASan's shadow memory needs
# terabytes of address space, so under it (make asan) the cap is left out
vlimit="ulimit -v"
[ -n "$GPUSTAT_ASAN" ] && vlimit=":"
F=fixtures/input

# same NAME EXPECTED CMD: CMD (eval'd) exits 0, says nothing on stderr and
# writes exactly the file EXPECTED on stdout.
same() {
	name=$1 want=$2
	eval "$3" > "$T/out" 2> "$T/err" < /dev/null
	rc=$?
	if [ $rc -ne 0 ]; then
		bad "$name" "exit $rc: $(head -n 1 "$T/err")"
	elif [ -s "$T/err" ]; then
		bad "$name" "stderr: $(head -n 1 "$T/err")"
	elif ! cmp -s "$T/out" "$want"; then
		bad "$name" "stdout $(head -c 80 "$T/out" | tr '\n\t' '| '), wanted $(head -c 80 "$want" | tr '\n\t' '| ')"
	else
		ok
	fi
}

# fault NAME STATUS TEXT CMD: CMD exits STATUS with exactly one stderr line
# "gpustat: ..." that holds TEXT.
fault() {
	name=$1 want=$2 pat=$3
	eval "$4" > "$T/out" 2> "$T/err" < /dev/null
	rc=$?
	n=$(wc -l < "$T/err")
	if [ $rc -ne "$want" ]; then
		bad "$name" "exit $rc, wanted $want: $(head -n 1 "$T/err")"
	elif [ "$n" -ne 1 ]; then
		bad "$name" "$n lines on stderr: $(head -n 3 "$T/err" | tr '\n' '|')"
	elif ! grep -q '^gpustat: ' "$T/err"; then
		bad "$name" "not 'gpustat: ...': $(cat "$T/err")"
	elif ! grep -qF -- "$pat" "$T/err"; then
		bad "$name" "stderr lacks \"$pat\": $(cat "$T/err")"
	else
		ok
	fi
}

# --- item 1: plain Netpbm, read as P5/P6 would be
same p2_hist_equals_p5 $F/img_hist.out '$G hist $F/img_plain.pgm'
same p5_hist $F/img_hist.out '$G hist $F/img.pgm'
same p2_hist_pipe $F/img_hist.out 'cat $F/img_plain.pgm | $G hist'
same p2_u16_sum $F/img16_sum.out '$G sum $F/img16_plain.pgm'
same p2_u16_sum_chunk1 $F/img16_sum.out '$G sum --chunk-size 1 $F/img16_plain.pgm'
same p3_sum_3_columns $F/rgb_sum.out '$G sum $F/rgb_plain.ppm'
fault p2_short 1 'short_plain.pgm: plain pgm: header says 6 samples, file has 5' \
	'$G sum $F/short_plain.pgm'
fault p2_long 1 'long_plain.pgm: plain pgm: header says 2 samples, file has 3' \
	'$G sum $F/long_plain.pgm'
fault p2_over_maxval 1 'plain pgm: sample 101 at byte 15 is above maxval 100' \
	'$G sum $F/over_plain.pgm'
fault p2_bad_text 1 'plain pgm: expected a decimal sample at byte 14' \
	'$G sum $F/bad_plain.pgm'
fault p1_refused 1 'bits_plain.pbm: a plain pbm bitmap (P1), which gpustat does not read (convert it to pgm first' \
	'$G hist $F/bits_plain.pbm'
fault p4_refused 1 'a pbm bitmap (P4), which gpustat does not read' '$G hist $F/bits.pbm'
fault p7_refused 1 'a pam image (P7), which gpustat does not read' '$G hist $F/img.pam'
fault pf_refused 1 'a pfm float image (PF), which gpustat does not read' '$G sum $F/img.pfm'

# --- item 2: formats gpustat does not read are never read as raw data
fault bzip2_refused 1 'data.bz2: bzip2 data, which gpustat does not read (read it through bzip2 -dc, or --raw to read the bytes as they are)' \
	'$G hist $F/data.bz2'
fault xz_refused 1 'data.xz: xz data, which gpustat does not read (read it through xz -dc' '$G hist $F/data.xz'
fault xz_refused_pipe 1 'stdin: xz data, which gpustat does not read' \
	'cat $F/data.xz | $G hist'
fault lz4_refused 1 'data.lz4: lz4 data, which gpustat does not read (read it through lz4 -dc' '$G hist $F/data.lz4'
fault png_refused 1 'img.png: a PNG image, which gpustat does not read (convert it to pgm, ppm or npy first' \
	'$G hist $F/img.png'
fault jpeg_refused 1 'img.jpg: a JPEG image, which' '$G hist $F/img.jpg'
same gzip_raw_reads_bytes $F/gz_raw_sum.out '$G sum -t u8 --raw $F/data.gz'

# --- item 3: binary samples above maxval
fault p5_over_maxval 1 'over8.pgm: pgm sample 101 at byte 13 is above maxval 100' \
	'$G sum $F/over8.pgm'
fault p5_u16_over_maxval 1 'over16.pgm: pgm sample 1001 at byte 14 is above maxval 1000' \
	'$G sum --chunk-size 1 $F/over16.pgm'

# --- item 4: .npy as numpy reads it
fault npy_nul_descr 1 'nul_descr.npy: bad npy header at byte 24: control byte in a string' \
	'$G sum $F/nul_descr.npy'
fault npy_int_shape 1 'int_shape.npy: bad npy header at byte 62: shape is a number, not a tuple' \
	'$G sum $F/int_shape.npy'
same npy_bool_sum $F/bool_sum.out '$G sum $F/bool.npy'
same npy_bool_hist $F/bool_hist.out '$G hist $F/bool.npy'
same npy_fortran_sum $F/fortran2d_sum.out '$G sum $F/fortran2d.npy'
same npy_fortran_sum_small_chunks $F/fortran2d_sum.out \
	'$G sum --chunk-size 100 -j 1 $F/fortran2d.npy'
same npy_fortran_stdin_file $F/fortran2d_sum.out '$G sum < $F/fortran2d.npy'
same npy_fortran_scan $F/fortran2d_scan.bin '$G scan $F/fortran2d.npy'
same npy_fortran_3d_sum $F/fortran3d_sum.out '$G sum $F/fortran3d.npy'
fault npy_fortran_pipe 1 'stdin: fortran-order npy with 2 axes can only be read from an uncompressed file, not from a pipe (save np.ascontiguousarray(a) instead)' \
	'cat $F/fortran2d.npy | $G sum'
fault npy_fortran_zstd 1 'not from zstd (save np.ascontiguousarray(a) instead)' \
	'$G sum $F/fortran2d.npy.zst'
# refused from the header, before 2^21 accumulators are made (ulimit -v:
# 2^21 columns of stats would take GBs)
fault npy_columns_cap 1 'wide.npy: bad npy header at byte 10: 2097152 columns (the last axes), more than 1048576' \
	'($vlimit 262144; $G stats --chunk-size 1M $F/wide.npy)'

# --- items 5 and 6: zstd windows over 128 MiB need --long or --memory
same zst_window_128m $F/win_sum.out '$G sum -t i16 $F/win27.zst'
fault zst_window_2g_refused 1 'win31.zst: zstd frame at compressed byte 0 needs a 2048 MiB window, over the 128 MiB limit (--long=31 or --memory=2048M allows it)' \
	'($vlimit 524288; $G sum -t i16 $F/win31.zst)'
fault zst_window_256m_refused 1 'needs a 256 MiB window, over the 128 MiB limit' \
	'$G sum -t i16 $F/win28.zst'
fault zst_window_pipe_refused 1 'stdin: zstd frame at compressed byte 0 needs a 2048 MiB window' \
	'cat $F/win31.zst | $G sum -t i16'
same zst_long31 $F/win_sum.out '$G sum -t i16 --long=31 $F/win31.zst'
same zst_long_default_31 $F/win_sum.out '$G sum -t i16 --long $F/win31.zst'
same zst_memory_2g $F/win_sum.out '$G sum -t i16 --memory=2G $F/win31.zst'
same zst_memory_256m $F/win_sum.out '$G sum -t i16 --memory=256M $F/win28.zst'
fault zst_memory_below 1 'needs a 2048 MiB window, over the 2047 MiB limit' \
	'$G sum -t i16 --memory=2047M $F/win31.zst'
fault zst_long30 1 'over the 1024 MiB limit' '$G sum -t i16 --long=30 $F/win31.zst'
fault usage_long_32 2 "--long: expected a window log from 10 to 31, not '32'" \
	'$G sum -t i16 --long=32 $F/win31.zst'
fault usage_memory_3g 2 "--memory: expected a size from 1K to 2G, not '3G'" \
	'$G sum -t i16 --memory=3G $F/win31.zst'
fault usage_memory_bad 2 "--memory: expected a size from 1K to 2G, not 'lots'" \
	'$G sum -t i16 --memory=lots $F/win31.zst'

summary
