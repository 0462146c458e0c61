"""Workspace, workspace operations and patch sets against pyhf: the same documents and digests."""

import json

import numpy as np
import pytest

import hfcore

from conftest import ERJR, EXAMPLES, case, load, needs_shared, rel

pytestmark = needs_shared


@pytest.fixture(scope="module")
def spec():
    return case("2bin_2channel_coupledhistosys")[0]


def test_workspace_is_a_dict_like_pyhf(pyhf, spec):
    ws_h, ws_p = hfcore.Workspace(spec), pyhf.Workspace(spec)
    assert dict(ws_h) == dict(ws_p) and isinstance(ws_h, dict)
    assert json.dumps(ws_h, sort_keys=True) == json.dumps(ws_p, sort_keys=True)
    for attr in ("channels", "samples", "modifiers", "channel_nbins", "channel_slices", "measurement_names",
                 "observations", "version"):
        assert getattr(ws_h, attr) == getattr(ws_p, attr), attr
    assert ws_h.get_measurement() == ws_p.get_measurement()
    assert hfcore.utils.digest(ws_h) == pyhf.utils.digest(ws_p) == ws_h.digest()
    assert hfcore.utils.digest(ws_h, "md5") == pyhf.utils.digest(ws_p, "md5")
    assert ws_h == hfcore.Workspace(json.dumps(spec))


def test_workspace_from_a_path(tmp_path, spec):
    p = tmp_path / "ws.json"
    p.write_text(json.dumps(spec))
    assert hfcore.Workspace(p) == hfcore.Workspace(str(p)) == hfcore.Workspace(spec)


@pytest.mark.parametrize("op", [
    lambda m, w: w.prune(samples=["signal"]),
    lambda m, w: w.prune(channels=[w.channels[0]]),
    lambda m, w: w.prune(modifier_types=["histosys"]),
    lambda m, w: w.rename(channels={w.channels[0]: "renamed"}, samples={"signal": "sig"}),
    lambda m, w: w.rename(modifiers={w.modifiers[0][0]: "newname"}, measurements={w.measurement_names[0]: "m2"}),
    lambda m, w: m.Workspace.sorted(w),
    lambda m, w: m.Workspace.combine(w, w.rename(channels={c: c + "_2" for c in w.channels},
                                                 measurements={n: n for n in w.measurement_names}),
                                     join="outer"),
], ids=["prune-samples", "prune-channel", "prune-type", "rename", "rename-modifier", "sorted", "combine"])
def test_workspace_operations_match_pyhf(pyhf, spec, op):
    r_h = op(hfcore, hfcore.Workspace(spec))
    r_p = op(pyhf, pyhf.Workspace(spec))
    assert isinstance(r_h, hfcore.Workspace)
    assert hfcore.utils.digest(r_h) == pyhf.utils.digest(r_p)


def _combinable_pairs(w):
    """(right workspace, joins it combines with w under): disjoint, identical, and one sharing a channel with
    different content plus a measurement with an extra parameter config (merged by "outer")."""
    disjoint = w.rename(channels={c: c + "_2" for c in w.channels}, measurements={n: n + "_2" for n in w.measurement_names})
    changed = json.loads(json.dumps(disjoint))
    changed["channels"][0]["name"] = w.channels[0]
    changed["observations"][0]["name"] = w.channels[0]
    changed["channels"][0]["samples"][0]["data"] = [x + 1.0 for x in changed["channels"][0]["samples"][0]["data"]]
    changed["observations"][0]["data"] = [x + 1.0 for x in changed["observations"][0]["data"]]
    return [(disjoint, hfcore.Workspace.valid_joins), (w, ["outer", "left outer", "right outer"]),
            (hfcore.Workspace(changed), ["left outer", "right outer"])]


def test_combine_documents_match_engine(spec):
    """hfcore.Workspace.combine joins the documents in Python (pyhf's order); the engine's combine (hfcore
    combine) must give the same document wherever it can combine, with and without merged channels."""
    w = hfcore.Workspace(spec)
    for right, joins in _combinable_pairs(w):
        for join in joins:
            for merge in ([False, True] if join != "none" else [False]):
                python = hfcore.Workspace.combine(w, right, join=join, merge_channels=merge)
                engine = hfcore._core.Workspace.combine(w._checked(), right._checked(), join, merge)
                assert dict(python) == engine, (join, merge)


