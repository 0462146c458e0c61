#!/usr/bin/env bash
# One prepared run on a machine with an NVIDIA GPU: build libhfcore, the cuda and cpu plugins and the test
# programs, run every suite with CUDA cases (test_cuda, test_conformance, the CUDA toys and CLs of test_infer,
# test_threads, the cuda cases of test_model's BoundLikelihoodTest and of test_grad) and any benchmarks, and print a results
# table. The run fails (exit 1) when no GPU is visible, when the shared reference data are missing, and when a
# suite fails or skips a test (CudaWithoutDevice.*, the checks of the no-device path, excepted).
#
# The GPU machine has nvcc, CMake and g++ but no network and none of hfcore's Debian dependencies: prepare them
# here first with tests/gpu/prepare-device-deps.sh (fills .devicedeps/ with .deb files), carry .devicedeps
# along, and this script unpacks them into a private prefix (nothing is installed into /). Without
# .devicedeps/ it builds against whatever the machine has.
#
# With this workplace's device tool: run(command="bash tests/gpu/run-on-device.sh", carry=[".devicedeps"],
# timeout_s=600); a second call on the still-warm machine reuses the unpacked packages and the build.
#
# The reference data (../shared: validation cases, eRJR, the random-workspace generator) are needed by most CUDA
# tests (without them they skip, and a skip fails this run). The device tool copies the checkout and a shared/
# folder inside it, not ../shared, and a symbolic link travels only as a link: copy the data in first
# (`cp -r ../shared shared`, 6 MiB, ignored by git: never commit it) and name it in carry (carry=["shared",
# ".devicedeps"]), or set HFCORE_SHARED_DIR. The script looks in HFCORE_SHARED_DIR, then ./shared, then
# ../shared, and fails when none holds the data.
#
# Usage (repo root):  bash tests/gpu/run-on-device.sh [results-dir]
#   results-dir: defaults to $OUT (the device tool's folder), else build/gpu-results. At most 8 files land there.
# Environment:
#   HFCORE_GPU_ARCHS     CUDA architectures to build (default 90-real: the H200's own; the shipped default
#                        list 75-real;80-real;90-real;90-virtual takes four times as long)
#   HFCORE_GPU_JOBS      parallel build jobs (default: nproc)
#   HFCORE_GPU_BUILD     build folder (default /tmp/hfcore-gpu-build)
#   HFCORE_GPU_PREFIX    where .devicedeps is unpacked (default /tmp/hfcore-deps)
#   HFCORE_GPU_DEADLINE  seconds after which remaining steps are skipped (default 520)
#   HFCORE_GPU_CONFORMANCE_FILTER  gtest filter for the conformance suite (default: all)
#   HFCORE_GPU_STEP_TIMEOUT  seconds allowed for each build step (default 300)
#   HFCORE_GPU_FRESH=1   delete the build folder first (default: reuse it, e.g. on a second call to a warm machine)
#   HFCORE_GPU_ALL_TIMEOUT  seconds for building everything else (benchmarks, other suites; default 240)
#   HFCORE_GPU_BENCH_FILTER  --benchmark_filter for hfcore_micro (default: all)
#   HFCORE_SHARED_DIR    the reference data folder (default: ./shared, else ../shared)
set -u -o pipefail

START=$(date +%s)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RES=${1:-${OUT:-$ROOT/build/gpu-results}}
BUILD=${HFCORE_GPU_BUILD:-/tmp/hfcore-gpu-build}
PREFIX=${HFCORE_GPU_PREFIX:-/tmp/hfcore-deps}
DEPS=$ROOT/.devicedeps
JOBS=${HFCORE_GPU_JOBS:-$(nproc 2>/dev/null || echo 4)}
ARCHS=${HFCORE_GPU_ARCHS:-90-real}
DEADLINE=${HFCORE_GPU_DEADLINE:-520}
CONF_FILTER=${HFCORE_GPU_CONFORMANCE_FILTER:-*}
STEP_LIMIT=${HFCORE_GPU_STEP_TIMEOUT:-300}
ARCH_TRIPLET=x86_64-linux-gnu
mkdir -p "$RES"
SUMMARY=$RES/summary.txt
BUILDLOG=$RES/build.log
: >"$BUILDLOG"

