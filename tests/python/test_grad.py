"""hfcore.grad: gradients with respect to the model's inputs, against finite differences of pyhf's likelihood
(an independent engine) and of hfcore's own hypotests with the inputs perturbed."""

import copy
import importlib.util
import json
import re

import numpy as np
import pyhf
import pytest

import hfcore
import hfcore.grad as hg
from conftest import ROOT

EXAMPLE = ROOT / "examples" / "workspaces" / "example.json"


@pytest.fixture(scope="module")
def example():
    spec = json.loads(EXAMPLE.read_text())
    ws = hfcore.Workspace(spec)
    model = ws.model()
    return spec, model, np.asarray(ws.data(model, include_auxdata=False))


def set_input(spec, block, k, value):
    """The JSON spec with element k of a layout block set to value."""
    node = spec
    for key, index in re.findall(r"(\w+)\[(\d+)\]", block["json_path"]):
        node = node[key][int(index)]
    if block["field"] == "data":
        node["data"][k] = value
    elif block["field"] in ("hi", "lo"):
        node["data"][block["field"]] = value
    elif block["field"] == "vals":
        node["data"][k] = value
    else:
        node["data"][block["field"]][k] = value


def pyhf_twice_nll(spec, layout, y, pars, main):
    s = copy.deepcopy(spec)
    for b in layout:
        for k in range(b["size"]):
            set_input(s, b, k, float(y[b["offset"] + k]))
    m = pyhf.Workspace(s).model()
    return -2.0 * float(m.logpdf(pars, list(main) + m.config.auxdata)[0])


def central(f, y, i, rel=1e-4):
    h = rel * max(abs(y[i]), 1e-2)
    z = [y.copy() for _ in range(4)]
    for zz, d in zip(z, (h, -h, 2 * h, -2 * h)):
        zz[i] += d
    return (8 * (f(z[0]) - f(z[1])) - (f(z[2]) - f(z[3]))) / (12 * h)


def test_twice_nll_gradient_against_pyhf(example):
    spec, model, main = example
    y = hg.inputs(model)
    layout = hg.input_layout(model)
    assert sum(b["size"] for b in layout) == len(y)
    pars = np.asarray(model.config.suggested_init()) + 0.1 * np.sin(np.arange(model.config.npars) + 1.0)
    value, d_inputs, d_pars, d_data = hg.twice_nll(model, y, pars, main)
    assert value == pytest.approx(-2.0 * float(model.logpdf(pars, list(main) + model.config.auxdata)[0]), rel=1e-12)
    assert d_inputs.shape == y.shape and d_pars.shape == (model.config.npars,) and d_data.shape == main.shape
    scale = np.max(np.abs(d_inputs))
    # Every input with a nonzero uncertainty (a zero shapesys/staterror uncertainty is a discontinuity).
    for i in range(0, len(y), 3):
        if y[i] == 0.0:
            continue
        fd = central(lambda z: pyhf_twice_nll(spec, layout, z, pars, main), y, i)
        assert abs(fd - d_inputs[i]) <= 1e-6 * max(abs(d_inputs[i]), 1e-3 * scale), (i, d_inputs[i], fd)
    lp = hg.logpdf(model, y, pars, main)
    assert lp[0] == pytest.approx(-0.5 * value) and np.allclose(lp[1], -0.5 * d_inputs)


def test_expected_cls_gradient_against_refits(example):
    spec, model, main = example
    y = hg.inputs(model)
    r = hg.hypotest(1.0, model, y, main)
    assert r.ok and r.d_exp.shape == (5, len(y))
    ref = hfcore.infer.hypotest(1.0, list(main) + model.config.auxdata, model, return_expected_set=True)
    assert r.obs == pytest.approx(float(ref[0]), rel=1e-8)
    value, grad = hg.expected_cls(model, y, main)
    assert value == pytest.approx(float(ref[1][2]), rel=1e-8)
    np.testing.assert_array_equal(grad, r.d_exp[2])

    def refit(z):
        return hg.hypotest(1.0, model, z, main).exp[2]

    for i in np.argsort(-np.abs(grad))[:2]:
        fd = central(refit, y, i, rel=1e-3)
        assert abs(fd - grad[i]) <= 1e-4 * abs(grad[i]), (i, grad[i], fd)


def test_profiled_twice_nll_holds_the_poi(example):
    _, model, main = example
    r = hg.profiled_twice_nll(model, hg.inputs(model), main, poi_value=1.0)
    assert r["status"] == "ok" and "mu" in r["held"] and r["d_inputs"].shape == hg.inputs(model).shape


def test_wrong_input_length_is_an_error(example):
    _, model, main = example
    with pytest.raises(hfcore.exceptions.InvalidPdfParameters):
        hg.hypotest(1.0, model, np.ones(3), main)
    with pytest.raises(ValueError):
        hg.expected_cls(model, hg.inputs(model), main, nsigma=3)


