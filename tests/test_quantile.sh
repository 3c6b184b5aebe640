#!/bin/sh
# test_quantile.sh - quantile, median and mode against an independent
# reference (tests/quantile_ref.py: numpy's method definitions in exact
# rationals, collections.Counter for mode) for every type and method, many
# q values (0, 1, tiny, subnormal, 1/3, the index boundaries i/(n-1) and
# i/n), -c 2, NaN/inf/-0, empty input, n = 1 and 2, ties; then what the
# reference does not see: the same bits for every chunk size and thread
# count, a pipe (spilled to $TMPDIR) against the file, the formats, the
# refusals (-f state, bad -q and --method), --backend cuda, the NaN note,
# and --per-file.
#
# Usage: sh tests/test_quantile.sh   (GPUSTAT=path overrides ./gpustat)
cd "$(dirname "$0")/.." || exit 2
NAME=quantile
. tests/lib.sh

# the reference's verdicts, one line each
for part in small large; do
	reference tests/quantile_ref.py "$part" 30
done

# data: 2-column f64 with repeats, NaN, -0; u32; u8
python3 - "$T" <<'PY'
import random, struct, sys
random.seed(7)
t = sys.argv[1]
v = []
for i in range(300000):
    r = random.random()
    v.append(float("nan") if r < 0.001 else -0.0 if r < 0.002 else
             random.choice([1.5, -2.25, 1e300]) if r < 0.2 else random.gauss(0, 1))
open(t + "/a.f64", "wb").write(struct.pack("<%dd" % len(v), *v))
open(t + "/a.u32", "wb").write(struct.pack("<%dI" % 300000, *[random.getrandbits(32) >> random.randint(0, 31) for _ in range(300000)]))
open(t + "/a.u8", "wb").write(bytes(random.getrandbits(8) & random.getrandbits(8) for _ in range(100000)))
PY

ALLQ=0,1,0.5,0.25,0.999,0.3333333333333333,1e-300
METHODS="inverted_cdf averaged_inverted_cdf closest_observation
interpolated_inverted_cdf hazen weibull linear median_unbiased
normal_unbiased lower higher midpoint nearest"

# the same bits whatever the chunks and threads
for m in $METHODS; do
	"$G" quantile -q $ALLQ --method $m -t f64 -c 2 -j 1 "$T/a.f64" > "$T/one" 2> /dev/null
	for opts in "--chunk-size 64K -j 2" "--chunk-size 1M -j 4" "--chunk-size 4K -j 2"; do
		"$G" quantile -q $ALLQ --method $m -t f64 -c 2 $opts "$T/a.f64" > "$T/other" 2> /dev/null
		if [ -s "$T/one" ] && cmp -s "$T/one" "$T/other"; then ok; else
			bad "chunks $m $opts" "$(diff "$T/one" "$T/other" | head -c 200)"
		fi
	done
done
for t in u32 u8; do
	"$G" mode -t $t -j 1 "$T/a.$t" > "$T/one"
	"$G" mode -t $t --chunk-size 64K -j 3 "$T/a.$t" > "$T/other"
	cmp -s "$T/one" "$T/other" && ok || bad "mode chunks $t" "differ"
done

# a pipe: spilled to a temporary file for the later passes, same result
for t in f64 u32 u8; do
	"$G" quantile -q $ALLQ -t $t "$T/a.$t" > "$T/one" 2> /dev/null
	cat "$T/a.$t" | TMPDIR=$T "$G" quantile -q $ALLQ -t $t > "$T/other" 2> /dev/null
	cmp -s "$T/one" "$T/other" && ok || bad "pipe $t" "$(diff "$T/one" "$T/other" | head -c 200)"
done
ls "$T" | grep -q spill && bad "spill" "a temporary file was left in TMPDIR" || ok
out=$(cat "$T/a.f64" | TMPDIR=$T/none "$G" quantile -t f64 2>&1)
rc=$?
[ $rc -eq 1 ] && case $out in *"temporary file"*) true ;; *) false ;; esac &&
	ok || bad "spill without TMPDIR" "rc $rc: $out"
