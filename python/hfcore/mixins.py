"""pyhf's ``mixins``: the summary of a spec's channels that workspaces and model configs share."""

from __future__ import annotations


class _ChannelSummaryMixin:
    """``channels`` (sorted), ``samples``, ``modifiers`` ((name, type) pairs), ``channel_nbins`` and
    ``channel_slices`` of a list of channels; made directly as pyhf's (``_ChannelSummaryMixin(channels=[...])``)
    or filled by a subclass (``_summarize``). Workspace and model.config inherit it, so a caller patching these
    properties here (pyhf's tests do) sees both follow."""

    def __init__(self, *args, channels=None, **kwargs):
        super().__init__(*args, **kwargs)
        if channels is not None:
            self._summarize(channels)

    def _summarize(self, channels):
        names, samples, mods, nbins = [], set(), set(), {}
        for channel in channels:
            names.append(channel["name"])
            nbins[channel["name"]] = len(channel["samples"][0]["data"]) if channel.get("samples") else 0
            for sample in channel.get("samples", []):
                samples.add(sample["name"])
                for m in sample.get("modifiers", []):
                    mods.add((m["name"], m["type"]))
        self._channels = sorted(set(names))
        self._samples = sorted(samples)
        self._modifiers = sorted(mods)
        self._set_channel_bins({c: nbins[c] for c in self._channels})

    def _set_channel_bins(self, nbins):
        """``channel_nbins`` and the consecutive ``channel_slices`` of channels in this order."""
        self._channel_nbins = dict(nbins)
        self._channel_slices = {}
        begin = 0
        for c, n in self._channel_nbins.items():
            self._channel_slices[c] = slice(begin, begin + n)
            begin += n

    # Read-only views of the summary (class attributes, so that a caller can patch them here).
    channels = property(lambda self: self._channels)
    samples = property(lambda self: self._samples)
    modifiers = property(lambda self: self._modifiers)
    channel_nbins = property(lambda self: self._channel_nbins)
    channel_slices = property(lambda self: self._channel_slices)