ROWS=()
FAILS=0
# row NAME STATUS SECONDS NOTE
row() { ROWS+=("$(printf '%-26s %-7s %5ss  %s' "$1" "$2" "$3" "$4")"); [ "$2" = FAIL ] && FAILS=$((FAILS + 1)); return 0; }
elapsed() { echo $(($(date +%s) - START)); }
left() { echo $((DEADLINE - $(elapsed))); }
section() { printf '\n===== %s (t=%ss)\n' "$1" "$(elapsed)" >>"$BUILDLOG"; echo "== $1 (t=$(elapsed)s)"; }

print_table() {
  {
    echo
    echo "hfcore GPU run: $(date -u '+%Y-%m-%d %H:%M UTC'), $(elapsed) s in all"
    printf '%-26s %-7s %6s  %s\n' step status time note
    printf '%s\n' "${ROWS[@]}"
  } | tee "$SUMMARY"
}

# gtest_summary LOG -> "P passed, F failed, S skipped"
gtest_summary() {
  local log=$1 p f s
  p=$(grep -oE '^\[  PASSED  \] [0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
  f=$(grep -oE '^\[  FAILED  \] [0-9]+ test' "$log" | grep -oE '[0-9]+' | tail -1)
  s=$(grep -oE '^\[  SKIPPED \] [0-9]+ test' "$log" | grep -oE '[0-9]+' | tail -1)
  echo "${p:-0} passed, ${f:-0} failed, ${s:-0} skipped"
}

# ---------------------------------------------------------------- 1. the machine
section "machine"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv 2>&1 || echo "nvidia-smi: none"
  NVCC=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null || true)
  echo "nvcc: ${NVCC:-none}"; [ -n "$NVCC" ] && "$NVCC" --version | tail -2
  echo "cmake: $(cmake --version | head -1)"; echo "c++: $(c++ --version | head -1)"
  echo "ninja: $(command -v ninja || echo none)  make: $(command -v make || echo none)"
  grep -E '^(PRETTY_NAME)=' /etc/os-release
  echo "cores: $JOBS"
} >"$RES/env.log" 2>&1
NVCC=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null || true)
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
cat "$RES/env.log"
if [ -z "$NVCC" ]; then
  row machine FAIL 0 "no nvcc found"; print_table; exit 1
fi
if [ -z "$GPU" ] || ! nvidia-smi -L >/dev/null 2>&1; then
  row machine FAIL 0 "no GPU visible (nvidia-smi -L fails or lists none): the CUDA tests would only skip"
  print_table; exit 1
fi
PATH=$(dirname "$NVCC"):$PATH
export PATH
row machine ok "$(elapsed)" "${GPU:-no GPU visible}; $(basename "$NVCC") $("$NVCC" --version | grep -oE 'release [0-9.]+' | head -1)"

# ---------------------------------------------------------------- the reference data
SHARED=""
for d in "${HFCORE_SHARED_DIR:-}" "$ROOT/shared" "$ROOT/../shared"; do
  if [ -n "$d" ] && [ -d "$d/validation" ] && [ -f "$d/tools/random_workspace.py" ]; then SHARED=$(cd "$d" && pwd); break; fi
done
if [ -z "$SHARED" ]; then
  row "reference data" FAIL 0 "no shared data (HFCORE_SHARED_DIR, ./shared, ../shared): most CUDA tests would skip"
  echo "run-on-device.sh: copy the reference data into the checkout before the run (cp -r ../shared shared)" \
       "and carry it, or set HFCORE_SHARED_DIR" >&2
  print_table; exit 1
fi
export HFCORE_SHARED_DIR=$SHARED
command -v python3 >/dev/null || { row "reference data" FAIL 0 "no python3 (the random-workspace generator needs it)"; print_table; exit 1; }
row "reference data" ok 0 "$SHARED"

