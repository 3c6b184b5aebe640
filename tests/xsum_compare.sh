#!/bin/sh
# xsum_compare.sh - two gpustat binaries, byte for byte, on adversarial
# data for the exact sums: sum, stats, dot, reduce (sum, prod, min, max),
# scan and merge, every element type, text, json and -f state, whole and
# in small chunks, one thread and several. A review tool for changes to the
# exact arithmetic (numerics/xsum*, cpu/, cuda/exact.cuh) that must keep
# every output byte; not run by tests/run.sh.
#
#   sh tests/xsum_compare.sh BASE [NEW]     (NEW default ./gpustat)
#   BACKEND=cuda sh tests/xsum_compare.sh BASE   (both on the GPU; or
#   BACKENDS="cpu cuda" to run NEW on each against BASE on the first)
#   N=elements per file (default 300000); ONLY='*.f32' (a glob of the
#   generated files' names, KIND.TYPE) runs a part, for runs with a limit
#
# Prints "FAIL command" for each difference (the outputs stay in $TMPDIR
# for a look) and last "xsum_compare: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
BASE=${1:?usage: sh tests/xsum_compare.sh BASE [NEW]}
NEW=${2:-./gpustat}
N=${N:-300000}
BACKENDS=${BACKENDS:-${BACKEND:-cpu}}
set -- $BACKENDS
BB=$1
T=$(mktemp -d "${TMPDIR:-/tmp}/xsum_compare.XXXXXX") || exit 2
pass=0
fail=0

python3 - "$T" "$N" <<'EOF' || exit 2
import sys
import numpy as np

out, n = sys.argv[1], int(sys.argv[2])
np.seterr(all="ignore")
rng = np.random.default_rng(30)

def bits(dt, k):	# random bit patterns: every exponent, NaN, inf, subnormal
	return rng.integers(0, 2**63, k, dtype=np.uint64).astype(dt)

def kinds(ft, ut, k):
	f = np.finfo(ft) if ft is not None else None
	r = {}
	r["bits"] = bits(ut, k)
	if ft is None:
		return r
	big = f.max
	r["cancel"] = np.tile(np.array([big, -big, f.tiny * 0.5, 1.0, -1.0,
				       -f.tiny * 0.5], ft), k // 6 + 1)[:k]
	r["negzero"] = np.full(k, -0.0, ft)
	r["zeros"] = np.where(rng.random(k) < 0.5, -0.0, 0.0).astype(ft)
	r["subnormal"] = (rng.integers(-2**9, 2**9, k) * f.smallest_subnormal).astype(ft)
	r["spread"] = (rng.standard_normal(k) *
		       np.exp2(rng.integers(f.minexp, f.maxexp - 2, k))).astype(ft)
	r["near1"] = (1 + rng.standard_normal(k) * 1e-3).astype(ft)
	r["grow"] = (np.exp2(np.linspace(f.minexp, f.maxexp - 2, k)) *
		     rng.choice([-1, 1], k)).astype(ft)
	r["outlier"] = np.where(rng.random(k) < 0.001, big / 4,
				rng.random(k)).astype(ft)
	r["outlier"][-1] = -big / 4
	return r

types = {
	"f16": (np.float16, np.uint16), "f32": (np.float32, np.uint32),
	"f64": (np.float64, np.uint64), "bf16": (None, np.uint16),
	"i8": (None, np.int8), "u8": (None, np.uint8), "i16": (None, np.int16),
	"u16": (None, np.uint16), "i32": (None, np.int32),
	"u32": (None, np.uint32), "i64": (None, np.int64),
	"u64": (None, np.uint64),
}
for t, (ft, ut) in types.items():
	for name, a in kinds(ft, ut, n).items():
		a.tofile(f"{out}/{name}.{t}")
	if t == "bf16":		# f32's top halves: its data as bf16
		for name, a in kinds(np.float32, np.uint32, n).items():
			(a.view(np.uint32) >> 16).astype(np.uint16).tofile(
				f"{out}/{name}.bf16")
	if t in ("i64", "u64"):	# the extremes, where sums pass 2^64
		info = np.iinfo(ut)
		np.tile(np.array([info.max, info.min, info.max], ut),
			n // 3 + 1)[:n].tofile(f"{out}/extreme.{t}")
	for k in (1, 3, 1000):	# tails and tiny inputs
		kinds(ft, ut, k)["bits"].tofile(f"{out}/tiny{k}.{t}")
	if ft is not None:	# few values: the one-by-one paths
		kinds(ft, ut, 5)["subnormal"].tofile(f"{out}/tinysub.{t}")
		kinds(ft, ut, 7)["cancel"].tofile(f"{out}/tinycancel.{t}")
EOF

# check: the outputs of the last two runs agree (stdout with the exit
# status, and stderr)
check() {
	if cmp -s "$T/want" "$T/got" && cmp -s "$T/want.err" "$T/got.err"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL $*"
		cp "$T/want" "$T/want.$fail"; cp "$T/got" "$T/got.$fail"
	fi
}

# same CMD...: BASE on $BB against NEW on each backend
same() {
	"$BASE" "$@" --backend "$BB" > "$T/want" 2> "$T/want.err"
	echo "rc $?" >> "$T/want"
	for b in $BACKENDS; do
		"$NEW" "$@" --backend "$b" > "$T/got" 2> "$T/got.err"
		echo "rc $?" >> "$T/got"
		check "($b) $*"
	done
}

# merge STATE...: no backend to choose
same_merge() {
	"$BASE" merge "$@" > "$T/want" 2> "$T/want.err"
	echo "rc $?" >> "$T/want"
	"$NEW" merge "$@" > "$T/got" 2> "$T/got.err"
	echo "rc $?" >> "$T/got"
	check "merge $*"
}

for f in "$T"/${ONLY:-*.*}; do
	t=${f##*.}
	case $t in f*|bf*) float=1 ;; *) float= ;; esac
	for fmt in text state; do
		for x in "-j 1" "-j 3 --chunk-size 4K"; do
			same sum -t "$t" --raw $x -f "$fmt" "$f"
			same sum -t "$t" --raw $x -c 3 -f "$fmt" "$f"
			same stats -t "$t" --raw $x -c 2 -f "$fmt" "$f"
			same dot -t "$t" --raw $x --pairs -f "$fmt" "$f"
			for op in sum prod min max; do
				same reduce -t "$t" --raw $x --op "$op" -f "$fmt" "$f"
			done
		done
	done
	same stats -t "$t" --raw -f json "$f"
	same dot -t "$t" --raw "$f" "$f"
	for op in sum prod max; do
		same scan -t "$t" --raw --op "$op" --chunk-size 4K "$f"
		same scan -t "$t" --raw --op "$op" -c 2 -f state "$f"
	done
	[ -n "$float" ] && for ot in f16 bf16 f32 f64; do
		same scan -t "$t" --raw --out-type "$ot" "$f"
	done
	# the states of two halves merged
	"$BASE" sum -t "$t" --raw -f state "$f" > "$T/s1" 2>/dev/null
	"$BASE" stats -t "$t" --raw -f state "$f" > "$T/s2" 2>/dev/null
	same_merge "$T/s1" "$T/s1"
	same_merge "$T/s2" "$T/s2"
done
echo "xsum_compare: $pass passed, $fail failed"
[ "$fail" = 0 ] && rm -rf "$T"
[ "$fail" = 0 ]
