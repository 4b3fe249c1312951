#!/usr/bin/env bash
# Every test, in order; stops at the first failing stage with a non-zero exit.
#  1. Catch2 natively (ctest), 2. Catch2 as wasm under Node (ctest), 3. node --test suites against
#  the built package, 4. headless Chromium against the bundled page.
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
jobs=$(nproc 2>/dev/null || echo 2)
stage() { printf '\n=== %s\n' "$*"; }

stage "build: wasm module + package (dist/)"
bash scripts/build.sh

stage "Catch2, native (g++, $(uname -m))"
[ -f build/native/CMakeCache.txt ] || cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native --target aw_tests -j "$jobs"
ctest --test-dir build/native --output-on-failure

stage "Catch2, wasm under Node"
cmake --build build/wasm --target aw_tests -j "$jobs"
ctest --test-dir build/wasm --output-on-failure

stage "node --test: the package (tests/js)"
node --test --test-reporter=spec tests/js/*.test.mjs

stage "Chromium: the page (tests/web)"
npx vite build --logLevel warn
node --test --test-reporter=spec tests/web/*.test.mjs
