"""`hfcore-plot KIND RESULT.json -o FILE.(png|pdf|svg)`: the plots of hfcore.plot from the JSON the hfcore CLI
writes, for users of the command line and of C++ (installed with the package; needs its `plot` extra)."""

import argparse
import sys
import warnings

KINDS = {
    "brazil": "CLs versus the POI with the expected bands (hfcore upper-limit WS --scan LO,HI,N)",
    "contour": "exclusion contours of a signal grid (hfcore scan BKG PATCHSET|PATCHES)",
    "pulls": "pulls and constraints of the nuisance parameters (hfcore pulls WS)",
    "ranking": "impact of the nuisance parameters on the POI, pulls overlaid (hfcore ranking WS)",
    "yields": "stacked pre- or post-fit yields with data and ratio (hfcore yields WS [--postfit])",
    "corr": "correlation matrix, pruned (hfcore pulls WS --correlations, or hfcore fit WS --uncertainties)",
    "profile": "profile likelihood, 1-D curve or 2-D contours (hfcore profile WS --par ...)",
    "breakdown": "the POI's uncertainty split into groups of parameters (hfcore breakdown WS)",
    "pulls-toys": "mean and width of every parameter's pulls over toys (hfcore toys WS --mu-true ...)",
    "linearity": "mean fitted POI against the injected one (hfcore toys WS --mu-true A,B,...)",
}


def _pair(text, kind=float):
    try:
        a, b = (kind(x) for x in text.split(","))
        return a, b
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected two comma-separated values, got {text!r}") from None


def parser():
    common = argparse.ArgumentParser(add_help=False)
    g = common.add_argument_group("output and style")
    g.add_argument("-o", "--output", required=True, metavar="FILE",
                   help="FILE.png, .pdf or .svg (several pages: one multi-page pdf, or FILE_1.png, FILE_2.png, ...)")
    g.add_argument("--style", default="ATLAS", help="mplhep style: ATLAS (default), CMS, LHCb, ALICE, ROOT, matplotlib")
    g.add_argument("--experiment", help="experiment label above the plot (ATLAS, CMS, LHCb, ALICE)")
    g.add_argument("--text", help="text after the experiment label (e.g. Internal, Preliminary), or alone")
    g.add_argument("--lumi", type=float, help="integrated luminosity in fb^-1 for the label")
    g.add_argument("--com", type=float, help="centre-of-mass energy in TeV for the label (default 13 with --lumi)")
    g.add_argument("--dpi", type=int, default=200, help="resolution of png output (default 200)")
    g.add_argument("--figsize", type=_pair, metavar="W,H", help="figure size in inches")

    p = argparse.ArgumentParser(
        prog="hfcore-plot", description="Plots of hfcore's results, from the JSON the hfcore command writes.",
        epilog="Each KIND has its options: hfcore-plot KIND -h.")
    sub = p.add_subparsers(dest="kind", required=True, metavar="KIND")
    k = {name: sub.add_parser(name, parents=[common], help=text, description=text) for name, text in KINDS.items()}
    for name in KINDS:
        k[name].add_argument("result", metavar="RESULT.json", help="the JSON written by the hfcore command")

    k["brazil"].add_argument("--logy", action="store_true", help="CLs on a log scale")
    k["brazil"].add_argument("--level", type=float, help="CLs level (default: the one in the result, else 0.05)")
    k["brazil"].add_argument("--xlabel", help="x axis label (default: the POI's name)")

    c = k["contour"]
    c.add_argument("--pattern", help="read the coordinates from the patch names, e.g. 'ERJR_{m1}_{m2}' reads "
                   "ERJR_350p0_150p0 as (350, 150) ('p': decimal point); or a regex with two groups")
    c.add_argument("--axes", type=lambda t: _pair(t, int), default=(0, 1), metavar="I,J",
                   help="which two PatchSet values are x and y (default 0,1)")
    c.add_argument("--level", type=float, default=0.05, help="CLs level of the contours (default 0.05)")
    c.add_argument("--xlabel", help="x axis label (default: the PatchSet label or pattern field)")
    c.add_argument("--ylabel", help="y axis label")
    c.add_argument("--interpolation", choices=("linear", "cubic"), default="linear",
                   help="scipy griddata method between the points (default linear)")
    c.add_argument("--no-points", action="store_true", help="do not mark the signal points")
    c.add_argument("--annotate", action="store_true", help="write each point's observed CLs beside it")

    for name in ("pulls", "ranking"):
        k[name].add_argument("--include", action="append", metavar="REGEX", help="only parameters matching (repeatable)")
        k[name].add_argument("--exclude", action="append", metavar="REGEX", help="leave out parameters matching")
    k["pulls"].add_argument("--per-page", type=int, default=40, help="parameters per page (default 40)")
    k["ranking"].add_argument("--top", type=int, default=20, help="the N largest impacts (default 20; 0: all)")
    k["ranking"].add_argument("--per-page", type=int, help="parameters per page (default: all on one)")

    y = k["yields"]
    y.add_argument("--channel", action="append", help="channel to show (repeatable; default all)")
    y.add_argument("--binning", metavar="FILE", help="bin edges per channel in its observable, as `hfcore yields "
                   "--binning` reads them (or `hfcore xml2json --binning-output` writes them)")
    y.add_argument("--layout", choices=("auto", "panels", "summary"), default="auto",
                   help="one panel per channel, or every bin side by side (auto: panels up to 4 channels)")
    scale = y.add_mutually_exclusive_group()
    scale.add_argument("--logy", action="store_true", default=None, help="log y axis (default: from the range)")
    scale.add_argument("--liny", dest="logy", action="store_false", help="linear y axis")

    k["corr"].add_argument("--threshold", type=float, default=0.1,
                           help="show parameters with |rho| >= this with another one (default 0.1)")
    k["corr"].add_argument("--max-pars", type=int, default=40, help="at most this many, the most correlated (default 40)")

    k["pulls-toys"].add_argument("--poi-value", type=float, help="the injected value to show (default: the first)")
    k["pulls-toys"].add_argument("--include", action="append", metavar="REGEX", help="only parameters matching")
    k["pulls-toys"].add_argument("--exclude", action="append", metavar="REGEX", help="leave out parameters matching")

    k["profile"].add_argument("--show-nll", action="store_true", help="2-D: colour map of -2 Delta ln L")
    k["profile"].add_argument("--xlabel", help="x axis label")
    k["profile"].add_argument("--ylabel", help="y axis label")
    return p


