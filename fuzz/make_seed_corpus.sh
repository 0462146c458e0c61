#!/usr/bin/env bash
# Seed corpus for fuzz_workspace: the shared pyhf examples, validation workspaces, ATLAS eRJR inputs and the
# hand-made malformed files, each prefixed with the mode byte the target reads first
# (0 workspace, 1 patchset, 2 JSON patch, 3 plain JSON).
# usage: fuzz/make_seed_corpus.sh OUT_DIR [SHARED_DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:?usage: make_seed_corpus.sh OUT_DIR [SHARED_DIR]}"
shared="${2:-$here/../shared}"
mkdir -p "$out"
n=0
seed() {  # mode file
    local f="$2"
    [ -f "$f" ] || return 0
    # files above 64 KiB make slow seeds; keep their head only for plain JSON mode
    if [ "$(stat -c %s "$f")" -gt 65536 ] && [ "$1" != 3 ]; then return 0; fi
    { printf "\\x0$1"; head -c 65536 "$f"; } > "$out/seed_$1_$n"
    n=$((n + 1))
}
for f in "$here"/tests/workspace/malformed/*.json; do seed 0 "$f"; seed 3 "$f"; done
if [ -d "$shared/validation" ]; then
    for f in "$shared"/validation/pyhf-validation/*/workspace.json; do seed 0 "$f"; done
    for f in "$shared"/validation/pyhf-validation/sbottom_*/patch.json; do seed 2 "$f"; done
    while IFS= read -r f; do
        case "$f" in
            *patchset*) seed 1 "$f" ;;
            *model_*) seed 3 "$f" ;;
            *) seed 0 "$f" ;;
        esac
    done < <(find "$shared/validation/pyhf-examples" -name '*.json' ! -name index.json | sort)
    for f in $(ls "$shared"/data/atlas-3l-erjr/patch.*.json 2>/dev/null | head -5); do seed 2 "$f"; done
    seed 3 "$shared/data/atlas-3l-erjr/BkgOnly.json"
fi
echo "wrote $n seeds to $out"