def test_combine_left_outer_of_an_invalid_document(spec):
    """pyhf combines the documents before it checks anything: the left outer join drops the right document's
    observation that names a channel it does not have."""
    w = hfcore.Workspace(spec)
    right = w.rename(channels={c: c + "_2" for c in w.channels}, measurements={n: n + "_2" for n in w.measurement_names})
    orphan = right["observations"][0]["name"]
    right["observations"][0]["name"] = w.channels[0]
    with pytest.raises(hfcore.exceptions.InvalidModel):
        hfcore.Workspace(right).model()
    combined = hfcore.Workspace.combine(w, right, join="left outer")
    assert combined.observations[w.channels[0]] == w.observations[w.channels[0]]
    assert combined.channels == sorted(w.channels + right.channels)
    # As in pyhf, what the combined document breaks (a channel left without observation) is reported when a model
    # is asked for.
    with pytest.raises(hfcore.exceptions.InvalidModel, match=orphan):
        combined.model()


def test_patchset_matches_pyhf(pyhf):
    ps_spec = load(EXAMPLES / "tests" / "test_scripts" / "example_patchset.json")
    bkg = load(EXAMPLES / "tests" / "test_scripts" / "example_bkgonly.json")
    ps_h, ps_p = hfcore.PatchSet(ps_spec), pyhf.PatchSet(ps_spec)
    assert len(ps_h) == len(ps_p) and ps_h.labels == ps_p.labels and ps_h.digests == ps_p.digests
    assert ps_h.description == ps_p.description and ps_h.references == ps_p.references
    for p_h, p_p in zip(ps_h, ps_p):
        assert p_h.name == p_p.name and p_h.values == p_p.values
        assert ps_h[p_h.name] is p_h and ps_h[list(p_h.values)] is p_h
        w_h, w_p = ps_h.apply(bkg, p_h.name), ps_p.apply(bkg, p_p.name)
        assert hfcore.utils.digest(w_h) == pyhf.utils.digest(w_p)
        # patches go into Workspace.model the pyhf way too
        m_h = hfcore.Workspace(bkg).model(patches=[p_h])
        m_p = pyhf.Workspace(bkg).model(patches=[p_p])
        data = pyhf.Workspace(bkg).data(m_p)
        assert rel(m_h.logpdf(m_p.config.suggested_init(), data), m_p.logpdf(m_p.config.suggested_init(), data)) < 1e-12


@pytest.mark.skipif(not ERJR.is_dir(), reason="eRJR data not found")
def test_erjr_patch_like_pyhf(pyhf):
    point = "ERJR_200p0_100p0"
    bkg, patch = load(ERJR / "BkgOnly.json"), load(ERJR / f"patch.{point}.json")
    m_h = hfcore.Workspace(bkg).model(patches=[patch])
    m_p = pyhf.Workspace(bkg).model(patches=[patch])
    assert m_h.config.par_names == m_p.config.par_names
    assert hfcore.Workspace(bkg).data(m_h) == pyhf.Workspace(bkg).data(m_p)
    with pytest.raises(hfcore.exceptions.InvalidModel):
        hfcore.Workspace(bkg).model()  # the POI mu_SIG exists only in the signal patches, as in pyhf
    assert hfcore.Workspace(bkg).model(poi_name=None).config.poi_index is None


def test_workspace_build_round_trip(spec):
    ws = hfcore.Workspace(spec)
    model = ws.model()
    data = ws.data(model)
    built = hfcore.Workspace.build(model, data)
    m2 = built.model()
    assert m2.config.par_names == model.config.par_names
    assert built.data(m2) == data
    pars = np.asarray(model.config.suggested_init())
    assert m2.logpdf(pars, data) == model.logpdf(pars, data)


def test_channel_summary_shared_by_workspace_and_model(spec):
    """pyhf's mixins._ChannelSummaryMixin: made from channels directly, and the base of Workspace and model.config."""
    mixin = hfcore.mixins._ChannelSummaryMixin(channels=spec["channels"])
    w = hfcore.Workspace(spec)
    config = w.model().config
    assert isinstance(w, hfcore.mixins._ChannelSummaryMixin) and isinstance(config, hfcore.mixins._ChannelSummaryMixin)
    for attr in ("channels", "samples", "modifiers", "channel_nbins", "channel_slices"):
        assert getattr(mixin, attr) == getattr(w, attr) == getattr(config, attr), attr
    assert mixin.channel_slices[mixin.channels[1]].start == mixin.channel_nbins[mixin.channels[0]]
