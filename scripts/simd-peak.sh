#!/usr/bin/env bash
# Builds scripts/simd-peak.cpp with the project's toolchain (Emscripten 3.1.69 in build/trixie)
# for relaxed SIMD and runs it under Node with the flag: the multiply-add ceiling of SIMD128
# against relaxed SIMD's fused multiply-add on this machine.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build/simd-peak
echo '{"type": "commonjs"}' > build/simd-peak/package.json  # the glue is CommonJS; the repository says "module"
bash scripts/in-trixie.sh em++ -O3 -msimd128 -mrelaxed-simd -sENVIRONMENT=node scripts/simd-peak.cpp -o build/simd-peak/simd-peak.js
for run in 1 2 3; do
  echo "# run $run (load average $(cut -d' ' -f1-3 /proc/loadavg))"
  node --experimental-wasm-relaxed-simd build/simd-peak/simd-peak.js
done
