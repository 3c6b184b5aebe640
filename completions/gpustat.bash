# bash completion for gpustat(1): the commands, each command's options, the
# values of the options that take a word (types, formats, backends, ops,
# byte orders), and file names for operands and -o. Self-contained: it needs
# no bash-completion helpers, so it also works when sourced alone.

_gpustat_common='-t --type --endian -c --columns --raw --long --memory
	-f --format -o --output
	--backend --device --chunk-size --streams -j --threads -v --verbose
	-q --quiet --progress --no-progress -h --help'
_gpustat_types='u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64
	uint8 int8 uint16 int16 uint32 int32 uint64 int64
	float16 bfloat16 float32 float64 half single double byte ubyte
	float int uint bool bool_ short ushort intc uintc long ulong longlong ulonglong intp uintp int_'

# The options of command $1 beyond the common ones.
_gpustat_cmd_opts()
{
	case $1 in
	hist)	echo --bins --range --nonzero --plot --log --edges ;;
	dot)	echo --pairs ;;
	scan)	echo --op --exclusive --out-type --force ;;
	reduce)	echo --op ;;
	esac
}

# Words for the value of option $2 of command $1; returns 1 when $2 takes
# no value, 2 when it takes a value that cannot be listed (a number, a
# range), 3 for a file name.
_gpustat_values()
{
	case $2 in
	-t|--type|--out-type)	echo "$_gpustat_types" ;;
	--endian)		echo little big ;;
	-f|--format)
		if [ "$1" = scan ]; then echo binary npy
		else echo text tsv csv json binary npy; fi ;;
	--backend)		echo auto cuda cpu ;;
	--op)
		if [ "$1" = scan ]; then echo sum min max prod
		else echo sum prod min max and or xor; fi ;;
	-o|--output|--edges)	return 3 ;;
	-c|--columns|--device|--chunk-size|--streams|-j|--threads|--bins|--range|--memory)
		return 2 ;;
	*)			return 1 ;;
	esac
}

_gpustat_files()
{
	local IFS=$'\n'

	compopt -o filenames 2>/dev/null
	COMPREPLY=($(compgen -f -- "$1"))
}

_gpustat()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev= cmd= words rc

	COMPREPLY=()
	[ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}
	# The command is always the first word: gpustat takes no option before it.
	if [ "$COMP_CWORD" -le 1 ]; then
		case $cur in
		-*) COMPREPLY=($(compgen -W '--help --version -h -V' -- "$cur")) ;;
		*) COMPREPLY=($(compgen -W 'hist sum stats count dot scan reduce' -- "$cur")) ;;
		esac
		return 0
	fi
	cmd=${COMP_WORDS[1]}
	case $cmd in
	hist|sum|stats|count|dot|scan|reduce) ;;
	*) return 0 ;;
	esac

	# --opt=value: bash splits it into '--opt' '=' 'value'.
	if [ "$cur" = = ]; then
		prev=${COMP_WORDS[COMP_CWORD-1]}
		cur=
	elif [ "$prev" = = ] && [ "$COMP_CWORD" -gt 1 ]; then
		prev=${COMP_WORDS[COMP_CWORD-2]}
	fi
	words=$(_gpustat_values "$cmd" "$prev")
	rc=$?
	case $rc in
	0) COMPREPLY=($(compgen -W "$words" -- "$cur")); return 0 ;;
	2) return 0 ;;
	3) _gpustat_files "$cur"; return 0 ;;
	esac
	case $cur in
	-*) COMPREPLY=($(compgen -W "$_gpustat_common $(_gpustat_cmd_opts "$cmd")" -- "$cur")) ;;
	*) _gpustat_files "$cur" ;;
	esac
	return 0
}

complete -F _gpustat gpustat
