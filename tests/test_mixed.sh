#!/bin/sh
# test_mixed.sh - records of mixed types (-t i32,f32, a structured .npy):
#  - each column's result is the bytes of the same command with -t T on
#    that column extracted alone (python3's struct cuts the columns), for
#    sum, reduce, stats and count, with -j 1, small chunks on 2 threads,
#    stdin and --per-file; -f state of shards merged; -F's columns;
#  - one column (-F N), or columns of one type (-F 3,1; -t f32,f32), with
#    every command (median, quantile, mode, hist, stats, scan, prod), as
#    those columns alone;
#  - a .npy of a structured dtype (packed, big-endian fields, numpy's
#    padding of an aligned dtype, bool fields) reads as the raw records with
#    the -t list;
#  - refusals, each one line: a list of another length than -c, a name in
#    the list that is no type, a -t that contradicts the header, string,
#    sub-array and nested fields, text, commands that do not read mixed
#    records yet, --backend cuda;
#  - -f npy and binary of results of different dtypes (sum of i32 and
#    f32): one record of a field per column, each in its result's dtype.
#
# Usage: sh tests/test_mixed.sh   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "mixed: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=mixed
. tests/lib.sh

if ! command -v python3 > /dev/null; then
	bad "python3" "needed to cut the columns"
	summary
	exit
fi

# The records: i32, f32 (a leading run of -0, a NaN), >f64 (large values),
# u16, i8; the columns alone as col0.bin ... col4.bin; the same records
# as a structured .npy, and an aligned one (numpy's padding) with its
# columns apart.
python3 - "$T" <<'EOF' || bad "generate" "python3 failed"
import random, struct, sys
t = sys.argv[1]
rnd = random.Random(31)
fmts = ['<i', '<f', '>d', '<H', '<b']
n = 70001
cols = [[], [], [], [], []]
for r in range(n):
    cols[0].append(rnd.randint(-2**31, 2**31 - 1))
    cols[1].append(-0.0 if r < 50 else float('nan') if r == 777
                   else rnd.uniform(-1e6, 1e6))
    cols[2].append(rnd.uniform(-1, 1) * 2.0 ** rnd.randint(-60, 60))
    cols[3].append(rnd.randint(0, 65535))
    cols[4].append(rnd.randint(-128, 127))
with open(t + '/mix.bin', 'wb') as f:
    for r in range(n):
        f.write(b''.join(struct.pack(fm, c[r]) for fm, c in zip(fmts, cols)))
for k, (fm, c) in enumerate(zip(fmts, cols)):
    with open('%s/col%d.bin' % (t, k), 'wb') as f:
        f.write(b''.join(struct.pack(fm, v) for v in c))

def npy(path, descr, n, body):
    d = "{'descr': %s, 'fortran_order': False, 'shape': (%d,), }" % (descr, n)
    pad = 64 - (10 + len(d) + 1) % 64
    with open(path, 'wb') as f:
        f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(d) + pad + 1))
        f.write(d.encode() + b' ' * pad + b'\n' + body)

with open(t + '/mix.bin', 'rb') as f:
    npy(t + '/mix.npy', "[('k', '<i4'), ('v', '<f4'), ('w', '>f8'), "
        "('u', '<u2'), ('s', '|i1')]", n, f.read())
# numpy's np.dtype([('k','i1'),('v','<f8'),('z','<f4')], align=True)
body = b''.join(struct.pack('<b7xdf4x', cols[4][r], cols[2][r], cols[1][r])
                for r in range(n))
npy(t + '/al.npy', "[('k', '|i1'), ('', '|V7'), ('v', '<f8'), ('z', '<f4'), "
    "('', '|V4')]", n, body)
for k, fm in ((0, '<b'), (1, '<d'), (2, '<f')):
    with open('%s/al%d.bin' % (t, k), 'wb') as f:
        f.write(b''.join(struct.pack(fm, v) for v in
                         (cols[4], cols[2], cols[1])[k]))
