"""Plots of hfcore's results, made the way analysis notes carry them (matplotlib with mplhep's style):

    from hfcore import plot
    fig = plot.brazil("upper_limit.json")            # hfcore upper-limit WS --scan 0,5,21 --output-file ...
    fig = plot.contour("scan.json", pattern="ERJR_{m1}_{m2}")   # hfcore scan BKG PATCHES --output-file ...
    fig = plot.pulls("pulls.json"); plot.ranking("ranking.json", top=20); plot.yields("yields.json")
    fig = plot.corr("pulls.json", threshold=0.2); plot.profile("profile.json")
    fig = plot.breakdown("breakdown.json")           # hfcore breakdown WS --output-file ...
    fig = plot.pulls_toys("toys.json"); plot.linearity("toys.json")   # hfcore toys WS --mu-true 0,1,2 ...
    plot.save(fig, "brazil.pdf")

Every function takes the JSON the CLI writes (a path or the parsed dict; hfcore.infer.diagnostics returns the
same dicts) and returns a matplotlib Figure (pulls_pages / ranking_pages: one per page). The command
``hfcore-plot KIND RESULT.json -o FILE.(png|pdf|svg)`` makes the same plots without Python.

Needs the extra: ``pip install "hfcore[plot]"`` (matplotlib, mplhep, scipy).
"""

try:
    import matplotlib  # noqa: F401
    import mplhep  # noqa: F401
    import scipy  # noqa: F401
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError(f"hfcore.plot needs matplotlib, mplhep and scipy ({e.name} is missing): "
                      "pip install 'hfcore[plot]'") from e

from . import _style  # noqa: E402
from ._io import PlotInputError, describe  # noqa: E402
from ._style import STYLES, save, style  # noqa: E402
from .brazil import brazil  # noqa: E402
from .breakdown import breakdown  # noqa: E402
from .contour import contour  # noqa: E402
from .corr import corr  # noqa: E402
from .profile import profile  # noqa: E402
from .pulls import pulls, pulls_pages  # noqa: E402
from .ranking import ranking, ranking_pages  # noqa: E402
from .toys import linearity, pulls_toys  # noqa: E402
from .yields import yields  # noqa: E402

__all__ = ["PlotInputError", "STYLES", "brazil", "breakdown", "contour", "corr", "describe", "linearity", "profile", "pulls",
           "pulls_pages", "pulls_toys", "ranking", "ranking_pages", "save", "style", "yields"]
