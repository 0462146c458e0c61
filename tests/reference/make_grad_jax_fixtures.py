"""Reference gradients with respect to the model's inputs from jax autodiff through pyhf (issue 39), for
tests/grad/test_grad_jax_reference.cpp: writes tests/reference/grad/jax_gradients.json.

pyhf builds its model from the spec with its default backend; with jax as the default backend
(``pyhf.set_backend("jax", default=True)``) the build itself is traced, so jax.grad of the logpdf with respect to
the spec's numbers follows every path from an input to the likelihood, the aux data included (shapesys
tau = (nominal / uncertainty)^2). pyhf 0.7.6's builders hand python lists to the backend, which jax's functions
refuse: they are converted to arrays on their way in (a wrapper on the jax backend's methods; the computation is
pyhf's). Its staterror, shapesys and shapefactor builders assign into arrays in place, which jax arrays do not allow, so the
cases here are the validation workspaces without those modifiers; example.json and the sbottom models are checked
against finite differences of hfcore's own values instead (tests/grad/).

For each case: the gradient of logpdf at a point off the interpolation kinks (the suggested init moved as
tests/grad/grad_support.hpp's off_kink_point does), and of the profiled twice_nll at the best fit and with the POI
held at 1: by the envelope theorem d/dy min_theta f(theta, y) = partial_y f at the minimum, evaluated at pyhf's
fitted parameters (scipy, tolerance 1e-12, then Newton steps on the same jax likelihood). Inputs in hfcore's layout (include/hfcore/grad.hpp: per channel, per
sample, the nominal bins, then per modifier histosys hi_data, lo_data; normsys hi, lo).

Run: pip install "jax[cpu]==0.4.23" pyhf==0.7.6 "numpy<2" "scipy<1.13"; python3 tests/reference/make_grad_jax_fixtures.py
"""
import copy
import json
import math
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pyhf
from pyhf.tensor.jax_backend import jax_backend

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from provenance import provenance  # noqa: E402

jax.config.update("jax_enable_x64", True)

CASES = ["1bin_lumi", "1bin_normsys", "2bin_histosys", "2bin_2channel_couplednorm",
         "2bin_2channel_coupledhistosys"]
# Methods whose arguments are shapes, names or already tensors.
UNWRAPPED = {"astensor", "tolist", "shape", "reshape", "ones", "zeros", "normal_dist", "poisson_dist", "percentile"}


def as_arrays(a):
    """A python list as a jax array (element-wise when ragged); anything else unchanged."""
    if not isinstance(a, list) or not a or isinstance(a[0], str):
        return a
    try:
        return jnp.asarray(a)
    except (TypeError, ValueError):
        return [as_arrays(x) if isinstance(x, list) else jnp.asarray(x) for x in a]


def accept_lists(method):
    def wrapped(self, *args, **kw):
        args = [as_arrays(a) for a in args]
        if method.__name__ in ("sum", "product") and isinstance(args[0], list):
            args[0] = jnp.stack([jnp.asarray(x, dtype=float) for x in args[0]])
        return method(self, *args, **kw)

    wrapped.__name__ = method.__name__
    return wrapped


for name in dir(jax_backend):
    member = getattr(jax_backend, name)
    if not name.startswith("_") and name not in UNWRAPPED and callable(member) and not isinstance(member, type):
        setattr(jax_backend, name, accept_lists(member))


def layout(spec):
    """(field, sample, modifier, size) per block, hfcore's order."""
    out = []
    for channel in spec["channels"]:
        for sample in channel["samples"]:
            n = len(sample["data"])
            out.append(("data", sample, None, n))
            for mod in sample["modifiers"]:
                if mod["type"] == "histosys":
                    out += [("hi_data", sample, mod, n), ("lo_data", sample, mod, n)]
                elif mod["type"] == "normsys":
                    out += [("hi", sample, mod, 1), ("lo", sample, mod, 1)]
                elif mod["type"] in ("shapesys", "staterror"):
                    raise ValueError(f"{mod['type']}: pyhf's builder is not traceable by jax")
    return out


def flatten(spec):
    values = []
    for field, sample, mod, _ in layout(spec):
        if field == "data":
            values += sample["data"]
        elif field in ("hi_data", "lo_data"):
            values += mod["data"][field]
        else:
            values.append(mod["data"][field])
    return np.array(values, dtype=float)


