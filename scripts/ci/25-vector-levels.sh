#!/usr/bin/env bash
# The cpu plugin and libhfcore's host kernels at every vector level this machine has (avx512, avx2, baseline:
# hfcore/plugin/vector_level.hpp, used by plugins/cpu/simd.cpp and core/numerics/lanes.cpp; both capped by
# HFCORE_CPU_SIMD). Stage 20 ran every suite at the machine's own level; here, at each level below it:
#   1. the plugin and libhfcore must say they took that level ('hfcore backends'), never keep the CPU's silently;
#   2. the suites with cpu cases run again at that level (gtest filter on the cpu cases), with the host kernels'
#      own test (Lanes*: the same additions in the same order as a plain loop, so the same bits at every level);
#   3. the same toys (fixed seed) give the same CLs, and a fit the same minimum: bit for bit between avx512 and
#      avx2 (one path, the same lanes and FMAs); at baseline (no FMA, so the last bits of the likelihood differ
#      and a fit stops a little elsewhere) within 1e-7 of max(|x|, 1).
set -euo pipefail
build=build/release
cli=$build/bin/hfcore
shared="${HFCORE_SHARED_DIR:-$PWD/../shared}"
out=$build/vector-levels
rm -rf "$out" && mkdir -p "$out"

level_of() {  # the level the cpu plugin reports under HFCORE_CPU_SIMD=$1 ('' for the CPU's own)
    HFCORE_CPU_SIMD="$1" "$cli" backends 2>&1 | grep -Eo 'vector level: [a-z0-9]+' | head -n 1 | awk '{print $3}'
}
core_level_of() {  # the level libhfcore's host kernels report under HFCORE_CPU_SIMD=$1
    HFCORE_CPU_SIMD="$1" "$cli" backends 2>&1 | sed -n 's/^host kernels (libhfcore): vector level: \([a-z0-9]*\).*/\1/p'
}
top=$(level_of "")
case "$top" in
    avx512) levels=(avx512 avx2 baseline) ;;
    avx2) levels=(avx2 baseline) ;;
    baseline) levels=(baseline) ;;
    *) echo "25-vector-levels: 'hfcore backends' names no vector level for the cpu plugin:" >&2
       "$cli" backends >&2; exit 1 ;;
esac
echo "25-vector-levels: this CPU runs at $top; levels tested: ${levels[*]}"

# A level above the CPU's, or a name that is no level, must be refused, not run at another level.
if [ "$top" != avx512 ]; then
    if HFCORE_CPU_SIMD=avx512 "$cli" backends 2>&1 | grep -Eq '^cpu +usable'; then
        echo "25-vector-levels: HFCORE_CPU_SIMD=avx512 was accepted on a CPU without AVX-512" >&2; exit 1
    fi
fi
if HFCORE_CPU_SIMD=sse9 "$cli" backends 2>&1 | grep -Eq '^cpu +usable'; then
    echo "25-vector-levels: HFCORE_CPU_SIMD=sse9 was accepted" >&2; exit 1
fi

toys() {  # level, name, workspace [options]: the toys' CLs as JSON
    local level=$1 name=$2
    shift 2
    HFCORE_CPU_SIMD="$level" "$cli" cls "$@" --backend cpu --calctype toybased --ntoys 300 --seed 7 \
        --output-file "$out/$name-$level.json" >/dev/null
}

for level in "${levels[@]}"; do
    got=$(level_of "$level")
    if [ "$got" != "$level" ]; then
        echo "25-vector-levels: HFCORE_CPU_SIMD=$level but the cpu plugin runs at '${got:-nothing}'" >&2; exit 1
    fi
    got=$(core_level_of "$level")
    if [ "$got" != "$level" ]; then
        echo "25-vector-levels: HFCORE_CPU_SIMD=$level but libhfcore's host kernels run at '${got:-nothing}'" >&2
        exit 1
    fi
    t0=$SECONDS
    if [ "$level" != "$top" ]; then
        for suite in test_model test_threads; do
            HFCORE_CPU_SIMD=$level "$build/bin/$suite" --gtest_brief=1 --gtest_filter='*cpu*:*Cpu*' \
                || { echo "25-vector-levels: $suite failed at $level" >&2; exit 1; }
        done
        HFCORE_CPU_SIMD=$level "$build/bin/test_infer" --gtest_brief=1 \
            --gtest_filter='*Toys*cpu*:*Backends*cpu*:BatchFit*:ToyBasins*:RandomWorkspaces*:Lanes*' \
            || { echo "25-vector-levels: test_infer failed at $level" >&2; exit 1; }
    fi
    toys "$level" example examples/workspaces/example.json
    sb="$shared/validation/pyhf-validation/sbottom_regionB_1400_550_60/workspace.json"
    toys "$level" sbottom "$sb"
    HFCORE_CPU_SIMD="$level" "$cli" fit "$sb" --backend cpu --output-file "$out/sbottom-fit-$level.json" >/dev/null
    toys "$level" erjr "$shared/data/atlas-3l-erjr/BkgOnly.json" -p "$shared/data/atlas-3l-erjr/patch.ERJR_100p0_20p0.json"
    echo "25-vector-levels: $level passed in $((SECONDS - t0)) s"
done

# Across levels: avx512 and avx2 bit for bit, baseline within 1e-7 of max(|x|, 1).
python3 - "$out" "$top" "${levels[@]}" <<'PY'
import json, sys, math
out, top, levels = sys.argv[1], sys.argv[2], sys.argv[3:]
def numbers(v, path=""):
    if isinstance(v, dict):
        for k, x in sorted(v.items()):
            if k in ("timing", "seconds", "wall_s", "elapsed"):
                continue
            yield from numbers(x, f"{path}.{k}")
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from numbers(x, f"{path}[{i}]")
    elif isinstance(v, (int, float)) and not isinstance(v, bool):
        yield path, float(v)
bad = 0
for name in ("example", "erjr", "sbottom", "sbottom-fit"):
    ref = dict(numbers(json.load(open(f"{out}/{name}-{top}.json"))))
    for level in levels[1:]:
        got = dict(numbers(json.load(open(f"{out}/{name}-{level}.json"))))
        exact = level != "baseline"
        if got.keys() != ref.keys():
            print(f"25-vector-levels: {name}: the keys differ between {top} and {level}"); bad += 1; continue
        worst = 0.0
        for k, a in ref.items():
            b = got[k]
            if exact and not (a == b or (math.isnan(a) and math.isnan(b))):
                print(f"25-vector-levels: {name}{k}: {a!r} at {top}, {b!r} at {level} (must be equal)"); bad += 1
            elif not exact:
                worst = max(worst, abs(a - b) / max(abs(a), 1.0))
        if not exact and worst > 1e-7:
            print(f"25-vector-levels: {name}: {level} differs from {top} by {worst:.3g} (limit 1e-7)"); bad += 1
        print(f"25-vector-levels: {name} toys at {level} vs {top}: "
              + ("identical" if exact else f"largest difference {worst:.3g} (relative to max(|x|, 1))"))
sys.exit(1 if bad else 0)
PY
echo "25-vector-levels: levels tested: ${levels[*]}"