# bools (any nonzero byte is True) beside f16
vals = [0, 1, 7, 0, 255]
npy(t + '/b.npy', "[('a', '|b1'), ('h', '<f2')]", 5,
    b''.join(struct.pack('<Be', v, 0.5 * i) for i, v in enumerate(vals)))
with open(t + '/b0.bin', 'wb') as f:
    f.write(bytes(1 if v else 0 for v in vals))
with open(t + '/b1.bin', 'wb') as f:
    f.write(b''.join(struct.pack('<e', 0.5 * i) for i in range(5)))
npy(t + '/str.npy', "[('k', '<i4'), ('s', '|S3')]", 0, b'')
npy(t + '/sub.npy', "[('k', '<i4', (2,))]", 0, b'')
npy(t + '/nest.npy', "[('k', [('a', '<i4')])]", 0, b'')
EOF
TYPES='i32,f32,>f8,u16,i8'

# expect CMD OPTS...: the mixed run's text output is what the single-type
# runs of CMD on each column give, side by side: one line of values (sum,
# reduce), count and nan in turn (count), a row per statistic (stats).
expect() {
	cmd=$1
	shift
	k=0
	for t in i32 f32 '>f8' u16 i8; do
		"$G" $cmd "$@" -t "$t" "$T/col$k.bin" > "$T/one$k" 2> "$T/err" ||
			{ bad "$cmd $* col$k" "$(head -n 1 "$T/err")"; return; }
		[ "$cmd" = stats ] && cut -f 2 "$T/one$k" > "$T/v$k" ||
			cp "$T/one$k" "$T/v$k"
		k=$((k + 1))
	done
	if [ "$cmd" = stats ]; then
		cut -f 1 "$T/one0" | paste - "$T/v0" "$T/v1" "$T/v2" "$T/v3" "$T/v4"
	else
		paste "$T/v0" "$T/v1" "$T/v2" "$T/v3" "$T/v4"
	fi > "$T/want"
}

# same NAME: $T/got is $T/want, byte for byte.
same() {
	cmp -s "$T/got" "$T/want" && ok ||
		bad "$1" "got '$(head -c 300 "$T/got")', want '$(head -c 300 "$T/want")'"
}

for c in sum "reduce --op min" "reduce --op max" stats count; do
	expect $c
	"$G" $c -t "$TYPES" "$T/mix.bin" > "$T/got" 2> "$T/err"
	same "$c -t $TYPES"
	"$G" $c -t "$TYPES" -j 1 "$T/mix.bin" > "$T/got" 2> "$T/err"
	same "$c -j 1"
	"$G" $c -t "$TYPES" -j 2 --chunk-size 4K "$T/mix.bin" > "$T/got" 2> "$T/err"
	same "$c -j 2 --chunk-size 4K"
	"$G" $c -t "$TYPES" < "$T/mix.bin" > "$T/got" 2> "$T/err"
	same "$c stdin"
	"$G" $c "$T/mix.npy" > "$T/got" 2> "$T/err"
	same "$c structured npy"
	cat "$T/mix.npy" | "$G" $c > "$T/got" 2> "$T/err"
	same "$c structured npy on stdin"
done
# bitwise reductions of the integer columns
python3 - "$T" <<'EOF'
import sys
t = sys.argv[1]
rec, cols = 19, [(0, 4), (16, 2), (18, 1)]
with open(t + '/mix.bin', 'rb') as f:
    d = f.read()
