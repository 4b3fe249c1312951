// attention-wasm: the idiomatic JS surface over the Embind glue. Every public function checks
// its arguments' types in JS (Embind would coerce silently; src/js/validate.js), lets the C++ API
// check the shapes, and calls its binding through call(), which throws the errors it reports as
// TypeError / RangeError / Error. The API's description is in one place: index.d.ts.
import createAttentionWasm from './attention_wasm.js';
import { Tensor, formatTensor } from './tensor.js';
import { call, describe } from './validate.js';
import { JS_NAMES } from './names.js';
import { opsMethods } from './ops.js';
import { nnMethods } from './nn.js';
import { installModules } from './modules.js';
import { pretrainedMethods } from './pretrained.js';

export { Tensor, formatTensor };
export { loadSafetensors } from './safetensors.js';
export { loadTokenizer } from './tokenizer.js';

/** The library bound to one instance of the wasm module (its own heap and random generator). */
export class AttentionWasm {
  /** @param {object} raw the Emscripten module */
  constructor(raw) {
    this.raw = raw;
    // the bindings spell the names in their messages as this API does
    raw._setApiNames(Object.entries(JS_NAMES).flat());
    installModules(this); // A.MultiheadAttention, A.TransformerEncoderLayer, ... (src/js/modules.js)
  }

  memoryStats() {
    return call(this, '_memoryStats');
  }

  buildInfo() {
    return call(this, '_buildInfo');
  }

  get threads() {
    return this.raw._threadCount();
  }

  /** Idempotent; the instance keeps working afterwards, on one thread. */
  dispose() {
    if (!this.raw.PThread) return;
    this.raw._setThreadCount(1);  // joins the pool's threads
    this.raw.PThread.terminateAllThreads();  // and ends their Workers
  }

  heapBytes() {
    return this.memoryStats().heapBytes;
  }
}

// The API's functions, one method set per file, are attached here and only here.
for (const methods of [opsMethods, nnMethods, pretrainedMethods]) Object.assign(AttentionWasm.prototype, methods);
if (typeof Symbol.dispose === 'symbol') AttentionWasm.prototype[Symbol.dispose] = AttentionWasm.prototype.dispose;

// Most threads init() accepts: each is a Worker with its own copy of the glue.
const MAX_THREADS = 64;

/**
 * The thread count `threads` asks for: false -> 1, 'auto' -> the machine's logical cores.
 * @param {'auto' | number | false} threads
 * @param {number} cores
 */
function requestedThreads(threads, cores) {
  if (threads === false) return 1;
  if (threads === 'auto') return Math.max(1, Math.min(MAX_THREADS, Math.floor(cores) || 1));
  if (typeof threads !== 'number') {
    const got = typeof threads === 'string' ? JSON.stringify(threads) : describe(threads);
    throw new TypeError(`init: threads must be 'auto', a number or false, got ${got}`);
  }
  if (!Number.isInteger(threads) || threads < 1 || threads > MAX_THREADS) {
    throw new RangeError(`init: threads must be an integer in [1, ${MAX_THREADS}], got ${threads}`);
  }
  return threads;
}

/** Shared wasm memory works here: SharedArrayBuffer exists and (in a page) it is cross-origin isolated. */
function sharedMemoryAvailable() {
  return typeof SharedArrayBuffer === 'function' && globalThis.crossOriginIsolated !== false;
}

/**
 * Loads the wasm module and returns the library bound to it. In browsers the .wasm is fetched
 * from beside this file; Node uses the `node` export, which reads it from disk.
 *
 * `threads` (default false): with 'auto' (the machine's logical cores) or a number > 1, and
 * where shared memory is available (Node; a cross-origin-isolated page), the threaded build
 * (attention_wasm_mt.*) is loaded and scaledDotProductAttention, matmul and linear split their
 * work over that many threads (the calling thread included), with results byte-identical to one
 * thread. Elsewhere, or with false or 1, the single-thread build. `A.threads` says which.
 * The other options are passed to the Emscripten factory of the build chosen.
 * @param {object} [options] {threads, wasmBinary, locateFile, ...}
 * @param {object} [platform] internal: what the `node` export adds (cores, files per build)
 */
export async function init(options = {}, platform = {}) {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`init: options must be an object, got ${describe(options)}`);
  }
  const { threads = false, ...moduleOptions } = options;
  const cores = platform.cores ?? globalThis.navigator?.hardwareConcurrency ?? 1;
  const n = requestedThreads(threads, cores);
  if (n > 1 && sharedMemoryAvailable()) {
    const { default: createThreaded } = await import('./attention_wasm_mt.js');
    const files = (await platform.moduleOptions?.('attention_wasm_mt')) ?? {};
    // awPoolSize: Workers the factory starts and waits for, one per thread besides the caller's
    const raw = await createThreaded({ ...files, ...moduleOptions, awPoolSize: n - 1 });
    raw._setThreadCount(n);
    // A Node process may exit while the pool's threads wait for work (dispose() ends them).
    for (const worker of [...raw.PThread.unusedWorkers, ...raw.PThread.runningWorkers]) worker.unref?.();
    return new AttentionWasm(raw);
  }
  const files = (await platform.moduleOptions?.('attention_wasm')) ?? {};
  return new AttentionWasm(await createAttentionWasm({ ...files, ...moduleOptions }));
}
