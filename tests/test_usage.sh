#!/bin/sh
# test_usage.sh - what users type and what they are told: numpy's type
# names with numpy's meanings, suggestions for a mistyped command or option,
# contradictory byte orders, every --help checked against the option tables
# the parser uses (and the completions and man page against the same
# tables), progress forced into a file or pipe, and the messages without an
# NVIDIA driver. Expected numbers come from numpy (the table below was made
# with numpy 2.4: np.frombuffer(data, dtype).sum(), math.fsum for floats).
#
# Usage: sh tests/test_usage.sh   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "usage: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=usage
. tests/lib.sh

# expect NAME RC WANT_STDOUT WANT_STDERR_SUBSTRING CMD...: the exit status,
# stdout exactly (or "-" for empty), and one stderr line holding the
# substring ("" for an empty stderr).
expect() {
	name=$1 rc=$2 out=$3 msg=$4
	shift 4
	"$@" > "$T/out" 2> "$T/err"
	got=$?
	if [ "$got" -ne "$rc" ]; then
		bad "$name" "exit $got, wanted $rc: $(head -c 300 "$T/err")"
		return
	fi
	if [ "$out" = - ]; then
		[ -s "$T/out" ] && { bad "$name" "stdout: $(head -c 100 "$T/out")"; return; }
	elif [ "$(cat "$T/out")" != "$out" ]; then
		bad "$name" "stdout '$(head -c 100 "$T/out")', wanted '$out'"
		return
	fi
	if [ -z "$msg" ]; then
		[ -s "$T/err" ] && { bad "$name" "stderr: $(cat "$T/err")"; return; }
	elif [ "$(wc -l < "$T/err")" -ne 1 ] || ! grep -q '^gpustat: ' "$T/err" ||
	     ! grep -qF -- "$msg" "$T/err"; then
		bad "$name" "stderr '$(cat "$T/err")', wanted one line with '$msg'"
		return
	fi
	ok
}

# ---- item 1: numpy's type names, with numpy's meanings --------------------
# 1.5 and -2.25 as little-endian f64: 16 bytes that every type reads as
# finite values.
printf '\000\000\000\000\000\000\370\077\000\000\000\000\000\000\002\300' > "$T/d"
while read -r spelling want; do
	expect "type_$spelling" 0 "$want" "" "$G" sum --backend cpu -t "$spelling" "$T/d"
done <<'EOF'
float	-0.75
d	-0.75
double	-0.75
f	-0.09375
single	-0.09375
half	-0.01171875
e	-0.01171875
int	-1688849860263936
l	-1688849860263936
q	-1688849860263936
longlong	-1688849860263936
int_	-1688849860263936
intp	-1688849860263936
long	-1688849860263936
uint	18445055223849287680
uintp	18445055223849287680
ulong	18445055223849287680
ulonglong	18445055223849287680
b	-7
B	505
h	-6
H	65530
i	-393216
I	4294574080
L	18445055223849287680
Q	18445055223849287680
p	-1688849860263936
P	18445055223849287680
byte	-7
ubyte	505
short	-6
ushort	65530
intc	-393216
uintc	4294574080
<f8	-0.75
>f4	9.004043282519112e-41
=f2	-0.01171875
|u1	505
EOF
# bool: numpy writes the bytes 0 and 1; the sum counts the true ones
printf '\001\000\001\001\000\001' > "$T/bool"
for spelling in bool '?' bool_ b1 '|b1'; do
	expect "type_bool_$spelling" 0 4 "" "$G" sum --backend cpu -t "$spelling" "$T/bool"
done
# any nonzero byte is True to numpy: np.fromfile(f, bool).sum() of 7 0 3 is 2
printf '\007\000\003' > "$T/bool7"
expect type_bool_nonzero 0 2 "" "$G" sum --backend cpu -t bool "$T/bool7"
expect type_u8_not_bool 0 10 "" "$G" sum --backend cpu -t u8 "$T/bool7"
# numpy rejects these, and so do we; the message lists the valid names
for spelling in float_ int0 longdouble complex F4 'f32 '; do
	expect "type_bad_$spelling" 2 - "unknown type '$spelling'" "$G" sum -t "$spelling" "$T/d"
