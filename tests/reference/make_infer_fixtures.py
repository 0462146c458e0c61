#!/usr/bin/env python3
"""Reference numbers for tests/infer that ../shared does not hold: pyhf hypotests with tight fits.

pyhf's default fit (scipy SLSQP, numerical gradients, default tolerance) stops 1e-9..1e-7 above the minimum in
twice_nll on the validation cases, which moves CLs by 1e-6..1e-4 relative - more than several cases'
tolerances. hfcore's fits converge further, so it is compared with pyhf run with a tight tolerance
(scipy_optimizer(tolerance=1e-15)), and with the stored default numbers within tolerance + pyhf's own
optimizer error (|default - tight|).

Per case it also stores pyhf's tail probabilities and raw test statistics (q, q_A), the free fit's parameters
at a bound (`at_bound`: there the Hessian uncertainty is not a fit's error and cannot be compared), a Minuit fit
(strategy 2, numerical gradient) and the uncertainties from a central-difference Hessian of pyhf's logpdf at the
tight best fit (`mle.uncertainties`, the reference for hfcore's; Minuit's HESSE, in its transform of bounded
parameters, is only a rough check), and, for the cases
whose tight limits take seconds (not the sbottom ones: more than 45 CPU-minutes each), upper limits from
toms748_scan with tight fits.

Also records pyhf's CLs on examples/workspaces/example.json (`pyhf cls` defaults).

Every file records how it was made (`provenance`: the package versions and the sha256 of each input, see
provenance.py); the C++ tests check those hashes before using the numbers.

Usage: python3 tests/reference/make_infer_fixtures.py [validation] [example]   (pyhf 0.7.6, numpy backend)
Writes tests/reference/infer/validation_tight.json, example.json, example_inspect.txt, example_cls.txt.
"""
import json
import logging
import os
import subprocess
import sys
import time

import pyhf

from provenance import provenance

logging.disable(logging.WARNING)
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SHARED = os.environ.get("HFCORE_SHARED_DIR", os.path.join(ROOT, "..", "shared"))
VALIDATION = os.path.join(SHARED, "validation", "pyhf-validation")
OUT = os.path.join(HERE, "infer")
# Minuit's EDM goal is 0.002 * tolerance (errordef 1 on twice_nll): the first of these that MIGRAD reaches with its
# numerical gradient.
MINUIT_TOLERANCES = (1e-6, 1e-4)
UL_RTOL = 1e-9


def floats(x):
    return [float(v) for v in x]


def at_bound(model, bestfit, eps=1e-6):
    """Free parameters whose best-fit value is within eps (relative to the range) of a suggested bound."""
    out = []
    fixed = model.config.suggested_fixed()
    for i, (lo, hi) in enumerate(model.config.suggested_bounds()):
        if not fixed[i] and min(bestfit[i] - lo, hi - bestfit[i]) <= eps * (hi - lo):
            out.append(model.config.par_names[i])
    return out


def minuit_fit(data, model):
    """Minuit (strategy 2, MIGRAD then HESSE, numerical gradient) from the suggested init: values, Hessian
    uncertainties (0 for fixed parameters) and twice_nll. The scipy tight fit stays the reference for the minimum;
    this one is the independent reference for the uncertainties. The tightest tolerance MIGRAD reaches is used
    (1e-6 on every case here; a looser one is tried only if it fails, and recorded)."""
    for tolerance in MINUIT_TOLERANCES:
        pyhf.set_backend("numpy", pyhf.optimize.minuit_optimizer(tolerance=tolerance, strategy=2))
        try:
            pars, twice_nll, res = pyhf.infer.mle.fit(
                data, model, return_uncertainties=True, return_fitted_val=True, return_result_obj=True
            )
            break
        except pyhf.exceptions.FailedMinimization:
            if tolerance == MINUIT_TOLERANCES[-1]:
                raise
        finally:
            pyhf.set_backend("numpy", pyhf.optimize.scipy_optimizer(tolerance=1e-15))
    fixed = model.config.suggested_fixed()
    return {
        "tolerance": tolerance,
        "bestfit": floats(pars[:, 0]),
        "uncertainties": [0.0 if f else float(u) for f, u in zip(fixed, pars[:, 1])],
        "twice_nll": float(twice_nll),
        "edm": float(res.minuit.fmin.edm),
        "valid": bool(res.minuit.valid),
    }