# a pipe of no whole number of elements: the error names stdin, as the
# engine does, not the spilled copy
out=$( (cat "$T/a.f64"; printf xy) | TMPDIR=$T "$G" quantile -t f64 2>&1)
rc=$?
[ $rc -eq 1 ] && [ "$out" = "gpustat: stdin: trailing 2 bytes do not make a whole element (f64 is 8 bytes)" ] &&
	ok || bad "spill trailing" "rc $rc: $out"

# median is quantile -q 0.5
for m in linear lower nearest hazen; do
	a=$("$G" median --method $m -t f64 -c 2 "$T/a.f64" 2> /dev/null)
	b=$("$G" quantile -q 0.5 --method $m -t f64 -c 2 "$T/a.f64" 2> /dev/null)
	[ -n "$a" ] && [ "$a" = "$b" ] && ok || bad "median $m" "'$a' vs '$b'"
done

# formats
"$G" quantile -q 0.1,0.9 -t f64 -c 2 -f json "$T/a.f64" > "$T/j" 2> "$T/err"
python3 - "$T/j" <<'PY' && ok || bad "json" "$(cat "$T/j")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["command"] == "quantile" and d["method"] == "linear" and d["q"] == [0.1, 0.9]
assert len(d["quantiles"]) == 2 and len(d["quantiles"][0]) == 2
assert d["count"] == [150000, 150000] and sum(d["nan"]) > 0
PY
[ -s "$T/err" ] && bad "json note" "json printed a note: $(cat "$T/err")" || ok
"$G" quantile -q 0.1,0.9 -t f64 -c 2 "$T/a.f64" 2> "$T/err" > /dev/null
grep -q "NaNs left out" "$T/err" && ok || bad "nan note" "$(cat "$T/err")"
"$G" quantile --quiet -q 0.1 -t f64 "$T/a.f64" 2> "$T/err" > /dev/null
[ -s "$T/err" ] && bad "--quiet" "$(cat "$T/err")" || ok
printf 'q,quantile_0,quantile_1\n0.5,' > "$T/want"
"$G" quantile -q 0.5 -t f64 -c 2 -f csv "$T/a.f64" 2> /dev/null | head -c 35 > "$T/got"
head -c 35 "$T/got" | grep -q "^q,quantile_0,quantile_1
0.5," && ok || bad "csv" "$(cat "$T/got")"
"$G" quantile -q 0.1,0.5,0.9 -t f64 -c 2 -f npy "$T/a.f64" > "$T/n.npy" 2> /dev/null
"$G" quantile -q 0.1,0.5,0.9 -t f64 -c 2 "$T/a.f64" > "$T/n.txt" 2> /dev/null
python3 - "$T/n.npy" "$T/n.txt" <<'PY' && ok || bad "npy" "shape or values"
import struct, sys
b = open(sys.argv[1], "rb").read()
hl = struct.unpack("<H", b[8:10])[0]
assert b"'shape': (3, 2,)" in b[10:10 + hl] and b"<f8" in b[10:10 + hl]
v = struct.unpack("<6d", b[10 + hl:])
t = [float(x) for x in open(sys.argv[2]).read().split()]
assert list(v) == t, (v, t)
PY
n=$("$G" median -t f64 -c 2 -f binary "$T/a.f64" 2> /dev/null | wc -c)
[ "$n" -eq 16 ] && ok || bad "binary" "$n bytes"
"$G" mode -t u8 -f json "$T/a.u8" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["command"] == "mode" and d["mode"] == [[0]] and d["count"] == [100000]' &&
	ok || bad "mode json" "$("$G" mode -t u8 -f json "$T/a.u8")"