with open(t + '/ints.bin', 'wb') as f:
    f.write(b''.join(d[r * rec + o: r * rec + o + s] for r in range(len(d) // rec)
                     for o, s in cols))
EOF
for op in and or xor sum; do
	want=$(for k in 0 3 4; do t=$(echo "i32 f32 f64 u16 i8" | cut -d ' ' -f $((k + 1)))
		"$G" reduce --op $op -t $t "$T/col$k.bin"; done | paste - - -)
	got=$("$G" reduce --op $op -t i32,u16,i8 "$T/ints.bin" 2>&1)
	[ "$got" = "$want" ] && ok || bad "reduce --op $op i32,u16,i8" "$got, want $want"
done

# products of float columns (exact brackets, rounded once), in any chunks
python3 - "$T" <<'EOF'
import random, struct, sys
t = sys.argv[1]
r = random.Random(3)
rows = [(r.uniform(0.99, 1.01), r.uniform(0.9, 1.1)) for _ in range(30000)]
open(t + '/p.bin', 'wb').write(b''.join(struct.pack('<f', x[0]) +
                                        struct.pack('>d', x[1]) for x in rows))
open(t + '/p0.bin', 'wb').write(b''.join(struct.pack('<f', x[0]) for x in rows))
open(t + '/p1.bin', 'wb').write(b''.join(struct.pack('>d', x[1]) for x in rows))
EOF
printf '%s\t%s\n' "$("$G" reduce --op prod -t f32 "$T/p0.bin")" \
	"$("$G" reduce --op prod -t '>f8' "$T/p1.bin")" > "$T/want"
"$G" reduce --op prod -t 'f32,>f8' "$T/p.bin" > "$T/got" 2>&1
same "reduce --op prod f32,>f8"
"$G" reduce --op prod -t 'f32,>f8' -j 2 --chunk-size 4K "$T/p.bin" > "$T/got" 2>&1
same "reduce --op prod f32,>f8 in 4K chunks"

# --per-file: each operand's line and the total, the columns of each
"$G" sum -t "$TYPES" "$T/mix.bin" > "$T/s1"
cat "$T/mix.bin" "$T/mix.bin" > "$T/mix2.bin"
"$G" sum -t "$TYPES" "$T/mix2.bin" > "$T/s2"
{ printf '%s\t%s\n' "$(cat "$T/s1")" "$T/mix.bin"
  printf '%s\t%s\n' "$(cat "$T/s1")" "$T/mix.npy"
  printf '%s\ttotal\n' "$(cat "$T/s2")"; } > "$T/want"
"$G" sum --per-file "$T/mix.bin" "$T/mix.npy" -t "$TYPES" > "$T/got" 2> "$T/err"
same "sum --per-file raw and npy"

# -f state of shards, merged in any order, is the one run's result; a
# state of other types does not merge
head -c $((19 * 30001)) "$T/mix.bin" > "$T/a.bin"
tail -c +$((19 * 30001 + 1)) "$T/mix.bin" > "$T/b.bin"
for c in sum "reduce --op max" stats count; do
	"$G" $c -t "$TYPES" "$T/mix.bin" > "$T/want"
	"$G" $c -t "$TYPES" -f state "$T/a.bin" > "$T/a.st" &&
	"$G" $c -f state "$T/mix.npy" > "$T/m.st" &&
	"$G" $c -t "$TYPES" -f state "$T/b.bin" > "$T/b.st" ||
		bad "$c -f state" "no state"
	"$G" merge "$T/b.st" "$T/a.st" > "$T/got" 2> "$T/err"
	same "$c -f state, merge"
	"$G" $c -t "$TYPES" --per-file -f state "$T/a.bin" "$T/b.bin" |
		"$G" merge > "$T/got" 2> "$T/err"
	same "$c --per-file -f state | merge"
	"$G" merge "$T/m.st" > "$T/got" 2> "$T/err"
	same "$c -f state of the structured npy"
done

# -F: the columns it names, each as alone, the others never read
for c in sum stats; do
	for t in "4 u16" "2 f32" "3 >f8"; do
		set -- $t
		"$G" $c -t "$2" "$T/col$(($1 - 1)).bin" > "$T/v$1"
	done
	if [ $c = stats ]; then
		cut -f 2 "$T/v2" > "$T/x2"
		cut -f 2 "$T/v3" > "$T/x3"
		paste "$T/v4" "$T/x2" "$T/x3"
	else
		paste "$T/v4" "$T/v2" "$T/v3"
	fi > "$T/want"
	"$G" $c -F 4,2,3 -t "$TYPES" "$T/mix.bin" > "$T/got" 2> "$T/err"
	same "$c -F 4,2,3"
	"$G" $c -F 4,2,3 --per-file "$T/mix.npy" "$T/mix.bin" -t "$TYPES" |
		head -n 1 | cut -f 1-3 > "$T/got"
	[ $c = sum ] && same "$c -F 4,2,3 --per-file"
done

# -F of one column: every command reads it as the column alone (a bool
# column stays with the commands that read several: its bytes are 0/1)
for c in median "quantile -q 0.1,0.5,0.99" mode "hist --bins 7" \
	 "hist" "stats" "scan --out-type f64" "reduce --op prod"; do
	for t in "1 i32" "2 f32" "3 >f8" "4 u16" "5 i8"; do
		set -- $t
		case "$c $2" in
		"hist i32"|"hist f32"|"hist >f8"|"mode >f8") continue ;;
		"reduce --op prod f32"|"reduce --op prod >f8") ;;
		"reduce --op prod"*) continue ;;
		esac
		"$G" $c -t "$2" "$T/col$(($1 - 1)).bin" > "$T/want" 2>&1
		"$G" $c -F $1 -t "$TYPES" "$T/mix.bin" > "$T/got" 2>&1
		same "$c -F $1"
		"$G" $c -F $1 < "$T/mix.npy" > "$T/got" 2>&1
		same "$c -F $1 of the structured npy on stdin"
	done
