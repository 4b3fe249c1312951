// The page (web/) is bundled by Vite into build/site: a folder of static files that any static
// host can serve. The page imports the built package (dist/) by its name, exactly as a user
// would: 'attention-wasm' on the main thread; 'attention-wasm/threads' and
// 'attention-wasm/tokenizer-check' (the ReDoS analysis of the reader's tokenizer.json) in its
// worker. The .wasm files are emitted as assets (new URL(..., import.meta.url)); so are the
// threaded build's glue and .wasm, which the worker loads by URL when the page is cross-origin
// isolated. Nothing here is needed by the package itself (tests/consumers build it with Vite's
// defaults); the worker format is 'es' because the page's own worker is an ES module.
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

// Cross-origin isolation: without both headers a page has no SharedArrayBuffer, and the page's
// worker (web/src/worker.js) falls back to the single-thread build. Every response gets them:
// a Worker is isolated only if its own script's response says require-corp too. A static host
// serving build/site must send the same two headers to get the threaded build.
export const isolationHeaders = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  root: fileURLToPath(new URL('./web', import.meta.url)),
  base: './',
  resolve: {
    alias: [
      { find: /^attention-wasm$/, replacement: fileURLToPath(new URL('./dist/index.js', import.meta.url)) },
      { find: /^attention-wasm\/threads$/, replacement: fileURLToPath(new URL('./dist/threads.js', import.meta.url)) },
      {
        find: /^attention-wasm\/tokenizer-check$/,
        replacement: fileURLToPath(new URL('./dist/tokenizer-check.js', import.meta.url)),
      },
    ],
  },
  build: {
    outDir: fileURLToPath(new URL('./build/site', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
  },
  worker: { format: 'es' },
  server: { port: 8080, strictPort: true, headers: isolationHeaders },
  preview: { port: 8080, strictPort: true, host: 'localhost', headers: isolationHeaders },
});
