#!/bin/bash
# overlap.sh: nonblocking collectives' overlap, gompi against Open MPI, side
# by side: `benches osu --op overlap --coll C` (benches/osu/overlap.go) and
# its reference benches/ref/osu_nbc.c (the same method and formula), run
# alternately, REPS rounds; each round runs, per configuration, gompi with
# GOMPI_NBC=thread (every nonblocking collective on a goroutine, as before
# the shared-memory step), gompi as built, and Open MPI. Prints the median
# over rounds of t_pure and overlap per side.
#
#   benches/ref/overlap.sh [-r REPS] [-s SIZES] [-l LOCK] N:COLL ...
#   e.g. benches/ref/overlap.sh -r 3 2:iallreduce 2:ibarrier 4:iallreduce
#
# With -l, each round holds the lock file (flock) while it runs. Builds
# golaunch, benches and osu_nbc into $DIR (default /tmp/overlap-sh).
set -e
REPS=3 SIZES=8,1024,65536,1048576 LOCK= DIR=${DIR:-/tmp/overlap-sh}
while getopts r:s:l: o; do
  case $o in r) REPS=$OPTARG ;; s) SIZES=$OPTARG ;; l) LOCK=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: $0 [-r REPS] [-s SIZES] [-l LOCK] N:COLL ..." >&2; exit 2; }
cd "$(dirname "$0")/../.."
mkdir -p "$DIR"
go build -o "$DIR/" ./launcher/golaunch ./benches
mpicc -O2 -o "$DIR/osu_nbc" benches/ref/osu_nbc.c
ARGS="--sizes $SIZES --iters 100 --skip 10 --iters-large 20 --skip-large 2 --format json"
OUT="$DIR/runs.txt"
: > "$OUT"
round() {
  for cfg in "$@"; do
    n=${cfg%:*} c=${cfg#*:}
    GOMPI_NBC=thread "$DIR/golaunch" -n "$n" "$DIR/benches" osu --op overlap --coll "$c" $ARGS | sed 's/^/thread /' >> "$OUT"
    "$DIR/golaunch" -n "$n" "$DIR/benches" osu --op overlap --coll "$c" $ARGS | sed 's/^/gompi /' >> "$OUT"
    mpirun --oversubscribe --allow-run-as-root -n "$n" "$DIR/osu_nbc" --coll "$c" $ARGS | sed 's/^/ompi /' >> "$OUT"
  done
}
for r in $(seq "$REPS"); do
  echo "# round $r, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  if [ -n "$LOCK" ]; then
    export -f round; export DIR ARGS OUT
    flock "$LOCK" bash -c "round $*"
  else
    round "$@"
  fi
done
python3 - "$OUT" <<'EOF'
import json, sys, statistics as st
rows = {}
for line in open(sys.argv[1]):
    if '{' not in line:
        continue
    side = line.split()[0]
    d = json.loads(line[line.index('{'):])
    rows.setdefault((d['op'], d['n'], d['size']), {}).setdefault(side, []).append(d)
sides = ['thread', 'gompi', 'ompi']
print('| op | n | size | ' + ' | '.join(s + ' t_pure µs | ' + s + ' overlap %' for s in sides) + ' |')
print('|' + ' --- |' * (3 + 2 * len(sides)))
for (op, n, size), by in sorted(rows.items()):
    cells = []
    for s in sides:
        ds = by.get(s, [])
        if not ds:
            cells += ['', '']
            continue
        runs = ', '.join('%.0f' % d['overlap_pct'] for d in ds)
        cells += ['%.2f' % st.median(d['pure_us'] for d in ds),
                  '%.1f (%s)' % (st.median(d['overlap_pct'] for d in ds), runs)]
    print('| %s | %d | %d | ' % (op, n, size) + ' | '.join(cells) + ' |')
EOF
