#!/usr/bin/env python3
"""What the gradients of a hypotest cost next to the hypotest alone (issue 39's target: at most 3x).

    python3 bench/grad_cost.py [--timer build/bench/bin/hfcore_timer] [--rounds 5]

On the eRJR workspace with one signal patch and an ATLAS sbottom model, alternating in one run: the asymptotic
hypotest (qtilde, mu = 1) and hf::grad::hypotest_gradient (the same hypotest and d CLs_obs, d CLs_exp / d every
input). Prints each median and the ratio; then K = 64 models differing in their yields in one
hypotest_gradients call (threads: every core), per model, against the single call.
"""
import argparse
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from compare_pyhf import HfcoreTimer  # noqa: E402

SHARED = os.environ.get("HFCORE_SHARED_DIR", os.path.join(os.path.dirname(ROOT), "shared"))
WORKLOADS = {
    "eRJR + ERJR_100p0_20p0": dict(workspace=f"{SHARED}/data/atlas-3l-erjr/BkgOnly.json",
                                   patches=[f"{SHARED}/data/atlas-3l-erjr/patch.ERJR_100p0_20p0.json"]),
    "sbottom_regionA_1300_205_60": dict(
        workspace=f"{SHARED}/validation/pyhf-validation/sbottom_regionA_1300_205_60/workspace.json"),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timer", default=os.path.join(ROOT, "build", "bench", "bin", "hfcore_timer"))
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    if not os.path.exists(args.timer):
        sys.exit(f"{args.timer} not found: cmake --build <build dir> --target hfcore_timer")
    timer = HfcoreTimer(args.timer)
    print(f"{'workload':32} {'pars':>5} {'hypotest':>10} {'+ gradients':>12} {'ratio':>6}")
    try:
        for name, load in WORKLOADS.items():
            info = timer.request(cmd="load", id=name, **load)
            times = {"hypotest": [], "hypotest_grad": []}
            for _ in range(args.rounds):
                for task in times:
                    answer = timer.request(cmd="time", id=name, task=task, mu=1.0, min_time=0.3)
                    times[task].append(answer["median"])
                    if task == "hypotest_grad" and answer["result"]["status"] != "ok":
                        sys.exit(f"{name}: no gradient ({answer['result']['status']})")
            t, g = statistics.median(times["hypotest"]), statistics.median(times["hypotest_grad"])
            print(f"{name:32} {info['n_pars']:>5} {t * 1e3:>8.2f}ms {g * 1e3:>10.2f}ms {g / t:>6.2f}")
            batch = timer.request(cmd="time", id=name, task="hypotest_grad_batch", k=64, mu=1.0, min_reps=1,
                                  min_time=0.0)
            assert batch["result"]["ok_items"] == 64, batch["result"]
            b = batch["median"] / 64
            print(f"{'  64 models in one call, each':32} {'':>5} {'':>10} {b * 1e3:>10.2f}ms {b / t:>6.2f}")
    finally:
        timer.close()


if __name__ == "__main__":
    main()