done
"$G" sum -t nope "$T/d" 2> "$T/err"
for name in u8 f64 bf16 float32 double bool int half '<f4'; do
	grep -qF -- " $name" "$T/err" && ok || bad "type_list_$name" "not in: $(cat "$T/err")"
done

# ---- item 2: the nearest command or option --------------------------------
expect suggest_stat 2 - "gpustat: 'stat' is not a command; did you mean 'stats'? (try 'gpustat --help')" \
	"$G" stat "$T/d"
expect suggest_scna 2 - "did you mean 'scan'?" "$G" scna "$T/d"
expect suggest_hsit 2 - "did you mean 'hist'?" "$G" hsit "$T/d"
expect suggest_none 2 - "gpustat: 'frobnicate' is not a command (try 'gpustat --help')" \
	"$G" frobnicate
expect suggest_colums 2 - "gpustat: unknown option '--colums'; did you mean '--columns'? (try 'gpustat sum --help')" \
	"$G" sum --colums 2 "$T/d"
expect suggest_bnis 2 - "unknown option '--bnis'; did you mean '--bins'?" "$G" hist --bnis=4 "$T/d"
expect suggest_exclsuive 2 - "did you mean '--exclusive'?" "$G" scan --exclsuive "$T/d"
expect suggest_chunksize 2 - "did you mean '--chunk-size'?" "$G" sum --chunksize 1M "$T/d"
expect suggest_far 2 - "unknown option '--zzzzzz' (try" "$G" sum --zzzzzz "$T/d"
# a type too, the valid names still listed after it
expect suggest_flaot32 2 - "gpustat: unknown type 'flaot32'; did you mean 'float32'? (valid: u8 " \
	"$G" sum -t flaot32 "$T/d"
expect suggest_f33 2 - "unknown type 'f33'; did you mean 'f32'?" "$G" stats -t f33 "$T/d"
expect suggest_uint61 2 - "did you mean 'uint16'?" "$G" hist --type=uint61 "$T/d"
expect suggest_out_type 2 - "--out-type: unknown type 'flaot64'; did you mean 'float64'?" \
	"$G" scan --out-type flaot64 "$T/d"
expect suggest_type_far 2 - "unknown type 'zzzzzz' (valid:" "$G" sum -t zzzzzz "$T/d"
# numpy's one-letter codes are near every letter: not suggested
expect suggest_type_letter 2 - "unknown type 'x' (valid:" "$G" sum -t x "$T/d"
expect suggest_not_bins 2 - "unknown option '--bins' (try" "$G" sum --bins 3 "$T/d"
expect ambiguous_p 2 - "option '--p' is ambiguous (--progress, --per-file, --plot)" "$G" hist --p "$T/d"

# ---- item 5: contradictory byte orders ------------------------------------
# 1.5 and -2.25 as big-endian f32
printf '\077\300\000\000\300\020\000\000' > "$T/be"
expect endian_t_then_little 2 - "contradicts" "$G" sum -t '>f4' --endian little "$T/be"
expect endian_little_then_t 2 - "contradicts" "$G" sum --endian little -t '>f4' "$T/be"
expect endian_big_then_lt 2 - "contradicts" "$G" sum --endian big -t '<f4' "$T/be"
expect endian_native_big 2 - "contradicts" "$G" sum -t '=f4' --endian big "$T/be"
expect endian_eq_big 2 - "contradicts" "$G" sum --endian=big -t '<i2' "$T/be"
expect endian_scan 2 - "contradicts" "$G" scan -t '>f4' --endian little "$T/be"
# after a byte order only numpy's typestrings and codes: '<f16' is numpy's
# float128 (np.dtype(np.longdouble).str), not f16
for spelling in '<f16' '>f16' '=f16' '<float32' '>half' '>bool' '<i16'; do
	expect "type_order_$spelling" 2 - "unknown type" "$G" sum -t "$spelling" "$T/be"
