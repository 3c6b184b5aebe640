#!/bin/sh
# The man page: mandoc -Tlint is clean (when mandoc is installed), groff
# renders it without warnings at 80 and 60 columns (when installed), the
# sections come in man-pages(7) order, every command of `gpustat --help' is
# described, and every option of every command's table (`gpustat --options')
# is defined (a .TP tag) under OPTIONS, in the common subsections or in the
# command's own.
cd "$(dirname "$0")/.." || exit 2
NAME=test_man
. tests/lib.sh
man=man/gpustat.1
tmp=$T

if command -v mandoc >/dev/null 2>&1; then
	if mandoc -Tlint -W warning "$man" > "$tmp/lint" 2>&1; then ok
	else bad "mandoc -Tlint:"; cat "$tmp/lint"; fi
else
	echo "test_man: note: skipped mandoc -Tlint (mandoc not installed)"
fi

# No troff warnings at 80 columns nor at 60 (MANWIDTH=60 man): a line that
# cannot break or be adjusted runs past a narrow terminal's edge.
if command -v groff >/dev/null 2>&1; then
	for width in 80 60; do
		groff -man -Tutf8 -ww -rLL=${width}n "$man" > /dev/null 2> "$tmp/warn"
		if [ ! -s "$tmp/warn" ]; then ok
		else bad "troff warnings at $width columns: $(head -n 3 "$tmp/warn")"; fi
	done
else
	echo "test_man: note: skipped the troff warnings (groff not installed)"
fi

# Sections, in order.
grep '^\.SH' "$man" | sed 's/^\.SH *//; s/"//g' > "$tmp/sections"
printf '%s\n' NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS 'INPUT FORMATS' \
	NUMERICS OUTPUT 'EXIT STATUS' ENVIRONMENT EXAMPLES 'SEE ALSO' > "$tmp/want"
if cmp -s "$tmp/sections" "$tmp/want"; then ok
else bad "sections: $(tr '\n' ',' < "$tmp/sections")"; fi

# "SUBSECTION<TAB>--option" for every option in a .TP tag under OPTIONS.
awk '/^\.SH/ { in_opts = ($2 == "OPTIONS") }
     in_opts && /^\.SS/ { sub(/^\.SS +/, ""); ss = $0 }
     in_opts && tag { print ss "\t" $0 }
     { tag = ($0 == ".TP") }' "$man" |
	sed 's/\\-/-/g; s/\\f[BIRP]//g; s/\\ / /g' |
	awk -F '\t' '{ n = split($2, w, /[ ,=]+/)
		for (i = 1; i <= n; i++) if (w[i] ~ /^--?[a-zA-Z]/) print $1 "\t" w[i] }' \
	> "$tmp/defined"

# defined SUBSECTION OPTION
defined() {
	grep -qxF "$(printf '%s\t%s' "$1" "$2")" "$tmp/defined"
}

# Commands: the names listed under "Commands:" in gpustat --help.
"$G" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1; next }
			on { exit }' > "$tmp/cmds"
[ -s "$tmp/cmds" ] && ok || bad "no commands in gpustat --help"
for cmd in $(cat "$tmp/cmds"); do
	if grep -A1 '^\.TP' "$man" | grep -qx "\.B $cmd"; then ok
	else bad "command $cmd not described under COMMANDS"; fi
done

for opt in -V --version -h --help; do
	defined Execution "$opt" && ok || bad "$opt not defined"
done

# Each command's options, from the tables the parser uses (gpustat
# --options: "COMMAND<TAB>--LONG<TAB>-S<TAB>...", "*" for those of every
# command; -f and the input options under each command that takes them):
# its own under "CMD options", the shared ones in the common subsections.
"$G" --options > "$tmp/tables" && [ -s "$tmp/tables" ] && ok ||
	bad "gpustat --options printed nothing"
for cmd in $(cat "$tmp/cmds"); do
	# (an option in the rows of 3 or more commands is a shared one)
	awk -F'\t' -v c="$cmd" 'NR == FNR { n[$2]++; next }
	     $1 == "*" || $1 == c {
		kind = ($1 == c && $2 != "--format" && n[$2] < 3) ? "own" : "common"
		print kind "\t" $2; if ($3 != "-") print kind "\t" $3 }' \
		"$tmp/tables" "$tmp/tables" | sort -u > "$tmp/opts"
	[ -s "$tmp/opts" ] && ok || bad "no options of $cmd in gpustat --options"
	while IFS='	' read -r kind opt; do
		if [ "$kind" = own ]; then
			defined "$cmd options" "$opt" && ok ||
				bad "$cmd $opt not under '$cmd options'"
		elif defined 'Input and type' "$opt" || defined Output "$opt" ||
		     defined Execution "$opt"; then
			ok
		else
			bad "$opt ($cmd) not defined under OPTIONS"
		fi
	done < "$tmp/opts"
done

for var in COLUMNS NO_COLOR; do
	awk '/^\.SH ENVIRONMENT/ { on = 1; next } /^\.SH/ { on = 0 } on' "$man" |
		grep -qx "\.B $var" && ok || bad "$var not under ENVIRONMENT"
done

summary
