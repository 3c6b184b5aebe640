#!/bin/sh
# test_text.sh - --text (numbers as text):
#  - every field is the value Python's exact rounding gives (fractions: the
#    exact decimal rounded once to f64, f32, f16, bf16), for random fields
#    and hard ones (halfway cases, long digit strings, subnormals,
#    overflow), through textnum (unit_text --bits) and through the CLI
#    (a line of K fields with -c K: scan's one record is the values);
#  - integers at their limits, and the errors: a bad field, out of range,
#    an empty field, a line that is not a record, each naming file, line
#    and field, exit 1, nothing on stdout;
#  - commas, CRLF, empty lines, several operands (a file without its last
#    newline ends its line), stdin, .zst text, hist's two passes, scan;
#  - the same results as the raw f64 of the same numbers, on 1 and 2
#    threads and small chunks.
#
# Usage: sh tests/test_text.sh   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "text: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=text
. tests/lib.sh
U=${BUILD:-build}/tests/unit_text

# expect NAME WANT CMD...: CMD's stdout is WANT and it exits 0.
expect() {
	name=$1 want=$2
	shift 2
	got=$("$@" 2> "$T/err")
	rc=$?
	if [ $rc -eq 0 ] && [ "$got" = "$want" ]; then ok
	else bad "$name" "exit $rc, got '$got', wanted '$want' $(head -n 1 "$T/err")"; fi
}

# fails NAME MESSAGE CMD...: CMD exits 1, prints nothing on stdout and one
# stderr line that holds MESSAGE.
fails() {
	name=$1 msg=$2
	shift 2
	"$@" > "$T/out" 2> "$T/err"
	rc=$?
	if [ $rc -ne 1 ]; then bad "$name" "exit $rc, wanted 1: $(head -n 1 "$T/err")"
	elif [ -s "$T/out" ]; then bad "$name" "stdout: $(head -c 80 "$T/out")"
	elif [ "$(wc -l < "$T/err")" -ne 1 ]; then bad "$name" "stderr: $(cat "$T/err")"
	elif ! grep -qF -- "$msg" "$T/err"; then bad "$name" "'$(cat "$T/err")', wanted '$msg'"
	else ok; fi
}

# ---- sums, types, separators ----------------------------------------------
seq 1 100000 > "$T/seq"
expect seq_sum 5000050000 "$G" sum --text "$T/seq"
expect seq_stdin 5000050000 sh -c "seq 1 100000 | \"$G\" sum --text"
expect seq_i64 5000050000 "$G" sum --text -t i64 "$T/seq"
expect seq_u32_j1 5000050000 "$G" sum --text -t u32 -j 1 "$T/seq"
expect default_f64 0.1 sh -c "echo 0.1 | \"$G\" sum --text"
expect f32_rounds 0.10000000149011612 sh -c "echo 0.1 | \"$G\" sum --text -t f32"
printf '1,2\r\n\r\n  3 ,\t4  \n\n5, 6' > "$T/crlf"
expect crlf_commas '9	12' "$G" sum --text -c 2 "$T/crlf"
expect free_fields 21 "$G" sum --text "$T/crlf"
printf '1 2' > "$T/a"
printf '3\n4' > "$T/b"
expect operands_end_lines 10 "$G" sum --text "$T/a" "$T/b"
expect operands_stdin 13 sh -c "\"$G\" sum --text \"$T/a\" - \"$T/b\" < \"$T/a\""
expect i64_limits '-9223372036854775808	9223372036854775807' \
	sh -c "printf -- '-9223372036854775808 9223372036854775807\n' | \"$G\" reduce --op max --text -t i64 -c 2"
expect u64_max 18446744073709551615 sh -c "echo 18446744073709551615 | \"$G\" sum --text -t u64"
expect bool_type 2 sh -c "printf '1 0 1\n' | \"$G\" sum --text -t bool"
printf '1 2 3\n' > "$T/d1"
printf '4,5\n6\n' > "$T/d2"
expect dot 32 "$G" dot --text "$T/d1" "$T/d2"
expect dot_c3 '1	4	9' "$G" dot --text -c 3 "$T/d1" "$T/d1"
# big-endian records: the same values
expect big_endian '258	-2' sh -c "printf '258 -2\n' | \"$G\" reduce --op max --text -t '>i2' -c 2"

