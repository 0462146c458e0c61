#!/usr/bin/env python3
"""A neos-style optimisation: one selection cut tuned for the expected CLs, with hfcore's gradients.

    python examples/python/neos_cut.py [--steps 60] [--plot neos_cut.png]

A toy dataset (signal around x = 2, a falling background) is selected with a soft cut, a sigmoid of
(x - cut) / width, into a one-bin counting model: signal scaled by mu, background with a 10 % shapesys
uncertainty plus its Monte Carlo statistical error. The "observed" data are the background-only expectation.
The median expected CLs at mu = 1 is minimised over the cut, with its gradient from hfcore.grad (implicit
differentiation through the profile-likelihood fits, the Asimov data's dependence included) chained with the
yields' derivatives with respect to the cut. optax's Adam is used when optax is installed, a few lines of Adam
otherwise; the plot (matplotlib) shows the exact scan of the expected CLs and the optimiser's path.
"""

import argparse

import numpy as np

import hfcore
import hfcore.grad as hg

WIDTH = 0.3  # of the soft cut, in x
REL_SYST = 0.10


def toy_events(seed=1):
    rng = np.random.default_rng(seed)
    sig = rng.normal(2.0, 0.6, 4000)
    bkg = rng.exponential(1.0, 40000)
    # Each simulated event stands for 0.005 expected events: 20 signal, 200 background before the cut.
    return sig, np.full(sig.size, 0.005), bkg, np.full(bkg.size, 0.005)


def soft_yield(x, w, cut):
    """Selected yield, its Monte Carlo error squared, and their derivatives with respect to the cut."""
    p = 1.0 / (1.0 + np.exp(-(x - cut) / WIDTH))
    dp = -p * (1.0 - p) / WIDTH
    return np.sum(w * p), np.sum(w * w * p * p), np.sum(w * dp), np.sum(2.0 * w * w * p * dp)


def inputs_at(cut, events):
    """The model's inputs (layout: signal nominal, background nominal, background shapesys vals), the data and
    their derivatives with respect to the cut."""
    xs, ws, xb, wb = events
    s, _, ds, _ = soft_yield(xs, ws, cut)
    b, b_mc2, db, db_mc2 = soft_yield(xb, wb, cut)
    unc = np.sqrt((REL_SYST * b) ** 2 + b_mc2)
    dunc = (REL_SYST**2 * b * db + 0.5 * db_mc2) / unc
    y = np.array([s, b, unc])
    dy = np.array([ds, db, dunc])
    return y, dy, np.array([b]), np.array([db])


def make_model(events, cut):
    y, _, _, _ = inputs_at(cut, events)
    spec = {
        "channels": [{"name": "sr", "samples": [
            {"name": "signal", "data": [y[0]], "modifiers": [{"name": "mu", "type": "normfactor", "data": None}]},
            {"name": "background", "data": [y[1]],
             "modifiers": [{"name": "bkg_unc", "type": "shapesys", "data": [y[2]]}]}]}],
        "observations": [{"name": "sr", "data": [y[1]]}],
        "measurements": [{"name": "m", "config": {"poi": "mu", "parameters": []}}],
        "version": "1.0.0",
    }
    model = hfcore.Workspace(spec).model()
    layout = [(b["json_path"], b["field"]) for b in hg.input_layout(model)]
    assert layout == [("channels[0].samples[0]", "data"), ("channels[0].samples[1]", "data"),
                      ("channels[0].samples[1].modifiers[0]", "vals")], layout
    return model


def expected_cls_and_slope(model, events, cut):
    """Median expected CLs at mu = 1 and its derivative with respect to the cut."""
    y, dy, data, ddata = inputs_at(cut, events)
    r = hg.hypotest(1.0, model, y, data)
    if not r.ok:
        raise hg.GradientUndefined(f"{r.status}: {r.reason}")
    return r.exp[2], float(r.d_exp[2] @ dy + r.d_exp_data[2] @ ddata)


def adam(steps, lr, start, grad_fn):
    """optax's Adam when installed, the same update written out otherwise. Returns the path of (cut, CLs)."""
    try:
        import optax
        import jax.numpy as jnp
    except ImportError:
        optax = None
    path, x = [], start
    if optax is not None:
        opt = optax.adam(lr)
        params = jnp.asarray(x)
        state = opt.init(params)
        for _ in range(steps):
            value, g = grad_fn(float(params))
            path.append((float(params), value))
            updates, state = opt.update(jnp.asarray(g), state)
            params = optax.apply_updates(params, updates)
        return path, "optax.adam"
    m = v = 0.0
    for t in range(1, steps + 1):
        value, g = grad_fn(x)
        path.append((x, value))
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        x -= lr * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
    return path, "adam (numpy)"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--start", type=float, default=0.5, help="initial cut")
    parser.add_argument("--plot", default="", help="write the plot to this file (needs matplotlib)")
    args = parser.parse_args()

    events = toy_events()
    model = make_model(events, args.start)
    path, how = adam(args.steps, args.lr, args.start, lambda c: expected_cls_and_slope(model, events, c))
    for i in list(range(0, len(path), max(1, len(path) // 10))) + [len(path) - 1]:
        print(f"step {i:3d}  cut {path[i][0]:.4f}  expected CLs {path[i][1]:.5f}")
    print(f"{how}: expected CLs {path[0][1]:.5f} at cut {path[0][0]:.3f} -> {path[-1][1]:.5f} at {path[-1][0]:.3f}")

    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        cuts = np.linspace(0.0, 3.5, 36)
        scan = [expected_cls_and_slope(model, events, c)[0] for c in cuts]
        fig, ax = plt.subplots(figsize=(6, 4))
        ax.plot(cuts, scan, color="gray", label="expected CLs (scan)")
        ax.plot([p[0] for p in path], [p[1] for p in path], "o-", ms=3, color="tab:red", label=f"{how} path")
        ax.set_xlabel("cut on x")
        ax.set_ylabel("median expected CLs at mu = 1")
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)
        print(f"plot: {args.plot}")


if __name__ == "__main__":
    main()
