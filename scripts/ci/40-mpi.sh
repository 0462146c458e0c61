#!/usr/bin/env bash
# MPI (issue 17): the same hfcore binary under mpirun (2 and 3 ranks, oversubscribed on 2 cores) gives the
# one-process outputs byte for byte: a scan of eRJR patches with a failing patch among them, 2000 toys per
# hypothesis (CLs bit for bit), a toy study, a toy-based upper limit, a ranking and a profile scan; and --threads changes
# none of them either. A rank killed mid-run loses nothing that reached rank 0: --resume finishes it.
set -euo pipefail
root=$PWD
hfcore=$root/build/release/bin/hfcore
shared=${HFCORE_SHARED_DIR:-$root/../shared}
erjr=$shared/data/atlas-3l-erjr
"$hfcore" --version
"$hfcore" --version | grep -q "(compiled in)" || { echo "40-mpi: MPI is not compiled in"; exit 1; }
mpirun=(mpirun --oversubscribe --allow-run-as-root --bind-to none)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t0=$SECONDS

same() {  # same FILE_A FILE_B WHAT
    if cmp -s "$1" "$2"; then echo "40-mpi: $3: identical"; else
        echo "40-mpi: $3 differs:"; diff "$1" "$2" | head -20; exit 1; fi
}

# Scan: the 66 eRJR patches (with upper limits) and one that cannot apply (its point is an error; the others finish).
patches=$(ls "$erjr"/patch.ERJR_*.json)
echo '[{"op": "replace", "path": "/channels/99/samples/0/data", "value": [1.0]}]' > "$tmp/patch.broken.json"
scan() { "$@" scan "$erjr/BkgOnly.json" $patches "$tmp/patch.broken.json" --upper-limit --threads 1 --output-file "$out" || [ $? -eq 1 ]; }
out=$tmp/scan1.json scan "$hfcore"
grep -q '"error"' "$tmp/scan1.json" || { echo "40-mpi: the broken patch is not reported"; exit 1; }
for np in 2 3; do
    out=$tmp/scan$np.json scan "${mpirun[@]}" -np $np "$hfcore"
    same "$tmp/scan1.json" "$tmp/scan$np.json" "scan, $np ranks vs 1 process"
done

# Toys: 2000 per hypothesis in blocks of 250 (16 blocks dealt to threads and ranks).
ex=$root/examples/workspaces/example.json
toys=(cls "$ex" --calctype toybased --ntoys 2000 --toy-batch 250 --seed 7)
"$hfcore" "${toys[@]}" --threads 1 --output-file "$tmp/cls1.json"
"$hfcore" "${toys[@]}" --threads 2 --output-file "$tmp/cls1t2.json"
same "$tmp/cls1.json" "$tmp/cls1t2.json" "toys, 2 threads vs 1"
for np in 2 3; do
    "${mpirun[@]}" -np $np "$hfcore" "${toys[@]}" --threads 1 --output-file "$tmp/cls$np.json"
    same "$tmp/cls1.json" "$tmp/cls$np.json" "toys (CLs), $np ranks vs 1 process"
done
# A rank killed outright (SIGKILL to rank 1 while eRJR toys run in 32 blocks): the job ends, nothing of the
# blocks that reached rank 0 is lost (its journal holds them), and --resume in one process finishes the run with
# the CLs of an uninterrupted one, bit for bit.
# (The first patch by a glob: `ls | head -1` under pipefail fails when head exits before ls has written all.)
erjr_patches=("$erjr"/patch.ERJR_*.json)
kt=(cls "$erjr/BkgOnly.json" -p "${erjr_patches[0]}" --calctype toybased --ntoys 1600 --toy-batch 100 --seed 3
    --threads 1)
"$hfcore" "${kt[@]}" --output-file "$tmp/kill1.json"
"${mpirun[@]}" -np 2 "$hfcore" "${kt[@]}" --output-file "$tmp/kill2.json" > "$tmp/kill2.log" 2>&1 &
mpirun_pid=$!
rank1=""
for _ in $(seq 200); do  # find rank 1 by its environment, then let it compute a while
    for pid in $(pgrep -f "kill2.json" || true); do
        tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=1" && rank1=$pid
    done
    [ -n "$rank1" ] && break
    sleep 0.05
