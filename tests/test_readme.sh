#!/bin/sh
# test_readme.sh - the recipes of the README and of the pages in docs/ run
# as printed; the README's first paragraph names every command and says
# that text is read, and its quick start comes early; every relative link
# of the README and docs/ resolves; every file and function that
# docs/ARCHITECTURE.md names exists.
#
# A line `<!-- test -->` in README.md or docs/*.md marks the code block
# after it (blank
# lines between are allowed): a block indented by four spaces, or a fenced
# ```sh block. Every marked block runs, as one `sh -e` script, in a fresh
# copy of a directory of samples (below) with this build's gpustat first on
# PATH; it must exit 0. A marker must be followed by a block: one that is
# not is a failure, so a marker cannot silently stop testing anything.
#
# A block whose first line starts with "$ " is a transcript: each "$ "
# line is a command, the lines after it up to the next one its standard
# output, compared byte for byte (the README's tabs included).
#
# The marker may name conditions, separated by ";":
#   <!-- test: needs parallel -->  skipped with a note where GNU parallel
#                                  (or any other command named) is missing
#   <!-- test: then CMD -->        after the block, CMD runs in the same
#                                  directory, $OUT naming a file holding the
#                                  block's standard output; it must exit 0
#                                  (a check of what the block made; CMD
#                                  holds no ";": join with &&)
# GNU parallel runs with --will-cite (through $PARALLEL), and a stand-in for
# ssh runs -S host1,host2's jobs here (as tests/test_parallel.sh does).
#
# The samples, by the names the pages use: photo.pgm (fixtures/demo),
# photo.ppm, x.f32, samples.npy, audio.raw and counts.u8 (fixtures/in),
# big.f64.zst (f64 values in a one-block zstd frame), data.csv (5 numeric
# fields a line), points.csv (x,y,z a line) and points.f32 (the same as
# f32), jan.f64 and feb.f64 (1000 and 520.25; 1377.5), shards/1..4.f64 and
# shards/1..3.f32 (pieces of fixtures/in files), and fixtures/demo/ itself
# (examples run from the repository).
#
# Blocks left unmarked: the opening examples (they need the zstd command and
# `seq 1 100000000` takes longer than the whole suite should), `make demo`
# and `make check` (the suite itself), `gpustat bench` and the GPU
# algorithms (timings, a GPU).
#
# Usage: sh tests/test_readme.sh   (GPUSTAT=path overrides ./gpustat)
# Prints "FAIL name: reason" lines and last "readme: P passed, F failed".
cd "$(dirname "$0")/.." || exit 2
NAME=readme
. tests/lib.sh
README=$(pwd)/README.md
PAGES="README.md $(ls docs/*.md)"
IN=$(pwd)/fixtures/in

# gpustat as the recipes name it, on PATH
mkdir "$T/bin" && ln -s "$(cd "$(dirname "$G")" && pwd)/$(basename "$G")" \
	"$T/bin/gpustat" || exit 2
# ssh stand-in for parallel -S: skip ssh's options and the host, run the
# command here (a login through sshd has SHELL set; parallel's remote
# wrapper runs the job with $SHELL)
cat > "$T/bin/ssh" <<'EOF'
#!/bin/sh
SHELL=${SHELL:-/bin/sh}
export SHELL
while [ $# -gt 0 ]; do
	case $1 in
	-l|-p|-o|-i|-F) shift 2 ;;
	-*) shift ;;
	*) break ;;
	esac
done
shift
[ "$1" = -- ] && shift
exec sh -c "$*"
EOF
chmod +x "$T/bin/ssh"
PATH=$T/bin:$PATH
PARALLEL=--will-cite
export PATH PARALLEL

# --- the opening paragraph -------------------------------------------------------
# what a newcomer reads first names every command (src/cmd/commands.def)
# and says that text is read
awk 'NR > 1 && /^$/ && seen { exit } NR > 1 && !/^$/ { seen = 1; print }' \
	"$README" > "$T/opening"
for c in $(sed -n 's/^COMMAND(\([a-z]*\))$/\1/p' src/cmd/commands.def); do
	grep -q "\`$c\`" "$T/opening" && ok || bad "opening_$c" "the README's first paragraph does not name \`$c\`"
done
grep -qw text "$T/opening" && ok || bad opening_text "the README's first paragraph does not mention text input"

# ...and its quick start comes before a newcomer gives up: within the first
# 40 lines, and it names the CPU-only build
qs=$(grep -n '^## .*[Qq]uick start' "$README" | head -n 1 | cut -d: -f1)
[ -n "$qs" ] && [ "$qs" -le 40 ] && ok ||
	bad quick_start "the README's quick start heading is at line ${qs:-none}, not within 40"
sed -n "${qs:-1},\$p" "$README" | awk 'NR > 1 && /^## / { exit } { print }' |
	grep -q 'make CUDA=' && ok ||
	bad quick_start_cpu "the README's quick start does not name make CUDA="

