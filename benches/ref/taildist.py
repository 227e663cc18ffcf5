#!/usr/bin/env python3
"""taildist.py OUT: summarizes taildist.sh's runs.

Per (op, size, side): each run's mean (over ranks of each rank's mean per
call: the OSU figure), and over the runs the medians of each rank's
quantiles, its calls over 5 and 20 us, the us per call those calls add
above the median (excess), and what the threads did (runnable-wait of the
busiest thread, involuntary switches, threads that ran besides it).
"""
import glob, json, os, re, statistics, sys
from collections import defaultdict

out = sys.argv[1]
runs = defaultdict(lambda: defaultdict(list))  # (op,size,side) -> rep -> [dist per rank]
for path in glob.glob(os.path.join(out, "*.jsonl")):
    m = re.match(r"(\w+)\.(\w+)\.(\d+)\.(\d+)\.jsonl$", os.path.basename(path))
    if not m:
        continue
    side, op, rep, rank = m.group(1), m.group(2), int(m.group(3)), int(m.group(4))
    for line in open(path):
        d = json.loads(line)
        runs[(op, d["size"], side)][rep].append(d)

def med(xs):
    return statistics.median(xs) if xs else float("nan")

print(f"{'op':<10} {'size':>4} {'side':<4} {'runs: mean per call (us)':<40} {'p50':>5} {'p90':>5} {'p99':>6} {'p99.9':>7} {'max':>7} {'>5us':>5} {'>20us':>5} {'excess':>6} {'wait_us':>7} {'ivcsw':>5} {'thr':>3} {'othr_run':>8}")
for key in sorted(runs, key=lambda k: (k[0], k[1], {"base": 0, "go": 1, "alt": 2, "c": 3}.get(k[2], 4))):
    op, size, side = key
    reps = runs[key]
    means, per = [], defaultdict(list)
    for rep in sorted(reps):
        ds = reps[rep]
        means.append(sum(d["mean_us"] for d in ds) / len(ds))
        for d in ds:
            for f in ("p50_us", "p90_us", "p99_us", "p999_us", "max_us", "over5", "over20", "excess_us"):
                per[f].append(d[f])
            th = sorted(d.get("threads", []), key=lambda t: -t["run_us"])
            if th:
                per["wait"].append(th[0]["wait_us"])
                per["ivcsw"].append(sum(t["ivcsw"] for t in th))
                per["nthr"].append(len(th))
                per["orun"].append(sum(t["run_us"] for t in th[1:]))
    ms = " ".join(f"{m:.2f}" for m in means)
    print(f"{op:<10} {size:>4} {side:<4} {ms:<40} {med(per['p50_us']):5.2f} {med(per['p90_us']):5.2f} {med(per['p99_us']):6.2f} "
          f"{med(per['p999_us']):7.1f} {med(per['max_us']):7.1f} {med(per['over5']):5.0f} {med(per['over20']):5.0f} {med(per['excess_us']):6.3f} "
          f"{med(per['wait']):7.0f} {med(per['ivcsw']):5.0f} {med(per['nthr']):3.0f} {med(per['orun']):8.0f}")
print("(quantiles, counts, excess and thread figures: medians over runs and ranks; mean-per-call median:",
      "see each row's runs)")
