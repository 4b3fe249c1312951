// `attention-wasm/threads` in browsers: everything `attention-wasm` exports, with an init() that
// also reaches the threaded build (init({ threads: 'auto' | n }) in a cross-origin-isolated page).
// Only this entry point names the threaded build's files, so bundles of the default one never
// hold them.
//
// The threaded glue is not bundled: bundlers cannot follow Emscripten 3.1.69's pthread Worker
// (Vite rejects its non-literal worker options; webpack would bundle the glue into the Worker it
// starts). Each file is named here as new URL('./x', import.meta.url), which Vite and webpack
// emit as an asset (hashed name) and which any static folder serves as it is; the glue is then
// imported from that URL at run time (an import the bundlers are told to leave alone), and told
// where its .wasm is (locateFile) and that its pthread Workers run its own script
// (mainScriptUrlOrBlob): it was linked not to look beside itself (USE_ES6_IMPORT_META=0).
import { init as initWith } from './index.js';
import { browserPlatform } from './builds.js';

export * from './index.js';

const threadedFiles = {
  glue: () => new URL('./attention_wasm_mt.js', import.meta.url).href,
  simd128: () => new URL('./attention_wasm_mt.wasm', import.meta.url).href,
  relaxed: () => new URL('./attention_wasm_relaxed_mt.wasm', import.meta.url).href,
};

/** The threaded build, loaded from the URLs of its files. */
async function threaded(simd) {
  const glue = threadedFiles.glue();
  const wasm = threadedFiles[simd]();
  let create;
  try {
    ({ default: create } = await import(/* @vite-ignore */ /* webpackIgnore: true */ glue));
  } catch (e) {
    throw new Error(
      `init: the threaded build's glue could not be loaded from ${glue} (${e.message}); a bundler that does not ` +
        'emit new URL(..., import.meta.url) assets needs attention_wasm_mt.js and the .wasm files copied beside the bundle',
    );
  }
  return {
    create,
    options: {
      mainScriptUrlOrBlob: glue,
      locateFile: (path, prefix) => (path.endsWith('.wasm') ? wasm : prefix + path),
    },
  };
}

const platform = { ...browserPlatform, threaded };

/**
 * init() of `attention-wasm` (see there), able to load the threaded build: with `threads` 'auto'
 * or n > 1 in a cross-origin-isolated page (or a Worker of one), the threaded build; elsewhere
 * the single-thread build.
 * @param {object} [options] {simd, threads, ...}
 */
export function init(options = {}) {
  return initWith(options, platform);
}