def hessian_uncertainties(model, data, bestfit, sigma):
    """sqrt(diag(H^-1)), H the Hessian of the NLL at `bestfit` by central differences of pyhf's logpdf over the
    free parameters, step 1e-3 x `sigma` (Minuit's uncertainty) in each: the reference for hfcore's uncertainties.
    Minuit's own HESSE works in its bounded-parameter transform and is 1e-2..3e-1 off for a POI near its lower
    bound or a parameter on an interpolation kink, so it is kept as a rough check only. 0 for fixed parameters;
    None when a parameter is at a bound (its steps would leave the bounds)."""
    if at_bound(model, bestfit):
        return None
    import numpy as np

    x0 = np.asarray(bestfit, dtype=float)
    fixed = model.config.suggested_fixed()
    free = [i for i in range(len(x0)) if not fixed[i]]
    h = [1e-3 * sigma[i] for i in range(len(x0))]

    def nll(shifts):
        x = x0.copy()
        for i, s in shifts:
            x[i] += s * h[i]
        return -float(model.logpdf(x, data)[0])

    n = len(free)
    H = np.zeros((n, n))
    for a, i in enumerate(free):
        H[a, a] = (nll([(i, 1)]) - 2 * nll([]) + nll([(i, -1)])) / h[i] ** 2
        for b in range(a):
            j = free[b]
            H[a, b] = H[b, a] = (
                nll([(i, 1), (j, 1)]) - nll([(i, 1), (j, -1)]) - nll([(i, -1), (j, 1)]) + nll([(i, -1), (j, -1)])
            ) / (4 * h[i] * h[j])
    unc = np.sqrt(np.diag(np.linalg.inv(H)))
    out = [0.0] * len(x0)
    for a, i in enumerate(free):
        out[i] = float(unc[a])
    return out