# mode of many tied values: a line per mode, never one line of megabytes
python3 -c "import struct; open('$T/tie.u32', 'wb').write(struct.pack('<200000I', *range(199999, -1, -1)))"
"$G" mode -t u32 "$T/tie.u32" > "$T/out" 2> "$T/err"
[ $? -eq 0 ] && [ "$(wc -l < "$T/out")" -eq 200000 ] &&
	[ "$(head -n 2 "$T/out" | tr '\t\n' ', ')" = "0,1 1,1 " ] &&
	[ "$(tail -n 1 "$T/out")" = "$(printf '199999\t1')" ] &&
	[ "$(awk 'length > 20' "$T/out" | wc -l)" -eq 0 ] && ok ||
	bad "mode ties, text" "$(head -c 200 "$T/out") $(cat "$T/err")"
"$G" mode -t u32 -c 2 -f csv "$T/tie.u32" > "$T/out" 2> "$T/err"
[ $? -eq 0 ] && [ "$(wc -l < "$T/out")" -eq 200001 ] &&
	[ "$(sed -n 1,2p "$T/out" | tr '\n' ' ')" = "column,value,count 0,1,1 " ] && ok ||
	bad "mode ties, csv" "$(head -c 200 "$T/out") $(cat "$T/err")"

# refusals
for args in "quantile -f state" "median -f state" "mode -f state" \
	    "quantile -q 1.5" "quantile -q 0.5,x" "quantile --method linearr" \
	    "quantile -q -0.1"; do
	"$G" $args -t f64 "$T/a.f64" > "$T/out" 2> "$T/err"
	rc=$?
	[ $rc -eq 2 ] && [ ! -s "$T/out" ] && ok || bad "$args" "rc $rc: $(cat "$T/err")"
done
# --backend cuda: the CPU's result where a GPU runs it
# (tests/gpu/quantile_gpu.sh checks that at length), else an error
for c in quantile median mode; do
	"$G" $c --backend cpu -t f64 "$T/a.f64" > "$T/ref" 2> /dev/null
	"$G" $c --backend cuda -t f64 "$T/a.f64" > "$T/out" 2> "$T/err"
	rc=$?
	if [ $rc -eq 0 ]; then
		cmp -s "$T/ref" "$T/out" && ok || bad "$c --backend cuda" "differs from cpu"
	else
		[ $rc -eq 1 ] && [ ! -s "$T/out" ] && grep -qE "GPU|CUDA" "$T/err" && ok ||
			bad "$c --backend cuda" "rc $rc: $(cat "$T/err")"
	fi
done

# P is the decimal typed (0.1 is one tenth): examples where numpy
# agrees, and one where numpy's own float rounding differs (100 *
# 0.07 is 7.000000000000001 in doubles); P printed as typed
qt() { printf '%s' "$(seq "$1" "$2" | "$G" quantile --method "$3" -q "$4" 2>&1 | tr '\n' ' ')"; }
for c in "1 10 inverted_cdf 0.1,0.9=1 9 " "0 10 lower 0.3=3 " \
	 "0 100 higher 0.07=7 " "0 100 linear 0.07=7 " "0 100 lower 7e-2=7 " \
	 "1 10 closest_observation 0.35,0.25=4 2 " "1 10 nearest 0.5=5 " \
	 "0 10 linear 0.30000000000000000001=3 " "1 4 hazen 1e-800=1 "; do
	set -- ${c%%=*}
	got=$(qt "$@")
	[ "$got" = "${c#*=}" ] && ok || bad "P as typed: $c" "got '$got'"
