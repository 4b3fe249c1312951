// The page (web/) is bundled by Vite into build/site: a folder of static files that any static
// host can serve. The page imports the built package (dist/) by its name, exactly as a user
// would; the .wasm beside it is emitted as an asset (new URL(..., import.meta.url)).
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  root: fileURLToPath(new URL('./web', import.meta.url)),
  base: './',
  resolve: {
    alias: { 'attention-wasm': fileURLToPath(new URL('./dist/index.js', import.meta.url)) },
  },
  build: {
    outDir: fileURLToPath(new URL('./build/site', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
  },
  worker: { format: 'es' },
  server: { port: 8080, strictPort: true },
  preview: { port: 8080, strictPort: true, host: 'localhost' },
});
