"""Two builds of hfcore side by side: the same workloads timed by each build's hfcore_timer, alternating, so that a
refactor's "speed within 3%" is one table from one run (process CPU time, the machine's load cancels to first
order between neighbouring calls).

    python bench/compare_builds.py --before /path/to/old/build/release/bin/hfcore_timer \
        [--after build/release/bin/hfcore_timer] [--rounds 3] [--threads 1]

Workloads: eRJR with one signal patch, sbottom_regionA_1300_205_60 and the example workspace; tasks: fit,
asymptotic hypotest, upper limit, 1000 + 1000 toys, ranking and an 11-point POI profile. Prints the median process
CPU time per call of each build and the ratio after / before.
"""

import argparse
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from compare_pyhf import HfcoreTimer  # noqa: E402
from grad_cost import WORKLOADS  # noqa: E402

EXAMPLE = {"example workspace": dict(workspace=os.path.join(ROOT, "examples", "workspaces", "example.json"))}


def tasks(threads):
    return {
        "fit": dict(task="fit"),
        "hypotest": dict(task="hypotest", mu=1.0),
        "upper limit": dict(task="upper_limit"),
        "toys 1000 + 1000": dict(task="toys", ntoys=1000, seed=1, threads=threads, min_reps=1, max_reps=3),
        "ranking": dict(task="ranking", threads=threads, min_reps=1),
        "profile 11 pts": dict(task="profile", values=[0.2 * i for i in range(11)], threads=threads, min_reps=1),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="the other build's hfcore_timer")
    ap.add_argument("--after", default=os.path.join(ROOT, "build", "release", "bin", "hfcore_timer"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    timers = {"before": HfcoreTimer(args.before), "after": HfcoreTimer(args.after)}
    rows = []
    try:
        for name, load in {**WORKLOADS, **EXAMPLE}.items():
            for t in timers.values():
                t.request(cmd="load", id=name, **load)
            for label, req in tasks(args.threads).items():
                times = {who: [] for who in timers}
                for r in range(args.rounds):
                    # Alternate which build goes first, so that neither always follows the other.
                    order = list(timers) if r % 2 == 0 else list(reversed(list(timers)))
                    for who in order:
                        a = timers[who].request(cmd="time", id=name, min_time=0.3, **req)
                        times[who].append(a["median_cpu"])
                med = {who: statistics.median(v) for who, v in times.items()}
                rows.append((name, label, med["before"], med["after"], med["after"] / med["before"]))
                print(f"{name:30} {label:18} before {med['before'] * 1e3:9.3f} ms  after {med['after'] * 1e3:9.3f} ms"
                      f"  after/before {med['after'] / med['before']:.3f}", flush=True)
    finally:
        for t in timers.values():
            t.close()
    within = sum(1 for r in rows if r[4] <= 1.03)
    print(f"{within} of {len(rows)} within 3% (or faster)")


if __name__ == "__main__":
    main()
