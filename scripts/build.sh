#!/usr/bin/env bash
# Builds the npm package into dist/: the wasm module (Emscripten + Embind) and the JS wrapper.
# Usage: scripts/build.sh            (after scripts/setup.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
# Emscripten 3.1.6's optimising link runs acorn from Debian's node modules.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
jobs=$(nproc 2>/dev/null || echo 2)
if [ ! -f build/wasm/CMakeCache.txt ]; then
  # emcmake's default emulator (node --experimental-wasm-threads) is rejected by Node 20.
  emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release -DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node >/dev/null
fi
cmake --build build/wasm --target attention_wasm attention_wasm_mt -j "$jobs"
mkdir -p dist
cp build/wasm/attention_wasm.js build/wasm/attention_wasm.wasm dist/
# The threaded module (init({threads})): glue, wasm and the pthread Worker script. The Worker
# script is CommonJS; the package says "type": "module", so Node gets a .cjs copy (browsers
# load the .js, which the glue finds through new URL(..., import.meta.url)).
cp build/wasm/attention_wasm_mt.js build/wasm/attention_wasm_mt.wasm build/wasm/attention_wasm_mt.worker.js dist/
cp build/wasm/attention_wasm_mt.worker.js dist/attention_wasm_mt.worker.cjs
cp src/js/*.js src/js/*.d.ts dist/
rm -f dist/node-shim.js  # prepended to the glue at link time, not a module of the package
# bert-base-uncased's vocabulary for loadTokenizer('bert-base-uncased'), converted from a dev dependency
node scripts/convert-vocab.mjs
echo "build: dist/ ready ($(du -k dist/attention_wasm.wasm | cut -f1) KiB wasm)"
