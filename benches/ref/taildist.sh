#!/bin/sh
# taildist.sh: per-call time distributions of gompi's benches osu against
# Open MPI's osu_coll.c, alternated run by run (--dist on both; see
# benches/osu/dist.go), summarized by taildist.py.
#
#   benches/ref/taildist.sh DIR OUT REPS "OPS" [N] [SIZES] [ARGS...]
#
# DIR holds golaunch, benches (go build -o DIR ./launcher/golaunch ./benches)
# and osu_coll (mpicc -O2 -o DIR/osu_coll benches/ref/osu_coll.c); OUT gets
# OUT/{go,c}.OP.REP.RANK.jsonl. Extra ARGS go to both programs (--iters ...).
# Set GO_ENV to prefix the gompi side with environment settings
# (GO_ENV="GODEBUG=gctrace=1"), BASE_DIR to add a third side, base, run from
# BASE_DIR's golaunch and benches (built with --dist: from a commit that has it);
# ALT_ENV to add a side alt: the go side's binaries with those settings
# (ALT_ENV="GOMPI_PROGRESS=0"), ALT_LAUNCH: golaunch arguments for it (--bind-to core),
# ALT_ARGS: more benches osu arguments for it (--settle 30ms).
set -e
dir=$1 out=$2 reps=$3 ops=$4 n=${5:-2} sizes=${6:-8,64}
shift 6 2>/dev/null || shift $#
mkdir -p "$out"
mpirun="mpirun --allow-run-as-root --oversubscribe"
for op in $(echo "$ops" | tr , ' '); do
	r=0
	while [ "$r" -lt "$reps" ]; do
		if [ $((r % 2)) -eq 0 ]; then sides="go c"; else sides="c go"; fi
		[ -n "$BASE_DIR" ] && sides="$sides base"
		[ -n "$ALT_ENV$ALT_LAUNCH$ALT_ARGS" ] && sides="$sides alt"
		for side in $sides; do
			case $side in
			go) env $GO_ENV "$dir/golaunch" -n "$n" "$dir/benches" osu --op "$op" --sizes "$sizes" --format json --dist "$out/go.$op.$r" "$@" >/dev/null ;;
			base) env $GO_ENV "$BASE_DIR/golaunch" -n "$n" "$BASE_DIR/benches" osu --op "$op" --sizes "$sizes" --format json --dist "$out/base.$op.$r" "$@" >/dev/null ;;
			alt) env $ALT_ENV "$dir/golaunch" -n "$n" $ALT_LAUNCH "$dir/benches" osu --op "$op" --sizes "$sizes" --format json --dist "$out/alt.$op.$r" $ALT_ARGS "$@" >/dev/null ;;
			c) $mpirun -n "$n" "$dir/osu_coll" --op "$op" --sizes "$sizes" --format json --dist "$out/c.$op.$r" "$@" >/dev/null ;;
			esac
		done
		r=$((r + 1))
	done
done
