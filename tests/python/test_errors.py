"""Every exception path: pyhf's class names (checked against pyhf itself where pyhf raises), messages that
keep the JSON path, and ValueError for bad numpy input, never a crash."""

import copy

import numpy as np
import pytest

import hfcore

from conftest import EXAMPLES, case, load, needs_shared

pytestmark = needs_shared


@pytest.fixture(scope="module")
def spec():
    return case("2bin_2channel")[0]


def raised(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return e
    return None


# (what, a function of (module, spec) that should raise, the class name both raise)
SAME_AS_PYHF = [
    ("schema: no version", lambda m, s: m.Workspace({k: v for k, v in s.items() if k != "version"}),
     "InvalidSpecification"),
    ("schema: data not a list", lambda m, s: m.Workspace(
        dict(s, channels=[dict(s["channels"][0], samples=[dict(s["channels"][0]["samples"][0], data=3)])]
             + s["channels"][1:])), "InvalidSpecification"),
    ("schema: unknown modifier type", lambda m, s: m.Workspace(_with_modifier(s, {"name": "x", "type": "bogus", "data": None})),
     "InvalidSpecification"),
    ("measurement name", lambda m, s: m.Workspace(s).model(measurement_name="nope"), "InvalidMeasurement"),
    ("measurement index", lambda m, s: m.Workspace(s).model(measurement_index=7), "InvalidMeasurement"),
    ("POI not in the model", lambda m, s: m.Workspace(s).model(poi_name="nope"), "InvalidModel"),
    ("sample length", lambda m, s: m.Workspace(_with_sample_data(s, [1.0, 2.0, 3.0])).model(), "InvalidModel"),
    ("hypotest without POI", lambda m, s: m.infer.hypotest(1.0, _data(m, s, None), m.Workspace(s).model(poi_name=None)),
     "UnspecifiedPOI"),
    ("fixed_poi_fit without POI", lambda m, s: m.infer.mle.fixed_poi_fit(
        1.0, _data(m, s, None), m.Workspace(s).model(poi_name=None)), "UnspecifiedPOI"),
    ("hypotest with the POI fixed", lambda m, s: _fixed_poi_hypotest(m, s), "InvalidModel"),
    ("test statistic", lambda m, s: m.infer.hypotest(1.0, _data(m, s), m.Workspace(s).model(), test_stat="bad"),
     "InvalidTestStatistic"),
    ("pars length", lambda m, s: _model(m, s).logpdf([1.0], _data(m, s)), "InvalidPdfParameters"),
    ("data length", lambda m, s: _model(m, s).logpdf(_model(m, s).config.suggested_init(), [1.0, 2.0]), "InvalidPdfData"),
    ("init outside bounds", lambda m, s: m.infer.mle.fit(_data(m, s), _model(m, s), init_pars=[100.0] + _model(m, s).config.suggested_init()[1:]),
     "ValueError"),
    ("prune unknown modifier", lambda m, s: m.Workspace(s).prune(modifiers=["nope"]), "InvalidWorkspaceOperation"),
    ("rename unknown channel", lambda m, s: m.Workspace(s).rename(channels={"nope": "x"}), "InvalidWorkspaceOperation"),
    ("combine with itself", lambda m, s: m.Workspace.combine(m.Workspace(s), m.Workspace(s)), "InvalidWorkspaceOperation"),
    ("combine join", lambda m, s: m.Workspace.combine(m.Workspace(s), m.Workspace(s), join="sideways"), "ValueError"),
    ("unsupported workspace option", lambda m, s: m.Workspace(s, bogus=1), "Unsupported"),
    ("unsupported model option", lambda m, s: m.Workspace(s).model(bogus=1), "Unsupported"),
]


def _with_modifier(s, mod):
    s = copy.deepcopy(s)
    s["channels"][0]["samples"][0]["modifiers"].append(mod)
    return s


def _with_sample_data(s, data):
    s = copy.deepcopy(s)
    s["channels"][0]["samples"][0]["data"] = data
    return s


def _model(m, s):
    return m.Workspace(s).model()


def _data(m, s, poi="default"):
    ws = m.Workspace(s)
    return ws.data(ws.model() if poi == "default" else ws.model(poi_name=poi))


def _fixed_poi_hypotest(m, s):
    model = _model(m, s)
    fixed = model.config.suggested_fixed()
    fixed[model.config.poi_index] = True
    return m.infer.hypotest(1.0, _data(m, s), model, fixed_params=fixed)


@pytest.mark.parametrize("what,fn,name", SAME_AS_PYHF, ids=[x[0] for x in SAME_AS_PYHF])
def test_exception_names_match_pyhf(pyhf, spec, what, fn, name):
    e_h = raised(lambda: fn(hfcore, spec))
    e_p = raised(lambda: fn(pyhf, spec))
    assert e_p is not None and e_h is not None, (what, e_p, e_h)
    assert name in [c.__name__ for c in type(e_p).__mro__], (what, type(e_p))
    assert name in [c.__name__ for c in type(e_h).__mro__], (what, type(e_h), e_h)
    if name != "ValueError":
        assert isinstance(e_h, getattr(hfcore.exceptions, name))
    assert str(e_h)


def test_unknown_interpolation_code(pyhf, spec):
    """pyhf 0.7.6 fails an assert here; hfcore raises pyhf's exception for the case, InvalidInterpCode."""
    settings = {"normsys": {"interpcode": "code9"}, "histosys": {"interpcode": "code0"}}
    with pytest.raises(AssertionError):
        pyhf.Workspace(spec).model(modifier_settings=settings)
    with pytest.raises(hfcore.exceptions.InvalidInterpCode, match="code9"):
        hfcore.Workspace(spec).model(modifier_settings=settings)
    with pytest.raises(hfcore.exceptions.Unsupported, match="shapesys"):
        hfcore.Workspace(spec).model(modifier_settings={"shapesys": {}})


def test_custom_modifier_and_clipping_are_refused_by_name(spec):
    """What the engine cannot evaluate is refused with its name, never run without it: a modifier type of
    modifier_set outside HistFactory's (pyhf's custom modifiers), and pyhf's clip_sample_data / clip_bin_data."""
    custom = copy.deepcopy(spec)
    custom["channels"][0]["samples"][0]["modifiers"].append({"name": "k", "type": "customfunc", "data": None})
    modifier_set = dict(hfcore.modifiers.histfactory_set)
    modifier_set["customfunc"] = (object, object)
    ws = dict(custom)
    model_spec = {"channels": ws["channels"], "parameters": ws["measurements"][0]["config"]["parameters"]}
    with pytest.raises(hfcore.exceptions.Unsupported, match="custom modifier 'customfunc'"):
        hfcore.Model(model_spec, modifier_set=modifier_set, validate=False, poi_name="SigXsecOverSM")
    with pytest.raises(hfcore.exceptions.Unsupported, match="clip_sample_data=0.0"):
        hfcore.Workspace(spec).model(clip_sample_data=0.0)
    with pytest.raises(hfcore.exceptions.Unsupported, match="clip_bin_data=0.0"):
        hfcore.Workspace(spec).model(clip_bin_data=0.0)


def test_messages_keep_the_json_path(spec):
    bad = copy.deepcopy(spec)
    bad["channels"][1]["samples"][0]["data"] = "three"
    with pytest.raises(hfcore.exceptions.InvalidSpecification) as e:
        hfcore.Workspace(bad)
    assert "channels[1].samples[0].data" in str(e.value)
    assert e.value.path == "channels[1].samples[0].data"


@pytest.mark.parametrize("bad,why", [
    (lambda p: np.asarray(p)[::-1][::-1][::1].repeat(2)[::2], "not C-contiguous"),
    (lambda p: np.asarray(p, dtype=complex), "dtype"),
    (lambda p: np.asarray([str(x) for x in p]), "dtype"),
    (lambda p: np.asarray(p, dtype=bool), "dtype"),
    (lambda p: np.where(np.arange(len(p)) == 0, np.nan, p), "NaN"),
    (lambda p: np.where(np.arange(len(p)) == 0, np.inf, p), "infinite"),
    (lambda p: np.asarray(p)[None, None, :], "1-D or 2-D"),
    (lambda p: np.float64(1.0), "scalar"),
    (lambda p: np.zeros((0, len(p))), "no rows"),
    (lambda p: ["a"] * len(p), "expected numbers"),
    (lambda p: object(), "expected numbers"),
], ids=["strided", "complex", "strings", "bool", "nan", "inf", "3d", "scalar", "empty", "str-list", "object"])
def test_bad_numpy_pars_are_value_errors(spec, bad, why):
    model = _model(hfcore, spec)
    data = _data(hfcore, spec)
    with pytest.raises(ValueError) as e:
        model.logpdf(bad(model.config.suggested_init()), data)
    assert isinstance(e.value, hfcore.exceptions.InvalidPdfParameters)
    assert why in str(e.value) and str(e.value).startswith("pars")


def test_bad_numpy_data_and_accepted_conversions(spec):
    model = _model(hfcore, spec)
    pars = np.asarray(model.config.suggested_init())
    data = np.asarray(_data(hfcore, spec))
    ref = model.logpdf(pars, data)
    # integer and float32 arrays, lists and tuples are read as float64
    assert model.logpdf(pars, np.round(data).astype(np.int64)).shape == (1,)
    assert model.logpdf(pars.astype(np.float32), data).shape == (1,)
    assert model.logpdf(tuple(pars), list(data)) == ref
    strided = np.repeat(data, 2)[::2]
    with pytest.raises(hfcore.exceptions.InvalidPdfData, match="not C-contiguous"):
        model.logpdf(pars, strided)
    with pytest.raises(hfcore.exceptions.InvalidPdfData, match="NaN"):
        model.logpdf(pars, np.where(np.arange(data.size) == 1, np.nan, data))
    with pytest.raises(hfcore.exceptions.InvalidPdfData, match="rows"):
        model.logpdf(np.vstack([pars] * 3), np.vstack([data] * 2))
    with pytest.raises(hfcore.exceptions.InvalidPdfParameters, match="length"):
        model.expected_data(pars[:-1])
    with pytest.raises(hfcore.exceptions.InvalidPdfData):
        hfcore.infer.mle.fit(data[:-1], model)
    with pytest.raises(ValueError, match="par_bounds"):
        hfcore.infer.mle.fit(data, model, par_bounds=[(0, 1)])
    with pytest.raises(ValueError, match="fixed_params"):
        hfcore.infer.mle.fit(data, model, fixed_params=[False])


# Every Python entry point that takes observed data, called with one bad element (hfcore/observed_data.hpp: the
# check the C++ API and the CLI make as well). pyhf fits a negative count without a word; hfcore refuses it.
DATA_ENTRY_POINTS = [
    ("mle.fit", lambda m, d, model: m.infer.mle.fit(d, model)),
    ("mle.fixed_poi_fit", lambda m, d, model: m.infer.mle.fixed_poi_fit(1.0, d, model)),
    ("qmu_tilde", lambda m, d, model: m.infer.test_statistics.qmu_tilde(
        1.0, d, model, model.config.suggested_init(), model.config.suggested_bounds(),
        model.config.suggested_fixed())),
    ("hypotest", lambda m, d, model: m.infer.hypotest(1.0, d, model)),
    ("hypotest toybased", lambda m, d, model: m.infer.hypotest(1.0, d, model, calctype="toybased", ntoys=10)),
    ("upper_limit scan", lambda m, d, model: m.infer.intervals.upper_limits.upper_limit(d, model, scan=[0.5, 1.0])),
    ("upper_limit toms748", lambda m, d, model: m.infer.intervals.upper_limits.upper_limit(d, model)),
    ("pulls", lambda m, d, model: m.infer.diagnostics.pulls(d, model)),
    ("ranking", lambda m, d, model: m.infer.diagnostics.ranking(d, model)),
    ("yields", lambda m, d, model: m.infer.diagnostics.yields(d, model)),
    ("profile_scan", lambda m, d, model: m.infer.diagnostics.profile_scan(d, model, {"mu": [0.5, 1.0, 1.5]})),
    ("minos", lambda m, d, model: m.infer.diagnostics.minos(d, model, ["mu"])),
    ("goodness_of_fit", lambda m, d, model: m.infer.diagnostics.goodness_of_fit(d, model)),
]


# 1: a main count; 5: the aux datum of a shapesys (Poisson) constraint, a count as well.
@pytest.mark.parametrize("element", [1, 5], ids=["main", "poisson-aux"])
@pytest.mark.parametrize("what,fn", DATA_ENTRY_POINTS, ids=[x[0] for x in DATA_ENTRY_POINTS])
def test_negative_counts_are_refused_by_every_entry_point(spec, what, fn, element):
    model = _model(hfcore, spec)
    data = np.asarray(_data(hfcore, spec), dtype=float)
    assert model.config.nmaindata == 4 and data.size == 8  # 2 channels x 2 bins, then 4 shapesys aux data
    data[element] = -1.0
    with pytest.raises(hfcore.exceptions.InvalidPdfData) as e:
        fn(hfcore, data, model)
    assert isinstance(e.value, ValueError)
    assert str(e.value).startswith(f"data[{element}]: -1.0 ("), str(e.value)
    assert "is negative" in str(e.value) and e.value.path == f"data[{element}]"


def test_failed_minimization(spec):
    model = _model(hfcore, spec)
    data = _data(hfcore, spec)
    with pytest.raises(hfcore.exceptions.FailedMinimization) as e:
        hfcore.infer.mle.fit(data, model, tolerance=1e-300)  # a remaining decrease no fit can certify
    assert e.value.result.success is False and e.value.result.x.shape == (model.config.npars,)
    assert str(e.value)


def test_json_patch_conflict(spec):
    with pytest.raises(hfcore.exceptions.JsonPatchConflict, match="channels"):
        hfcore.Workspace(spec).model(patches=[[{"op": "remove", "path": "/channels/9"}]])
    with pytest.raises(hfcore.exceptions.InvalidSpecification):
        hfcore.Workspace(spec).model(patches=[[{"op": "frobnicate", "path": "/channels/0"}]])


def test_patchset_errors(pyhf):
    ps_spec = load(EXAMPLES / "tests" / "test_scripts" / "example_patchset.json")
    bkg = load(EXAMPLES / "tests" / "test_scripts" / "example_bkgonly.json")
    for mod in (hfcore, pyhf):
        ps = mod.PatchSet(ps_spec)
        with pytest.raises(mod.exceptions.InvalidPatchLookup):
            ps["nope"]
        with pytest.raises(mod.exceptions.InvalidPatchLookup):
            ps[(9999, 1)]
        other = copy.deepcopy(bkg)
        other["observations"][0]["data"][0] += 1
        with pytest.raises(mod.exceptions.PatchSetVerificationError):
            ps.apply(other, ps.patches[0].name)
        dup = copy.deepcopy(ps_spec)
        dup["patches"].append(copy.deepcopy(dup["patches"][0]))
        with pytest.raises(mod.exceptions.InvalidPatchSet):
            mod.PatchSet(dup)
        wrong = copy.deepcopy(ps_spec)
        wrong["patches"][0]["metadata"]["values"] = [1, 2]  # one label
        with pytest.raises(mod.exceptions.InvalidPatchSet):
            mod.PatchSet(wrong)
        noschema = copy.deepcopy(ps_spec)
        del noschema["metadata"]
        with pytest.raises(mod.exceptions.InvalidSpecification):
            mod.PatchSet(noschema)


def test_backend_errors():
    with pytest.raises(hfcore.exceptions.InvalidBackend, match="nope"):
        hfcore.set_backend("nope")
    with pytest.raises(hfcore.exceptions.InvalidBackend, match="jax"):
        hfcore.set_backend("jax")
    with pytest.raises(hfcore.exceptions.Unsupported):
        hfcore.set_backend("cpu", precision="16b")
    with pytest.raises(hfcore.exceptions.InvalidOptimizer):
        hfcore.set_backend("numpy", custom_optimizer="nonsense")
    cuda = [b for b in hfcore.backends() if b["name"] == "cuda"]
    if cuda and not cuda[0]["usable"]:
        with pytest.raises(hfcore.exceptions.InvalidBackend) as e:
            hfcore.set_backend("cuda")
        assert str(e.value)  # says why (no driver, no device)
    # a failed set_backend leaves the previous backend in place
    assert hfcore.get_backend()[0].name == "numpy"  # the host tensorlib has pyhf's name


def test_semantic_errors_are_deferred_like_pyhf(spec):
    """pyhf checks the schema when a Workspace is made and the model's rules when a model is built."""
    ws = hfcore.Workspace(_with_sample_data(spec, [1.0, 2.0, 3.0]))
    assert ws["channels"]
    with pytest.raises(hfcore.exceptions.InvalidModel, match="channels"):
        ws.model()
    with pytest.raises(hfcore.exceptions.InvalidModel):
        ws.prune(samples=["x"])
