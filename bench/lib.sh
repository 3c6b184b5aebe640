# lib.sh - what the bench scripts share; source it from the repository root.

# secs CMD: the wall seconds of shell command CMD, best of 3 runs.
secs() {
	best=
	for _ in 1 2 3; do
		t0=$(date +%s.%N)
		sh -c "$1" > /dev/null
		t1=$(date +%s.%N)
		t=$(echo "$t1 - $t0" | bc -l)
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
	done
	echo "$best"
}
