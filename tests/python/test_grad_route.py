"""hfcore.grad's results name the code that computed them (route), and engine="host_tape" gives the reference the
backend's routes agree with to rounding."""

import json

import numpy as np
import pytest

import hfcore
import hfcore.grad as hg
from conftest import ROOT

EXAMPLE = ROOT / "examples" / "workspaces" / "example.json"


@pytest.fixture(scope="module")
def example():
    ws = hfcore.Workspace(json.loads(EXAMPLE.read_text()))
    model = ws.model()
    return model, np.asarray(ws.data(model, include_auxdata=False))


def rel(a, b):
    return np.max(np.abs(np.asarray(a) - np.asarray(b))) / np.max(np.abs(b))


def test_likelihood_gradient_names_its_route(example):
    model, data = example
    y = hg.inputs(model)
    pars = model.config.suggested_init()
    g = hg.twice_nll(model, y, pars, data)
    value, d_inputs, d_pars, d_data = g  # still the tuple it was
    assert g.engine == "backend"
    assert g.route.startswith("fused: cpu fused"), g.route
    tape = hg.twice_nll(model, y, pars, data, engine="host_tape")
    assert (tape.engine, tape.route) == ("host_tape", "host tape")
    assert value == pytest.approx(tape.value, rel=1e-12)
    for a, b in ((d_inputs, tape.d_inputs), (d_pars, tape.d_pars), (d_data, tape.d_data)):
        assert rel(a, b) < 1e-10
    lp = hg.logpdf(model, y, pars, data)
    assert lp.route == g.route
    assert lp.value == pytest.approx(-0.5 * value)


def test_hypotest_names_its_routes(example):
    model, data = example
    y = hg.inputs(model)
    mu = 3.0  # q_obs > 0, so that both terms are evaluated
    g = hg.hypotest(mu, model, y, data)
    assert g.ok and g.q_obs > 0 and g.q_asimov > 0
    assert g.route_obs.startswith("fused: cpu fused"), g.route_obs
    assert g.route_asimov.startswith("fused: cpu fused"), g.route_asimov
    tape = hg.hypotest(mu, model, y, data, engine="host_tape")
    assert (tape.route_obs, tape.route_asimov) == ("host tape", "host tape")
    assert rel(g.d_exp, tape.d_exp) < 1e-10
    assert rel(g.d_obs, tape.d_obs) < 1e-10
    (b,) = hg.hypotest_batch(mu, model, y[None, :], data)
    assert b.route_asimov == g.route_asimov


def test_profiled_twice_nll_names_its_route(example):
    model, data = example
    r = hg.profiled_twice_nll(model, hg.inputs(model), data, poi_value=1.0)
    assert r["status"] == "ok"
    assert r["route"].startswith("fused: cpu fused"), r["route"]


def test_unknown_engine_is_an_error(example):
    model, data = example
    with pytest.raises(hfcore.exceptions.HFCoreError, match="host_tape"):
        hg.twice_nll(model, hg.inputs(model), model.config.suggested_init(), data, engine="tape")
