#!/usr/bin/env python3
"""What the fused route of the input gradient (FusedLikelihood::input_gradient) saves against the Tier 1 route.

    python3 bench/grad_route_cost.py [--timer build/release/bin/hfcore_timer] [--before OTHER_TIMER] [--rounds 7]

On eRJR with one signal patch and an ATLAS sbottom model, alternating in one run, process CPU time per call
(medians): d twice_nll / d inputs at the suggested init on the cpu backend by the route the model offers
("input_grad": fused on cpu) and by the Tier 1 route (the same spec compiled without the fused likelihood); the
hypotest and its gradients (hypotest_grad) with this timer and, with --before, with another build's timer (e.g.
one built from the commit before the fused route), alternating with this one.
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timer", default=os.path.join(ROOT, "build", "release", "bin", "hfcore_timer"))
    ap.add_argument("--before", help="another build's hfcore_timer, timed alternately on hypotest_grad")
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    timers = {"after": HfcoreTimer(args.timer)}
    if args.before:
        timers["before"] = HfcoreTimer(args.before)
    # (timer, task) pairs, alternated round by round
    tasks = [("after", "input_grad"), ("after", "input_grad_tier1"), ("after", "hypotest"), ("after", "hypotest_grad")]
    if args.before:
        tasks += [("before", "hypotest"), ("before", "hypotest_grad")]
    try:
        for name, load in WORKLOADS.items():
            for t in timers.values():
                t.request(cmd="load", id=name, **load)
            times = {k: [] for k in tasks}
            routes = {}
            for _ in range(args.rounds):
                for who, task in tasks:
                    a = timers[who].request(cmd="time", id=name, task=task, mu=1.0, min_time=0.3)
                    times[(who, task)].append(a["median_cpu"])
                    if "route" in a["result"]:
                        routes[task] = a["result"]["route"]
            med = {k: statistics.median(v) for k, v in times.items()}
            print(f"{name}")
            print(f"  input_grad  {routes.get('input_grad')}: {med[('after', 'input_grad')] * 1e3:.3f} ms, "
                  f"{routes.get('input_grad_tier1')}: {med[('after', 'input_grad_tier1')] * 1e3:.3f} ms, ratio "
                  f"fused / tier-1 {med[('after', 'input_grad')] / med[('after', 'input_grad_tier1')]:.2f}")
            for who in timers:
                h, g = med[(who, "hypotest")], med[(who, "hypotest_grad")]
                print(f"  {who:6} hypotest {h * 1e3:.2f} ms, + gradients {g * 1e3:.2f} ms, ratio {g / h:.2f}")
            if args.before:
                print(f"  hypotest_grad after / before: "
                      f"{med[('after', 'hypotest_grad')] / med[('before', 'hypotest_grad')]:.3f}")
    finally:
        for t in timers.values():
            t.close()


if __name__ == "__main__":
    main()
