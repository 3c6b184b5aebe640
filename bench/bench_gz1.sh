#!/bin/sh
# gzip of ONE member on the device machine (issue 29: >= 1.0x `pigz -dc`,
# >= 0.9x `gzip -dc`): gpustat sum over MIB (default 1024) MiB of f32
# normals and of an i16 random walk (bench_zstd.sh's data), each
# compressed by `gzip -6` into one member, read from a page-cached file,
# against `pigz -dc FILE | cat > /dev/null` and `gzip -dc FILE > /dev/null`
# of the same run. RUNS (default 3) rounds, each running every command
# once in turn; the table gives each command's median and the ratios
# (anchor median / gpustat median: > 1 means gpustat is faster). BASE=PATH
# adds the rows of another gpustat binary (an A/B in one run).
#
# Builds nothing: ./gpustat (G=PATH for another) must be built already.
# Tools: PIGZ, GZIP name the programs; else TOOLS/NAME (TOOLS default
# build/tools, where pigz is a wrapper that finds its own zlib), else the
# PATH's. TOOLS/lib goes on LD_LIBRARY_PATH where it exists.
#
#   sh bench/bench_gz1.sh [DIR] [MIB]   (default /dev/shm/gpustat-gz1, 1024)
cd "$(dirname "$0")/.." || exit 2
. bench/lib.sh

D=${1:-/dev/shm/gpustat-gz1}
MIB=${2:-1024}
RUNS=${RUNS:-3}
TOOLS=${TOOLS:-build/tools}
G=${G:-./gpustat}
if [ -d "$TOOLS/lib" ]; then
	LD_LIBRARY_PATH="$(cd "$TOOLS/lib" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	export LD_LIBRARY_PATH
fi
PIGZ=${PIGZ:-$(tool pigz)}
GZIP_=${GZIP:-$(tool gzip)}
unset GZIP	# gzip reads options from $GZIP
[ -x "$G" ] || { echo "no $G: build it first"; exit 1; }
[ -n "$GZIP_" ] || { echo "no gzip that runs"; exit 1; }
[ -z "${BASE:-}" ] || [ -x "$BASE" ] || { echo "no $BASE"; exit 1; }
echo "gpustat: $G ($("$G" --version | sed -n 2p))${BASE:+; base: $BASE}"
echo "tools: pigz=${PIGZ:-none} gzip=$GZIP_; $(nproc) cores; $RUNS runs, medians"
mkdir -p "$D" || exit 1
python3 - "$D" "$MIB" <<'PY' || exit 1
import sys, numpy as np
d, mib = sys.argv[1], int(sys.argv[2])
np.random.default_rng(1).standard_normal(mib << 18, dtype=np.float32).tofile(d + '/n.f32')
w = np.cumsum(np.random.default_rng(2).integers(-3, 4, mib << 19), dtype=np.int64)
w.astype(np.int16).tofile(d + '/w.i16')
PY
t0=$(date +%s)
for f in n.f32 w.i16; do
	"$GZIP_" -6 -c < "$D/$f" > "$D/$f.gz" &
done
wait
rm -f "$D/n.f32" "$D/w.i16"
echo "gzip -6 of both: $(($(date +%s) - t0)) s; bytes: n.f32.gz $(wc -c < "$D/n.f32.gz"), w.i16.gz $(wc -c < "$D/w.i16.gz")"

# once CMD: the wall seconds of one run of CMD (its output dropped), "-"
# where it failed
once() {
	_t0=$(date +%s%N)
	sh -c "$1" > /dev/null 2>&1 || { echo -; return; }
	awk -v n="$(( $(date +%s%N) - _t0 ))" 'BEGIN { printf "%.4f\n", n / 1e9 }'
}

TIMES=$D/times
: > "$TIMES"
for f in n.f32 w.i16; do
	z=$D/$f.gz
	ty=${f#*.}
	cat "$z" > /dev/null
	echo "-v of $f.gz:"
	"$G" sum -t "$ty" -v "$z" 2>&1 > /dev/null |
		grep -E 'backend|stages|: gzip: ' | cut -c 10-200 | sed 's/^/    /'
	for _ in $(seq "$RUNS"); do
		echo "$f	gpustat sum	$(once "$G sum -t $ty $z")" >> "$TIMES"
		[ -n "${BASE:-}" ] &&
			echo "$f	base gpustat sum	$(once "$BASE sum -t $ty $z")" >> "$TIMES"
		[ -n "$PIGZ" ] &&
			echo "$f	pigz -dc | cat	$(once "$PIGZ -dc $z | cat > /dev/null")" >> "$TIMES"
		echo "$f	gzip -dc	$(once "$GZIP_ -dc $z")" >> "$TIMES"
	done
done

echo
printf '%-26s %s\n' "one gzip -6 member, $MIB MiB" "median s (runs)   x pigz  x gzip (anchor median / median)"
awk -F '\t' '
	{ k = $1 "\t" $2; if (!(k in n)) order[++m] = k; v[k, ++n[k]] = $3 }
	function median(k,   a, i, j, c, t) {
		c = 0
		for (i = 1; i <= n[k]; i++) if (v[k, i] != "-") a[++c] = v[k, i]
		if (c < n[k]) return "-"
		for (i = 2; i <= c; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
	}
	END {
		for (i = 1; i <= m; i++) med[order[i]] = median(order[i])
		for (i = 1; i <= m; i++) {
			k = order[i]; split(k, p, "\t")
			runs = ""
			for (j = 1; j <= n[k]; j++) runs = runs (j > 1 ? " " : "") v[k, j]
			line = sprintf("%-6s %-19s %8s (%s)", p[1], p[2], med[k], runs)
			if (p[2] ~ /gpustat/ && med[k] != "-" && med[k] > 0)
				for (a = 1; a <= 2; a++) {
					ak = p[1] "\t" (a == 1 ? "pigz -dc | cat" : "gzip -dc")
					if ((ak in med) && med[ak] != "-")
						line = line sprintf("  %s %.3f", a == 1 ? "x pigz" : "x gzip", med[ak] / med[k])
				}
			print line
		}
	}' "$TIMES"
rm -rf "$D"
