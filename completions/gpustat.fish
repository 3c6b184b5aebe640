# fish completion for gpustat(1). Everything it offers comes from gpustat's
# own tables: the commands from `gpustat --commands', each command's options,
# their descriptions and the words their values can be from `gpustat
# --options' (one line an option: COMMAND, --LONG, -S, ARG, VALUES, BRIEF,
# tab-separated; "*" for the options of every command), read when fish
# loads this file. A new command or option needs no change here.

set -l cmds (gpustat --commands 2>/dev/null | string replace -r '\t.*' '')

# No command yet: the commands and the top-level options only.
set -l top "not __fish_seen_subcommand_from $cmds"
complete -c gpustat -n $top -f
for line in (gpustat --commands 2>/dev/null)
	set -l f (string split \t -- $line)
	complete -c gpustat -n $top -a $f[1] -d $f[2]
end
complete -c gpustat -n $top -s V -l version -d 'show the versions and exit'
complete -c gpustat -n $top -s h -l help -d 'list the commands and exit'

# Each command's options (operands are files, fish's default).
for line in (gpustat --options 2>/dev/null)
	set -l f (string split \t -- $line)
	set -l cond "__fish_seen_subcommand_from $cmds"
	test "$f[1]" != '*'; and set cond "__fish_seen_subcommand_from $f[1]"
	set -l spec -c gpustat -n $cond -l (string sub -s 3 -- $f[2]) -d $f[6]
	test "$f[3]" != -; and set -a spec -s (string sub -s 2 -- $f[3])
	if test "$f[4]" != - -a "$f[4]" != '[=N]'
		switch $f[5]
			case @file
				set -a spec -r -F
			case -
				set -a spec -x
			case '*'
				set -a spec -x -a $f[5]
		end
	end
	complete $spec
end