# ---------------------------------------------------------------- 2. dependencies
section "dependencies"
EXTRA_CMAKE=()
if ls "$DEPS"/*.deb >/dev/null 2>&1; then
  t0=$(date +%s)
  stamp=$(ls -l "$DEPS"/*.deb | md5sum | cut -d' ' -f1)
  ok=1
  if [ "$(cat "$PREFIX/.stamp" 2>/dev/null)" = "$stamp" ]; then
    debs=()  # unpacked by an earlier run on this machine: keep it (and the build's timestamps)
  else
    rm -rf "$PREFIX" && mkdir -p "$PREFIX"
    debs=("$DEPS"/*.deb)
  fi
  for f in "${debs[@]}"; do
    if command -v dpkg-deb >/dev/null; then
      dpkg-deb -x "$f" "$PREFIX" >>"$BUILDLOG" 2>&1 || ok=0
    else  # no dpkg: a .deb is an ar archive holding data.tar.*
      member=$(ar t "$f" | grep '^data\.tar')
      case $member in *.xz) z=-J ;; *.zst) z=--zstd ;; *.gz) z=-z ;; *) z= ;; esac
      ar p "$f" "$member" | tar -x $z -f - -C "$PREFIX" >>"$BUILDLOG" 2>&1 || ok=0
    fi
  done
  LIB=$PREFIX/usr/lib/$ARCH_TRIPLET
  INC=$PREFIX/usr/include
  # What Debian's alternatives system would have linked: the pthread OpenBLAS as the generic names.
  OB=$LIB/openblas-pthread
  for n in libopenblas.so libopenblas.so.0 libblas.so libblas.so.3 liblapack.so liblapack.so.3; do
    [ -e "$OB/$n" ] && ln -sf "openblas-pthread/$n" "$LIB/$n"
  done
  for h in cblas.h f77blas.h openblas_config.h; do
    [ -e "$INC/$ARCH_TRIPLET/openblas-pthread/$h" ] && ln -sf "openblas-pthread/$h" "$INC/$ARCH_TRIPLET/$h"
  done
  # Debian's OpenBLASConfig.cmake names /usr absolutely: a relocated copy.
  if [ -f "$OB/cmake/openblas/OpenBLASConfig.cmake" ]; then
    mkdir -p "$LIB/cmake/openblas"
    sed "s#/usr/#$PREFIX/usr/#g" "$OB/cmake/openblas/OpenBLASConfig.cmake" >"$LIB/cmake/openblas/OpenBLASConfig.cmake"
    cp "$OB/cmake/openblas/OpenBLASConfigVersion.cmake" "$LIB/cmake/openblas/" 2>/dev/null
  fi
  # Libraries the machine lacks, for the programs run below (build trees find the rest by their RUNPATH).
  mkdir -p "$PREFIX/runlib"
  for so in "$LIB"/*.so.* "$OB"/*.so.*; do
    [ -e "$so" ] || continue
    base=$(basename "$so")
    ldconfig -p 2>/dev/null | grep -q " $base " || ln -sf "$so" "$PREFIX/runlib/$base"
  done
  [ $ok = 1 ] && echo "$stamp" >"$PREFIX/.stamp"
  export LD_LIBRARY_PATH=$PREFIX/runlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  EXTRA_CMAKE+=(-DCMAKE_PREFIX_PATH="$PREFIX/usr" -DBOOST_ROOT="$PREFIX/usr" -DOPENSSL_ROOT_DIR="$PREFIX/usr"
                "-DCMAKE_CXX_FLAGS=-isystem $INC/$ARCH_TRIPLET")
  n=$(ls "$DEPS"/*.deb | wc -l)
  [ $ok = 1 ] && row dependencies ok $(($(date +%s) - t0)) "$n packages from .devicedeps into $PREFIX" \
              || row dependencies FAIL $(($(date +%s) - t0)) "unpacking failed (build.log)"
else
  row dependencies skip 0 "no .devicedeps/*.deb: using the machine's own packages"
fi

# ---------------------------------------------------------------- 3. configure
section "configure"
GEN=()
if command -v ninja >/dev/null; then GEN=(-G Ninja); KEEP=(-k 0); else KEEP=(-k); fi
BENCH=OFF
[ -f "$ROOT/bench/CMakeLists.txt" ] && BENCH=ON
configure() {
  cmake -S "$ROOT" -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DHFCORE_BUILD_CUDA=ON \
    -DHFCORE_BUILD_OPENCL=OFF -DHFCORE_BUILD_BENCH="$1" -DCMAKE_CUDA_COMPILER="$NVCC" \
    -DCMAKE_CUDA_ARCHITECTURES="$ARCHS" -DCMAKE_POLICY_VERSION_MINIMUM=3.5 "${EXTRA_CMAKE[@]}" >>"$BUILDLOG" 2>&1
}
t0=$(date +%s)
[ "${HFCORE_GPU_FRESH:-0}" = 1 ] && rm -rf "$BUILD"
if configure $BENCH; then
  row configure ok $(($(date +%s) - t0)) "archs $ARCHS, bench $BENCH"
elif [ $BENCH = ON ] && { rm -rf "$BUILD"; configure OFF; }; then
  BENCH=OFF
  row configure ok $(($(date +%s) - t0)) "archs $ARCHS; bench OFF (configuring it failed: build.log)"
else
  row configure FAIL $(($(date +%s) - t0)) "see build.log"
  tail -40 "$BUILDLOG"; print_table; exit 1
fi

# ---------------------------------------------------------------- 4. build
build() {  # build TARGET TIMEOUT
  local lim=$2
  [ "$(left)" -lt "$lim" ] && lim=$(left)
  [ "$lim" -le 5 ] && return 124
  timeout "$lim" cmake --build "$BUILD" -j "$JOBS" --target "$1" >>"$BUILDLOG" 2>&1
}
for t in hfcore-backend-cuda test_cuda test_conformance test_infer test_threads test_model test_grad; do
  section "build $t"
  if [ $t = test_conformance ] && ! ls "$ROOT"/tests/conformance/*.cpp >/dev/null 2>&1; then
    row "build $t" skip 0 "no tests/conformance"; continue
  fi
  t0=$(date +%s)
  if build $t "$STEP_LIMIT"; then row "build $t" ok $(($(date +%s) - t0)) ""
  else
    rc=$?
    row "build $t" FAIL $(($(date +%s) - t0)) "$([ $rc = 124 ] && echo 'out of time' || echo 'errors: build.log')"
    grep -E 'error|Error' "$BUILDLOG" | tail -15
    [ $t = hfcore-backend-cuda ] && { print_table; exit 1; }
  fi
done
if [ $BENCH = ON ]; then
  section "build all (benchmarks)"
  t0=$(date +%s)
  lim=${HFCORE_GPU_ALL_TIMEOUT:-240}; [ "$(left)" -lt $lim ] && lim=$(left)
  if [ "$lim" -gt 30 ] && timeout "$lim" cmake --build "$BUILD" -j "$JOBS" -- "${KEEP[@]}" >>"$BUILDLOG" 2>&1; then
    row "build all" ok $(($(date +%s) - t0)) "benchmarks included"
  else
    row "build all" FAIL $(($(date +%s) - t0)) "some targets failed or ran out of time (build.log)"
  fi
fi
[ -f "$BUILD/lib/libhfcore-backend-cuda.so" ] && echo "plugin: $(ls -la "$BUILD/lib/libhfcore-backend-cuda.so")"

# ---------------------------------------------------------------- 5. tests
export HFCORE_PLUGIN_PATH=$BUILD/lib
run_suite() {  # run_suite NAME LOG TIMEOUT [gtest args]   (the suite's output is appended to LOG)
  local name=$1 out=$2 lim=$3 log=$BUILD/$1.log
  shift 3
  local bin=$BUILD/bin/$name
  # A suite that did not run is a failure of this run, not a skip.
  if [ ! -x "$bin" ]; then row "$name" FAIL 0 "not built"; return; fi
  [ "$(left)" -lt "$lim" ] && lim=$(left)
  if [ "$lim" -le 5 ]; then row "$name" FAIL 0 "no time left (HFCORE_GPU_DEADLINE)"; return; fi
  section "$name"
  local t0 rc
  t0=$(date +%s)
  timeout "$lim" "$bin" --gtest_color=no "$@" >"$log" 2>&1
  rc=$?
  { echo "===== $name $*"; cat "$log"; } >>"$out"
  local s n_run bad_skips
  s=$(gtest_summary "$log")
  n_run=$(grep -oE '^\[==========\] [0-9]+ tests? from .* ran\.' "$log" | grep -oE '[0-9]+' | head -1)
  # The skipped tests, as gtest lists them at the end ("[  SKIPPED ] Suite.Name"): with a GPU only the checks of
  # the no-device path may skip.
  bad_skips=$(grep -E '^\[  SKIPPED \] [A-Za-z]' "$log" | sed -E 's/ \([0-9]+ ms\)$//' | grep -v -E 'CudaWithoutDevice\.' | sort -u)
  if [ $rc = 124 ]; then row "$name" FAIL $(($(date +%s) - t0)) "timed out after ${lim}s; $s"
  elif [ $rc != 0 ]; then row "$name" FAIL $(($(date +%s) - t0)) "exit $rc; $s"
  elif [ "${n_run:-0}" = 0 ]; then row "$name" FAIL $(($(date +%s) - t0)) "no test ran (filter matches nothing?)"
  elif [ -n "$bad_skips" ]; then
    row "$name" FAIL $(($(date +%s) - t0)) "$s: $(grep -c . <<<"$bad_skips") skipped (a skip is not a pass)"
    echo "$bad_skips" | head -20
  else row "$name" ok $(($(date +%s) - t0)) "$s"; fi
  # why tests skipped (one line per distinct reason), which failed, and the first failure messages
  grep -A1 -E ': Skipped$' "$log" | grep -v -E ': Skipped$|^--$' | sort | uniq -c | sort -rn | head -5
  grep -E '^\[  FAILED  \] [A-Za-z]' "$log" | grep -v ' ms)$' | sort -u | head -30
  grep -A8 -E 'Failure$' "$log" | head -80
}
: >"$RES/test_cuda.log"; : >"$RES/test_conformance.log"; : >"$RES/suites.log"
run_suite test_cuda "$RES/test_cuda.log" 240 --gtest_output=xml:"$RES/test_cuda.xml"
run_suite test_conformance "$RES/test_conformance.log" 240 --gtest_filter="$CONF_FILTER"
# The suites whose other cases run in stage 20 and whose CUDA cases only run here: toys and CLs on cuda against
# cpu, the thread-safety contract on the cuda backend, the bound likelihood's cuda cases. (One log: at most 8 files
# come back from the device tool.)
run_suite test_infer "$RES/suites.log" 240 --gtest_filter='Backends.*'
run_suite test_threads "$RES/suites.log" 240
run_suite test_model "$RES/suites.log" 120 --gtest_filter='*BoundLikelihoodTest*/cuda*'
# The cuda plugin's reverse-mode entries (FusedLikelihood::input_gradient, expected_data_vjp) against the host tape,
# and the Tier 1 route on cuda: compiled everywhere, run only here.
run_suite test_grad "$RES/suites.log" 180 --gtest_filter='*Cuda*:*cuda*'

