"""The GIL is released in evaluations, fits and scans; a Model is safe to share between Python threads;
backends are chosen with set_backend (opencl gives the same numbers) and found inside the package."""

import os
import threading
import time

import numpy as np
import pytest

import hfcore

from conftest import ERJR, case, erjr_points, load, needs_shared, rel

pytestmark = needs_shared


def model_and_data(name="sbottom_regionA_1300_205_60"):
    spec, _, codes = case(name)
    ws = hfcore.Workspace(spec)
    model = ws.model(modifier_settings=codes)
    return model, ws.data(model)


def test_gil_released_during_fits():
    """A pure-Python counter keeps running while another thread fits: with the GIL held it could not."""
    model, data = model_and_data()
    done = threading.Event()
    ticks = []

    def count():
        while not done.is_set():
            ticks.append(time.perf_counter())

    # One C++ call (an upper-limit scan: a hypotest of several fits per grid point), sized so that it lasts about
    # half a second on this machine: a scheduling delay of the counter thread on a loaded machine (tens of
    # milliseconds) stays far below the fraction of the call that the GIL held throughout would stall it for.
    def limit(points):
        return hfcore._core.upper_limit_scan(model, data, np.linspace(0.0, 5.0, points))

    t0 = time.perf_counter()
    limit(20)  # warm-up, and how long one point takes
    per_point = (time.perf_counter() - t0) / 20
    points = int(min(2000, max(20, 0.5 / per_point)))
    counter = threading.Thread(target=count)
    counter.start()
    try:
        t0 = time.perf_counter()
        limit(points)
        t1 = time.perf_counter()
    finally:
        done.set()
        counter.join()
    during = [t for t in ticks if t0 <= t <= t1]
    # With the GIL held the counter would stall for the whole call; released, it ticks throughout (its longest
    # gap is a scheduling delay, not the call).
    gaps = np.diff([t0] + during + [t1])
    assert len(during) > 100
    assert max(gaps) < 0.3 * (t1 - t0), (max(gaps), t1 - t0, points)


def test_model_shared_between_threads():
    model, data = model_and_data("2bin_2channel_coupledhistosys")
    rng = np.random.default_rng(1)
    init = np.asarray(model.config.suggested_init())
    points = init + rng.normal(0, 0.1, size=(64, init.size))
    reference = model.logpdf(points, data)
    cls_ref = float(hfcore.infer.hypotest(1.0, data, model, test_stat="q"))
    errors = []

    def work(i):
        try:
            for _ in range(20):
                k = (i * 7) % 64
                assert model.logpdf(points[k], data)[0] == reference[k]
            assert float(hfcore.infer.hypotest(1.0, data, model, test_stat="q")) == cls_ref
            assert np.array_equal(model.logpdf(points, data), reference)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_plugins_inside_the_package():
    found = {b["name"]: b for b in hfcore.backends()}
    assert "cpu" in found and found["cpu"]["loaded"] and found["cpu"]["usable"]
    pkg = os.path.dirname(hfcore._core.__file__)
    # found beside libhfcore (the package folder in a wheel, lib/ in a build tree), not through an env variable
    assert os.path.dirname(found["cpu"]["path"]) in (pkg, os.path.realpath(os.path.join(pkg, "..", "..", "lib")))
    assert "HFCORE_PLUGIN_PATH" not in os.environ or not os.environ["HFCORE_PLUGIN_PATH"]


def opencl_usable():
    return any(b["name"] == "opencl" and b["usable"] for b in hfcore.backends())


@pytest.mark.skipif(not opencl_usable(), reason="no usable OpenCL device (pocl-opencl-icd)")
def test_opencl_gives_the_same_numbers():
    name = "2bin_2channel_coupledhistosys"
    model, data = model_and_data(name)
    pars = np.asarray(model.config.suggested_init()) + 0.05
    lp_cpu = model.logpdf(pars, data)
    cls_cpu = hfcore.infer.hypotest(1.0, data, model, test_stat="q", return_expected_set=True)
    hfcore.set_backend("opencl")
    assert hfcore.get_backend()[0].name == "opencl"
    # the model built on the default backend follows set_backend, as pyhf's models do
    assert model.backend.name == "opencl"
    assert rel(model.logpdf(pars, data), lp_cpu) < 1e-12
    cls_ocl = hfcore.infer.hypotest(1.0, data, model, test_stat="q", return_expected_set=True)
    assert abs(cls_ocl[0] - cls_cpu[0]) < 1e-6 * cls_cpu[0]
    for a, b in zip(cls_ocl[1], cls_cpu[1]):
        assert abs(a - b) <= 1e-6 * b + 1e-12
    hfcore.set_backend("opencl", precision="32b")
    assert hfcore.tensorlib.precision == "32b"
    m32 = hfcore.Workspace(case(name)[0]).model(modifier_settings=case(name)[2])
    assert m32.backend.precision == "32b"
    assert rel(m32.logpdf(pars, data), lp_cpu) < 1e-5
    cls32 = hfcore.infer.hypotest(1.0, data, m32, test_stat="q")
    assert abs(cls32 - cls_cpu[0]) < 1e-3 * cls_cpu[0]


def test_cpu_32b_and_explicit_backends():
    model, data = model_and_data("2bin_2channel")
    pars = model.config.suggested_init()
    lp = model.logpdf(pars, data)
    own = hfcore.Workspace(case("2bin_2channel")[0]).model(modifier_settings=case("2bin_2channel")[2],
                                                           backend=hfcore.backend("cpu", precision="32b"))
    assert own.backend.precision == "32b"
    hfcore.set_backend("numpy", precision="64b")
    assert own.backend.precision == "32b"  # a model given its own backend keeps it
    assert rel(own.logpdf(pars, data), lp) < 1e-5
    tl, opt = hfcore.get_backend()
    assert tl.name == "numpy" and tl.precision == "64b" and opt.name == "hfcore"
    assert tl.astensor([1, 2]).dtype == np.float64 and tl.tolist(tl.astensor([1.5])) == [1.5]


@pytest.mark.skipif(not ERJR.is_dir(), reason="eRJR data not found")
def test_scan_many_patches_matches_single_calls():
    points = erjr_points()[:6]
    ws = hfcore.Workspace(ERJR / "BkgOnly.json")
    patches = {p: load(ERJR / f"patch.{p}.json") for p in points}
    results = hfcore.infer.scan(ws, patches, upper_limit=True, threads=2)
    assert [r["name"] for r in results] == points
    for r in results[:2]:
        model = ws.model(patches=[patches[r["name"]]])
        data = ws.data(model)
        obs, exp = hfcore.infer.hypotest(1.0, data, model, return_expected_set=True)
        assert abs(r["CLs_obs"] - obs) <= 1e-9 * obs and r["converged"]
        assert np.allclose(r["CLs_exp"], np.asarray(exp, dtype=float), rtol=1e-9)
        ul_obs, _ = hfcore.infer.intervals.upper_limits.upper_limit(data, model)
        assert abs(r["upper_limit"]["obs"] - ul_obs) <= 1e-6 * ul_obs
    bad = hfcore.infer.scan(ws, [[{"op": "remove", "path": "/channels/99"}]])
    assert "error" in bad[0] and bad[0]["name"] == "0"
