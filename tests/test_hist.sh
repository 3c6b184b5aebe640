#!/bin/sh
# test_hist.sh - hist at its edges:
#  - --bins N without --range gives numpy.histogram(a, bins=N)'s counts and
#    edges, numpy's arithmetic in the data's type included (fixtures/hist,
#    computed by numpy in fixtures/hist/gen.py), with --backend cpu, a
#    record per chunk, a few records per chunk on 2 threads, and on a GPU
#    where one answers;
#  - a file that changes between the two passes is an error, no result;
#  - --edges FILE (raw, .npy, one-per-value bins, refusals, a failed run);
#  - --nonzero where it cannot apply is a usage error;
#  - COLUMNS of any size gives a chart of bounded width.
#
# Usage: sh tests/test_hist.sh   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "hist: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=hist
. tests/lib.sh
H=fixtures/hist

# one_error STATUS RC: exit RC is STATUS, stdout empty, one "gpustat: " line.
one_error() {
	[ "$2" -eq "$1" ] || { why="exit $2, wanted $1: $(head -n 1 "$T/err")"; return 1; }
	[ -s "$T/out" ] && { why="stdout not empty"; return 1; }
	head -n 1 "$T/err" | grep -q '^gpustat: ' ||
		{ why="not 'gpustat: ...': $(head -n 1 "$T/err")"; return 1; }
	[ "$(wc -l < "$T/err")" -le 2 ] || { why="$(wc -l < "$T/err") lines on stderr"; return 1; }
}

size_of() {
	case $1 in u8|i8) echo 1 ;; u16|i16|f16|bf16) echo 2 ;;
	u32|i32|f32) echo 4 ;; *) echo 8 ;; esac
}

# ---- numpy's default range -------------------------------------------------

backends="--backend=cpu"
printf '\0\0\200\77' > "$T/one.f32"
"$G" hist -t f32 --backend cuda "$T/one.f32" > /dev/null 2>&1 &&
	backends="$backends --backend=cuda"

# default_case NAME TYPE COLS BINS STATUS OPTS
default_case() {
	name=$1 t=$2 c=$3 n=$4 st=$5
	shift 5
	rm -f "$T/e"
	"$G" hist -t "$t" -c "$c" --bins "$n" -f binary --edges "$T/e" "$@" \
		"$H/$name.bin" > "$T/out" 2> "$T/err"
	rc=$?
	if [ "$st" = error ]; then
		one_error 2 $rc || return 1
		[ -e "$T/e" ] && { why="--edges written after an error"; return 1; }
		return 0
	fi
	[ $rc -eq 0 ] || { why="exit $rc: $(head -n 1 "$T/err")"; return 1; }
	cmp -s "$T/out" "$H/$name.counts" || { why="counts differ from numpy's"; return 1; }
	cmp -s "$T/e" "$H/$name.edges" || { why="edges differ from numpy's"; return 1; }
}

while IFS='	' read -r name t c n st; do
	case $name in '#'*|'') continue ;; esac
	r=$(($(size_of "$t") * c))
	for opts in $backends "--backend=cpu --chunk-size=$r" \
		    "--backend=cpu --chunk-size=$((7 * r)) -j 2"; do
		# shellcheck disable=SC2086
		if default_case "$name" "$t" "$c" "$n" "$st" $opts; then
			ok
		else
			bad "default_$name ($opts)" "$why"
		fi
	done
done < "$H/cases.txt"

# json's edges are the same doubles (numpy's edges widened to double)
if command -v python3 > /dev/null; then
	for name in f32_issue f16_issue f16_12 i64_span u64_top bf16_3 f64_5; do
		line=$(grep "^$name	" "$H/cases.txt")
		t=$(echo "$line" | cut -f 2) n=$(echo "$line" | cut -f 4)
		[ "$(echo "$line" | cut -f 5)" = ok ] || { bad "json_edges_$name" "not a case"; continue; }
		"$G" hist -t "$t" --bins "$n" -f json "$H/$name.bin" > "$T/out" 2> "$T/err"
		if python3 - "$T/out" "$H/$name.edges" "$t" "$H/$name.counts" 2> /dev/null <<'EOF'