# --- links and names ------------------------------------------------------------
# every relative link [text](path) of the pages resolves from the page's
# folder (anchors and web addresses are not followed)
for page in $PAGES; do
	dir=$(dirname "$page")
	grep -o '](\([^)#]*\)[^)]*)' "$page" | sed 's/^](//; s/[#)].*$//' |
	while IFS= read -r target; do
		case $target in ''|http://*|https://*|mailto:*) continue ;; esac
		[ -e "$dir/$target" ] && echo ok ||
			echo "bad link_$page $page links to '$target', which does not exist"
	done
done > "$T/links"
while read -r verdict what why; do
	[ "$verdict" = ok ] && ok || bad "$what" "$why"
done < "$T/links"
grep -q . "$T/links" && ok || bad links "no relative links found"

# docs/ARCHITECTURE.md describes the code as it is: each file it names in
# backquotes (a path with a / from the top, or a bare name at the top or
# found in src/, cuda/, tests/ or docs/) exists, and each function name() it gives is defined
# somewhere in src/ or cuda/
ARCH=docs/ARCHITECTURE.md
grep -o '`[^`]*`' "$ARCH" | tr -d '`' | sort -u > "$T/quoted"
grep -E '^[A-Za-z0-9_./*-]+\.(c|h|cu|cuh|def|md|sh|py|1)$' "$T/quoted" |
	grep -v '[*]\|NAME\|_OP\.\|OP_' > "$T/files"
while IFS= read -r f; do
	case $f in
	*/*) [ -e "$f" ] || [ -e "docs/$f" ] ;;
	*) [ -e "$f" ] || [ -n "$(find src cuda tests docs -name "$f" -print -quit)" ] ;;
	esac && ok || bad "arch_file_$f" "$ARCH names $f, which is not in the repository"
done < "$T/files"
grep -E '^[a-z_][a-z0-9_]*\(\)$' "$T/quoted" | sed 's/()$//' > "$T/funcs"
while IFS= read -r fn; do
	grep -rqE "^([a-z].*[ *])?$fn\(" src cuda && ok ||
		bad "arch_func_$fn" "$ARCH names $fn(), which src/ and cuda/ do not define"
done < "$T/funcs"
[ "$(wc -l < "$T/files")" -ge 20 ] && [ "$(wc -l < "$T/funcs")" -ge 20 ] && ok ||
	bad arch_names "$ARCH names too few files or functions to check"

# --- the samples --------------------------------------------------------------
S=$T/samples
mkdir -p "$S/shards" || exit 2
cp fixtures/demo/photo.pgm "$S/photo.pgm"
cp "$IN/img8.ppm" "$S/photo.ppm"
cp "$IN/f32_rand.bin" "$S/x.f32"
cp "$IN/f32_v1.npy" "$S/samples.npy"
cp "$IN/i16_rand.bin" "$S/audio.raw"
cp "$IN/u8_rand.bin" "$S/counts.u8"
mkdir "$S/fixtures" && cp -R fixtures/demo "$S/fixtures/demo" || exit 2
# a zstd frame of one raw block: magic, a single-segment header with a
# one-byte content size (128), the block header (last, raw, 128 bytes)
{ printf '\050\265\057\375\040\200\001\004\000'; head -c 128 "$IN/f64_mod.bin"; } \
	> "$S/big.f64.zst"
# its sum, from Python's exact fsum (the README's example must read f64)
python3 -c 'import math, struct, sys
print(repr(math.fsum(struct.unpack("<16d", open(sys.argv[1], "rb").read(128)))))' \
	"$IN/f64_mod.bin" > "$S/big.sum"
awk 'BEGIN { for (i = 1; i <= 200; i++)
	printf "%d,%d,%.2f,%d,%d\n", i, i % 7, (i * 37 % 1000) / 8, -i, i * i }' \
	> "$S/data.csv"
awk 'BEGIN { for (i = 1; i <= 100; i++)
	printf "%.3f,%.3f,%.3f\n", i / 3, -i / 7, i * i / 11 }' > "$S/points.csv"
python3 -c 'import struct, sys
v = [float(x) for l in open(sys.argv[1]) for x in l.split(",")]
open(sys.argv[2], "wb").write(struct.pack("<%df" % len(v), *v))' \
	"$S/points.csv" "$S/points.f32"
# little-endian doubles: 1000 and 520.25; 1377.5
printf '\000\000\000\000\000\100\217\100\000\000\000\000\000\102\200\100' \
	> "$S/jan.f64"
printf '\000\000\000\000\000\206\225\100' > "$S/feb.f64"
i=0
for skip in 0 97 260 600; do
	i=$((i + 1))
	dd if="$IN/f64_mod.bin" of="$S/shards/$i.f64" bs=8 skip=$skip \
		count=$((i * 114)) 2> /dev/null
done
i=0
for skip in 0 333 500; do
	i=$((i + 1))
	dd if="$IN/f32_rand.bin" of="$S/shards/$i.f32" bs=4 skip=$skip \
		count=$((i * 97)) 2> /dev/null
done

# --- the marked blocks ----------------------------------------------------------
# Each block into $T/blocks/N (its lines, unindented), its marker's
# conditions into $T/blocks/N.cond and its page and line into N.line; a
# marker with no block after it into $T/blocks/N.orphan. The README must
# keep some of its own.
mkdir "$T/blocks" || exit 2
for page in $PAGES; do
awk -v dir="$T/blocks" -v page="$page" \
    -v n="$(ls "$T/blocks" | grep -c '^[0-9]*$')" '
function close_block() { if (state == "indent" || state == "fence") close(f); state = "" }
/^<!-- test(:.*)? -->[ \t]*$/ {
	close_block()
	n++; f = dir "/" n
	cond = $0; sub(/^<!-- test:? */, "", cond); sub(/ *-->[ \t]*$/, "", cond)
	print cond > (f ".cond"); close(f ".cond")
	print page " line " NR > (f ".line"); close(f ".line")
	state = "wait"; next
}
state == "wait" && /^[ \t]*$/ { next }
state == "wait" && /^```(sh)?[ \t]*$/ { state = "fence"; next }
state == "wait" && /^    / { state = "indent" }
state == "wait" { print NR > (f ".orphan"); close(f ".orphan"); state = ""; next }
state == "fence" && /^```/ { close_block(); next }
state == "fence" { print > f; next }
state == "indent" && /^    / { for (; blanks > 0; blanks--) print "" > f
	print substr($0, 5) > f; next }
