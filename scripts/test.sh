#!/usr/bin/env bash
# Every test, in order; stops at the first failing stage with a non-zero exit.
#  0. one style: clang-format (.clang-format) for the C++, Prettier (.prettierrc.json) for the JS,
#  1. Catch2 natively (ctest), 2. the same under AddressSanitizer + UndefinedBehaviorSanitizer,
#  3. Catch2 as wasm, once per SIMD flavour: under Node 20 (ctest; relaxed with Node's flag) and
#  Node 24, and the relaxed build's int8 tests under Node 24 for arm64 (qemu-aarch64),
#  4. node --test suites against the built package (reduced fuzz/memory counts; `npm run fuzz`
#  runs the full ones), on each tested Node (tests/nodes.mjs): Node 20 with the flag (the
#  relaxed-SIMD build) and without it (init() falls back to the SIMD128 build), Node 22 and Node
#  24 (relaxed SIMD by default), and the q8 suites under Node 24 for arm64, 5. the consumer apps
#  (tests/consumers: the packed package in Vite, webpack, Rollup, esbuild, a static folder,
#  TypeScript, run in Chromium and Firefox; Node ESM and CommonJS on Node 20, 22 and 24), 6. npm
#  audit of the runtime dependencies, 7. the bundled page in headless Chromium and Firefox, and
#  the cross-engine identity of the outputs (tests/web).
# Node 22 and 24 are the official binaries setup.sh installs into build/node/ (scripts/node.sh).
# Usage: scripts/test.sh [STAGE...]   (stages: style native asan wasm js consumers audit web; default all)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(style native asan wasm js consumers audit web)
stage() { printf '\n=== %s\n' "$*"; }
wants() { [[ " ${stages[*]} " == *" $1 "* ]]; }
relaxed_flag=--experimental-wasm-relaxed-simd

if wants style; then
  stage "one style: clang-format --dry-run (C++), prettier --check (JS, TS, HTML, CSS)"
  git ls-files -z 'src/*.cpp' 'src/*.hpp' 'tests/*.cpp' 'tests/*.hpp' | xargs -0 clang-format --dry-run --Werror
  npx prettier --check --log-level warn .
fi

stage "build: wasm modules + package (dist/), page (build/site)"
bash scripts/build.sh
npx vite build --logLevel warn

if wants native; then
  stage "Catch2, native (g++, $(uname -m))"
  [ -f build/native/CMakeCache.txt ] || cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build/native --target aw_tests -j "$jobs"
  ctest --test-dir build/native --output-on-failure
fi

if wants asan; then
  stage "Catch2, native under AddressSanitizer + UndefinedBehaviorSanitizer"
  [ -f build/native-asan/CMakeCache.txt ] || cmake -S . -B build/native-asan -DCMAKE_BUILD_TYPE=Release -DAW_SANITIZE=ON >/dev/null
  cmake --build build/native-asan --target aw_tests -j "$jobs"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build/native-asan --output-on-failure
fi

if wants wasm; then
  # Built in the trixie root, run by the host's Node (build/wasm-relaxed's tests carry the flag).
  bash scripts/in-trixie.sh bash -c 'for d in build/wasm-simd128 build/wasm-relaxed; do cmake --build "$d" --target aw_tests -j "$1"; done' build "$jobs"
  for flavour in simd128 relaxed; do
    stage "Catch2, wasm ($flavour) under Node $(node --version)"
    ctest --test-dir build/wasm-$flavour --output-on-failure
  done
  for flavour in simd128 relaxed; do
    stage "Catch2, wasm ($flavour) under Node $(bash scripts/node.sh 24 --version) (relaxed SIMD without a flag)"
    (cd build/wasm-$flavour && bash ../../scripts/node.sh 24 aw_tests.js --use-colour no)
  done
  # The int8 kernels and ops where the relaxed dot is one sdot (Node 24 for arm64 under
  # qemu-aarch64: the relaxed-dot route preferred; ~35 s emulated, so these tags only)
  stage "Catch2, wasm (relaxed) under Node $(bash scripts/node.sh 24-arm64 --version) arm64 (qemu-aarch64): the int8 kernels and ops"
  (cd build/wasm-relaxed && bash ../../scripts/node.sh 24-arm64 aw_tests.js --use-colour no \
    '[quantized_matmul],[quantize],[quantized_linear]')
fi

if wants js; then
  # init() picks the relaxed-SIMD build where the engine validates it: with the flag on Node 20
  # (builds.test.mjs checks that it does); the suites' own child processes run without it.
  stage "node --test: the package (tests/js), relaxed-SIMD build (node $relaxed_flag)"
  node $relaxed_flag --test --test-reporter=spec tests/js/*.test.mjs
  stage "node --test: the package (tests/js), without the flag: init() falls back to the SIMD128 build"
  node --test --test-reporter=spec tests/js/*.test.mjs
  for major in 22 24; do
    stage "node --test: the package (tests/js) on Node $(bash scripts/node.sh $major --version), relaxed SIMD by default"
    bash scripts/node.sh $major --test --test-reporter=spec tests/js/*.test.mjs
  done
  # The q8 suites where the relaxed dot is one sdot (Node 24 for arm64 under qemu-aarch64, ~1 min):
  # each file run directly, since `node --test` would start its children without the emulator
  arm64_version=$(bash scripts/node.sh 24-arm64 --version)
  for suite in quantized pretrained_q8 causal_q8; do
    stage "node: tests/js/$suite.test.mjs on Node $arm64_version arm64 (qemu-aarch64)"
    bash scripts/node.sh 24-arm64 --test-reporter=spec tests/js/$suite.test.mjs
  done
fi

if wants consumers; then
  stage "consumer apps (tests/consumers): the packed package with each bundler's default configuration"
  node --test --test-concurrency=1 --test-reporter=spec tests/consumers/*.test.mjs
fi

if wants audit; then
  stage "npm audit --omit=dev (runtime dependencies: @huggingface/tokenizers)"
  # Needs the registry: only an unreachable registry, or one without the audit endpoint (a mirror
  # answers 405), is tolerated (a warning); a finding fails.
  if ! audit=$(npm audit --omit=dev 2>&1); then
    if grep -qiE 'ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ECONNRESET|network|offline|audit endpoint returned an error' <<<"$audit"; then
      echo "warning: npm audit skipped, the registry is unreachable or has no audit endpoint:"; grep -iE 'err' <<<"$audit" | head -3
    else
      echo "$audit"; exit 1
    fi
  else
    grep -v '^npm warn' <<<"$audit"
  fi
fi

if wants web; then
  stage "Chromium and Firefox: the page (tests/web), and the outputs' bytes across engines"
  # with the flag: the tests compare the page (relaxed SIMD in both browsers) with the same build in Node
  node $relaxed_flag --test --test-reporter=spec tests/web/*.test.mjs
fi