# ---- errors ---------------------------------------------------------------
printf 'x\n1\n' > "$T/hdr"
fails header 'hdr: invalid numeric value in line 1 field 1: '"'x'" "$G" sum --text "$T/hdr"
printf '1 2\n3 4\n5 6 ab\n' > "$T/bad3"
fails bad_field 'invalid numeric value in line 3 field 3' "$G" stats --text "$T/bad3"
fails bad_second_operand "$T/bad3: invalid numeric value in line 3 field 3" "$G" sum --text "$T/seq" "$T/bad3"
printf '1 2\n3 4\n5 6 7\n' > "$T/three"
fails short_line 'line 3 has 3 fields, not 2 (-c 2' "$G" sum --text -c 2 "$T/three"
fails c1_strict 'line 1 has 2 fields, not 1' "$G" sum --text -c 1 "$T/bad3"
fails range_u8 "value out of range for u8 in line 1 field 2: '256'" sh -c "echo 255 256 | \"$G\" sum --text -t u8"
fails range_i64 'value out of range for i64' sh -c "echo 9223372036854775808 | \"$G\" sum --text -t i64"
fails range_u64 'value out of range for u64' sh -c "echo -1 | \"$G\" sum --text -t u64"
fails int_syntax "invalid numeric value in line 1 field 1: '1.0'" sh -c "echo 1.0 | \"$G\" sum --text -t i32"
fails int_exp "'1e3'" sh -c "echo 1e3 | \"$G\" sum --text -t i32"
fails empty_field 'empty field in line 2 field 2' sh -c "printf '1,2\n3,,4\n' | \"$G\" sum --text"
fails trailing_comma 'empty field in line 1 field 3' sh -c "printf '1,2,\n' | \"$G\" sum --text"
fails leading_comma 'empty field in line 1 field 1' sh -c "printf ',1\n' | \"$G\" sum --text"
# a run of blanks after a comma longer than a piece (512 KiB) is cut
# anywhere: the piece after it must still know a field is owed
blanks() { head -c 1100000 /dev/zero | tr '\0' ' '; }
{ printf '1,'; blanks; printf ',2\n'; } > "$T/cb1"
{ printf '1,'; blanks; printf '\n2\n'; } > "$T/cb2"
{ printf '1,'; blanks; } > "$T/cb3"
{ printf '1,'; blanks; printf '2\n'; } > "$T/cb4"
fails comma_blanks_comma 'empty field in line 1 field 2' "$G" sum --text "$T/cb1"
fails comma_blanks_newline 'empty field in line 1 field 2' "$G" sum --text -j 1 "$T/cb2"
fails comma_blanks_end 'empty field in line 1 field 2' sh -c "cat \"$T/cb3\" | \"$G\" sum --text"
got=$("$G" sum --text -j 2 "$T/cb4" 2>&1)
[ "$got" = 3 ] && ok || bad comma_blanks_field "got '$got', want 3"
fails hex_float "'0x1p3'" sh -c "echo 0x1p3 | \"$G\" sum --text"
fails bool_range "value out of range for bool" sh -c "echo 2 | \"$G\" sum --text -t bool"
printf '\223NUMPY\001\000v\000{'"'descr'"': '"'<f8'"', '"'fortran_order'"': False, '"'shape'"': (0,), }' > "$T/x.npy"
head -c 118 "$T/x.npy" > "$T/y.npy"
printf '%*s\n' 9 '' >> "$T/y.npy"
fails npy_is_not_text 'npy data, not text' "$G" sum --text "$T/y.npy"
fails no_scan_on_error 'line 2 field 1' sh -c "printf '1\nq\n' | \"$G\" scan --text -t u8 --out-type u8"

# ---- a slow producer: the numbers it has sent are handed on while it waits
# (the last field may go on, so it waits with it), the last one at its end.
# The writer's steps wait for gpustat's output, never for a time. The
# output file is made first: the background job may open it only later, and
# a poll of a missing file would end the wait at once. The writer ends
# before gpustat: its end is the last field's end, and gpustat must then
# exit by itself.

