# lib.sh - what the bench scripts share; source it from the repository root.

# secs CMD: the wall seconds of shell command CMD, best of 3 runs (awk,
# not bc: the device machine has no bc).
secs() {
	best=
	for _ in 1 2 3; do
		t0=$(date +%s%N)
		sh -c "$1" > /dev/null
		t=$(( $(date +%s%N) - t0 ))
		if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
	done
	awk -v n="$best" 'BEGIN { printf "%.4f\n", n / 1e9 }'
}
