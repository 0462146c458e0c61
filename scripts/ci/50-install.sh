#!/usr/bin/env bash
# The installed hfcore as a user and a plugin author get it: install the release build into a new prefix, run
# the installed CLI without LD_LIBRARY_PATH, build examples/external-app and examples/external-plugin from copies
# outside this tree against the install alone (CMake package, and pkg-config), compare the app's CLs with the
# CLI's, then drop the plugin into a folder on HFCORE_PLUGIN_PATH, list it, select it with --backend and pass
# the installed conformance runner on it. docs/user-guide.md and docs/plugins.md show these commands.
set -euo pipefail
src=$PWD
build=$src/${HFCORE_BUILD_DIR:-build/release}  # the tree stage 10 built
work=$(mktemp -d "${TMPDIR:-/tmp}/hfcore-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
unset LD_LIBRARY_PATH HFCORE_PLUGIN_PATH
prefix=$work/prefix
step() { echo "-- 50-install: $*"; }

step "install to a new prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
cp examples/workspaces/example.json "$work/"
cp -r examples/external-app examples/external-plugin "$work/"
cd "$work"

step "installed hfcore runs (no LD_LIBRARY_PATH)"
"$prefix/bin/hfcore" backends
"$prefix/bin/hfcore" cls example.json >cli.json

# numbers FILE: every number in a CLs printout, CLs_exp first then CLs_obs, one per line.
numbers() { tr -c '0-9.eE+-' '\n' <"$1" | grep -E '^[-+]?[0-9]*\.[0-9]' ; }
# same A B RTOL: the two lists of numbers agree within RTOL (relative).
same() {
    paste -d ' ' <(numbers "$1") <(numbers "$2") | awk -v r="$3" -v what="$1 vs $2" '
        { n++; d = $1 - $2; if (d < 0) d = -d; s = $2 < 0 ? -$2 : $2; if (d > r * s || NF != 2) bad++;
          if (s > 0 && d / s > worst) worst = d / s }
        END { printf "   %s: %d numbers, largest relative difference %.3g\n", what, n, worst;
              exit (n == 6 && !bad) ? 0 : 1 }'
}

step "find_package(hfcore 0.2 CONFIG REQUIRED) from a project outside the tree"
cmake_args=(-DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON)
cmake -S external-app -B build-app "${cmake_args[@]}" >/dev/null
cmake --build build-app -j2 >/dev/null
grep -q "^hfcore_DIR:PATH=$prefix/" build-app/CMakeCache.txt
# Nothing installed (package files, hfcore.pc, headers) or generated for the app names the source tree.
if grep -rlI "$src" "$prefix" build-app; then
    echo "the files above refer to the source tree $src" >&2
    exit 1
fi
build-app/fit_and_cls example.json cpu 64b | tee app.txt
{ grep '^CLs_exp' app.txt; grep '^CLs_obs' app.txt; } >app-cls.txt  # in the CLI's order
same app-cls.txt cli.json 1e-12

step "pkg-config"
export PKG_CONFIG_PATH=$(dirname "$(find "$prefix" -name hfcore.pc)")
echo "   pkg-config --libs hfcore: $(pkg-config --libs hfcore)"
test "$(pkg-config --modversion hfcore)" = "$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")$/\1/p' \
    "$prefix"/lib*/cmake/hfcore/hfcore-config-version.cmake)"
printf '#include <hfcore/workspace.hpp>\n#include <cstdio>\nint main(int, char** a) {\n'\
'    std::printf("%%zu channels\\n", hf::Workspace::load_file(a[1]).channel_names().size());\n}\n' >channels.cpp
g++ -std=c++20 $(pkg-config --cflags hfcore) channels.cpp -o channels $(pkg-config --libs hfcore) \
    -Wl,-rpath,"$(pkg-config --variable=libdir hfcore)"
./channels example.json | grep -qx "3 channels"

step "an out-of-tree plugin: hfcore_add_plugin()"
cmake -S external-plugin -B build-plugin "${cmake_args[@]}" >/dev/null
cmake --build build-plugin -j2 >/dev/null
mkdir plugins
cp build-plugin/libhfcore-backend-ref.so plugins/
export HFCORE_PLUGIN_PATH=$work/plugins
"$prefix/bin/hfcore" backends | tee backends.txt
grep -Eq "^ref +usable" backends.txt
"$prefix/bin/hfcore" cls example.json --backend ref >ref.json
# ref runs the core's Tier 1 fallback, cpu its fused kernels: the fits agree, not their last bits.
same ref.json cli.json 1e-6

step "hfcore-conformance --plugin ref"
"$prefix/bin/hfcore-conformance" --plugin ref --gtest_brief=1
