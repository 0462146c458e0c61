#!/usr/bin/env bash
# Builds a libFuzzer target (clang++ -fsanitize=fuzzer,address,undefined; only the JSON and workspace sources of
# libhfcore, with the modifier kinds they validate, are needed, no CMake) and runs it.
#
#   scripts/run-fuzzer.sh [SECONDS] [TARGET]   SECONDS default 600 (0 only builds); TARGET one of
#                                              workspace (default), patch, patchset, eval_inputs, or "all" (build)
#
# Targets: fuzz/fuzz_TARGET.cpp. Seeds: fuzz/corpus/TARGET/ (committed; what CI's regression run replays) plus,
# for workspace, the shared examples (fuzz/make_seed_corpus.sh). The corpus grows in $BUILD_DIR/corpus-TARGET/,
# crashes go to $BUILD_DIR/artifacts/. Environment: CXX (default clang++), BUILD_DIR (default build/fuzz),
# SHARED_DIR (default ../shared), FUZZ_JOBS (parallel fuzzing processes, default 1), extra libFuzzer flags in
# FUZZ_FLAGS (e.g. -runs=10000000 to stop after 10^7 executions), FUZZ_CORPUS (a corpus folder to use instead).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-600}"
target="${2:-workspace}"
cxx="${CXX:-clang++}"
build="${BUILD_DIR:-$root/build/fuzz}"
shared="${SHARED_DIR:-$root/../shared}"
targets=(workspace patch patchset eval_inputs)
mkdir -p "$build/obj" "$build/artifacts"

flags=(-std=c++20 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined
       -fno-sanitize-recover=undefined -I"$root/include" -I"$root/core")
compile() {  # source -> object, when the source or a header it may include is newer
    local src="$1" obj="$2"
    if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] ||
       [ -n "$(find "$root/include/hfcore" "$root/core/json" "$root/core/workspace" "$root/core/modifiers" "$root/core/common" "$root/fuzz" -name '*.hpp' -newer "$obj" 2>/dev/null)" ]; then
        echo "compiling $(realpath --relative-to="$root" "$src")"
        "$cxx" "${flags[@]}" -fsanitize=fuzzer-no-link -c "$src" -o "$obj"
    fi
}
lib_objs=()
for src in "$root"/core/json/*.cpp "$root"/core/workspace/*.cpp "$root"/core/modifiers/*.cpp; do
    obj="$build/obj/$(basename "$(dirname "$src")")_$(basename "$src" .cpp).o"
    compile "$src" "$obj"
    lib_objs+=("$obj")
done
build_target() {
    local t="$1"
    compile "$root/fuzz/fuzz_$t.cpp" "$build/obj/fuzz_$t.o"
    "$cxx" "${flags[@]}" "${lib_objs[@]}" "$build/obj/fuzz_$t.o" -lsimdjson -lcrypto -o "$build/fuzz_$t"
    echo "built $build/fuzz_$t"
}
if [ "$target" = all ]; then
    for t in "${targets[@]}"; do build_target "$t"; done
    exit 0
fi
case " ${targets[*]} " in *" $target "*) ;; *) echo "unknown target '$target' (${targets[*]})" >&2; exit 2 ;; esac
build_target "$target"
[ "$seconds" = 0 ] && exit 0

seeds="$build/seeds-$target"
rm -rf "$seeds"
mkdir -p "$seeds"
cp "$root/fuzz/corpus/$target"/* "$seeds"/ 2>/dev/null || true
[ "$target" = workspace ] && "$root/fuzz/make_seed_corpus.sh" "$seeds" "$shared"
corpus="${FUZZ_CORPUS:-$build/corpus-$target}"
mkdir -p "$corpus"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
cd "$build"
# shellcheck disable=SC2086
exec "./fuzz_$target" "$corpus" "$seeds" -dict="$root/fuzz/workspace.dict" -max_total_time="$seconds" \
    -max_len=65536 -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$build/artifacts/$target-" \
    -jobs="${FUZZ_JOBS:-1}" -workers="${FUZZ_JOBS:-1}" ${FUZZ_FLAGS:-}