done
# numpy.quantile's answers as tests/np_ref.py computes them in doubles
# (and numpy's own, where python3 has numpy)
python3 - "$G" <<'PY' && ok || bad "P as typed: numpy" "see above"
import struct, subprocess, sys
sys.path.insert(0, "tests")
import np_ref
np = np_ref.np_cross()
bad = []
for n, q, m in ((10, "0.1", "inverted_cdf"), (10, "0.9", "inverted_cdf"),
                (11, "0.3", "lower"), (11, "0.7", "higher"),
                (20, "0.05", "closest_observation"), (101, "0.07", "lower")):
    got = subprocess.run([sys.argv[1], "quantile", "-t", "i64", "--method", m,
                          "-q", q], input=struct.pack("<%dq" % n, *range(n)),
                         capture_output=True).stdout
    want = np_ref.quantile(list(range(n)), float(q), m)
    if np is not None and np.quantile(np.arange(n), float(q), method=m) != want:
        bad.append("%d %s %s: np_ref %r is not numpy's" % (n, q, m, want))
    if got.decode().strip() != str(want):
        bad.append("%d %s %s: %r, numpy %r" % (n, q, m, got, want))
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
got=$(seq 0 10 | "$G" quantile -f csv -q 0.10,1e-1,.5,1e-800,0.30000000000000000001 2>&1 | cut -d, -f1 | tr '\n' ' ')
[ "$got" = "q 0.1 0.1 0.5 1e-800 0.30000000000000000001 " ] && ok || bad "P's text" "$got"
seq 0 10 | "$G" quantile -f json -q 1e-800,0.25 | python3 -c '
import json, sys
t = sys.stdin.read()
d = json.loads(t)
assert "\"q\":[1e-800,0.25]" in t and d["quantiles"] == [[0], [2.5]], t' &&
	ok || bad "P in json" "$(seq 0 10 | "$G" quantile -f json -q 1e-800,0.25 2>&1)"
for q in 1.5 1e1 1.0000000000000000001 0x1p-1 inf nan "0.5 " "" 1e 0.5e+ --1 -0.5 \
	 0.1234567890123456789012345678901234567890123456789012345678901234; do
	seq 1 3 | "$G" quantile -q "$q" > "$T/out" 2> "$T/err"
	rc=$?
	[ $rc -eq 2 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" -eq 1 ] &&
		ok || bad "-q '$q'" "rc $rc: $(cat "$T/err")"
done

# memory: columns times quantiles is bounded, and refused before the
# input is read (-c 4096 with 4096 quantiles would take 2.5 GB).
# ASan reserves terabytes of address space, so under it (make asan) the
# cap is left out
vlimit="ulimit -v"
[ -n "${GPUSTAT_ASAN-}" ] && vlimit=":"
Q4096=$(python3 -c "print(','.join('%g' % ((i + 1) / 4097) for i in range(4096)))")
head -c 65536 "$T/a.f64" > "$T/m.f64"
for c in 4096 65536; do
	( $vlimit 400000 2> /dev/null
	  "$G" quantile -t f64 -c $c -q "$Q4096" "$T/m.f64" ) > "$T/out" 2> "$T/err"
	rc=$?
	[ $rc -eq 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" -eq 1 ] &&
		grep -q "^gpustat: quantile: $c columns and 4096 quantiles need [0-9.]* GiB, over the limit of 1 GiB (use fewer columns or quantiles)$" "$T/err" &&
		ok || bad "memory bound -c $c" "rc $rc: $(cat "$T/err")"
done
( $vlimit 400000 2> /dev/null
  "$G" quantile -t f64 -c 8 -q "$Q4096" "$T/m.f64" ) > "$T/out" 2> "$T/err"
[ $? -eq 0 ] && [ "$(wc -l < "$T/out")" -eq 4096 ] && ok ||
	bad "memory bound -c 8" "$(cat "$T/err")"

# --per-file: each operand's result is a run over it alone
head -c 80000 "$T/a.f64" > "$T/p1.f64"
tail -c 160000 "$T/a.f64" > "$T/p2.f64"
"$G" quantile -q 0.5,0.9 -t f64 --per-file "$T/p1.f64" "$T/p2.f64" > "$T/pf" 2> /dev/null
{ "$G" quantile -q 0.5,0.9 -t f64 "$T/p1.f64" 2> /dev/null | sed "s|\$|	$T/p1.f64|"
  "$G" quantile -q 0.5,0.9 -t f64 "$T/p2.f64" 2> /dev/null | sed "s|\$|	$T/p2.f64|"
  cat "$T/p1.f64" "$T/p2.f64" | "$G" quantile -q 0.5,0.9 -t f64 2> /dev/null | sed 's/$/	total/'
} > "$T/want"
cmp -s "$T/pf" "$T/want" && ok || bad "--per-file" "$(diff "$T/pf" "$T/want" | head -c 300)"

summary
