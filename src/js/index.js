// attention-wasm: the idiomatic JS surface over the Embind glue. Every public function checks
// its arguments' types in JS (Embind would coerce silently; src/js/validate.js), lets the C++ API
// check the shapes, and calls its binding through call(), which throws the errors it reports as
// TypeError / RangeError / Error. The API's description is in one place: index.d.ts.
import createAttentionWasm from './attention_wasm.js';
import { Tensor, formatTensor } from './tensor.js';
import { call, describe, optionsArg } from './validate.js';
import { JS_NAMES } from './names.js';
import { opsMethods } from './ops.js';
import { nnMethods } from './nn.js';
import { helperMethods } from './helpers.js';
import { installModules } from './modules.js';
import { pretrainedMethods } from './pretrained.js';
import { quantizedMethods, QuantizedTensor } from './quantized.js';
import { chooseSimd, browserPlatform, wasmFileName } from './builds.js';

export { Tensor, formatTensor, QuantizedTensor };
export { loadSafetensors } from './safetensors.js';
export { loadTokenizer, TextTokenizer } from './tokenizer.js';
// the classes of loadPretrained's and loadTokenizer's results, for instanceof (not constructed by users)
export { PretrainedModel } from './pretrained.js';
export { CausalLM, KvCache } from './causal-lm.js';

/**
 * Ends a threaded module's pool: joins its threads, ends their Workers, and stops the main
 * thread's wait on its mailbox, which would otherwise hold the module and its whole memory for as
 * long as the process lives (src/bindings/thread_mailbox.js). The module keeps working on one thread.
 */
function endThreads(raw) {
  raw._setThreadCount(1); // joins the pool's threads
  raw.PThread.terminateAllThreads(); // and ends their Workers
  raw.awCloseMailbox?.();
}

// A threaded instance dropped without dispose(): its pool is ended once the instance is collected,
// and then its memory can be.
const droppedThreaded = new FinalizationRegistry(endThreads);

/** The library bound to one instance of the wasm module (its own heap and random generator). */
export class AttentionWasm {
  /** @param {object} raw the Emscripten module */
  constructor(raw) {
    // the Emscripten module, not enumerable (console.log of the library would print its heap views)
    Object.defineProperty(this, 'raw', { value: raw });
    if (raw.PThread) droppedThreaded.register(this, raw, this);
    // the bindings spell the names in their messages as this API does
    raw._setApiNames(Object.entries(JS_NAMES).flat());
    installModules(this); // A.MultiheadAttention, A.TransformerEncoderLayer, ... (src/js/modules.js)
  }

  memoryStats() {
    return call(this, '_memoryStats');
  }

  /** What console.log shows in Node. */
  [Symbol.for('nodejs.util.inspect.custom')]() {
    return `AttentionWasm { simd: '${this.buildInfo().simd}', threads: ${this.threads} }`;
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
    droppedThreaded.unregister(this);
    endThreads(this.raw);
  }

  heapBytes() {
    return this.memoryStats().heapBytes;
  }
}