import json, struct, sys
j = json.load(open(sys.argv[1]))
raw = open(sys.argv[2], 'rb').read()
code = {'f16': 'e', 'f32': 'f', 'bf16': 'f'}.get(sys.argv[3], 'd')
want = list(struct.unpack('<%d%s' % (len(raw) // struct.calcsize(code), code), raw))
cnt = open(sys.argv[4], 'rb').read()
counts = list(struct.unpack('<%dQ' % (len(cnt) // 8), cnt))
ok = j['edges'] == want and j['counts'][0] == counts
ok = ok and j['range'] == [want[0], want[-1]]
sys.exit(0 if ok else 1)
EOF
		then ok; else bad "json_edges_$name" "json edges/counts/range differ from numpy's"; fi
	done
fi

# an explicit --range still computes in double (python floats), so the
# issue's f32 example over its own min and max, given as decimal python
# floats, is bin 631 there, as numpy says for range=(float(min), float(max))
"$G" hist -t f32 --bins 1000 --range=-652.4503784179688:-257.1642761230469 \
	-f binary "$H/f32_issue.bin" 2> "$T/err" | od -An -tu8 -w8 -v |
	awk '$1 != 0 { print NR - 1 }' | tr '\n' ' ' > "$T/out"
[ "$(cat "$T/out")" = "0 631 999 " ] && ok ||
	bad explicit_range_double "nonzero bins $(cat "$T/out"), wanted 0 631 999"

# ---- a file that changes between the two passes ----------------------------

# 4 MiB of f32 1.0 (2^20 of them), read 64 bytes a chunk so that a pass
# takes a while.
printf '\0\0\200\77' > "$T/ones.bin"
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	cat "$T/ones.bin" "$T/ones.bin" > "$T/k" && mv "$T/k" "$T/ones.bin"
	[ $i -eq 10 ] && cp "$T/ones.bin" "$T/k4"	# 4 KiB
done
# fd_pos PID FILE: the read offset of PID's descriptor open on FILE, or "".
fd_pos() {
	for fd in /proc/"$1"/fd/*; do
		[ "$(readlink "$fd" 2> /dev/null)" = "$2" ] || continue
		sed -n 's/^pos:[[:space:]]*//p' /proc/"$1"/fdinfo/"${fd##*/}" 2> /dev/null
		return
	done
}

# change NAME ACTION: ACTION runs on $T/f once pass 2 has begun (the read
# offset fell back after pass 1 had read past the middle).
change() {
	name=$1 action=$2
	cp "$T/ones.bin" "$T/f"
	half=$(($(wc -c < "$T/f") / 2))
	"$G" hist -t f32 --bins 4 --chunk-size 64 -j 1 --backend cpu "$T/f" \
		> "$T/out" 2> "$T/err" &
	gp=$!
	high=
	while kill -0 $gp 2> /dev/null; do
		pos=$(fd_pos $gp "$T/f")
		[ -n "$pos" ] || continue
		[ "$pos" -ge "$half" ] && high=1
		[ -n "$high" ] && [ "$pos" -lt "$half" ] && break
	done
	eval "$action"
	wait $gp
	rc=$?
	if one_error 1 $rc && grep -q 'changed between' "$T/err"; then
		ok
	else
		bad "$name" "${why:-$(head -n 1 "$T/err")}"
	fi
	why=
}
if [ -d /proc/self/fdinfo ]; then
	change pass_truncated 'truncate -s $((half + half / 2)) "$T/f"'
	change pass_grown 'cat "$T/k4" >> "$T/f"'
	change pass_rewritten 'head -c 4096 /dev/zero |
		dd of="$T/f" bs=4096 seek=$((half / 4096)) conv=notrunc 2> /dev/null'
fi
# an unchanged file still gives its counts: every 1.0 in the last bin
"$G" hist -t f32 --bins 4 --chunk-size 64 -f binary "$T/ones.bin" 2> "$T/err" |
	od -An -tu8 -w8 -v | tr -d ' ' | tr '\n' ' ' > "$T/out"
[ "$(cat "$T/out")" = "0 0 1048576 0 " ] && ok || bad pass_unchanged "$(cat "$T/out" "$T/err")"

# ---- --edges FILE -------------------------------------------------------------

# .npy with -f npy: numpy's dtype and shape (N + 1,), the same payload
"$G" hist -t f16 --bins 100 -f npy --edges "$T/e.npy" "$H/f16_issue.bin" > "$T/out" 2> "$T/err"
hdr=$(head -c 128 "$T/e.npy" | tr -d '\0' | tr -d ' ' | head -n 1)
case $hdr in *"'descr':'<f2'"*"'shape':(101,)"*) ok ;; *) bad edges_npy "header $hdr" ;; esac
tail -c 202 "$T/e.npy" | cmp -s - "$H/f16_issue.edges" && ok || bad edges_npy_payload "differs from numpy's"
[ $(( ($(wc -c < "$T/e.npy") - 202) % 64 )) -eq 0 ] && ok || bad edges_npy_size "$(wc -c < "$T/e.npy") bytes"

# one-per-value bins: the i8 edges of np.arange(min, max + 2)
"$G" hist -t i8 -f binary --edges "$T/e" fixtures/in/i8_mod.bin > "$T/out" 2> "$T/err"
od -An -td8 -w8 -v "$T/e" | tr -d ' ' > "$T/got"
seq -128 128 > "$T/want"
cmp -s "$T/got" "$T/want" && ok || bad edges_per_value "not -128..128: $(head -n 2 "$T/got" | tr '\n' ' ')"

# with -o, text output: both written
"$G" hist -t f32 --bins 3 -o "$T/o.txt" --edges "$T/e2" "$H/f32_issue.bin" > "$T/out" 2> "$T/err"
[ $? -eq 0 ] && [ "$(wc -l < "$T/o.txt")" -eq 3 ] && [ "$(wc -c < "$T/e2")" -eq 16 ] &&
	[ ! -s "$T/out" ] && ok || bad edges_with_o "$(cat "$T/err")"

# a failed run leaves FILE as it was
echo keep > "$T/e3"
"$G" hist -t f32 --bins 3 --edges "$T/e3" "$H/f32_issue.bin" "$T/missing" > "$T/out" 2> "$T/err"
rc=$?
[ $rc -eq 1 ] && [ "$(cat "$T/e3")" = keep ] && [ ! -s "$T/out" ] &&
	[ -z "$(ls -A "$T" | grep gpustat-)" ] && ok ||
	bad edges_failed_run "exit $rc, FILE now: $(head -c 20 "$T/e3" | od -c | head -n 1)"

# an unwritable FILE: exit 1, no result
if [ -w /dev/full ]; then
	"$G" hist -t f32 --bins 3 --edges /dev/full "$H/f32_issue.bin" > "$T/out" 2> "$T/err"
	one_error 1 $? && ok || bad edges_dev_full "$why"

# ---- data with a NaN and no --range: numpy refuses the range ([nan, nan]),
# and so does gpustat, rather than bin the other values
printf '\000\000\300\177\000\000\200\077\000\000\000\100' > "$T/nan.f32"	# nan 1 2
"$G" hist -t f32 --bins 2 "$T/nan.f32" > "$T/out" 2> "$T/err"
one_error 1 $? && grep -q 'NaN' "$T/err" && ok || bad nan_no_range "$why $(cat "$T/err")"
"$G" hist -t f32 --bins 2 --range 1:2 "$T/nan.f32" > "$T/out" 2> /dev/null
[ $? -eq 0 ] && [ -s "$T/out" ] && ok || bad nan_with_range "exit $?"
fi

# refusals: an input, the output, stdout
cp "$H/f32_issue.bin" "$T/in.f32"
"$G" hist -t f32 --bins 3 --edges "$T/in.f32" "$T/in.f32" > "$T/out" 2> "$T/err"
rc=$?
one_error 1 $rc && cmp -s "$T/in.f32" "$H/f32_issue.bin" && ok || bad edges_is_input "${why:-input changed}"
"$G" hist -t f32 --bins 3 -o "$T/same" --edges "$T/same" "$T/in.f32" > "$T/out" 2> "$T/err"
one_error 2 $? && ok || bad edges_is_output "$why"
"$G" hist -t f32 --bins 3 --edges - "$T/in.f32" > "$T/out" 2> "$T/err"
one_error 2 $? && ok || bad edges_is_stdout "$why"

# ---- --nonzero where it cannot apply -------------------------------------------

for opts in "-f binary" "-f npy" "--plot" "-t f32 --bins 4 -f json"; do
	case $opts in *f32*) in=fixtures/in/f32_mod.bin ;; *) in=fixtures/in/u8_mod.bin ;; esac
	# shellcheck disable=SC2086
	"$G" hist --nonzero $opts "$in" > "$T/out" 2> "$T/err"
	one_error 2 $? && grep -q nonzero "$T/err" && ok || bad "nonzero ($opts)" "${why:-$(cat "$T/err")}"
done
# where it applies it still works: json of one-per-value bins, text
"$G" hist --nonzero -f json fixtures/in/u8_one.bin > "$T/out" 2> "$T/err" &&
	grep -q '"values":\[[0-9]*\],"counts":\[\[1\]\]' "$T/out" && ok ||
	bad nonzero_json_per_value "$(cat "$T/out" "$T/err")"

# ---- the chart's width -----------------------------------------------------------

for cols in 2147483647 99999999999999999999 9223372036854775808 abc -5 '' 1e3 0; do
	COLUMNS=$cols LC_ALL=C timeout 10 "$G" hist --plot fixtures/in/u8_rand.bin \
		> "$T/out" 2> "$T/err"
	rc=$?
	w=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$T/out")
	[ $rc -eq 0 ] && [ "$w" -le 1000 ] && [ "$w" -ge 40 ] && ok ||
		bad "plot_columns_$cols" "exit $rc, width $w"
done
COLUMNS=1000000 LC_ALL=C "$G" hist --plot fixtures/in/u8_rand.bin > "$T/out" 2> "$T/err"
w=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$T/out")
[ "$w" -ge 990 ] && [ "$w" -le 1000 ] && ok || bad plot_columns_clamped "width $w, wanted 1000"
COLUMNS=120 LC_ALL=C "$G" hist --plot fixtures/in/u8_rand.bin > "$T/out" 2> "$T/err"
w=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$T/out")
[ "$w" -ge 110 ] && [ "$w" -le 120 ] && ok || bad plot_columns_120 "width $w"

summary