def figures(args, plot):
    label = {"experiment": args.experiment, "text": args.text, "lumi": args.lumi, "com": args.com,
             "style": args.style}
    size = {"figsize": args.figsize} if args.figsize else {}
    if args.kind == "brazil":
        return [plot.brazil(args.result, logy=args.logy, level=args.level, xlabel=args.xlabel, **label, **size)]
    if args.kind == "contour":
        return [plot.contour(args.result, pattern=args.pattern, axes=args.axes, level=args.level, xlabel=args.xlabel,
                             ylabel=args.ylabel, show_points=not args.no_points, annotate=args.annotate,
                             interpolation=args.interpolation, **label, **size)]
    width = {"width": args.figsize[0]} if args.figsize else {}
    if args.kind == "pulls":
        return plot.pulls_pages(args.result, include=args.include, exclude=args.exclude, per_page=args.per_page,
                                **label, **width)
    if args.kind == "ranking":
        return plot.ranking_pages(args.result, top=args.top, per_page=args.per_page, include=args.include,
                                  exclude=args.exclude, **label, **width)
    if args.kind == "yields":
        return [plot.yields(args.result, channels=args.channel, layout=args.layout, logy=args.logy,
                            binning=args.binning, **label, **size)]
    if args.kind == "breakdown":
        return [plot.breakdown(args.result, **label, **size)]
    if args.kind == "pulls-toys":
        return [plot.pulls_toys(args.result, poi_value=args.poi_value, include=args.include, exclude=args.exclude,
                                **label, **width)]
    if args.kind == "linearity":
        return [plot.linearity(args.result, **label, **size)]
    if args.kind == "corr":
        return [plot.corr(args.result, threshold=args.threshold, max_pars=args.max_pars, **label, **size)]
    return [plot.profile(args.result, show_nll=args.show_nll, xlabel=args.xlabel, ylabel=args.ylabel, **label,
                         **size)]


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        from . import plot
    except ImportError as e:
        print(f"hfcore-plot: error: {e}", file=sys.stderr)
        return 2

    def warn(message, category, filename, lineno, file=None, line=None):
        print(f"hfcore-plot: warning: {message}", file=sys.stderr)

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always", UserWarning)
            warnings.showwarning = warn
            plot._style.output_paths(args.output, 1)  # a bad extension fails before any work
            written = plot.save(figures(args, plot), args.output, dpi=args.dpi)
    except plot.PlotInputError as e:
        print(f"hfcore-plot: error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"hfcore-plot: error: {args.output}: {e.strerror or e}", file=sys.stderr)
        return 2
    if len(written) > 1:
        print("hfcore-plot: wrote " + ", ".join(written), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
