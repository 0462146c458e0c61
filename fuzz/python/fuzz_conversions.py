"""Atheris target for the Python module's conversions (python/src/arrays.cpp, json_convert.cpp): numpy arrays,
lists and dicts built from the fuzzer's bytes, handed to Model.logpdf, Workspace(spec), Model(spec) and a fit's
data (hfcore.infer.mle.fit).

    python fuzz/python/fuzz_conversions.py [CORPUS...] [libFuzzer flags]

scripts/ci/70-fuzz.sh runs it in stage 30's venv with atheris installed. The Python layers of hfcore are
coverage-instrumented (atheris.instrument_imports); the compiled module is exercised, not instrumented. Bad input
may raise hfcore's pyhf-named exceptions, ValueError or TypeError, nothing else; a crash, another exception or a
broken invariant is a bug. Invariants: a logpdf that returns gives one value per row; a fit of data that pass the
observed-data checks (finite, counts >= 0, the model's length) and stay below 1e12 in size is not refused, and
one with a negative count raises InvalidPdfData naming the element.
"""

import copy
import json
import pathlib
import sys
import warnings

import atheris
import numpy as np

with atheris.instrument_imports(include=["hfcore"]):
    import hfcore

HERE = pathlib.Path(__file__).resolve().parent
# The small workspace of fuzz/fuzz_common.hpp (the model target's seed, after its mode byte).
BASE = json.loads((HERE.parent / "corpus" / "model" / "ws_base").read_bytes()[1:])
ALLOWED = tuple({ValueError, TypeError} | {c for c in vars(hfcore.exceptions).values()
                                           if isinstance(c, type) and issubclass(c, Exception)})
WS = hfcore.Workspace(BASE)
MODEL = WS.model()
DATA = np.asarray(WS.data(MODEL), dtype=float)
N_MAIN = MODEL.config.nmaindata
POISSON_AUX = set()  # positions in the data of aux data of Poisson constraints (shapesys): counts too
_at = N_MAIN
for _name in MODEL.config.auxdata_order:
    _ps = MODEL.config.param_set(_name)
    if _ps.pdf_type == "poisson":
        POISSON_AUX.update(range(_at, _at + len(_ps.auxdata)))
    _at += len(_ps.auxdata)
assert _at == DATA.size, (_at, DATA.size)


def value(fdp, depth=0):
    """Any Python value the conversions may meet, nested up to 3 levels."""
    kind = fdp.ConsumeIntInRange(0, 12)
    if kind == 0:
        return fdp.ConsumeFloat()  # NaN and infinities included
    if kind == 1:
        return fdp.ConsumeInt(fdp.ConsumeIntInRange(1, 10))  # beyond 64 bits too
    if kind == 2:
        return fdp.ConsumeBool()
    if kind == 3:
        return None
    if kind == 4:
        return fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, 12))
    if kind in (5, 6, 7) and depth < 3:
        items = [value(fdp, depth + 1) for _ in range(fdp.ConsumeIntInRange(0, 4))]
        if kind == 5:
            return items
        if kind == 6:
            return tuple(items)
        return {fdp.ConsumeUnicodeNoSurrogates(6): x for x in items}
    if kind == 8:
        return np.float32(fdp.ConsumeFloat())
    if kind == 9:
        return np.int64(fdp.ConsumeIntInRange(-(2**63), 2**63 - 1))
    if kind == 10:
        return fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 8))
    if kind == 11:
        return array(fdp, fdp.ConsumeIntInRange(0, 6))
    return fdp.ConsumeRegularFloat()


