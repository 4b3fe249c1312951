#!/usr/bin/env bash
# Builds scripts/tile-bench.cpp with the project's toolchain (Emscripten 3.1.69 in build/trixie) in
# both SIMD flavours and runs it in Node (relaxed with the flag Node 20 needs) and/or headless
# Chromium: the register tile's shapes and the matrix kernels in GFLOP/s, one thread.
# Usage: bash scripts/tile-bench.sh [node|chromium|all|build]   (default all; build: only build)
#   NODE=path   the node to run (default: node on PATH)
#   BASELINE=rev  also time the kernels of commit rev (e.g. origin/main) in the same process
set -euo pipefail
cd "$(dirname "$0")/.."
where=${1:-all}
node=${NODE:-node}
out=build/tile-bench
mkdir -p $out
echo '{"type": "commonjs"}' > $out/package.json  # the glue is CommonJS; the repository says "module"
baseline=()
if [ -n "${BASELINE:-}" ]; then
  rm -rf $out/base && mkdir -p $out/base/src/kernels
  for f in matmul.cpp matmul.hpp register_tile.hpp simd.hpp; do
    git show "$BASELINE:src/kernels/$f" > $out/base/src/kernels/$f
  done
fi
for flavour in simd128 relaxed; do
  flags=(-O3 -std=c++17 -msimd128 -Ibuild/deps/xsimd/include)
  [ $flavour = relaxed ] && flags+=(-mrelaxed-simd)
  objects=()
  if [ -n "${BASELINE:-}" ]; then  # the other commit's kernels in namespace aw_base
    bash scripts/in-trixie.sh em++ "${flags[@]}" -Daw=aw_base -I$out/base/src -c $out/base/src/kernels/matmul.cpp \
      -o $out/base-$flavour.o
    objects=($out/base-$flavour.o -DAW_TILE_BENCH_BASELINE=1)
  fi
  bash scripts/in-trixie.sh em++ "${flags[@]}" -Isrc -sENVIRONMENT=node,web -sINITIAL_MEMORY=256MB \
    scripts/tile-bench.cpp src/kernels/matmul.cpp "${objects[@]}" -o $out/tile-bench-$flavour.js
done
[ "$where" = build ] && exit 0
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs) x$(nproc), load average $(cut -d' ' -f1-3 /proc/loadavg)${BASELINE:+, baseline $(git rev-parse --short "$BASELINE")}"
if [ "$where" = node ] || [ "$where" = all ]; then
  echo "# node $($node --version)"
  for flavour in relaxed simd128; do $node --experimental-wasm-relaxed-simd $out/tile-bench-$flavour.js; done
fi
if [ "$where" = chromium ] || [ "$where" = all ]; then
  node scripts/tile-bench-chromium.mjs $out/tile-bench-relaxed.js $out/tile-bench-simd128.js
fi
echo "# load average after $(cut -d' ' -f1-3 /proc/loadavg)"
