# fish completion for gpustat(1): the commands, each command's options with
# their descriptions, the values of the options that take a word (types,
# formats, backends, ops, byte orders), and files for operands and -o.

set -l cmds hist sum stats count dot scan reduce
set -l types u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64 \
	uint8 int8 uint16 int16 uint32 int32 uint64 int64 \
	float16 bfloat16 float32 float64 half single double byte ubyte \
	float int uint bool bool_ short ushort intc uintc long ulong longlong ulonglong intp uintp int_

# No command yet: the commands and the top-level options only.
set -l top "not __fish_seen_subcommand_from $cmds"
complete -c gpustat -n $top -f
complete -c gpustat -n $top -a hist -d 'counts per value, or numpy.histogram bins'
complete -c gpustat -n $top -a sum -d 'the exact sum of all elements'
complete -c gpustat -n $top -a stats -d 'count, nan, min, max, sum, mean, variances, stdevs'
complete -c gpustat -n $top -a count -d 'elements and NaNs per column'
complete -c gpustat -n $top -a dot -d 'the exact dot product of two streams (or --pairs)'
complete -c gpustat -n $top -a scan -d 'prefix sums (min, max, prod), written as binary'
complete -c gpustat -n $top -a reduce -d 'sum, prod, min, max, and, or, xor of all elements'
complete -c gpustat -n $top -s V -l version -d 'show the versions and exit'

# Options of every command; operands are files (fish's default).
set -l any "__fish_seen_subcommand_from $cmds"
complete -c gpustat -n $any -s t -l type -x -a "$types" -d 'element type'
complete -c gpustat -n $any -l endian -x -a 'little big' -d 'byte order'
complete -c gpustat -n $any -s c -l columns -x -d 'records of N interleaved values'
complete -c gpustat -n $any -l raw -d 'no detection of zstd, .npy or PGM/PPM input'
complete -c gpustat -n $any -l long -d 'allow zstd windows up to 2^N bytes'
complete -c gpustat -n $any -l memory -x -d 'allow zstd windows up to SIZE'
complete -c gpustat -n "$any; and not __fish_seen_subcommand_from scan" \
	-s f -l format -x -a 'text tsv csv json binary npy' -d 'output format'
complete -c gpustat -n '__fish_seen_subcommand_from scan' \
	-s f -l format -x -a 'binary npy' -d 'output format'
complete -c gpustat -n $any -s o -l output -r -F -d 'write to FILE instead of stdout'
complete -c gpustat -n $any -l backend -x -a 'auto cuda cpu' -d 'where to run'
complete -c gpustat -n $any -l device -x -d 'the GPU to use'
complete -c gpustat -n $any -l chunk-size -x -d 'bytes per chunk, with K/M/G'
complete -c gpustat -n $any -l streams -x -d 'CUDA streams'
complete -c gpustat -n $any -s j -l threads -x -d 'CPU threads'
complete -c gpustat -n $any -s v -l verbose -d 'say which backend runs and why'
complete -c gpustat -n $any -s q -l quiet -d 'no notes or progress; errors only'
complete -c gpustat -n $any -l progress -d 'show progress on stderr'
complete -c gpustat -n $any -l no-progress -d 'hide progress'
complete -c gpustat -s h -l help -d 'show the options and exit'

# Per-command options.
set -l hist '__fish_seen_subcommand_from hist'
complete -c gpustat -n $hist -l bins -x -d 'N equal bins'
complete -c gpustat -n $hist -l range -x -d 'the range of the bins, LO:HI'
complete -c gpustat -n $hist -l nonzero -d 'leave out empty bins'
complete -c gpustat -n $hist -l plot -d 'draw the histogram as a bar chart'
complete -c gpustat -n $hist -l log -d 'logarithmic bar lengths with --plot'
complete -c gpustat -n $hist -l edges -r -F -d 'also write the bin edges to FILE'

complete -c gpustat -n '__fish_seen_subcommand_from dot' -l pairs \
	-d 'multiply the columns of one stream pairwise'

set -l scan '__fish_seen_subcommand_from scan'
complete -c gpustat -n $scan -l op -x -a 'sum min max prod' -d 'the operation'
complete -c gpustat -n $scan -l exclusive -d 'exclusive scan'
complete -c gpustat -n $scan -l out-type -x -a "$types" -d 'output type'
complete -c gpustat -n $scan -l force -d 'write binary to a terminal anyway'

complete -c gpustat -n '__fish_seen_subcommand_from reduce' -l op -x \
	-a 'sum prod min max and or xor' -d 'the operation'
