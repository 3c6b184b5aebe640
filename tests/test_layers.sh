#!/bin/sh
# test_layers.sh - the folders of src/ and cuda/ are layers: a file includes
# (#include "NAME") headers of its own folder or of a folder beneath it only,
# and no other folder's private header; and no file of them is over 800
# lines. Every folder is on the include path
# and headers are included by name, so this check is what keeps the layers:
# it fails naming FILE:LINE of each include that goes up.
#
# The layers, bottom first, and why each sits where it does (a new folder
# gets a row here; the check fails on a folder without one). src/ itself
# holds main.c only; cuda/'s subfolders are the cuda layer.
LAYERS='
numerics  element types (gs.h), exact arithmetic, number text: pure functions that need nothing else
sys       threads (pool), stop signals (sig) and memory paged in ahead (pagein): plumbing for the readers, the engine, cuda and the CLI
input     bytes to records (files, pipes, decompression, text); it computes nothing
cpu       the exact accumulators (acc.h) and the CPU kernels that fill them
ops       what a pass computes (operation, algorithm, state codec) and the backend interface both backends implement
cuda      the CUDA backend: kernels behind gpustat_cuda.h, merging into the accumulators of cpu
engine    streams input in chunks to a backend (the CPU one, cuda, auto, several GPUs) and picks one
cli       the command framework: options, output files and formats, state, reports
cmd       the commands, each a table row over the cli framework
main      src/main.c: starts the process
'
# Private headers: included from their own folder only (*_impl.h too).
PRIVATE='cpu_red.h'

NAME=layers
cd "$(dirname "$0")/.." || exit 2
T=$(mktemp -d "${TMPDIR:-/tmp}/gpustat-layers.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT

# check STRIP FILE...: one line per include that goes up, a private header
# used from outside, a name that is no file of src/ or cuda/, or a folder
# without a layer; then "checked N" (the files read).
check() {
	strip=$1
	shift
	find src cuda -type f \( -name '*.h' -o -name '*.cuh' -o -name '*.def' \
		-o -name '*.c' -o -name '*.cu' \) > "$T/names"
	LAYERS=$LAYERS PRIVATE=$PRIVATE awk -v strip="$strip" '
	function folder(p,   f) {
		sub("^" strip, "", p)
		f = p
		if (f !~ /\//) return "."
		sub(/\/[^\/]*$/, "", f)
		return f
	}
	function layer(f,   l) {
		l = f
		if (l == "src") l = "main"
		else if (l ~ /^src\//) { sub(/^src\//, "", l); sub(/\/.*/, "", l) }
		else if (l ~ /^cuda(\/|$)/) l = "cuda"
		return l
	}
	BEGIN {
		n = split(ENVIRON["LAYERS"], row, "\n")
		for (i = 1; i <= n; i++)
			if (split(row[i], w, " ") > 0) rank[w[1]] = ++nl
		split(ENVIRON["PRIVATE"], pv, " ")
		for (i in pv) priv[pv[i]] = 1
	}
	FNR == NR {			# the names file: where each file is
		b = $0; sub(/.*\//, "", b)
		if (b in where)
			printf "%s and %s: two files named %s (headers are included by name)\n", where[b], $0, b
		where[b] = folder($0)
		next
	}
	FNR == 1 {
		files++
		sf = folder(FILENAME); sl = layer(sf)
		if (!(sl in rank) && !(sl in told)) {
			told[sl] = 1
			printf "folder %s has no layer (add it to LAYERS in tests/test_layers.sh)\n", sf
		}
	}
	/^[ \t]*#[ \t]*include[ \t]*"/ {
		name = $0
		sub(/^[^"]*"/, "", name); sub(/".*/, "", name)
		b = name; sub(/.*\//, "", b)
		at = FILENAME; sub("^" strip, "", at); at = at ":" FNR
		if (!(b in where)) {
			printf "%s: includes \"%s\", no file of src/ or cuda/\n", at, name
			next
		}
		tf = where[b]; tl = layer(tf)
		if ((tl in rank) && (sl in rank) && rank[tl] > rank[sl])
			printf "%s: includes %s from %s, a layer above %s\n", at, name, tf, sl
		else if (tf != sf && ((b in priv) || b ~ /_impl\.h$/))
			printf "%s: includes %s, private to %s\n", at, name, tf
	}
	END { printf "checked %d\n", files }
	' "$T/names" "$@"
}

pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }

# The tree as it is: every include of src/ and cuda/.
find src cuda -type f \( -name '*.h' -o -name '*.cuh' -o -name '*.def' \
	-o -name '*.c' -o -name '*.cu' \) | sort > "$T/files"
# shellcheck disable=SC2046 # file names have no spaces
check "" $(cat "$T/files") > "$T/out"
n=$(sed -n 's/^checked //p' "$T/out")
if [ "${n:-0}" -lt 100 ]; then
	bad "tree" "read ${n:-no} files of src/ and cuda/"
else
	ok
fi
grep -v '^checked ' "$T/out" > "$T/found"
if [ -s "$T/found" ]; then
	while IFS= read -r line; do
		bad "layers" "$line"
	done < "$T/found"
else
	ok
fi

# No source file over 800 lines (a file that grows past it is split by
# what its parts do, as textin.c and textparse.c are).
# shellcheck disable=SC2046
long=$(wc -l $(cat "$T/files") | awk '$2 != "total" && $1 > 800 { print $2 " (" $1 " lines)" }')
if [ -n "$long" ]; then
	bad "size" "over 800 lines: $(echo $long)"
else
	ok
fi

# The check itself: an include that goes up, a private header from another
# folder, and a folder without a layer are each found, with FILE:LINE.
mkdir -p "$T/tree/src/numerics" "$T/tree/cuda" "$T/tree/src/newdir"
printf '#include "gs.h"\n#include "engine.h"\n' > "$T/tree/src/numerics/planted.c"
printf '#include "cpu_red.h"\n' > "$T/tree/cuda/planted.cu"
printf '#include "gs.h"\n' > "$T/tree/src/newdir/planted.c"
check "$T/tree/" "$T/tree/src/numerics/planted.c" "$T/tree/cuda/planted.cu" \
	"$T/tree/src/newdir/planted.c" > "$T/planted"
for want in 'src/numerics/planted.c:2: includes engine.h from src/engine, a layer above numerics' \
	    'cuda/planted.cu:1: includes cpu_red.h, private to src/cpu' \
	    'folder src/newdir has no layer'; do
	if grep -qF "$want" "$T/planted"; then
		ok
	else
		bad "planted" "no \"$want\" in: $(cat "$T/planted")"
	fi
done
if grep -q 'planted.c:1:' "$T/planted"; then
	bad "planted" "an include of a lower layer was reported: $(cat "$T/planted")"
else
	ok
fi

echo "$NAME: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