done
expect type_order_code 0 -0.75 "" "$G" sum --backend cpu -t '>f' "$T/be"
# numpy's bool is not its u8: -t bool against a u8 header contradicts it,
# and an -t f32 that names no byte order agrees with a '>f4' header
printf '\223NUMPY\001\000v\000{'"'"'descr'"'"': '"'"'|u1'"'"', '"'"'fortran_order'"'"': False, '"'"'shape'"'"': (1,), }' > "$T/u1.npy"
printf '%60s\n\007' '' >> "$T/u1.npy"
expect type_bool_vs_u1_header 2 - "contradicts the npy header" "$G" sum -t bool "$T/u1.npy"
printf '\223NUMPY\001\000v\000{'"'"'descr'"'"': '"'"'>f4'"'"', '"'"'fortran_order'"'"': False, '"'"'shape'"'"': (1,), }' > "$T/be.npy"
printf '%60s\n\277\100\000\000' '' >> "$T/be.npy"
expect type_f32_vs_be_header 0 -0.75 "" "$G" sum --backend cpu -t f32 "$T/be.npy"
expect type_lt_f4_vs_be_header 2 - "contradicts the npy header" "$G" sum -t '<f4' "$T/be.npy"
# a backend that cannot run after an operand failed adds no second line
# (no result can come of it; a GPU machine runs it and prints none either)
expect backend_after_operand 1 - "nosuch" "$G" sum --backend cuda "$T/nosuch"
# containers numpy users meet that gpustat does not read: refused, not summed
printf 'PK\003\004\024\000\000\000' > "$T/a.npz"
expect format_npz 1 - "zip archive" "$G" sum "$T/a.npz"
printf '\211HDF\r\n\032\n\000\000\000\000' > "$T/a.h5"
expect format_hdf5 1 - "HDF5" "$G" sum "$T/a.h5"
printf 'GIF89a\001\000' > "$T/a.gif"
expect format_gif 1 - "GIF" "$G" sum "$T/a.gif"
expect format_npz_raw 0 "$(printf 'PK\003\004\024\000\000\000' | od -An -tu1 | tr -s ' ' '\n' | awk '{ s += $1 } END { print s }')" "" "$G" sum --backend cpu --raw -t u8 "$T/a.npz"
# a byte order against a header's: '<f4' in a .npy with --endian big
printf '\223NUMPY\001\000v\000{'"'"'descr'"'"': '"'"'<f4'"'"', '"'"'fortran_order'"'"': False, '"'"'shape'"'"': (1,), }' > "$T/le.npy"
printf '%60s\n' '' >> "$T/le.npy"
printf '\000\000\100\277' >> "$T/le.npy"
expect endian_npy_header 2 - "--endian big contradicts the npy header" "$G" sum --endian big "$T/le.npy"
expect endian_npy_agrees 0 -0.75 "" "$G" sum --backend cpu --endian little "$T/le.npy"
expect endian_plain_big 0 -0.75 "" "$G" sum --backend cpu -t f4 --endian big "$T/be"
expect endian_big_big 0 -0.75 "" "$G" sum --backend cpu -t '>f4' --endian big "$T/be"
expect endian_big_t_big 0 -0.75 "" "$G" sum --backend cpu --endian big -t '>f4' "$T/be"
expect endian_retyped 0 -0.75 "" "$G" sum --backend cpu -t '<f4' -t f4 --endian big "$T/be"
# one byte has no order: numpy's ">u1" is "|u1"
expect endian_one_byte 0 463 "" "$G" sum --backend cpu -t '>u1' --endian little "$T/be"