def validation():
    pyhf.set_backend("numpy", pyhf.optimize.scipy_optimizer(tolerance=1e-15))
    names = sorted(d for d in os.listdir(VALIDATION) if os.path.isdir(os.path.join(VALIDATION, d)))
    inputs = []
    out = {
        "description": __doc__.strip().splitlines()[0],
        "pyhf": pyhf.__version__,
        "optimizer": "scipy_optimizer(tolerance=1e-15), numpy backend, 64b",
        "minuit": "minuit_optimizer(tolerance=1e-6, strategy=2; mle.minuit.tolerance when looser), numerical "
        "gradient, for mle.minuit",
        "upper_limit": f"toms748_scan with scipy_optimizer(tolerance=1e-15), rtol {UL_RTOL}, the case's bracket "
        "and level; cases whose tight limit takes minutes (sbottom) have none",
        "cases": {},
    }
    for case in names:
        e = json.load(open(os.path.join(VALIDATION, case, "expected.json")))
        if e["calctype"] != "asymptotics":
            continue
        inputs += [f"validation/pyhf-validation/{case}/workspace.json", f"validation/pyhf-validation/{case}/expected.json"]
        t0 = time.time()
        ws = pyhf.Workspace(json.load(open(os.path.join(VALIDATION, case, "workspace.json"))))
        settings = e["model_settings"]["effective_interpcodes"]
        model = ws.model(modifier_settings=settings)
        data = ws.data(model)
        obs, tail, exp, calc = pyhf.infer.hypotest(
            e["mu_test"], data, model, test_stat=e["test_stat"], return_tail_probs=True, return_expected_set=True,
            return_calculator=True,
        )
        bestfit, twice_nll = pyhf.infer.mle.fit(data, model, return_fitted_val=True)
        fixed, twice_nll_fixed = pyhf.infer.mle.fixed_poi_fit(
            e["mu_test"], data, model, return_fitted_val=True
        )
        # The observed statistic from these two fits (the ones the hypotest's calculator ran: same start, bounds and
        # optimizer) with pyhf's rules (infer/test_statistics.py: t clipped at 0; q, qtilde 0 where mu-hat > mu;
        # q0 0 where mu-hat < 0), and the calculator's statistic from it and its Asimov sqrt(q_A)
        # (AsymptoticCalculator.teststatistic, which keeps only the latter).
        mu_hat = float(bestfit[model.config.poi_index])
        t_obs = max(float(twice_nll_fixed) - float(twice_nll), 0.0)
        if e["test_stat"] == "q0":
            q_obs = 0.0 if mu_hat < 0 else t_obs
        else:
            q_obs = 0.0 if mu_hat > e["mu_test"] else t_obs
        sqrt_q, sqrt_qa = q_obs**0.5, float(calc.sqrtqmuA_v)
        if e["test_stat"] in ("q", "q0") or sqrt_q <= sqrt_qa:
            teststat = sqrt_q - sqrt_qa
        else:
            teststat = (q_obs - sqrt_qa**2) / (2 * sqrt_qa)
        fp = calc.fitted_pars
        rec = {
            "test_stat": e["test_stat"],
            "mu_test": e["mu_test"],
            "interpcodes": settings,
            "CLs_obs": float(obs),
            "CLs_exp": floats(exp),
            # return_tail_probs: [CLsb, CLb] (q0: [CLb] only); the raw statistics behind them.
            "tail_probs": floats(tail),
            "q_obs": q_obs,
            "q_asimov": sqrt_qa**2,
            "teststat_calculator": teststat,
            "fitted_pars": {
                k: floats(getattr(fp, k))
                for k in ("asimov_pars", "free_fit_to_data", "free_fit_to_asimov", "fixed_poi_fit_to_data",
                          "fixed_poi_fit_to_asimov")
            },
            "mle": {
                "bestfit": floats(bestfit),
                "twice_nll": float(twice_nll),
                "at_bound": at_bound(model, bestfit),
                "minuit": minuit_fit(data, model),
            },
            "fixed_poi_fit": {"bestfit": floats(fixed), "twice_nll": float(twice_nll_fixed)},
        }
        rec["mle"]["uncertainties"] = hessian_uncertainties(
            model, data, bestfit, rec["mle"]["minuit"]["uncertainties"]
        )
        ul = e.get("upper_limit")
        if ul and not case.startswith("sbottom"):
            ul_obs, ul_exp = pyhf.infer.intervals.upper_limits.toms748_scan(
                data, model, ul["bracket"][0], ul["bracket"][1], level=ul["level"], rtol=UL_RTOL,
                test_stat=ul["test_stat"],
            )
            rec["upper_limit"] = {"obs": float(ul_obs), "exp": floats(ul_exp), "test_stat": ul["test_stat"],
                                  "level": ul["level"], "bracket": ul["bracket"], "rtol": UL_RTOL}
        rec["seconds"] = round(time.time() - t0, 2)
        out["cases"][case] = rec
        print(case, rec["CLs_obs"], rec["seconds"], file=sys.stderr)
    out["provenance"] = provenance(
        "make_infer_fixtures.py", ["pyhf", "numpy", "scipy", "iminuit"], shared_inputs=inputs
    )
    with open(os.path.join(OUT, "validation_tight.json"), "w") as f:
        json.dump(out, f, indent=1)