done
# columns of one type, picked by -F or a list of one type: -t T -c N
python3 - "$T" <<'EOF'
import random, struct, sys
t = sys.argv[1]
rnd = random.Random(7)
rows = [(rnd.uniform(-9, 9), rnd.randint(-9, 9), float(rnd.randint(-50, 50)))
        for _ in range(5001)]
open(t + '/r2.bin', 'wb').write(b''.join(struct.pack('<fhf', *r) for r in rows))
open(t + '/pair.bin', 'wb').write(b''.join(struct.pack('<ff', r[2], r[0])
                                           for r in rows))
EOF
for c in median "quantile -q 0.25,0.75" "hist --bins 5" mode "scan" stats; do
	"$G" $c -t f32 -c 2 "$T/pair.bin" > "$T/want" 2>&1
	"$G" $c -F 3,1 -t f32,i16,f32 "$T/r2.bin" > "$T/got" 2>&1
	same "$c -F 3,1 of f32,i16,f32"
	"$G" $c -t f32,f32 "$T/pair.bin" > "$T/got" 2>&1
	same "$c -t f32,f32"
done
"$G" median -F 3,1 -t f32,i16,f32 "$T/r2.bin" -f json | grep -q '"type":"f32","columns":2' &&
	ok || bad "-F 3,1 json" "not f32, 2 columns"
for c in "median -F 3,1" "sum -F 4,1"; do
	"$G" $c -t f32,i16,f32,i32 "$T/r2.bin" > "$T/out" 2> "$T/err"
	grep -q "(f32,i16,f32,i32 is 14 bytes)" "$T/err" && ok ||
		bad "$c cut short" "$(cat "$T/err")"
done

"$G" median -F 2 --per-file "$T/mix.npy" "$T/mix.bin" -t "$TYPES" > "$T/got" 2> "$T/err"
m=$("$G" median -t f32 "$T/col1.bin" 2> /dev/null)
m2=$(cat "$T/col1.bin" "$T/col1.bin" | "$G" median -t f32 2> /dev/null)
printf '%s\t%s\n%s\t%s\n%s\ttotal\n' "$m" "$T/mix.npy" "$m" "$T/mix.bin" "$m2" > "$T/want"
same "median -F 2 --per-file"