def test_singular_hessian_is_reported():
    spec = {
        "channels": [{"name": "c", "samples": [
            {"name": "s", "data": [5.0, 3.0], "modifiers": [{"name": "mu", "type": "normfactor", "data": None}]},
            {"name": "b", "data": [50.0, 40.0], "modifiers": [{"name": "k1", "type": "normfactor", "data": None},
                                                              {"name": "k2", "type": "normfactor", "data": None}]}]}],
        "observations": [{"name": "c", "data": [52.0, 45.0]}],
        "measurements": [{"name": "m", "config": {"poi": "mu", "parameters": []}}],
        "version": "1.0.0",
    }
    ws = hfcore.Workspace(spec)
    model = ws.model()
    main = ws.data(model, include_auxdata=False)
    r = hg.hypotest(1.0, model, hg.inputs(model), main)
    assert r.status == "singular_hessian" and r.d_exp is None
    with pytest.raises(hg.GradientUndefined, match="singular_hessian"):
        hg.expected_cls(model, hg.inputs(model), main)


# The autodiff adapters are optional imports: where jax / torch are installed their gradients are checked, where
# they are not the adapter must say what to install (neither case is skipped).
def test_jax_adapter(example, monkeypatch):
    _, model, main = example
    y = hg.inputs(model)
    if importlib.util.find_spec("jax") is None:
        with pytest.raises(ImportError, match="pip install jax"):
            hg.jax_expected_cls(model, main)
        return
    import jax

    f = hg.jax_expected_cls(model, main)
    value, grad = hg.expected_cls(model, y, main)
    g = jax.grad(lambda z: 2.0 * f(z))(jax.numpy.asarray(y, dtype=jax.numpy.float32))
    np.testing.assert_allclose(np.asarray(g), 2.0 * grad, rtol=1e-4, atol=1e-7)
    g_jit = jax.jit(jax.grad(f))(jax.numpy.asarray(y, dtype=jax.numpy.float32))
    np.testing.assert_allclose(np.asarray(g_jit), grad, rtol=1e-4, atol=1e-7)

    # Under jax.vmap the callback gets the whole batch: one expected_cls_batch call per vmap.
    ys = np.stack([y * (1 + 0.03 * np.sin(k + np.arange(len(y)))) for k in range(3)])
    calls = []
    batch = hg.expected_cls_batch
    monkeypatch.setattr(hg, "expected_cls_batch", lambda *a, **kw: calls.append(1) or batch(*a, **kw))
    values = jax.vmap(f)(jax.numpy.asarray(ys))
    grads = jax.vmap(jax.grad(f))(jax.numpy.asarray(ys))
    ref_v, ref_g = batch(model, ys, main)
    np.testing.assert_allclose(np.asarray(values), ref_v, rtol=1e-5)  # jax rounds the inputs to float32
    np.testing.assert_allclose(np.asarray(grads), ref_g, rtol=1e-4, atol=1e-7)
    assert len(calls) == 2


def test_batch_of_models_in_one_call(example):
    """K models differing in their yields: each item equals the call for that model alone; errors name the item."""
    _, model, main = example
    y = hg.inputs(model)
    ys = np.stack([y * (1 + 0.03 * np.sin(k + np.arange(len(y)))) for k in range(4)])
    values, grads = hg.expected_cls_batch(model, ys, main, threads=2)
    assert values.shape == (4,) and grads.shape == ys.shape
    for k in range(4):
        v, g = hg.expected_cls(model, ys[k], main)
        assert values[k] == v
        np.testing.assert_array_equal(grads[k], g)
    assert len(set(values)) == 4
    rs = hg.hypotest_batch(1.0, model, ys, np.stack([main] * 4), threads=1)
    np.testing.assert_array_equal([r.exp[2] for r in rs], values)
    with pytest.raises(hfcore.exceptions.InvalidPdfParameters):
        hg.expected_cls_batch(model, ys[:, :-1], main)


def test_torch_adapter(example):
    _, model, main = example
    y = hg.inputs(model)
    if importlib.util.find_spec("torch") is None:
        with pytest.raises(ImportError, match="pip install torch"):
            hg.TorchExpectedCLs.apply(y, model, main)
        return
    import torch

    t = torch.tensor(y, dtype=torch.float64, requires_grad=True)
    out = hg.TorchExpectedCLs.apply(t, model, main)
    (3.0 * out).backward()
    _, grad = hg.expected_cls(model, y, main)
    np.testing.assert_allclose(t.grad.numpy(), 3.0 * grad, rtol=1e-12)


def test_gradient_with_respect_to_the_data(example):
    _, model, main = example
    y = hg.inputs(model)
    r = hg.hypotest(1.0, model, y, main)
    assert r.d_exp_data.shape == (5, len(main))
    # The refits and the gradient's fits run at the default fit tolerance here (1e-9 in NLL), which leaves 1e-4
    # of noise in these differences; tests/grad checks 1e-4 per bin with tight fits (measured 5e-6). Relative to
    # the component, floored at 1e-2 of the largest.
    floor = 1e-2 * np.max(np.abs(r.d_exp_data[2]))
    for i in range(len(main)):
        fd = central(lambda n: hg.hypotest(1.0, model, y, n).exp[2], main.astype(float), i, rel=1e-3)
        assert abs(fd - r.d_exp_data[2][i]) <= 1e-3 * max(abs(r.d_exp_data[2][i]), floor), (i, r.d_exp_data[2][i], fd)


def test_neos_example_runs():
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "python" / "neos_cut.py"), "--steps", "8", "--lr", "0.1"],
        check=True, capture_output=True, text=True,
    ).stdout
    first, last = re.search(r"expected CLs ([0-9.]+) at cut [0-9.]+ -> ([0-9.]+)", out).groups()
    assert float(last) < float(first)
