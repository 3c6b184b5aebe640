#!/bin/sh
# The shell completions, asked for real completions in a fresh shell each:
# bash by filling COMP_WORDS/COMP_CWORD and calling the function, zsh by
# typing TAB into an interactive `zsh -f' on a pty (zsh/zpty) with compinit,
# fish with `complete -C'. Every shell gets the same command lines; the
# expected words come from `gpustat --help' and the option tables the parser
# uses (`gpustat --options'), so an option or value that the completions miss
# or invent fails here. A shell that is not installed is skipped.
cd "$(dirname "$0")/.." || exit 2
NAME=test_completions
. tests/lib.sh
tmp=$T

# The completions ask the gpustat being completed for its tables: the one
# under test, as `gpustat' on PATH.
mkdir "$tmp/bin" && ln -s "$(cd "$(dirname "$G")" && pwd)/$(basename "$G")" \
	"$tmp/bin/gpustat" || exit 2
PATH=$tmp/bin:$PATH
export PATH

cmds=$("$G" --help | awk '/^Commands:/ { on = 1; next }
	on && /^  [a-z]/ { print $1; next } on { exit }' | tr '\n' ' ')
types='u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64'

# The command lines to complete, one per line (a trailing space means a new,
# empty word), and what their completions must hold: "has" lists words that
# must all be offered, "lacks" words that must not be, "only" the exact set.
: > "$tmp/lines"
: > "$tmp/checks"
n=0
case_() {
	n=$((n + 1))
	printf '%s\n' "$1" >> "$tmp/lines"
	printf '%s\t%s\t%s\n' "$n" "$2" "$3" >> "$tmp/checks"
}
case_ 'gpustat h' only 'hist hist2d'
case_ 'gpustat ' only "$cmds"
case_ 'gpustat sum --type ' has "$types uint8 float32"
case_ 'gpustat sum -t ' has "$types"
case_ 'gpustat sum --type=' has "$types"
case_ 'gpustat sum --form' only '--format'
case_ 'gpustat sum --format ' only 'text tsv csv json binary npy state'
case_ 'gpustat scan -f ' only 'binary npy state'
case_ 'gpustat stats --endian ' only 'little big'
case_ 'gpustat stats --backend=' only 'auto cuda cpu'
case_ 'gpustat scan --op ' only 'sum min max prod'
case_ 'gpustat reduce --op ' only 'sum prod min max and or xor'
case_ 'gpustat scan --out-type ' has "$types"
case_ 'gpustat hist --p' only '--per-file --plot --progress'
case_ 'gpustat hist --w' only '--weights'
case_ 'gpustat hist --den' only '--density'
case_ 'gpustat sum --p' only '--per-file --progress'
case_ 'gpustat sum -o man/gpustat.' has 'gpustat.1'
case_ 'gpustat stats man/gpustat.' has 'gpustat.1'
case_ 'gpustat dot man/gpustat.1 man/gpustat.' has 'gpustat.1'
# Every command's option table (gpustat --options: "COMMAND<TAB>--LONG<TAB>
# -S<TAB>ARG<TAB>VALUES<TAB>HELP", "*" for the common options): `gpustat CMD
# --` offers exactly its options, and an option whose values can be listed
# offers exactly those (types and file names: at least these).
"$G" --options > "$tmp/options" && [ -s "$tmp/options" ] ||
	bad "gpustat --options printed nothing"
for cmd in $cmds; do
	want=$(awk -F'\t' -v c="$cmd" '$1 == "*" || $1 == c { print $2 }' \
		"$tmp/options" | sort -u | tr '\n' ' ')
	[ -n "$want" ] || bad "no options of $cmd in gpustat --options"
	case_ "gpustat $cmd --" only "$want"
	awk -F'\t' -v c="$cmd" '($1 == "*" || $1 == c) && $5 != "-" {
		print $2 "\t" $5 }' "$tmp/options" > "$tmp/values"
	while IFS='	' read -r opt values; do
		case $values in
		@type)	case_ "gpustat $cmd $opt " has "$types" ;;
		@file)	case_ "gpustat $cmd $opt man/gpustat." has 'gpustat.1' ;;
		*)	case_ "gpustat $cmd $opt " only "$values" ;;
		esac
	done < "$tmp/values"
done

