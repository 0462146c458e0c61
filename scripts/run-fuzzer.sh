#!/usr/bin/env bash
# Builds the workspace-layer libFuzzer target (clang++ -fsanitize=fuzzer,address,undefined; only the JSON and
# workspace sources of libhfcore are needed) and runs it.
#
#   scripts/run-fuzzer.sh [SECONDS]        default 600; 0 only builds
#
# Environment: CXX (default clang++), BUILD_DIR (default build/fuzz), SHARED_DIR (default ../shared),
# FUZZ_JOBS (parallel fuzzing processes, default 1), extra libFuzzer flags in FUZZ_FLAGS.
# Crashes are written to $BUILD_DIR/artifacts/; the corpus grows in $BUILD_DIR/corpus/.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-600}"
cxx="${CXX:-clang++}"
build="${BUILD_DIR:-$root/build/fuzz}"
shared="${SHARED_DIR:-$root/../shared}"
mkdir -p "$build/obj" "$build/corpus" "$build/artifacts"

flags=(-std=c++20 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined
       -fno-sanitize-recover=undefined -I"$root/include" -I"$root/core")
sources=("$root"/core/json/*.cpp "$root"/core/workspace/*.cpp "$root"/fuzz/fuzz_workspace.cpp)
objs=()
for src in "${sources[@]}"; do
    obj="$build/obj/$(basename "$(dirname "$src")")_$(basename "$src" .cpp).o"
    if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ -n "$(find "$root/include/hfcore" "$root/core/json" "$root/core/workspace" -name '*.hpp' -newer "$obj" 2>/dev/null)" ]; then
        echo "compiling $(realpath --relative-to="$root" "$src")"
        "$cxx" "${flags[@]}" -fsanitize=fuzzer-no-link -c "$src" -o "$obj"
    fi
    objs+=("$obj")
done
"$cxx" "${flags[@]}" "${objs[@]}" -lsimdjson -lcrypto -o "$build/fuzz_workspace"
echo "built $build/fuzz_workspace"
[ "$seconds" = 0 ] && exit 0

seeds="$build/seeds"
rm -rf "$seeds"
"$root/fuzz/make_seed_corpus.sh" "$seeds" "$shared"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
cd "$build"
# shellcheck disable=SC2086
exec ./fuzz_workspace corpus "$seeds" -dict="$root/fuzz/workspace.dict" -max_total_time="$seconds" \
    -max_len=65536 -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$build/artifacts/" \
    -jobs="${FUZZ_JOBS:-1}" -workers="${FUZZ_JOBS:-1}" ${FUZZ_FLAGS:-}
