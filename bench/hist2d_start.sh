#!/bin/sh
# hist2d_start.sh - issue 32's GPU target for hist2d (the GPU >= 5x
# gpustat's own CPU backend, 1e9 f32 points, page-cached, a given range)
# with the GPU's start as session 22 left it: the context starts on a
# thread ahead of the passes (backend_prestart), and auto's hist2d rates
# (ops.def) put a billion points on the hybrid (the CPU computes while the
# GPU starts, the GPU takes over once ready: backend_auto.c).
#
#  1. builds (make -j16 all);
#  2. checks, byte for byte against --backend cpu (-f npy): --backend
#     cuda, and auto handing over after 1 and 3 chunks
#     (GPUSTAT_AUTO_CPU_CHUNKS), on 2e7 points in 8 MiB chunks: 64^2
#     (shared tiles), 1024^2 and 4096^2 (global atomics) over a given
#     range, 1024^2 over the data's range (two passes: the context starts
#     during the first), f64 -c 3 -F 3,1 --bins 100,50, and --weights 3 at
#     256^2; and that -v says the GPU started in the background (cuda: at
#     the first pass; auto: from the range pass, for the counts);
#  3. times 1e9 points (8 GB, TMPDIR, numpy-generated normals) at 1024^2
#     and 4096^2 over --range -4:4: --backend cpu (every core), cuda and
#     auto, best of 2 each, their npy compared with cpu's; numpy's
#     fromfile + histogram2d on the first 1e8 points, scaled x10; then
#     -v of cuda and auto at 1024^2 (the stages: read, h2d, kernel; auto's
#     plan and hand-over), auto's -v without --range (two passes), and
#     cuda with --streams 4 and --chunk-size 256M.
#
# Usage (repository root, on the GPU machine; about 4 minutes on 16 cores):
#   TMPDIR=/dev/shm sh bench/hist2d_start.sh [MPOINTS]   (default 1000)
# Needs python3 with numpy; 8.2 GB under TMPDIR. NOBUILD=1 skips the
# build; GPU_BACKEND=cpu tries the script on a machine without a GPU (the
# cuda column is then the CPU again, and the -v check fails).
cd "$(dirname "$0")/.." || exit 2
MP=${1:-1000}
G=./gpustat
BE=${GPU_BACKEND:-cuda}
[ -n "$NOBUILD" ] || make -j16 all > "${TMPDIR:-/tmp}/hist2d_start_build.log" 2>&1 ||
	{ tail -20 "${TMPDIR:-/tmp}/hist2d_start_build.log"; echo "build failed"; exit 2; }
D=$(mktemp -d "${TMPDIR:-/tmp}/h2start.XXXXXX") || exit 2
trap 'rm -rf "$D"' EXIT
"$G" --version | head -3
echo "== $(nproc) cores; $MP M points of two f32 ($(awk -v m="$MP" 'BEGIN { print m * 8 / 1000 }') GB)"

python3 - "$D" "$MP" <<'EOF' || exit 2
import sys, numpy as np
d, mp = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(22)
# the checks' files: 2e7 points with edges, ends and NaN in them
n = 20_000_000
a = rng.normal(0, 1.5, size=(n, 2)).astype('<f4')
e = np.concatenate([np.linspace(-4, 4, 65), np.linspace(-4, 4, 1025), [-4, 4, 5, -5]])
k = rng.integers(0, n, size=len(e) * 20)
a[k, rng.integers(0, 2, size=len(k))] = np.resize(e, len(k)).astype('<f4')
a.tofile(f'{d}/clean.f32')
a[rng.integers(0, n, size=500), 1] = np.nan
a.tofile(f'{d}/small.f32')
np.stack([a[:4_000_000, 1], rng.normal(size=4_000_000), a[:4_000_000, 0]],
         axis=1).astype('<f8').tofile(f'{d}/three.f64')
w = rng.uniform(-1, 2, size=n).astype('<f4')
np.stack([a[:, 0], a[:, 1], w], axis=1).astype('<f4').tofile(f'{d}/xyw.f32')
# the timed file, 1e8 points at a time
with open(f'{d}/big.f32', 'wb') as out:
    left = mp * 1_000_000
    while left:
        m = min(left, 100_000_000)
        out.write(rng.standard_normal(size=2 * m, dtype=np.float32).tobytes())
        left -= m
EOF
cat "$D/big.f32" > /dev/null