# check SHELL RESULTS: RESULTS has "N<TAB>word" lines for line N. File names
# may come back with or without their directory, and option values with or
# without their "--opt=": compare the last part.
check() {
	while IFS='	' read -r i how words; do
		sed -n "s|^$i	||p" "$2" | sed 's|.*/||; s|=$||; s|^--[a-z-]*=||' | sort -u > "$tmp/got"
		line=$(sed -n "${i}p" "$tmp/lines")
		printf '%s\n' $words | sort -u > "$tmp/want"
		case $how in
		has)	missing=$(comm -23 "$tmp/want" "$tmp/got") ;;
		lacks)	missing=$(comm -12 "$tmp/want" "$tmp/got") ;;
		only)	missing=$(cat "$tmp/want" "$tmp/got" | sort | uniq -u) ;;
		esac
		if [ -z "$missing" ]; then ok
		else bad "$1: '$line': $how: wrong: $(echo $missing); got: $(echo $(cat "$tmp/got"))"
		fi
	done < "$tmp/checks"
}

skip() { echo "test_completions: note: skipped $1 (not installed)"; }

# bash: split each line as readline does ("--opt=v" is "--opt" "=" "v").
run_bash() {
	bash --norc --noprofile -c '
		. completions/gpustat.bash || exit 1
		i=0
		while IFS= read -r line; do
			i=$((i + 1))
			read -ra COMP_WORDS <<< "$line"
			[[ $line == *" " ]] && COMP_WORDS+=("")
			last=${COMP_WORDS[${#COMP_WORDS[@]} - 1]}
			if [[ $last == --*=* ]]; then
				unset "COMP_WORDS[${#COMP_WORDS[@]} - 1]"
				COMP_WORDS+=("${last%%=*}" = "${last#*=}")
				[[ -z ${last#*=} ]] && unset "COMP_WORDS[${#COMP_WORDS[@]} - 1]"
			fi
			COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
			COMPREPLY=()
			_gpustat gpustat "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
			for w in "${COMPREPLY[@]}"; do printf "%s\t%s\n" "$i" "$w"; done
		done' < "$tmp/lines" > "$tmp/bash.out"
}

# zsh: type each line and TAB into an interactive zsh; compadd is wrapped
# to append the words it would offer to a file, and the TAB widget marks the
# end of each completion there.
run_zsh() {
	cat > "$tmp/drive.zsh" <<'EOF'
zmodload zsh/zpty || exit 1
hits=$1/hits
zpty z 'TERM=dumb zsh -f -i'
zpty -w z "PS1='%% '; fpath=($PWD/completions \$fpath)
autoload -Uz compinit; compinit -u -D
compadd() {
	local -a h
	if [[ \${@[1,(i)(-|--)]} == *-[OAD]\\ * ]]; then
		builtin compadd \"\$@\"; return
	fi
	builtin compadd -O h \"\$@\"
	print -rl -- \$h >> $hits
	builtin compadd \"\$@\"
}
tcomp() { _main_complete; print -r -- '##done' >> $hits }
zle -C tcomp complete-word tcomp; bindkey '^I' tcomp"
i=0
while IFS= read -r line; do
	(( i++ ))
	: > $hits
	zpty -w -n z "$line"$'\t'
	for t in {1..100}; do grep -q '^##done' $hits && break; sleep 0.05; done
	grep -v '^##done' $hits | while IFS= read -r w; do
		[[ -n $w ]] && print -r -- "$i	$w"
	done
	zpty -w -n z $'\C-e\C-u'
	while zpty -rt z junk; do :; done
done < $1/lines
zpty -d z
EOF
	zsh -f "$tmp/drive.zsh" "$tmp" > "$tmp/zsh.out"
}

run_fish() {
	fish --no-config -c 'source completions/gpustat.fish; or exit 1
		set i 0
		while read -l line
			set i (math $i + 1)
			for w in (complete -C"$line" | string replace -r "\t.*" "")
				printf "%s\t%s\n" $i $w
			end
		end' < "$tmp/lines" > "$tmp/fish.out"
}

for sh in bash zsh fish; do
	if ! command -v $sh >/dev/null 2>&1; then
		skip $sh
	elif run_$sh; then
		check $sh "$tmp/$sh.out"
	else
		bad "$sh: could not load its completion script"
	fi
done

summary