// The API's functions, one method set per file, are attached here and only here.
for (const methods of [opsMethods, nnMethods, helperMethods, pretrainedMethods, quantizedMethods])
  Object.assign(AttentionWasm.prototype, methods);
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
 * `simd` (default 'auto'): the relaxed-SIMD build (fused multiply-add) where the engine runs it,
 * else the SIMD128 build; 'relaxed' or 'simd128' forces one ('relaxed' throws where the engine
 * cannot run it). `A.buildInfo().simd` says which ('relaxed' or 'simd128').
 *
 * `threads` (default false): with 'auto' (the machine's logical cores) or a number > 1, and
 * where shared memory is available (Node; a cross-origin-isolated page), the threaded build is
 * loaded and scaledDotProductAttention, matmul and linear split their work over that many
 * threads (the calling thread included), with results byte-identical to one thread. Elsewhere,
 * or with false or 1, the single-thread build. `A.threads` says which. In browsers the threaded
 * build is reached through `attention-wasm/threads` (its init); this entry point's init throws
 * when asked for threads it could run.
 * `wasmBinary` and `locateFile` are passed to the Emscripten factory of the build chosen; any other
 * option is a TypeError (as in every function here).
 * @param {object} [options] {simd, threads, wasmBinary, locateFile}
 * @param {import('./builds.js').Platform} [platform] internal: how the entry point (this one, threads.js,
 *   node.js) loads the builds
 */
export async function init(options = {}, platform = browserPlatform) {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`init: options must be an object, got ${describe(options)}`);
  }
  const {
    threads = false,
    simd = platform.simd ?? 'auto',
    ...moduleOptions
  } = optionsArg(options, ['simd', 'threads', 'wasmBinary', 'locateFile'], 'init');
  const n = requestedThreads(threads, platform.cores);
  const flavour = chooseSimd(simd);
  const threaded = n > 1 && sharedMemoryAvailable();
  const { locateFile } = moduleOptions;
  if (locateFile === null)
    delete moduleOptions.locateFile; // as the glue takes it: none
  else if (locateFile !== undefined) {
    if (typeof locateFile !== 'function') {
      throw new TypeError(`init: locateFile must be a function (path, prefix) => url, got ${describe(locateFile)}`);
    }
    // asked for the build's own .wasm by name (the glue, shared by both builds, names the SIMD128 one)
    const file = wasmFileName(flavour, threaded);
    moduleOptions.locateFile = (path, prefix) => locateFile(path.endsWith('.wasm') ? file : path, prefix);
  }
  if (threaded) {
    if (!platform.threaded) {
      throw new Error(
        `init: threads: ${JSON.stringify(threads)} needs the threaded build, which the 'attention-wasm' ` +
          "entry point leaves out of bundles; import { init } from 'attention-wasm/threads' to use it",
      );
    }
    const { create, options: files } = await platform.threaded(flavour);
    // awPoolSize: Workers the factory starts and waits for, one per thread besides the caller's
    const moduleArg = { ...files, ...moduleOptions, awPoolSize: n - 1 };
    const raw = await instantiate(create, moduleArg, wasmFileName(flavour, true));
    raw._setThreadCount(n);
    return new AttentionWasm(raw);
  }
  const files = await platform.singleThread(flavour);
  return new AttentionWasm(
    await instantiate(createAttentionWasm, { ...files, ...moduleOptions }, wasmFileName(flavour, false)),
  );
}

/** Where the glue fetches `file` from: the caller's locateFile, else beside this script (a bundle's). */
function wasmUrl(moduleArg, file) {
  try {
    const beside = new URL('.', import.meta.url).href;
    return moduleArg.locateFile ? String(moduleArg.locateFile(file, beside)) : new URL(file, beside).href;
  } catch {
    return `'${file}' beside the script`;
  }
}

/**
 * The Emscripten factory's module. Where it fails (the caller's wasmBinary of another build, or
 * not wasm): the threaded build's pool of Workers, started before the module was, is ended (a
 * Worker left would keep Node's process alive for ever), and the Error says which file was
 * expected.
 */
async function instantiate(create, moduleArg, file) {
  // the glue's own report of a failure to start, which the Error below repeats, is held back;
  // everything else it prints (a fallback from streaming compilation, a Worker's error) goes to
  // the console as the glue's default would send it
  let starting = true;
  moduleArg.printErr = (...args) => {
    const text = args.join(' ');
    if (starting && /^(failed to asynchronously prepare wasm: |Aborted\()/.test(text)) return;
    console.error(...args);
  };
  try {
    return await create(moduleArg);
  } catch (e) {
    moduleArg.PThread?.terminateAllThreads(); // the factory's Module is moduleArg itself
    moduleArg.awCloseMailbox?.();
    // the .wasm not found where the glue fetched it (not a page's policy refusing wasm, say)
    const notFetched = /fetch|URL|both async and sync|404|not found/i.test(String(e?.message ?? e));
    const given =
      moduleArg.wasmBinary !== undefined
        ? `; wasmBinary must be the bytes of ${file}`
        : notFetched
          ? `; ${file} was looked for at ${wasmUrl(moduleArg, file)}: serve dist/*.wasm from there (a bundler ` +
            "that does not copy them needs it done: the package's docs/bundlers.md), or pass init({ locateFile }) " +
            'or { wasmBinary }'
          : '';
    // the glue's advice to its own developers ("Build with -sASSERTIONS ...") means nothing here
    const reason = String(e?.message ?? e).replace(/\.? Build with -sASSERTIONS for more info\.?/, '');
    throw new Error(`init: the wasm module could not be instantiated (${reason})${given}`, { cause: e });
  } finally {
    starting = false;
  }
}