# json names each column's type
out=$("$G" sum -f json -t "$TYPES" "$T/mix.bin")
case $out in *'"type":"i32,f32,f64,u16,i8","columns":5,'*) ok ;;
	*) bad "json type" "$out" ;; esac
# --endian big: every column that names no byte order
python3 -c "
import struct,sys
open(sys.argv[1],'wb').write(struct.pack('>ifh', -5, 1.5, 300) * 3)" "$T/be.bin"
out=$("$G" sum -t i32,f32,i16 --endian big "$T/be.bin" 2>&1)
[ "$out" = "$(printf -- '-15\t4.5\t900')" ] && ok || bad "--endian big" "$out"
out=$("$G" sum -t '>i4,f32,<i2' --endian big "$T/be.bin" 2>&1)
[ $? -eq 2 ] && ok || bad "-t <i2 with --endian big" "$out"

# the aligned dtype: padding skipped, each field as its column alone
for c in sum stats; do
	k=0
	for t in i8 f64 f32; do
		"$G" $c -t $t "$T/al$k.bin" | { [ $c = stats ] && cut -f 2 || cat; } > "$T/v$k"
		k=$((k + 1))
	done
	if [ $c = stats ]; then
		"$G" stats -t i8 "$T/al0.bin" | cut -f 1 | paste - "$T/v0" "$T/v1" "$T/v2"
	else
		paste "$T/v0" "$T/v1" "$T/v2"
	fi > "$T/want"
	"$G" $c "$T/al.npy" > "$T/got" 2> "$T/err"
	same "$c aligned npy"
done
# bools count 1 for any nonzero byte, as numpy reads them
printf '%s\t%s\n' "$("$G" sum -t u8 "$T/b0.bin")" "$("$G" sum -t f16 "$T/b1.bin")" > "$T/want"
"$G" sum "$T/b.npy" > "$T/got" 2> "$T/err"
same "bool field"

# refusals: one line, exit 2 for usage and 1 for a bad file
refuse() {
	want=$1 what=$2
	shift 2
	"$G" "$@" > "$T/out" 2> "$T/err"
	rc=$?
	if [ $rc -ne "$want" ] || [ -s "$T/out" ] || [ "$(wc -l < "$T/err")" -ne 1 ] ||
	   ! grep -q "^gpustat: .*$what" "$T/err"; then
		bad "refuse $*" "exit $rc: $(cat "$T/err")"
	else
		ok
	fi
}
refuse 2 "contradicts -t's list of 2 types" sum -t i32,f32 -c 3 "$T/mix.bin"
refuse 2 "contradicts -t's list of 2 types" sum -c 3 -t i32,f32 "$T/mix.bin"
refuse 2 "unknown type 'f33'; did you mean 'f32'" sum -t i32,f33 "$T/mix.bin"
refuse 2 "expected a list of types" sum -t i32,,f32 "$T/mix.bin"
refuse 2 "contradicts the npy header" sum -t i32,f32 "$T/mix.npy"
refuse 2 "contradicts the npy header" sum -t f32 "$T/mix.npy"
refuse 1 "do not match the stream's i32,f32" sum -t i32,f32 "$T/col1.bin" "$T/al.npy"
refuse 1 "field 's': unsupported dtype '|S3'" sum "$T/str.npy"
refuse 1 "sub-array fields are not supported" sum "$T/sub.npy"
refuse 1 "nested structured dtypes are not supported" sum "$T/nest.npy"
refuse 1 "do not match the stream's" sum "$T/mix.npy" "$T/al.npy"
printf '1,2\n3,4\n' > "$T/t.csv"
refuse 2 "text is read into one type" sum -t i32,f32 "$T/t.csv"
refuse 2 "text is read into one type" sum --text -t i32,f32 "$T/mix.bin"
for c in median quantile mode hist scan; do
	refuse 2 "mixed types" $c -t i32,f32 "$T/mix.bin"
