#!/usr/bin/env bash
# Scaling of the distributed runs (issue 17): toys per second and scan points per second with 1 and 2 MPI ranks
# (--threads 1 each, so ranks are the only parallelism), and 1 process with 2 threads for comparison.
#   bench/mpi_scaling.sh [build/release/bin/hfcore] [NTOYS_PER_HYPOTHESIS=5000] [RANKS="1 2"]
# TOY_MODEL=erjr fits the toys of eRJR with its first signal patch (about 20x the work of a toy of the example
# workspace, so mpirun's start-up of ~0.4 s weighs less); TOY_BATCH sets the toys per block (default 500).
# Prints a Markdown table; the load average before and after is printed too (measure on a quiet machine).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
hfcore=${1:-$root/build/release/bin/hfcore}
ntoys=${2:-5000}
ranks=${3:-1 2}
shared=${HFCORE_SHARED_DIR:-$root/../shared}
erjr=$shared/data/atlas-3l-erjr
ex=$root/examples/workspaces/example.json
toy_batch=${TOY_BATCH:-500}
if [ "${TOY_MODEL:-example}" = erjr ]; then
    first=("$erjr"/patch.ERJR_*.json)
    toy_model=("$erjr/BkgOnly.json" -p "${first[0]}")
else
    toy_model=("$ex")
fi
mpirun=(mpirun --allow-run-as-root --oversubscribe --bind-to core)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; $("$hfcore" --version | tail -1)"
npatches=$(ls "$erjr"/patch.ERJR_*.json | wc -l)
echo "| layout | toys/s ($((2 * ntoys)) toys, ${TOY_MODEL:-example}, blocks of $toy_batch) | scan points/s ($npatches eRJR patches + upper limits) |"
echo "|---|---|---|"
run() {  # run LABEL LAUNCHER... -- extra hfcore args
    local label=$1; shift
    local t0 t1 t2
    t0=$(now)
    "$@" "$hfcore" cls "${toy_model[@]}" --calctype toybased --ntoys "$ntoys" --toy-batch "$toy_batch" --threads 1 \
        --output-file "$tmp/t.json"
    t1=$(now)
    "$@" "$hfcore" scan "$erjr/BkgOnly.json" "$erjr"/patch.ERJR_*.json --upper-limit --threads 1 \
        --output-file "$tmp/s.json" 2>/dev/null
    t2=$(now)
    python3 -c "print('| $label | %.0f | %.1f |' % ($((2 * ntoys)) / ($t1 - $t0), $npatches / ($t2 - $t1)))"
}
for n in $ranks; do
    if [ "$n" = 1 ]; then run "1 process, 1 thread"; else run "$n ranks x 1 thread" "${mpirun[@]}" -np "$n"; fi
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
