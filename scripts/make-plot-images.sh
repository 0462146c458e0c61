#!/usr/bin/env bash
# Makes the images of docs/plots.md (docs/images/*.png) with the commands docs/plots.md shows (a test checks
# that it shows every hfcore and hfcore-plot line below): the example workspace for the fit diagnostics and the
# limit, the ATLAS 3L eRJR likelihoods (../shared/data/atlas-3l-erjr) for the exclusion contour.
#
#   scripts/make-plot-images.sh            needs the hfcore command (build/release/bin/hfcore, or $HFCORE) and
#                                          hfcore-plot (pip install ".[plot]", or $HFCORE_PLOT)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cli=${HFCORE:-$root/build/release/bin/hfcore}
plotter=${HFCORE_PLOT:-hfcore-plot}
shared=${HFCORE_SHARED_DIR:-$root/../shared}
images=$root/docs/images
case $cli in /*) ;; */*) cli=$PWD/$cli ;; esac  # the commands run in a scratch folder
case $plotter in /*) ;; */*) plotter=$PWD/$plotter ;; esac
hfcore() { echo "+ hfcore $*" >&2; "$cli" "$@"; }
hfcore-plot() { echo "+ hfcore-plot $*" >&2; $plotter "$@" --dpi 100; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
ln -s "$root/examples/workspaces/example.json" example.json
ln -s "$shared/data/atlas-3l-erjr"/*.json .

hfcore upper-limit example.json --scan 0,5,41 --output-file upper_limit.json
hfcore-plot brazil upper_limit.json -o brazil.png

hfcore scan BkgOnly.json patch.ERJR_*.json --output-file erjr_scan.json
hfcore-plot contour erjr_scan.json -o contour.png --pattern 'ERJR_{m1}_{m2}' --xlabel '$m(\tilde{\chi}^{\pm}_{1}/\tilde{\chi}^{0}_{2})$ [GeV]' --ylabel '$m(\tilde{\chi}^{0}_{1})$ [GeV]'

hfcore pulls example.json --correlations --output-file pulls.json
hfcore-plot pulls pulls.json -o pulls.png
hfcore-plot corr pulls.json -o corr.png

hfcore ranking example.json --output-file ranking.json
hfcore-plot ranking ranking.json -o ranking.png --top 10

hfcore breakdown example.json --output-file breakdown.json
hfcore-plot breakdown breakdown.json -o breakdown.png

hfcore yields example.json --postfit --output-file yields_postfit.json
hfcore-plot yields yields_postfit.json -o yields_postfit.png
hfcore yields example.json --output-file yields_prefit.json
hfcore-plot yields yields_prefit.json -o yields_prefit_summary.png --layout summary

hfcore profile example.json --par mu --range 0,4,41 --output-file profile_mu.json
hfcore-plot profile profile_mu.json -o profile_mu.png
hfcore profile example.json --par mu --range 0,4,21 --par ttbar_generator --range -3,3,21 --output-file profile_2d.json
hfcore-plot profile profile_2d.json -o profile_2d.png

mkdir -p "$images"
cp ./*.png "$images/"
echo "wrote $(ls ./*.png | wc -l) images to $images" >&2
