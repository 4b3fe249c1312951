#!/usr/bin/env bash
# Idempotent setup for a fresh Debian 12 machine: everything attention-wasm needs to build and test.
#  - Debian bookworm packages: emscripten (3.1.6), catch2 (2.13), chromium (browser tests), cmake
#  - xsimd 13.2 headers from Debian trixie, extracted into build/deps (bookworm's 8.1 has no wasm arch)
#  - npm dev dependencies (npm ci / npm install)
# Each step is skipped when its result is already present, so `npm start` and `npm test` can both call it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
deps="$root/build/deps"
sudo_cmd=""
[ "$(id -u)" = 0 ] || sudo_cmd="sudo"

need_pkgs=()
command -v em++ >/dev/null 2>&1 || need_pkgs+=(emscripten)
[ -f /usr/include/catch2/catch.hpp ] || need_pkgs+=(catch2)
command -v chromium >/dev/null 2>&1 || need_pkgs+=(chromium)
command -v cmake >/dev/null 2>&1 || need_pkgs+=(cmake)
command -v g++ >/dev/null 2>&1 || need_pkgs+=(g++)
command -v node >/dev/null 2>&1 || need_pkgs+=(nodejs npm)
if [ ${#need_pkgs[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${need_pkgs[*]}"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}" >/dev/null
fi

# xsimd 13.2 from trixie, with a private apt state so the system's sources are untouched.
if [ ! -f "$deps/xsimd/include/xsimd/xsimd.hpp" ]; then
  echo "setup: fetching xsimd 13.2 headers (Debian trixie libxsimd-dev) into build/deps"
  apt_dir="$deps/apt"
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/parts" "$apt_dir/archives/partial"
  # the Debian mirror this machine already uses (deb822 "URIs:" or one-line "deb URI suite")
  uri=$(cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null \
        | sed -nE 's/^URIs:[[:space:]]*([^[:space:]]+).*/\1/p; s/^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+).*/\2/p' \
        | grep -v -e security -e nodesource -e google | head -n1 || true)
  uri=${uri:-http://deb.debian.org/debian}
  echo "deb [trusted=yes] ${uri%/} trixie main" > "$apt_dir/sources.list"
  opts=(-o Dir::State::Lists="$apt_dir/lists" -o Dir::Etc::SourceList="$apt_dir/sources.list"
        -o Dir::Etc::SourceParts="$apt_dir/parts" -o Dir::Cache::Archives="$apt_dir/archives"
        -o APT::Get::List-Cleanup=0 -o Acquire::Languages=none)
  apt-get "${opts[@]}" update -qq
  (cd "$apt_dir" && apt-get "${opts[@]}" download libxsimd-dev=13.2.0-1)
  rm -rf "$deps/xsimd" && mkdir -p "$deps/xsimd"
  dpkg -x "$apt_dir"/libxsimd-dev_13.2.0-1_*.deb "$deps/xsimd/root"
  mkdir -p "$deps/xsimd/include"
  mv "$deps/xsimd/root/usr/include/xsimd" "$deps/xsimd/include/xsimd"
  rm -rf "$deps/xsimd/root"
fi
# Catch2's single header in a folder of its own (never put /usr/include on a wasm include path).
if [ ! -f "$deps/catch2/include/catch2/catch.hpp" ]; then
  mkdir -p "$deps/catch2/include/catch2"
  cp /usr/include/catch2/catch.hpp "$deps/catch2/include/catch2/"
fi

if [ ! -d node_modules ] || [ package.json -nt node_modules/.package-lock.json ] || { [ -f package-lock.json ] && [ package-lock.json -nt node_modules/.package-lock.json ]; }; then
  echo "setup: installing npm dev dependencies"
  # `npm install --no-save` rather than `npm ci`: npm 11 rejects this lock file in `npm ci` for
  # lacking other platforms' optional packages (rollup's native binaries), though it resolves.
  npm install --no-audit --no-fund --no-save
fi
echo "setup: ok"
