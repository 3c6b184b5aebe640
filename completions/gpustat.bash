# bash completion for gpustat(1). Everything it offers comes from gpustat's
# own tables, asked of the gpustat being completed: the commands from
# `gpustat --commands', each command's options and the words their values
# can be from `gpustat --options' (one line an option: COMMAND, --LONG, -S,
# ARG, VALUES, BRIEF, tab-separated; "*" for the options of every command).
# A new command or option needs no change here. Self-contained: it needs no
# bash-completion helpers, so it also works when sourced alone.

_gpustat_files()
{
	local IFS=$'\n'

	compopt -o filenames 2>/dev/null
	COMPREPLY=($(compgen -f -- "$1"))
}

# The rows of command $2 (and the common ones) from gpustat $1.
_gpustat_rows()
{
	"$1" --options 2>/dev/null | awk -F '\t' -v c="$2" '$1 == "*" || $1 == c'
}

# Complete the value of option $3 of the rows $2 (cur $1): 0 when done, 1
# when $3 takes no value here.
_gpustat_value()
{
	local cur=$1 rows=$2 opt=$3 cmd long short arg values brief

	while IFS=$'\t' read -r cmd long short arg values brief; do
		[ "$opt" = "$long" ] || { [ "$short" != - ] && [ "$opt" = "$short" ]; } ||
			continue
		case $arg in
		-|\[*) return 1 ;;	# a flag; --long[=N] takes its value after '='
		esac
		case $values in
		@file)	_gpustat_files "$cur" ;;
		-)	;;		# a number, a range, a size: nothing to offer
		*)	COMPREPLY=($(compgen -W "$values" -- "$cur")) ;;
		esac
		return 0
	done <<< "$rows"
	return 1
}

_gpustat()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev= prog=${COMP_WORDS[0]} rows

	COMPREPLY=()
	[ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}
	# The command is always the first word: gpustat takes no option before it.
	if [ "$COMP_CWORD" -le 1 ]; then
		case $cur in
		-*) COMPREPLY=($(compgen -W '--help --version -h -V' -- "$cur")) ;;
		*) COMPREPLY=($(compgen -W "$("$prog" --commands 2>/dev/null |
						  cut -f1)" -- "$cur")) ;;
		esac
		return 0
	fi
	rows=$(_gpustat_rows "$prog" "${COMP_WORDS[1]}")
	awk -F '\t' -v c="${COMP_WORDS[1]}" '$1 == c { f = 1 } END { exit !f }' \
		<<< "$rows" || return 0		# not a command

	# --opt=value: bash splits it into '--opt' '=' 'value'.
	if [ "$cur" = = ]; then
		prev=${COMP_WORDS[COMP_CWORD-1]}
		cur=
	elif [ "$prev" = = ] && [ "$COMP_CWORD" -gt 1 ]; then
		prev=${COMP_WORDS[COMP_CWORD-2]}
	fi
	_gpustat_value "$cur" "$rows" "$prev" && return 0
	case $cur in
	-*) COMPREPLY=($(compgen -W "$(cut -f2,3 <<< "$rows" | tr '\t' '\n' |
				       grep -vx -- -)" -- "$cur")) ;;
	*) _gpustat_files "$cur" ;;
	esac
	return 0
}

complete -F _gpustat gpustat