# ---------------------------------------------------------------- 6. benchmarks (bench/, when built)
# hfcore_micro: Google Benchmark over every usable backend (synthetic model: ../shared does not travel here);
# hfcore_timer: driven over stdin, cuda against cpu on a synthetic model, and the toys of the 250-parameter one;
# anything else named *bench*: as is.
bench_run() {  # bench_run LABEL TIMEOUT command...
  local label=$1 lim=$2 t0
  shift 2
  [ "$(left)" -lt "$lim" ] && lim=$(left)
  if [ "$lim" -le 10 ]; then row "$label" skip 0 "no time left"; return; fi
  t0=$(date +%s)
  echo "----- $label: $*" >>"$RES/bench.log"
  if timeout "$lim" "$@" >>"$RES/bench.log" 2>&1; then row "$label" ok $(($(date +%s) - t0)) "bench.log"
  else row "$label" FAIL $(($(date +%s) - t0)) "exit $? (bench.log)"; fi
}
timer_requests() {
  local bins=${HFCORE_GPU_TIMER_BINS:-2000} nuis=${HFCORE_GPU_TIMER_NUISANCE:-200}
  for be in cuda/64b cuda/32b cpu/64b; do
    id=${be/\//_}
    echo "{\"cmd\": \"load\", \"id\": \"$id\", \"synthetic\": [$bins, $nuis], \"backend\": \"${be%/*}\", \"precision\": \"${be#*/}\"}"
    for task in logpdf_device grad; do
      echo "{\"cmd\": \"time\", \"id\": \"$id\", \"task\": \"$task\", \"min_time\": 0.2, \"max_reps\": 200}"
    done
    k=10000; [ "${be%/*}" = cpu ] && k=1000  # the cpu takes seconds per 10^4 points of this model
    echo "{\"cmd\": \"time\", \"id\": \"$id\", \"task\": \"batch\", \"k\": $k, \"min_time\": 0.3, \"min_reps\": 1, \"max_reps\": 20}"
  done
  echo '{"cmd": "quit"}'
}
# The issue's GPU target: toys (b + s+b, qtilde) of the 250-parameter synthetic model, 10^4 + 10^4 then 10^5 + 10^5,
# on cuda at both precisions, two workers with blocks of 10^4 toys each; the cpu at 10^3 + 10^3 for scale (blocks
# of 500, so that both workers have one).
toy_requests() {
  for be in cuda/64b cuda/32b cpu/64b; do
    id=toys_${be/\//_}
    echo "{\"cmd\": \"load\", \"id\": \"$id\", \"synthetic\": [50, 249], \"backend\": \"${be%/*}\", \"precision\": \"${be#*/}\"}"
    counts="10000 100000" block=10000
    [ "${be%/*}" = cpu ] && counts=1000 block=500
    for n in $counts; do
      echo "{\"cmd\": \"time\", \"id\": \"$id\", \"task\": \"toys\", \"ntoys\": $n, \"toy_batch\": $block, \"threads\": 2, \"seed\": 1, \"min_reps\": 1, \"max_reps\": 1, \"min_time\": 0, \"warmup\": false}"
    done
  done
  echo '{"cmd": "quit"}'
}
: >"$RES/bench.log"
FOUND_BENCH=0
if [ -x "$BUILD/bin/hfcore_micro" ]; then
  FOUND_BENCH=1
  section "hfcore_micro"
  bench_run hfcore_micro 150 "$BUILD/bin/hfcore_micro" --benchmark_min_time=0.05 \
    --benchmark_filter="${HFCORE_GPU_BENCH_FILTER:-.}"
fi
if [ -x "$BUILD/bin/hfcore_timer" ]; then
  FOUND_BENCH=1
  section "hfcore_timer"
  timer_requests >"$BUILD/timer-requests.jsonl"
  bench_run hfcore_timer 120 sh -c "\"$BUILD/bin/hfcore_timer\" <\"$BUILD/timer-requests.jsonl\""
  toy_requests >"$BUILD/toy-requests.jsonl"
  bench_run hfcore_timer_toys 200 sh -c "\"$BUILD/bin/hfcore_timer\" <\"$BUILD/toy-requests.jsonl\""
fi
for b in $(find "$BUILD/bin" -maxdepth 1 -type f -executable -name '*bench*' 2>/dev/null | sort); do
  FOUND_BENCH=1
  bench_run "$(basename "$b")" 120 "$b"
done
if [ $FOUND_BENCH = 0 ]; then row benchmarks skip 0 "no bench programs (bench/ absent or not built)"
else
  # A short digest on stdout (bench.log has everything): Google Benchmark rows of the cuda backend and
  # each hfcore_timer answer as backend, task, median seconds.
  grep -E '^[A-Za-z_]+/.*/cuda/(32|64)b ' "$RES/bench.log" | cut -c1-110 | head -30
  if [ -s "$BUILD/timer-requests.jsonl" ] && command -v python3 >/dev/null; then
    python3 - "$RES/bench.log" "hfcore_timer:" "$BUILD/timer-requests.jsonl" "hfcore_timer_toys:" \
      "$BUILD/toy-requests.jsonl" <<'PY'
import json, os, sys
log = open(sys.argv[1]).read()
for marker, requests in zip(sys.argv[2::2], sys.argv[3::2]):
    if not os.path.exists(requests) or "----- " + marker not in log:
        continue
    reqs = [json.loads(l) for l in open(requests) if l.strip()]
    lines = log.split("----- " + marker, 1)[1].split("\n----- ", 1)[0].splitlines()
    answers = [json.loads(l) for l in lines if l.startswith("{")]
    for q, a in zip(reqs, answers):
        what = q["id"] + " " + (q["cmd"] if q["cmd"] != "time" else q["task"] + (" k=%d" % q["k"] if "k" in q else "")
                                + (" n=%d+%d" % (q["ntoys"], q["ntoys"]) if "ntoys" in q else ""))
        print("timer %-34s %s" % (what, ("median %.3g s" % a["median"]) if "median" in a else
              ("load %.2f s" % a["seconds"]) if "seconds" in a else a.get("error", "ok")))
PY
  fi
fi

print_table
exit $((FAILS > 0))