def array(fdp, n):
    """A numpy array of about n numbers: any dtype, 0-3 dimensions, possibly not contiguous."""
    dtype = [np.float64, np.float32, np.int64, np.int8, np.bool_, np.complex128, object][fdp.ConsumeIntInRange(0, 6)]
    vals = [fdp.ConsumeFloat() if fdp.ConsumeIntInRange(0, 3) == 0 else fdp.ConsumeRegularFloat() for _ in range(n)]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        a = np.asarray(vals).astype(dtype)
    shape = fdp.ConsumeIntInRange(0, 4)
    if shape == 1 and n % 2 == 0:
        a = a.reshape(2, n // 2)
    elif shape == 2:
        a = a[None, :]
    elif shape == 3:
        a = np.repeat(a, 2)[::2]  # strided
    elif shape == 4 and n:
        a = a.reshape(1, 1, n)
    return a


def mutated(fdp, doc):
    """doc with one element somewhere replaced by a fuzzed value, removed, or a key added."""
    doc = copy.deepcopy(doc)
    node, key = None, None
    cur = doc
    for _ in range(fdp.ConsumeIntInRange(1, 6)):
        if isinstance(cur, dict) and cur:
            k = sorted(cur)[fdp.ConsumeIntInRange(0, len(cur) - 1)]
        elif isinstance(cur, list) and cur:
            k = fdp.ConsumeIntInRange(0, len(cur) - 1)
        else:
            break
        node, key, cur = cur, k, cur[k]
    if node is None:
        return doc
    op = fdp.ConsumeIntInRange(0, 2)
    if op == 0 or isinstance(node, list):
        node[key] = value(fdp)
    elif op == 1:
        del node[key]
    else:
        node[fdp.ConsumeUnicodeNoSurrogates(8)] = value(fdp)
    return doc


def data_ok(d):
    d = np.asarray(d, dtype=float)
    if d.shape != DATA.shape or not np.all(np.isfinite(d)):
        return False
    return bool(np.all(d[:N_MAIN] >= 0) and all(d[i] >= 0 for i in POISSON_AUX))


def fit_data(fdp):
    data = DATA.copy()
    for _ in range(fdp.ConsumeIntInRange(0, 3)):
        data[fdp.ConsumeIntInRange(0, data.size - 1)] = (fdp.ConsumeFloat() if fdp.ConsumeBool()
                                                         else fdp.ConsumeFloatInRange(-5.0, 500.0))
    as_list = fdp.ConsumeBool()
    arg = data.tolist() if as_list else data
    if data_ok(data):
        try:
            r = hfcore.infer.mle.fit(arg, MODEL)  # good data: refused by no check
        except hfcore.exceptions.FailedMinimization:
            return  # extreme counts may not converge; that is not the conversions' business
        except hfcore.exceptions.HFCoreError:
            # A likelihood that is not finite at the start, said as such, is right for values near the largest
            # double (a normal aux datum of 1e308 squares to inf); for any other good data it is a bug (data
            # below 1e-308 once made logpdf NaN: hf_n_log_ratio).
            if np.all(np.abs(data) < 1e12):
                raise
            return
        assert np.asarray(r).shape == (MODEL.config.npars,)
        return
    try:
        hfcore.infer.mle.fit(arg, MODEL)
    except hfcore.exceptions.InvalidPdfData as e:
        assert str(e).startswith("data"), e  # "data[i]: ..." or the reader's "data: element [i] is NaN"
        return
    raise AssertionError(f"fit accepted bad data {data.tolist()}")


def test_one_input(raw):
    fdp = atheris.FuzzedDataProvider(raw)
    mode = fdp.ConsumeIntInRange(0, 3)
    if mode == 3:
        fit_data(fdp)  # its own checks: good data must pass, bad data must raise InvalidPdfData
        return
    try:
        if mode == 0:
            npars, ndata = MODEL.config.npars, DATA.size
            pars = (array(fdp, npars + fdp.ConsumeIntInRange(-1, 1)) if fdp.ConsumeBool()
                    else [value(fdp) for _ in range(npars)])
            data = (array(fdp, ndata + fdp.ConsumeIntInRange(-1, 1)) if fdp.ConsumeBool()
                    else [value(fdp) for _ in range(ndata)])
            out = MODEL.logpdf(pars, data)
            assert isinstance(out, np.ndarray) and out.ndim == 1, out
        elif mode == 1:
            ws = hfcore.Workspace(mutated(fdp, BASE))
            m = ws.model()
            ws.data(m)
        else:
            spec = {"channels": BASE["channels"], "parameters": BASE["measurements"][0]["config"]["parameters"]}
            hfcore.Model(mutated(fdp, spec), poi_name="mu")
    except ALLOWED:
        pass


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