state == "indent" && /^[ \t]*$/ { blanks++; next }
state == "indent" { close_block(); blanks = 0 }
END { close_block() }' "$page"
[ "$page" = README.md ] && nreadme=$(ls "$T/blocks" | grep -c '^[0-9]*$')
done

nblocks=$(ls "$T/blocks" | grep -c '^[0-9]*$')
[ "$nblocks" -ge 8 ] && ok || bad blocks "$nblocks marked blocks found in README.md and docs/"
[ "$nreadme" -ge 2 ] && ok || bad blocks_readme "$nreadme marked blocks found in README.md"
for o in "$T"/blocks/*.orphan; do
	[ -e "$o" ] && bad "marker_$(basename "$o" .orphan)" \
		"$(cat "${o%.orphan}.line"): marker without a block after it"
done

# has CMD: CMD can be run (parallel: GNU parallel)
has() {
	case $1 in
	parallel) parallel --version 2> /dev/null | grep -q 'GNU parallel' ;;
	*) command -v "$1" > /dev/null 2>&1 ;;
	esac
}

# transcript BLOCK: run each "$ " command, compare its output; 0 if all match
transcript() {
	awk -v dir="$run" '
	/^\$ / { k++; print substr($0, 3) > (dir "/.cmd" k); printf "" > (dir "/.want" k); next }
	{ print > (dir "/.want" k) }' "$1"
	k=1
	while [ -e "$run/.cmd$k" ]; do
		(cd "$run" && sh -e .cmd$k) > "$run/.got$k" 2> "$run/.err"
		rc=$?
		if [ $rc -ne 0 ] || ! cmp -s "$run/.got$k" "$run/.want$k"; then
			why="\$ $(cat "$run/.cmd$k"): exit $rc, $(cat "$run/.err")
got:  $(cat "$run/.got$k")
want: $(cat "$run/.want$k")"
			return 1
		fi
		k=$((k + 1))
	done
}

for b in $(ls "$T/blocks" | grep '^[0-9]*$' | sort -n); do
	f=$T/blocks/$b
	name="block_$b ($(cat "$f.line"))"
	skip= then=
	# the conditions, one per ";"
	while IFS= read -r c; do
		c=$(echo "$c" | sed 's/^ *//; s/ *$//')
		case $c in
		'') ;;
		needs\ *) for cmd in ${c#needs }; do
				has "$cmd" || skip="$skip $cmd"
			  done ;;
		then\ *) then=${c#then } ;;
		*) bad "$name" "unknown condition '$c' in its marker"
		   skip="$skip (a bad marker)" ;;
		esac
	done <<EOF
$(tr ';' '\n' < "$f.cond")
EOF
	if [ -n "$skip" ]; then
		echo "readme: note: $name skipped (not installed:$skip)"
		continue
	fi
	run=$T/run$b
	cp -R "$S" "$run" || exit 2
	if head -n 1 "$f" | grep -q '^\$ '; then
		transcript "$f" && ok || bad "$name" "$why"
		continue
	fi
	(cd "$run" && sh -e "$f") > "$run/.out" 2> "$run/.err"
	rc=$?
	if [ $rc -ne 0 ]; then
		bad "$name" "exit $rc: $(tail -n 3 "$run/.err")"
	elif [ -n "$then" ] &&
	     ! (cd "$run" && OUT=$run/.out sh -c "$then") > "$run/.then" 2>&1; then
		bad "$name" "then '$then' failed: $(tail -n 3 "$run/.then")"
	else
		ok
	fi
done

summary