def example_tight(data, model):
    """The same numbers with tight fits (what the tests compare hfcore with), and Minuit's uncertainties."""
    pyhf.set_backend("numpy", pyhf.optimize.scipy_optimizer(tolerance=1e-15))
    try:
        obs, exp = pyhf.infer.hypotest(1.0, data, model, test_stat="qtilde", return_expected_set=True)
        bestfit, twice_nll = pyhf.infer.mle.fit(data, model, return_fitted_val=True)
        ul_obs, ul_exp = pyhf.infer.intervals.upper_limits.toms748_scan(
            data, model, 0.0, 10.0, level=0.05, rtol=UL_RTOL, test_stat="qtilde"
        )
        p0, p0_exp = pyhf.infer.hypotest(0.0, data, model, test_stat="q0", return_expected_set=True)
        mle = {
            "bestfit": floats(bestfit),
            "twice_nll": float(twice_nll),
            "at_bound": at_bound(model, bestfit),
            "minuit": minuit_fit(data, model),
        }
        mle["uncertainties"] = hessian_uncertainties(model, data, bestfit, mle["minuit"]["uncertainties"])
        # Z = Phi^-1(1 - p0), from scipy (what `hfcore significance` prints beside p0).
        from scipy.stats import norm

        return {
            "optimizer": "scipy_optimizer(tolerance=1e-15)",
            "CLs_obs": float(obs),
            "CLs_exp": floats(exp),
            "mle": mle,
            "upper_limit": {"obs": float(ul_obs), "exp": floats(ul_exp), "rtol": UL_RTOL},
            "p0_obs": float(p0),
            "p0_exp": floats(p0_exp),
            "significance_obs": float(norm.isf(float(p0))),
            "significance_exp": [float(norm.isf(float(p))) for p in p0_exp],
        }
    finally:
        pyhf.set_backend("numpy")


def example():
    pyhf.set_backend("numpy")
    path = os.path.join(ROOT, "examples", "workspaces", "example.json")
    ws = pyhf.Workspace(json.load(open(path)))
    model = ws.model(modifier_settings={"normsys": {"interpcode": "code4"}, "histosys": {"interpcode": "code4p"}})
    data = ws.data(model)
    obs, exp = pyhf.infer.hypotest(1.0, data, model, test_stat="qtilde", return_expected_set=True)
    bestfit, twice_nll = pyhf.infer.mle.fit(data, model, return_fitted_val=True)
    ul_obs, ul_exp = pyhf.infer.intervals.upper_limits.toms748_scan(
        data, model, 0.0, 10.0, level=0.05, rtol=1e-6, test_stat="qtilde"
    )
    p0, p0_exp = pyhf.infer.hypotest(0.0, data, model, test_stat="q0", return_expected_set=True)
    res = {
        "description": "pyhf on examples/workspaces/example.json (pyhf cls defaults: qtilde, asymptotics, "
        "normsys code4, histosys code4p, mu = 1; default scipy fits)",
        "pyhf": pyhf.__version__,
        "par_order": list(model.config.par_order),
        "n_pars": model.config.npars,
        "logpdf_suggested_init": float(model.logpdf(model.config.suggested_init(), data)[0]),
        "CLs_obs": float(obs),
        "CLs_exp": floats(exp),
        "mle": {"bestfit": floats(bestfit), "twice_nll": float(twice_nll)},
        "upper_limit": {"obs": float(ul_obs), "exp": floats(ul_exp), "rtol": 1e-6},
        "p0_obs": float(p0),
        "p0_exp": floats(p0_exp),
        "tight": example_tight(data, model),
        "provenance": provenance(
            "make_infer_fixtures.py", ["pyhf", "numpy", "scipy", "iminuit"], repo_inputs=["examples/workspaces/example.json"]
        ),
    }
    with open(os.path.join(OUT, "example.json"), "w") as f:
        json.dump(res, f, indent=1)
    # `pyhf inspect` and `pyhf cls` output, byte for byte.
    for cmd, name in ((["pyhf", "inspect", path], "example_inspect.txt"), (["pyhf", "cls", path], "example_cls.txt")):
        text = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        with open(os.path.join(OUT, name), "w") as f:
            f.write(text)


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    what = sys.argv[1:] or ["validation", "example"]
    if "validation" in what:
        validation()
    if "example" in what:
        example()
