#!/bin/sh
# Text group-by (issue 31 item 5): a CSV of N lines `key,value` (string
# keys k0..k999, values with 6 decimals), page-cached, and the wall time of
#   gpustat sum --text --by 1            (string keys, -j each of JOBS)
#   gpustat sum --text -c 2              (no keys: the same lines without
#                                         the k, parsed as numbers)
#   cat                                  (the read)
# and, where installed, datamash -s -g 1 sum 2 (once; build/tools/datamash
# first) and duckdb's read_csv + GROUP BY (python3 -c 'import duckdb'),
# best of $RUNS (default 3) each.
#   sh bench/bench_group_text.sh [DIR]    (default build/gtext; make first)
# N=lines (default 100000000: about 1.4 GB), KEYS (default 1000),
# JOBS="1 4 16".
cd "$(dirname "$0")/.." || exit 2
. bench/lib.sh
D=${1:-build/gtext}
N=${N:-100000000}
KEYS=${KEYS:-1000}
G=./gpustat
F=$D/kv.csv
mkdir -p "$D" || exit 1
if [ ! -s "$F" ]; then	# written in 16 parts at once, then joined
	for p in $(seq 0 15); do
		awk -v n=$(( (N + 15 - p) / 16 )) -v k="$KEYS" -v s=$((31 + p)) \
			'BEGIN { srand(s); for (i = 0; i < n; i++)
			printf "k%d,%.6f\n", int(rand() * k), rand() * 100 }' \
			> "$F.$p" &
	done
	wait
	for p in $(seq 0 15); do cat "$F.$p"; done > "$F" && rm -f "$F".[0-9]*
fi
[ -s "$D/n.csv" ] || sed 's/^k//' "$F" > "$D/n.csv"
cat "$F" "$D/n.csv" > /dev/null
mb=$(( $(stat -c %s "$F") / 1048576 ))
printf 'rows %s, keys %s, %s MiB\n' "$N" "$KEYS" "$mb"
printf '%-44s %8s %8s\n' what seconds MB/s
row() {
	s=$(secs "$2")
	awk -v w="$1" -v s="$s" -v mb="$mb" 'BEGIN {
		printf "%-44s %8.3f %8.0f\n", w, s, mb * 1.048576 / s }'
}
row cat "cat '$F'"
for j in ${JOBS:-1 4 16}; do
	row "gpustat sum --text --by 1 -j $j" "$G sum --text --by 1 -j $j '$F'"
	row "gpustat sum --text -c 2 -j $j (no key)" \
		"$G sum --text -c 2 -j $j '$D/n.csv'"
done
DM=
for c in "${TOOLS:-build/tools}/datamash" "$(command -v datamash)"; do
	[ -n "$c" ] && "$c" --version > /dev/null 2>&1 && { DM=$c; break; }
done
if [ -n "$DM" ]; then	# one run (minutes at 1e8 lines)
	r=$RUNS RUNS=1
	row "datamash -s -g 1 sum 2" "LC_ALL=C $DM -t , -s -g 1 sum 2 < '$F'"
	RUNS=$r
fi
if python3 -c 'import duckdb' 2> /dev/null; then
	row "duckdb read_csv + GROUP BY" "python3 -c \"import duckdb; duckdb.sql(\\\"select column0, sum(column1) from read_csv('$F', header=false) group by column0\\\").fetchall()\""
fi
# the results agree with the text parse of each key alone (a check, not
# a time): the first key's sum
k=$($G sum --text --by 1 "$F" | head -n 1)
printf 'first row: %s\n' "$k"
