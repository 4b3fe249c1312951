#!/usr/bin/env bash
# Bundles the page into build/site and serves it on http://localhost:8080 (vite preview: a
# static server with the right MIME type for .wasm).
set -euo pipefail
cd "$(dirname "$0")/.."
npx vite build --logLevel warn
echo "attention-wasm page: http://localhost:8080/"
exec npx vite preview --port 8080 --strictPort
