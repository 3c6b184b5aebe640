#!/bin/sh
# sum --by with many distinct keys (issue 31 item 3, bounded memory): for
# each key count K, a file of K * REPS records, every key REPS times in a
# shuffled order, as (i64 key, f64 value) and (i32 key, f32 value); prints
# gpustat's time (wall and CPU), keys per second and peak RSS
# (/usr/bin/time -v; the mapped input file's pages count in it), then
# numpy's np.unique(return_inverse) + np.bincount where the machine's memory
# allows it (about 40 bytes per record), its time and peak RSS. The rows
# gpustat prints are checked to be K.
#
#   sh bench/bench_group_keys.sh [KEYS...]        (default 1000000 10000000)
# REPS=1 (records per key); TYPES="i64,f64 i32,f32"; GS=./gpustat (OLD=path
# of another build runs beside it); OP=sum (the command: stats, count, ...);
# FMT=text (-f: json, csv, npy; rows are checked for text only); ARGS= (more
# options, e.g. "--backend cpu"); JOBS= (gpustat -j; default its own);
# LIMIT= (GPUSTAT_GROUP_LIMIT, e.g. 1G to force spilling); TMPDIR: where the
# files (and gpustat's spilled runs) go; PY=python3.
#
# The lead's device run (16 cores, 1e8 keys, about 1.6 GB per file):
#   sh bench/bench_group_keys.sh 100000000
cd "$(dirname "$0")/.." || exit 2
KEYS=${*:-1000000 10000000}
REPS=${REPS:-1}
TYPES=${TYPES:-i64,f64 i32,f32}
PY=${PY:-python3}
TMP=${TMPDIR:-/tmp}
GS=${GS:-./gpustat}
[ -x "$GS" ] || make -s -j"$(nproc)" gpustat > /dev/null || exit 1
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (GNU time)"; exit 1; }
echo "== machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
printf '%-10s %-8s %-10s %9s %9s %12s %10s\n' keys types tool seconds "cpu s" keys/s "peak MiB"
np_t() {	# a gpustat type as numpy's
	case $1 in
	*64) echo "<${1%64}8" ;; *32) echo "<${1%32}4" ;;
	*16) echo "<${1%16}2" ;; *) echo "<${1%8}1" ;;
	esac
}

# "seconds peakMiB" of a command run under /usr/bin/time -v
measure() {
	/usr/bin/time -v "$@" > "$TMP/gk.out" 2> "$TMP/gk.time" || {
		tail -3 "$TMP/gk.time" >&2
		echo "fail fail fail"
		return
	}
	awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0;
			for (i = 1; i <= n; i++) s = s * 60 + t[i] }
		    /User time|System time/ { c += $2 }
		    /Maximum resident set size/ { m = $2 / 1024 }
		    END { printf "%.2f %.2f %.0f\n", s, c, m }' "$TMP/gk.time"
}

row() {	# keys types tool "seconds cpu-seconds peak"
	set -- "$1" "$2" "$3" $4
	if [ "$4" = fail ]; then
		printf '%-10s %-8s %-10s %9s\n' "$1" "$2" "$3" failed
		return
	fi
	printf '%-10s %-8s %-10s %9s %9s %12.0f %10s\n' "$1" "$2" "$3" "$4" \
		"$5" "$(echo "$1 $4" | awk "{ print (\$2 > 0 ? \$1 / \$2 : 0) }")" "$6"
}

for K in $KEYS; do
	for T in $TYPES; do
		F=$TMP/group_keys.$K.$(echo "$T" | tr , _)
		kt=$(np_t "${T%,*}") vt=$(np_t "${T#*,}")
		$PY - "$F" "$K" "$REPS" "$kt" "$vt" <<'PY' || exit 1
import sys
import numpy as np
f, nk, reps, kt, vt = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
rng = np.random.default_rng(11)
dt = np.dtype([("k", kt), ("v", vt)])
step = 10_000_000
with open(f, "wb") as out:
    for _ in range(reps):
        keys = rng.permutation(nk)
        for lo in range(0, nk, step):
            k = keys[lo:lo + step]
            a = np.empty(len(k), dt)
            # spread over the type's range; distinct as the permutation is
            a["k"] = (k * 13 - nk // 2) if kt == "<i4" else (k * 2654435761 - (1 << 40))
            a["v"] = rng.normal(size=len(k))
            out.write(a.tobytes())
PY
		cat "$F" > /dev/null
		for gs in "$GS" ${OLD:+"$OLD"}; do
			name=gpustat
			[ "$gs" = "$GS" ] || name=old
			r=$(measure env ${LIMIT:+GPUSTAT_GROUP_LIMIT=$LIMIT} "$gs" \
				${OP:-sum} --by 1 -t "$T" -f "${FMT:-text}" $ARGS \
				${JOBS:+-j "$JOBS"} "$F")
			row "$K" "$T" "$name" "$r"
			n=$(wc -l < "$TMP/gk.out")
			[ "${FMT:-text}" != text ] || [ "$r" = "fail fail fail" ] || [ "$n" -eq "$K" ] ||
				echo "   !! $name printed $n rows, not $K"
		done
		avail=$(awk '/MemAvailable/ { print $2 * 1024 }' /proc/meminfo)
		if [ "$(echo "$K $REPS $avail" | awk '{ print ($1 * $2 * 40 < $3 * 0.8) }')" = 1 ]; then
			r=$(measure $PY -c '
import sys
import numpy as np
kt, vt = sys.argv[2].split(",")
a = np.fromfile(sys.argv[1], np.dtype([("k", kt), ("v", vt)]))
u, inv = np.unique(a["k"], return_inverse=True)
s = np.bincount(inv, weights=a["v"])
print(len(u))' "$F" "$kt,$vt")
			row "$K" "$T" numpy "$r"
		else
			printf '%-10s %-8s %-10s %9s\n' "$K" "$T" numpy "no memory"
		fi
		rm -f "$F"
	done
done
rm -f "$TMP/gk.out" "$TMP/gk.time"
