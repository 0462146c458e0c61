#!/usr/bin/env bash
# Builds a libFuzzer target (clang++ -fsanitize=fuzzer,address,undefined; no CMake: each target compiles the
# libhfcore sources it exercises, instrumented) and runs it.
#
#   scripts/run-fuzzer.sh [SECONDS] [TARGET]   SECONDS default 600 (0 only builds); TARGET one of the targets
#                                              below (default workspace), or "all" (build only)
#
# Targets: fuzz/fuzz_TARGET.cpp, over these sources of libhfcore (core/json, core/workspace and core/modifiers
# for all but cli_options):
#   workspace, patch, patchset, eval_inputs   the workspace layer only
#   model        + core/model's host half of Model's constructor and the packer, core/tensor/packed_check.cpp
#   journal      + core/run's journal and executor
#   cli_options  apps/hfcore (all but main.cpp), linked with the libhfcore.so of a CMake build
#                (HFCORE_LIB_DIR, default build/release/lib: `cmake --build build/release --target hfcore`);
#                only the command line's code is instrumented, the library is not exercised by a parse
# Seeds: fuzz/corpus/TARGET/ (committed; what CI's regression run replays) plus, for workspace, the shared
# examples (fuzz/make_seed_corpus.sh). Dictionary: fuzz/TARGET.dict, else fuzz/workspace.dict. The corpus grows
# in $BUILD_DIR/corpus-TARGET/, crashes go to $BUILD_DIR/artifacts/. Environment: CXX (default clang++),
# FUZZ_BUILD_JOBS (compilations at a time, default 2),
# BUILD_DIR (default build/fuzz), SHARED_DIR (default ../shared), FUZZ_JOBS (parallel fuzzing processes,
# default 1), extra libFuzzer flags in FUZZ_FLAGS (e.g. -runs=10000000 to stop after 10^7 executions),
# FUZZ_CORPUS (a corpus folder to use instead).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-600}"
target="${2:-workspace}"
cxx="${CXX:-clang++}"
build="${BUILD_DIR:-$root/build/fuzz}"
shared="${SHARED_DIR:-$root/../shared}"
targets=(workspace patch patchset eval_inputs model journal cli_options)
lib_dir="${HFCORE_LIB_DIR:-$root/build/release/lib}"
mkdir -p "$build/obj" "$build/artifacts"

flags=(-std=c++20 -O1 -gline-tables-only -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined
       -fno-sanitize-recover=undefined -I"$root/include" -I"$root/core" -I"$root/apps/hfcore"
       -DHFCORE_VERSION=\"fuzz\")
newer_than() {  # obj file... : whether a file is newer than obj
    local obj=$1 f; shift
    for f in "$@"; do [ "$f" -nt "$obj" ] && return 0; done
    return 1
}
compile() {  # source -> object, when the source (a unity file: a file it includes) or a header it may include is newer
    local src="$1" obj="$2" deps=("$1")
    [[ "$src" == */cli-unity/* ]] && deps+=($(sed -n 's/^#include "\(.*\)"$/\1/p' "$src"))
    if [ ! -f "$obj" ] || newer_than "$obj" "${deps[@]}" ||
       [ -n "$(find "$root/include/hfcore" "$root/core/json" "$root/core/workspace" "$root/core/modifiers" "$root/core/common" "$root/core/model" "$root/core/run" "$root/apps/hfcore" "$root/fuzz" -name '*.hpp' -newer "$obj" 2>/dev/null)" ]; then
        echo "compiling $(realpath --relative-to="$root" "$src")"
        "$cxx" "${flags[@]}" -fsanitize=fuzzer-no-link -c "$src" -o "$obj"
    fi
}
objs=()
objects() {  # source... : compiled when out of date, FUZZ_BUILD_JOBS (default 2) at a time, appended to objs
    local src obj pids=()
    for src in "$@"; do
        obj="$build/obj/$(basename "$(dirname "$src")")_$(basename "$src" .cpp).o"
        objs+=("$obj")
        compile "$src" "$obj" &
        pids+=($!)
        if [ ${#pids[@]} -ge "${FUZZ_BUILD_JOBS:-2}" ]; then
            wait "${pids[0]}" || exit 1
            pids=("${pids[@]:1}")
        fi
    done
    for obj in "${pids[@]}"; do wait "$obj" || exit 1; done
}
cli_unity_sources() {  # apps/hfcore/*.cpp but main.cpp, in files of eight #includes (as CMake's unity build
    # of hfcore-cli): each includes header-only CLI11, which otherwise dominates the fuzz build
    local dir=$build/obj/cli-unity n=0 batch=0
    mkdir -p "$dir"
    rm -f "$dir"/*.next
    for src in $(ls "$root"/apps/hfcore/*.cpp | grep -v '/main\.cpp$'); do
        echo "#include \"$src\"" >> "$dir/cli_unity_$batch.cpp.next"
        n=$((n + 1))
        [ $((n % 8)) -eq 0 ] && batch=$((batch + 1))
    done
    for next in "$dir"/*.next; do  # rewritten only when the list changed, so that objects stay up to date
        cmp -s "$next" "${next%.next}" || mv "$next" "${next%.next}"
        rm -f "$next"
        echo "${next%.next}"
    done
}
build_target() {
    local t="$1" links=(-lsimdjson -lcrypto)
    objs=()
    case "$t" in
        cli_options)
            [ -f "$lib_dir/libhfcore.so" ] || { echo "cli_options links $lib_dir/libhfcore.so: build it first" \
                "(cmake --build build/release --target hfcore) or set HFCORE_LIB_DIR" >&2; exit 2; }
            objects $(cli_unity_sources)
            links=(-L"$lib_dir" -Wl,-rpath,"$lib_dir" -lhfcore) ;;
        *) objects "$root"/core/json/*.cpp "$root"/core/workspace/*.cpp "$root"/core/modifiers/*.cpp ;;&
        model) objects "$root"/core/model/{host_model,packer,param_sets,multimodal}.cpp "$root"/core/tensor/packed_check.cpp ;;
        journal) objects "$root"/core/run/{journal,executor,mpi,threads,thread_pool,interrupt}.cpp
                 links+=(-pthread) ;;
    esac
    compile "$root/fuzz/fuzz_$t.cpp" "$build/obj/fuzz_$t.o"
    "$cxx" "${flags[@]}" "${objs[@]}" "$build/obj/fuzz_$t.o" "${links[@]}" -o "$build/fuzz_$t"
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
dict="$root/fuzz/$target.dict"
[ -f "$dict" ] || dict="$root/fuzz/workspace.dict"
exec "./fuzz_$target" "$corpus" "$seeds" -dict="$dict" -max_total_time="$seconds" \
    -max_len=65536 -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$build/artifacts/$target-" \
    -jobs="${FUZZ_JOBS:-1}" -workers="${FUZZ_JOBS:-1}" ${FUZZ_FLAGS:-}