# wait_out FILE N: until FILE holds N bytes (at most 10 s); its bytes.
wait_out() {
	i=0
	while [ "$(wc -c < "$1")" -lt "$2" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	od -An -tu1 "$1" | tr -s ' '
}

# ends PID: PID's exit status once it exits by itself (at most 10 s, then
# it is killed: 124).
ends() {
	i=0
	while kill -0 "$1" 2> /dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if kill -0 "$1" 2> /dev/null; then
		kill "$1"
		wait "$1"
		return 124
	fi
	wait "$1"
}

mkfifo "$T/fifo" "$T/fifo2" || exit 2
: > "$T/slow"
(printf '1\n2 3'; exec sleep 30) > "$T/fifo" &
pp=$!
"$G" scan --text -t u8 --out-type u8 < "$T/fifo" > "$T/slow" 2> "$T/err" &
gp=$!
got=$(wait_out "$T/slow" 2)
kill $pp
wait $pp 2> /dev/null
ends $gp
rc=$?
[ "$got" = ' 1 3' ] && [ $rc -eq 0 ] &&
	[ "$(od -An -tu1 "$T/slow" | tr -s ' ')" = ' 1 3 6' ] && ok ||
	bad slow_producer "'$got' before the end, '$(od -An -tu1 "$T/slow")' after, exit $rc $(cat "$T/err")"

# the same in steps the test takes: a field cut by a write ("2" then "0")
# is held until its separator comes, a whole one is not
: > "$T/slow"
"$G" scan --text -t u8 --out-type u8 < "$T/fifo2" > "$T/slow" 2> "$T/err" &
gp=$!
exec 3> "$T/fifo2"
printf '1\n2' >&3
got=$(wait_out "$T/slow" 1)
printf '0 3\n4' >&3
got="$got /$(wait_out "$T/slow" 3)"
exec 3>&-
ends $gp
rc=$?
[ "$got" = ' 1 / 1 21 24' ] && [ $rc -eq 0 ] &&
	[ "$(od -An -tu1 "$T/slow" | tr -s ' ')" = ' 1 21 24 28' ] && ok ||
	bad slow_producer_steps "'$got' in steps, '$(od -An -tu1 "$T/slow")' at the end, exit $rc $(cat "$T/err")"

# ---- the same as raw f64 ----------------------------------------------------
if command -v python3 > /dev/null; then
	python3 - "$T/r.txt" "$T/r.f64" <<'EOF'
import random, struct, sys
random.seed(7)
vals = []
for i in range(300000):
    k = random.random()
    v = (random.uniform(-1e6, 1e6) if k < 0.4 else random.gauss(0, 1) if k < 0.8
         else random.randint(-10**6, 10**6) * 0.25)
    vals.append(v)
with open(sys.argv[1], 'w') as f:
    for i in range(0, len(vals), 3):
        f.write(','.join(repr(v) for v in vals[i:i + 3]) + '\n')
with open(sys.argv[2], 'wb') as f:
    f.write(struct.pack('<%dd' % len(vals), *vals))
EOF
	for cmd in "stats" "sum" "hist" "stats -c 3"; do
		"$G" $cmd -t f64 "$T/r.f64" > "$T/want" 2>&1
		for opts in "-j 1" "-j 2 --chunk-size 4K"; do
			if "$G" $cmd --text $opts "$T/r.txt" > "$T/got" 2> "$T/err" &&
			   cmp -s "$T/got" "$T/want"; then ok
			else bad "same_as_raw $cmd $opts" "$(head -n 2 "$T/got" "$T/err")"; fi
		done
	done
	"$G" scan -t f64 "$T/r.f64" > "$T/want"
	"$G" scan --text -j 2 "$T/r.txt" > "$T/got" && cmp -s "$T/got" "$T/want" && ok ||
		bad scan_same_as_raw "$(cmp "$T/got" "$T/want")"
	if command -v zstd > /dev/null; then
		zstd -q -19 "$T/r.txt" -o "$T/r.txt.zst"
		"$G" stats -t f64 "$T/r.f64" > "$T/want"
		"$G" stats --text "$T/r.txt.zst" > "$T/got" 2> "$T/err" && cmp -s "$T/got" "$T/want" && ok ||
			bad zstd_text "$(head -n 2 "$T/got" "$T/err")"
	fi
else
	echo "text: note: no python3: the comparisons with raw f64 are skipped"
fi

# ---- every field as Python rounds it ----------------------------------------
# ref.py TYPE: the bits of each line's decimal rounded once, exactly
cat > "$T/ref.py" <<'EOF'
import sys
from fractions import Fraction
from decimal import Decimal
FMT = {'f64': (53, -1022, 1023, 64), 'f32': (24, -126, 127, 32),
       'f16': (11, -14, 15, 16), 'bf16': (8, -126, 127, 16)}
def bits(s, t):
    p, emin, emax, w = FMT[t]
    ebits = w - p
    bias = (1 << (ebits - 1)) - 1
    neg = s.startswith('-')
    sign = (1 << (w - 1)) if neg else 0
    inf = ((1 << ebits) - 1) << (p - 1)
    low = s.lstrip('+-').lower()
    if low in ('inf', 'infinity'):
        return sign | inf
    if low == 'nan':
        return sign | inf | (1 << (p - 2))
    a = abs(Fraction(Decimal(s)))
    if a == 0:
        return sign
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, emin)
    q = Fraction(2) ** (e - p + 1)
    r = a / q
    n = r.numerator // r.denominator
    rem = r - n
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n % 2):
        n += 1
    if n == 1 << p:
        n >>= 1
        e += 1
    if e > emax:
        return sign | inf
    if n < (1 << (p - 1)):
        return sign | n
    return sign | ((e + bias) << (p - 1)) | (n - (1 << (p - 1)))