done
[ -n "$rank1" ] || { echo "40-mpi: rank 1 of the toy run not found"; cat "$tmp/kill2.log"; exit 1; }
journal=$tmp/kill2.json.journal.jsonl
journal_lines() { local n; n=$(grep -c . "$journal" 2>/dev/null) || true; echo "${n:-0}"; }
for _ in $(seq 600); do [ "$(journal_lines)" -ge 4 ] && break; sleep 0.05; done
kill -KILL "$rank1"
if wait "$mpirun_pid"; then echo "40-mpi: the toy run finished although rank 1 was killed"; exit 1; fi
[ ! -e "$tmp/kill2.json" ] || { echo "40-mpi: a killed run left an output file"; exit 1; }
kept=$(journal_lines)
[ "$kept" -ge 4 ] || { echo "40-mpi: the journal of the killed run holds $kept lines"; exit 1; }
"$hfcore" "${kt[@]}" --output-file "$tmp/kill2.json" --resume
same "$tmp/kill1.json" "$tmp/kill2.json" "toys with rank 1 killed after $kept journal lines, then --resume, vs 1 process"
# A toy study (hfcore toys): three injected values of 600 toys in blocks of 150 (12 blocks), the summary and the
# per-toy .npz both the one-process files byte for byte.
ts=(toys "$ex" --mu-true 0.5,1,2 --ntoys 600 --toy-batch 150 --seed 11)
"$hfcore" "${ts[@]}" --threads 1 --output-file "$tmp/ts1.json" --per-toy "$tmp/ts1.npz"
for np in 2 3; do
    "${mpirun[@]}" -np $np "$hfcore" "${ts[@]}" --threads 1 --output-file "$tmp/ts$np.json" --per-toy "$tmp/ts$np.npz"
    same "$tmp/ts1.json" "$tmp/ts$np.json" "toy study summary, $np ranks vs 1 process"
    same "$tmp/ts1.npz" "$tmp/ts$np.npz" "toy study per-toy .npz, $np ranks vs 1 process"
done
ul=(upper-limit "$ex" --calctype toybased --ntoys 300 --toy-batch 100 --scan 0,4,5)
"$hfcore" "${ul[@]}" --threads 1 --output-file "$tmp/ul1.json"
"${mpirun[@]}" -np 3 "$hfcore" "${ul[@]}" --threads 1 --output-file "$tmp/ul3.json"
same "$tmp/ul1.json" "$tmp/ul3.json" "toy-based upper limit, 3 ranks vs 1 process"
# Ranking and a profile scan: their held fits in blocks dealt to threads and ranks (eRJR with one signal).
first=("$erjr"/patch.ERJR_*.json)
sig=("$erjr/BkgOnly.json" -p "${first[0]}")
for cmd in "ranking" "profile --par mu_SIG --range 0,3,41"; do
    name=${cmd%% *}
    "$hfcore" $cmd "${sig[@]}" --threads 1 --output-file "$tmp/$name.1.json"
    "$hfcore" $cmd "${sig[@]}" --threads 2 --output-file "$tmp/$name.t2.json"
    same "$tmp/$name.1.json" "$tmp/$name.t2.json" "$name, 2 threads vs 1"
    for np in 2 3; do
        "${mpirun[@]}" -np $np "$hfcore" $cmd "${sig[@]}" --threads 1 --output-file "$tmp/$name.$np.json"
        same "$tmp/$name.1.json" "$tmp/$name.$np.json" "$name, $np ranks vs 1 process"
    done
done
# Python: hfcore.infer.scan under mpirun (2 ranks) returns the one-process scan on rank 0 (tests/python/
# test_scan_mpi.py), in stage 30's venv (its pip install of this clone); HFCORE_REQUIRE_MPI=1 turns the test's
# skip where MPI is missing into a failure, and a skip of any other cause fails below.
venv=$root/build/python-venv
[ -x "$venv/bin/python" ] || { echo "40-mpi: $venv not found: stage 30 (Python) makes it"; exit 1; }
(cd "$root/tests/python" && HFCORE_REQUIRE_MPI=1 "$venv/bin/python" -m pytest -q -p no:cacheprovider -rs \
    test_scan_mpi.py) | tee "$tmp/pytest-mpi.log"
if grep -Eq "[0-9]+ skipped" "$tmp/pytest-mpi.log"; then echo "40-mpi: the Python MPI test was skipped"; exit 1; fi
echo "40-mpi: took $((SECONDS - t0)) s"