def with_inputs(spec, y):
    spec = copy.deepcopy(spec)
    offset = 0
    for field, sample, mod, n in layout(spec):
        block = y[offset:offset + n]
        offset += n
        if field == "data":
            sample["data"] = block
        elif field in ("hi_data", "lo_data"):
            mod["data"][field] = block
        else:
            mod["data"][field] = block[0]
    return spec


def off_kink_point(init, bounds):
    p = []
    for i, (x, (lo, hi)) in enumerate(zip(init, bounds)):
        w = min(0.2, 0.3 * (hi - lo))
        p.append(min(max(x + w * math.sin(1.0 + i), lo), hi))
    return p


def newton_polish(f, pars, bounds, held, steps=6):
    """scipy's minimum refined by Newton steps on pyhf's own (jax) likelihood, so that the reference gradients are
    taken at the minimum to rounding rather than at scipy's stopping point; parameters at a bound stay there."""
    x = np.array(pars, dtype=float)
    free = [i for i, (v, (lo, hi)) in enumerate(zip(x, bounds))
            if i not in held and lo + 1e-9 * (hi - lo) < v < hi - 1e-9 * (hi - lo)]
    for _ in range(steps):
        g = np.asarray(jax.grad(f)(x))[free]
        h = np.asarray(jax.hessian(f)(x))[np.ix_(free, free)]
        x[free] -= np.linalg.solve(h, g)
    return x


def case(name):
    rel = f"validation/pyhf-validation/{name}/workspace.json"
    path = os.path.join(os.environ.get("HFCORE_SHARED_DIR", os.path.join(HERE, "..", "..", "..", "shared")), rel)
    with open(path) as f:
        ws_doc = json.load(f)
    ws = pyhf.Workspace(ws_doc)
    model = ws.model()
    measurement = ws.get_measurement()
    spec = {"channels": ws_doc["channels"], "parameters": measurement["config"].get("parameters", [])}
    poi = measurement["config"]["poi"]
    main = jnp.asarray(ws.data(model, include_auxdata=False), dtype=float)
    y0 = flatten(spec)

    def logpdf(y, pars):
        m = pyhf.Model(with_inputs(spec, y), poi_name=poi, validate=False)
        data = jnp.concatenate([main, jnp.asarray(m.config.auxdata, dtype=float)])
        return m.logpdf(jnp.asarray(pars, dtype=float), data)[0]

    point = off_kink_point(model.config.suggested_init(), model.config.suggested_bounds())
    full = jnp.concatenate([main, jnp.asarray(model.config.auxdata, dtype=float)])
    pyhf.set_backend("jax", pyhf.optimize.scipy_optimizer(tolerance=1e-12), default=True)
    free = pyhf.infer.mle.fit(full, model)
    held = pyhf.infer.mle.fixed_poi_fit(1.0, full, model)
    bounds = model.config.suggested_bounds()
    poi_index = model.config.poi_index
    free = newton_polish(lambda p: logpdf(y0, p), free, bounds, held=())
    held = newton_polish(lambda p: logpdf(y0, p), held, bounds, held=(poi_index,))
    grad = jax.grad(logpdf)
    out = {
        "case": name,
        "workspace": rel,
        "poi": poi,
        "inputs": y0.tolist(),
        "point": point,
        "logpdf": float(logpdf(y0, point)),
        "d_logpdf": np.asarray(grad(y0, point)).tolist(),
        "bestfit": np.asarray(free).tolist(),
        "d_twice_nll_bestfit": (-2 * np.asarray(grad(y0, free))).tolist(),
        "fixed_poi_fit": np.asarray(held).tolist(),
        "d_twice_nll_fixed_poi": (-2 * np.asarray(grad(y0, held))).tolist(),
    }
    return out, rel


def main():
    pyhf.set_backend("jax", default=True)
    cases, inputs = [], []
    for name in CASES:
        c, rel = case(name)
        cases.append(c)
        inputs.append(rel)
        print(name, len(c["inputs"]), "inputs")
    doc = {"provenance": provenance("make_grad_jax_fixtures.py", ["pyhf", "jax", "jaxlib", "numpy", "scipy"],
                                    shared_inputs=inputs),
           "cases": cases}
    with open(os.path.join(HERE, "grad", "jax_gradients.json"), "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