# ---- item 3: every --help against the parser's option tables -------------
cmds=$("$G" --help | awk '/^Commands:/ { on = 1; next }
	on && /^  [a-z]/ { print $1; next } on { exit }')
[ -n "$cmds" ] && ok || bad help_cmds "no commands in gpustat --help"
# every command of the table, and text input, are in gpustat --help
for c in $(sed -n 's/^COMMAND(\([a-z]*\))$/\1/p' src/cmd/commands.def); do
	printf '%s\n' $cmds | grep -qx "$c" && ok || bad "help_lists_$c" "not in gpustat --help"
done
"$G" --help | grep -qw text && ok || bad help_text "gpustat --help does not mention text input"
# "COMMAND<TAB>--LONG<TAB>-S<TAB>ARG<TAB>VALUES<TAB>HELP" for every option
# of every command's table, "*" for the common options
"$G" --options > "$T/tables" 2> "$T/err" && ok || bad options "$(cat "$T/err")"
grep -q "^\*	--output	-o	" "$T/tables" && ok || bad help_tables "no common --output in gpustat --options"
grep -q "^sum	--type	-t	" "$T/tables" && ok || bad help_tables "no --type of sum in gpustat --options"
for t in $(cut -f1 "$T/tables" | grep -vx '\*' | sort -u); do
	printf '%s\n' $cmds | grep -qx "$t" && ok ||
		bad "help_table_$t" "names no command of gpustat --help"
done
for cmd in $cmds; do
	"$G" "$cmd" --help > "$T/help" 2> "$T/err" || bad "help_$cmd" "--help failed"
	awk -F'\t' -v c="$cmd" '$1 == "*" || $1 == c { print $2 }' \
		"$T/tables" | sort -u > "$T/accepted"
	[ -s "$T/accepted" ] && ok || bad "help_$cmd" "no options in the tables"
	# every option the parser accepts is in --help ...
	while read -r opt; do
		grep -qE -- "$opt([^a-z0-9-]|\$)" "$T/help" && ok ||
			bad "help_${cmd}_$opt" "accepted but not in gpustat $cmd --help"
	done < "$T/accepted"
	# ... and every option --help names is one the parser accepts, by
	# name (getopt would take a prefix) and when run
	grep -oE -- '(^|[^a-z0-9-])--[a-z][a-z0-9-]*' "$T/help" |
		sed 's/^[^-]*//' | sort -u > "$T/named"
	while read -r opt; do
		grep -qxF -- "$opt" "$T/accepted" ||
			{ bad "help_${cmd}_$opt" "in --help but not in the option tables"; continue; }
		"$G" "$cmd" "$opt" < /dev/null > /dev/null 2> "$T/err"
		grep -qE 'unknown option|ambiguous' "$T/err" &&
			bad "help_${cmd}_$opt" "refused: $(cat "$T/err")" || ok
	done < "$T/named"
	# short options of "-x, --long" lines
	for s in $(grep -oE '^ +-[a-zA-Z],' "$T/help" | tr -d ' ,'); do
		"$G" "$cmd" "$s" < /dev/null > /dev/null 2> "$T/err"
		grep -q 'unknown option' "$T/err" && bad "help_${cmd}_$s" "refused" || ok
	done
	# the formats -f lists are accepted, and the "(default)" one is the
	# default: sum, not the one named, where the command has another
	fline=$(grep -E -- '^ +-f, --format' "$T/help")
	[ -n "$fline" ] && ok || bad "help_${cmd}_format" "no -f line"
	args=
	[ "$cmd" = dot ] && args=--pairs
	for f in text tsv csv json binary npy state; do
		printf '%s\n' "${fline#*FMT}" | grep -qE "(^|[ ,])$f([ ,(]|\$)" || continue
		"$G" "$cmd" $args -f "$f" < /dev/null > "$T/f_$f" 2> "$T/err"
		[ $? -ne 2 ] && ok || bad "help_${cmd}_format_$f" "listed but refused: $(cat "$T/err")"
	done
	def=$(printf '%s\n' "$fline" | grep -oE '[a-z]+ \(default' | cut -d' ' -f1)
	printf '\001\002\003\004\005\006\007\010' > "$T/in8"
	"$G" "$cmd" $args --backend cpu "$T/in8" > "$T/plain" 2>&1
	"$G" "$cmd" $args --backend cpu -f "${def:-none}" "$T/in8" > "$T/withf" 2>&1
	cmp -s "$T/plain" "$T/withf" && ok ||
		bad "help_${cmd}_default" "the default is not '-f ${def:-none}' as --help says"
	# an option outside [ ] in a usage line is required: leaving it out fails
	grep -E '^(Usage|   or):' "$T/help" | sed 's/\[[^]]*\]//g' |
		grep -oE -- '--[a-z][a-z-]*' | sort -u > "$T/required"
	while read -r opt; do
		if "$G" "$cmd" < /dev/null > /dev/null 2>&1; then
			bad "help_${cmd}_usage" "usage shows $opt as required; $cmd runs without it"
		else
			ok
		fi
	done < "$T/required"
done
# merge reads no data: its --help lists, and its parser takes, none of the
# options that read or run data (-j, --backend ... were listed, accepted and
# ignored); scan --help names no total, as scan prints none
"$G" merge --help > "$T/help"
for opt in --backend --device --devices --chunk-size --streams --threads \
	   --progress --no-progress --type --columns; do
	grep -qE -- "$opt([^a-z0-9-]|\$)" "$T/help" &&
		bad "merge_help_$opt" "in gpustat merge --help" || ok
	"$G" merge "$opt" 1 < /dev/null > /dev/null 2> "$T/err"
	grep -q "unknown option '$opt'" "$T/err" && ok ||
		bad "merge_takes_$opt" "not refused: $(cat "$T/err")"
done
"$G" scan --help | grep -qw total && bad scan_help_total \
	"$("$G" scan --help | grep -w total)" || ok
# the same tables against the three completions and the man page: by
# command, in tests/test_completions.sh and tests/test_man.sh

# --devices: GPU lists; never with the CPU backend
expect devices_bad 2 - "--devices: expected all or GPU numbers" "$G" sum --devices 0,x "$T/d"
expect devices_empty 2 - "--devices: expected all or GPU numbers" "$G" sum --devices 0, "$T/d"
expect devices_many 2 - "--devices: expected all or GPU numbers" \
	"$G" sum --devices 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0 "$T/d"
expect devices_cpu 2 - "does not go with --backend cpu" "$G" sum --backend cpu --devices 0,1 "$T/d"
expect devices_one 0 -0.75 "" "$G" sum -t f64 --backend cpu --devices 0 "$T/d"

# ---- item 6: forced progress into a file or pipe --------------------------
# The slow producer only makes updates due; no timing is asserted beyond
# "not more than one line per second of the run".
(head -c 1048576 /dev/zero; sleep 3; head -c 1048576 /dev/zero) |
	"$G" sum -t u8 --progress > "$T/out" 2> "$T/err"
[ "$(cat "$T/out")" = 0 ] && ok || bad progress_result "$(cat "$T/out")"
if tr -d '\r\033' < "$T/err" | cmp -s - "$T/err"; then ok
else bad progress_plain "carriage returns or escapes in a file: $(od -c "$T/err" | head -n 2)"; fi
n=$(grep -c 'MiB/s\|KiB/s\|B/s' "$T/err")
[ "$n" -ge 1 ] && [ "$n" -le 4 ] && ok || bad progress_lines "$n lines in about 3 s"
grep -qv '^gpustat: ' "$T/err" && bad progress_prefix "$(head -n 2 "$T/err")" || ok
# a pipe reader sees the same
(head -c 1048576 /dev/zero; sleep 1) | "$G" sum -t u8 --progress 2>&1 > /dev/null | cat > "$T/pipe"
grep -q "$(printf '\r')" "$T/pipe" && bad progress_pipe "carriage return on a pipe" || ok

# ---- item 4: no NVIDIA driver ---------------------------------------------
# Decided independently of gpustat: no kernel driver and no libcuda.
"$G" --version > "$T/version" 2> "$T/err"
if grep -q '^cuda runtime' "$T/version"; then
	if [ ! -e /proc/driver/nvidia/version ] &&
	   ! { ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; }; then
		grep -q 'no NVIDIA driver' "$T/version" && ok ||
			bad version_no_driver "$(cat "$T/version")"
		grep -q 'driver 0\.0' "$T/version" && bad version_driver_0 "$(cat "$T/version")" || ok
		expect cuda_no_driver 1 - "gpustat: cuda: no NVIDIA driver" \
			"$G" sum --backend cuda "$T/d"
		grep -q 'insufficient' "$T/err" && bad cuda_insufficient "$(cat "$T/err")" || ok
	else
		grep -qE 'driver [1-9][0-9]*\.[0-9]' "$T/version" && ok ||
			bad version_driver "$(cat "$T/version")"
	fi
else
	echo "usage: note: skipped the driver messages ($G has no CUDA backend)"
fi

summary