done
refuse 2 "mixed types" median "$T/mix.npy"
refuse 2 "reads one column of them (-F N)" median -F 1,2 "$T/mix.npy"
refuse 2 "mixed types" median -F 1 "$T/b.npy"
# a bool column picked alone is one column: the message says why it is refused
refuse 2 "(bool): bool columns are read by sum" median -F 1 "$T/b.npy"
refuse 2 "CPU only" sum --backend cuda -t "$TYPES" "$T/mix.bin"
refuse 2 "not supported yet" reduce --op prod -t i32,f32 "$T/mix.bin"
refuse 2 "column 6 is past the record's 5 values" sum -F 6 -t "$TYPES" "$T/mix.bin"
head -c 800 "$T/col0.bin" | "$G" count -t i32,f32 -f state > "$T/c.st"
refuse 1 "cannot merge with .*: type i32,f32, not i32,f32,f64,u16,i8" merge "$T/a.st" "$T/c.st"
refuse 2 "no carry for a scan" scan --carry-in "$T/c.st" -t f32 "$T/col1.bin"
# a record cut short names the record
refuse 1 "(i32,f32 is 8 bytes)" sum -t i32,f32 "$T/mix.bin"

# -f npy of results of different dtypes: one record of a field per
# column (f0, f1, ... as numpy names them), each in its result's dtype;
# -f binary the same bytes without the header; --per-file stacks them
"$G" sum -t "$TYPES" "$T/mix.bin" > "$T/txt"
"$G" sum -f binary -t "$TYPES" "$T/mix.bin" > "$T/bin"
"$G" sum -f npy -t "$TYPES" "$T/mix.bin" > "$T/npy"
"$G" sum -f npy --per-file -t "$TYPES" "$T/mix.bin" "$T/mix.bin" > "$T/npy2"
if python3 - "$T" <<'EOF'
import struct, sys
t = sys.argv[1]
txt = open(t + '/txt').read().split()
b = open(t + '/bin', 'rb').read()
v = struct.unpack('<qddQq', b)
assert [int(txt[0]), int(txt[3]), int(txt[4])] == [v[0], v[3], v[4]], (txt, v)
assert float(txt[1]) == v[1] or txt[1] == 'nan' and v[1] != v[1], (txt, v)
assert float(txt[2]) == v[2], (txt, v)
descr = ("[('f0', '<i8'), ('f1', '<f8'), ('f2', '<f8'), ('f3', '<u8'), "
         "('f4', '<i8')]")
n = open(t + '/npy', 'rb').read()
h = n[10:10 + struct.unpack('<H', n[8:10])[0]].decode()
assert h.startswith("{'descr': %s, 'fortran_order': False, 'shape': (), }"
                    % descr), h
assert n[10 + len(h):] == b, 'npy payload'
n = open(t + '/npy2', 'rb').read()
h = n[10:10 + struct.unpack('<H', n[8:10])[0]].decode()
assert "'shape': (3,)" in h and descr in h, h
EOF
then ok; else bad "-f npy, binary of mixed dtypes" "see above"; fi

# -f npy where every column's result has one dtype
python3 - "$T" <<'EOF'
import struct, sys
t = sys.argv[1]
d = open(t + '/col0.bin', 'rb').read()
h = [struct.unpack_from('<h', d, i)[0] for i in range(0, len(d), 2)]
open(t + '/want', 'wb').write(struct.pack('<qq', sum(h[0::2]), sum(h[1::2])))
EOF
"$G" sum -f binary -t i16,i16 "$T/col0.bin" > "$T/got" 2> "$T/err"
same "-f binary i16,i16"
"$G" sum -f npy -t i16,i16 "$T/col0.bin" | tail -c 16 > "$T/got"
same "-f npy i16,i16"

summary
