// The package's `node` export (both `attention-wasm` and `attention-wasm/threads` in Node): no
// bundler here, so init() reaches every build. Node's fetch cannot load file URLs: the .wasm of
// the build init() chooses is read from disk and handed to the Emscripten factory. The threaded
// build has glue of its own for Node (its pthreads are worker_threads running that glue).
//
// ATTENTION_WASM_SIMD=relaxed|simd128|auto in the environment sets the default of init's `simd`
// option (the tests run the same suites against each build that way).
//
// The full check of tokenizer.json patterns (tokenizer-check.js) is registered here, as a loader:
// every pattern a file brings is analysed with nothing for the caller to import, and the analysis
// is imported the first time a file has a pattern off the list (importing it costs ~12 MiB of
// resident memory, which a model load would otherwise carry: docs/performance.md).
import { registerPatternAnalysisLoader } from './tokenizer-patterns.js';
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { init as initWith } from './index.js';
import { wasmFileName, SIMD_CHOICES } from './builds.js';

export * from './index.js';

registerPatternAnalysisLoader(() => import('./tokenizer-check.js'));

const wasmBinary = (simd, threaded) => readFile(new URL(`./${wasmFileName(simd, threaded)}`, import.meta.url));

/** @type {import('./builds.js').Platform} */
const nodePlatform = {
  cores: availableParallelism(),
  simd: process.env.ATTENTION_WASM_SIMD || undefined,
  async singleThread(simd) {
    return { wasmBinary: await wasmBinary(simd, false) };
  },
  async threaded(simd) {
    const { default: create } = await import('./attention_wasm_mt_node.js');
    return { create, options: { wasmBinary: await wasmBinary(simd, true) } };
  },
};

export async function init(options = {}) {
  const env = nodePlatform.simd;
  if (env !== undefined && !SIMD_CHOICES.includes(env) && options?.simd === undefined) {
    throw new TypeError(
      `init: the environment's ATTENTION_WASM_SIMD (simd's default) must be 'auto', 'relaxed' or 'simd128', got ${JSON.stringify(env)}`,
    );
  }
  return initWith(options, nodePlatform);
}
