#!/usr/bin/env bash
# Builds the npm package into dist/: the wasm modules (Emscripten 3.1.69 + Embind, inside the
# Debian trixie root: scripts/in-trixie.sh) in two SIMD flavours, and the JS wrapper.
# Usage: scripts/build.sh            (after scripts/setup.sh)
#
# One CMake tree per flavour, each linking the same three modules:
#   build/wasm-simd128  -msimd128                  (every engine with WebAssembly SIMD)
#   build/wasm-relaxed  -msimd128 -mrelaxed-simd   (fused multiply-add; init() picks it where it runs)
#     attention_wasm          single thread: browsers, workers and Node
#     attention_wasm_mt       threaded, browsers (loaded by URL from attention-wasm/threads)
#     attention_wasm_mt_node  threaded, Node (worker_threads)
# The glue (.js) of a module does not depend on the flavour and the two threaded links make the
# same .wasm: dist/ holds each glue once and one .wasm per flavour and threading, and this
# script checks that what it leaves out is identical to what it ships.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
flavours=(simd128 relaxed)
modules=(attention_wasm attention_wasm_mt attention_wasm_mt_node)

# Configure (once) and build both flavours in one entry into the root.
bash scripts/in-trixie.sh bash -c '
  set -euo pipefail
  jobs=$1; shift
  for flavour in "$@"; do
    dir=build/wasm-$flavour
    [ -f "$dir/CMakeCache.txt" ] || emcmake cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DAW_WASM_SIMD="$flavour" >/dev/null
    cmake --build "$dir" --target attention_wasm attention_wasm_mt attention_wasm_mt_node -j "$jobs"
  done
' build "$jobs" "${flavours[@]}"

same() {  # same FILE_A FILE_B WHY: stop unless the two files are identical
  cmp -s "$1" "$2" || { echo "build: $1 and $2 differ, but $3" >&2; exit 1; }
}
for m in "${modules[@]}"; do
  same build/wasm-simd128/$m.js build/wasm-relaxed/$m.js "dist/ ships one $m.js for both flavours"
done
for flavour in "${flavours[@]}"; do
  same build/wasm-$flavour/attention_wasm_mt.wasm build/wasm-$flavour/attention_wasm_mt_node.wasm \
    "dist/ ships one threaded .wasm per flavour for browsers and Node"
done

rm -rf dist && mkdir -p dist
for m in "${modules[@]}"; do cp build/wasm-simd128/$m.js dist/; done
cp build/wasm-simd128/attention_wasm.wasm dist/attention_wasm.wasm
cp build/wasm-simd128/attention_wasm_mt.wasm dist/attention_wasm_mt.wasm
cp build/wasm-relaxed/attention_wasm.wasm dist/attention_wasm_relaxed.wasm
cp build/wasm-relaxed/attention_wasm_mt.wasm dist/attention_wasm_relaxed_mt.wasm
cp src/js/*.js src/js/*.d.ts dist/
# bert-base-uncased's vocabulary for loadTokenizer('bert-base-uncased'), converted from a dev dependency
node scripts/convert-vocab.mjs
# the ReDoS analysis of tokenizer.json patterns, bundled from its CommonJS dev dependencies
node scripts/bundle-regex-analysis.mjs
echo "build: dist/ ready ($(du -k dist/attention_wasm.wasm | cut -f1) KiB wasm per build, $(du -sk dist | cut -f1) KiB in all)"