t = sys.argv[1]
for line in sys.stdin:
    s = line.rstrip('\n')
    if t == 'f64':	# Python's float() is the reference itself
        import struct
        b = struct.unpack('<Q', struct.pack('<d', float(s)))[0]
        assert b == bits(s, t) or s.lstrip('+-').lower() == 'nan'
    print('%x' % bits(s, t))
EOF
# gen.py SEED: random fields and the halfway points of each type, exact and
# a hair either side, as decimals
cat > "$T/gen.py" <<'EOF'
import random, sys
from decimal import Decimal, getcontext
random.seed(int(sys.argv[1]))
getcontext().prec = 900
out = []
for _ in range(1500):
    k = random.randint(1, 30)
    d = ''.join(random.choice('0123456789') for _ in range(k))
    pos = random.randint(0, k)
    s = d[:pos] + ('.' if random.random() < 0.7 else '') + d[pos:]
    if s == '.': s = '0.'
    if random.random() < 0.5: s += random.choice('eE') + '%+d' % random.randint(-60, 60)
    if random.random() < 0.3: s = '-' + s
    out.append(s)
for p, emin, emax in ((24, -126, 127), (11, -14, 15), (8, -126, 127), (53, -1022, 1023)):
    for _ in range(150):
        e = random.randint(emin - p, emax)
        n = random.randint(1 << (p - 1), (1 << p) - 1)
        m = (Decimal(2 * n + 1) / 2) * (Decimal(2) ** (e - p + 1))
        for delta in (0, 1, -1):
            x = m + delta * (Decimal(2) ** (e - p - 70))
            out.append(format(x, 'f') if abs(e) < 40 else format(x, 'e'))
        out.append(repr(random.random()))
        out.append(repr(random.uniform(-1e300, 1e300)))
out += ['1.00000005960464477550', '65520', '65519.999', '3.4028235677973366e38',
        '2.4703282292062328e-324', '1.7976931348623158e308', '1e400', '-1e-400',
        '-0', 'inf', '-Infinity', 'NaN', '-nan', '.5', '5.', '+.5e+1', '1' * 900,
        '0.' + '0' * 500 + '7e450', '16777217', '9007199254740993']
print('\n'.join(out))
EOF
if command -v python3 > /dev/null && [ -x "$U" ]; then
	for seed in 1 2; do
		python3 "$T/gen.py" $seed > "$T/fields"
		for t in f64 f32 f16 bf16; do
			python3 "$T/ref.py" $t < "$T/fields" > "$T/want" || { bad "ref_$t" "python"; continue; }
			"$U" --bits $t < "$T/fields" > "$T/got"
			if cmp -s "$T/got" "$T/want"; then ok
			else bad "fields_$t.$seed" "$(paste -d' ' "$T/fields" "$T/got" "$T/want" | awk '$2 != $3' | head -n 3)"; fi
		done
	done
	# through the CLI: one line of the finite fields, -c K, scan's one
	# record (NaN left out: scan makes its NaNs quiet and positive)
	grep -v -i nan "$T/fields" | head -n 3000 > "$T/finite"
	k=$(wc -l < "$T/finite")
	tr '\n' ' ' < "$T/finite" > "$T/line"
	for t in f64 f32 f16; do
		w=$(case $t in f64) echo 8 ;; f32) echo 4 ;; *) echo 2 ;; esac)
		python3 "$T/ref.py" $t < "$T/finite" > "$T/want"
		"$G" scan --text -t $t -c "$k" -j 2 "$T/line" > "$T/bin" 2> "$T/err"
		od -An -v -tx$w -w$w "$T/bin" | sed 's/^ *0*//; s/^$/0/' > "$T/got"
		if cmp -s "$T/got" "$T/want"; then ok
		else bad "cli_fields_$t" "$(head -n 1 "$T/err") $(paste -d' ' "$T/finite" "$T/got" "$T/want" | awk '$2 != $3' | head -n 2)"; fi
	done
else
	echo "text: note: no python3 or $U: the field-by-field comparisons are skipped"
fi

summary
