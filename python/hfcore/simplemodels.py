"""Small models for examples and tests, as ``pyhf.simplemodels`` (same specs, so the same numbers)."""

from __future__ import annotations

from .pdf import Model

__all__ = ["correlated_background", "uncorrelated_background"]


def correlated_background(signal, bkg, bkg_up, bkg_down, batch_size=None, validate=True, **config_kwargs):
    """One channel: a signal scaled by ``mu`` and a background with a correlated shape uncertainty
    (histosys ``correlated_bkg_uncertainty`` between ``bkg_down`` and ``bkg_up``)."""
    spec = {
        "channels": [
            {
                "name": "single_channel",
                "samples": [
                    {"name": "signal", "data": signal,
                     "modifiers": [{"name": "mu", "type": "normfactor", "data": None}]},
                    {"name": "background", "data": bkg,
                     "modifiers": [{"name": "correlated_bkg_uncertainty", "type": "histosys",
                                    "data": {"hi_data": bkg_up, "lo_data": bkg_down}}]},
                ],
            }
        ]
    }
    return Model(spec, batch_size=batch_size, validate=validate, **config_kwargs)


def uncorrelated_background(signal, bkg, bkg_uncertainty, batch_size=None, validate=True, **config_kwargs):
    """One channel: a signal scaled by ``mu`` and a background with independent per-bin uncertainties
    (shapesys ``uncorr_bkguncrt`` with the absolute uncertainties ``bkg_uncertainty``)."""
    spec = {
        "channels": [
            {
                "name": "singlechannel",
                "samples": [
                    {"name": "signal", "data": signal,
                     "modifiers": [{"name": "mu", "type": "normfactor", "data": None}]},
                    {"name": "background", "data": bkg,
                     "modifiers": [{"name": "uncorr_bkguncrt", "type": "shapesys", "data": bkg_uncertainty}]},
                ],
            }
        ]
    }
    return Model(spec, batch_size=batch_size, validate=validate, **config_kwargs)