# ---- 2. cuda and auto against cpu, byte for byte -----------------------------
ok=0
bad=0
check() {	# NAME FILE ARGS...: cuda, auto after 1 and 3 chunks = cpu
	name=$1
	f=$2
	shift 2
	"$G" hist2d -q "$@" -f npy --chunk-size 8M --backend cpu "$f" > "$D/c.npy" 2> "$D/c.err"
	for how in cuda auto1 auto3; do
		case $how in
		cuda) "$G" hist2d -q "$@" -f npy --chunk-size 8M --backend "$BE" "$f" > "$D/g.npy" 2> "$D/g.err" ;;
		auto*) GPUSTAT_AUTO_CPU_CHUNKS=${how#auto} "$G" hist2d -q "$@" -f npy --chunk-size 8M "$f" > "$D/g.npy" 2> "$D/g.err" ;;
		esac
		if cmp -s "$D/c.npy" "$D/g.npy" && [ -s "$D/c.npy" ]; then
			ok=$((ok + 1))
		else
			bad=$((bad + 1))
			echo "FAIL $name $how: $(head -c 300 "$D/g.err") $(head -c 300 "$D/c.err")"
		fi
	done
}
check "64^2 range" "$D/small.f32" --bins 64 --range -4:4
check "1024^2 range" "$D/small.f32" --bins 1024 --range -4:4
check "4096^2 range" "$D/small.f32" --bins 4096 --range -4:4
check "1024^2 data range" "$D/clean.f32" --bins 1024
check "f64 -c 3 -F 3,1 100,50" "$D/three.f64" -t f64 -c 3 -F 3,1 --bins 100,50 --range -4:4,-3:5
check "--weights 3 256^2" "$D/xyw.f32" --weights 3 --bins 256 --range -4:4
# the context starts ahead of the passes, and -v says so: --backend cuda
# from the driver, for the first pass (the range pass, "minmax"; hist2d's
# own request for its counts then finds it started). Auto's start, which
# its plan decides, shows in the -v of the 1e9-point run without --range
# below (this small file stays on the CPU).
vcheck() {	# WHAT ENV-ASSIGNMENT ARGS...
	what=$1
	shift
	if env "$@" hist2d -v --bins 1024 "$D/clean.f32" -f npy -o /dev/null 2>&1 |
		grep -Eq "the GPU starts in the background now, for ($what)"; then
		ok=$((ok + 1))
	else
		bad=$((bad + 1))
		echo "FAIL: no background start for $what in -v of: $*"
	fi
}
vcheck "minmax|hist2d" GPUSTAT_X=1 "$G" --backend "$BE"
echo "hist2d-start checks: $ok ok, $bad failed"

# ---- 3. the timing table ------------------------------------------------------
now() { date +%s%N; }
best() {	# OUT ARGS...: the best of 2 runs' seconds; the output to OUT
	o=$1
	shift
	b=
	for _ in 1 2; do
		t0=$(now)
		"$G" hist2d -q "$@" -f npy > "$o" || { echo "ERR"; return; }
		t=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
		b=$(awk -v a="$b" -v t="$t" 'BEGIN { print (a == "" || t < a) ? t : a }')
	done
	echo "$b"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "-" }'; }

tn=$(python3 - "$D/big.f32" "$MP" <<'EOF'
import sys, time
import numpy as np
f, mp = sys.argv[1], int(sys.argv[2])
m = min(mp, 100)
t = time.perf_counter()
a = np.fromfile(f, np.float32, count=m * 2_000_000).reshape(-1, 2)
h, _, _ = np.histogram2d(a[:, 0], a[:, 1], bins=1024, range=[[-4, 4], [-4, 4]])
print("%.3f" % ((time.perf_counter() - t) * mp / m))
EOF
)
echo "numpy fromfile + histogram2d 1024^2: $tn s (on the first $((MP < 100 ? MP : 100)) M points, scaled to $MP M)"
printf '%-8s %7s %7s %7s %9s %9s %8s %8s\n' bins cpu_s cuda_s auto_s cpu/cuda cpu/auto np/cuda np/auto
for b in 1024 4096; do
	R="--bins $b --range -4:4 $D/big.f32"
	# shellcheck disable=SC2086
	tc=$(best "$D/c.npy" --backend cpu $R)
	# shellcheck disable=SC2086
	tg=$(best "$D/g.npy" --backend "$BE" $R)
	cmp -s "$D/c.npy" "$D/g.npy" || tg="$tg!"
	# shellcheck disable=SC2086
	ta=$(best "$D/a.npy" --backend auto $R)
	cmp -s "$D/c.npy" "$D/a.npy" || ta="$ta!"
	np=-
	[ "$b" = 1024 ] && np=$tn
	printf '%-8s %7s %7s %7s %9s %9s %8s %8s\n' "${b}^2" "$tc" "$tg" "$ta" \
		"$(ratio "$tc" "${tg%!}")" "$(ratio "$tc" "${ta%!}")" \
		"$(ratio "$np" "${tg%!}")" "$(ratio "$np" "${ta%!}")"
done
echo "(a time ending in ! printed other bytes than --backend cpu's; best of 2 runs)"

echo "== -v, 1024^2"
for be in $BE auto; do
	echo "-- --backend $be"
	"$G" hist2d -v --backend "$be" --bins 1024 --range -4:4 "$D/big.f32" -f npy -o /dev/null 2>&1 |
		grep -E "backend|stages|process|pass [0-9]" | cut -c1-600
done
echo "-- --backend auto without --range (two passes: the context starts during the first)"
t0=$(now)
"$G" hist2d -v --bins 1024 "$D/big.f32" -f npy -o "$D/a.npy" 2>&1 |
	grep -E "backend|process|pass [0-9]" | cut -c1-600
echo "   $(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }') s (with -v)"
echo "== cuda variants, 1024^2 (one run each)"
for v in "--streams 4" "--chunk-size 256M" "--streams 4 --chunk-size 256M"; do
	t0=$(now)
	# shellcheck disable=SC2086
	"$G" hist2d -q --backend "$BE" $v --bins 1024 --range -4:4 "$D/big.f32" -f npy -o /dev/null
	echo "cuda $v: $(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }') s"
done
