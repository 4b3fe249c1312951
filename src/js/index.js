// attention-wasm: the idiomatic JS surface over the Embind glue. Every public function checks
// its arguments' types here (Embind would silently coerce), lets the C++ API check the shapes,
// and turns its {error, kind} answers into TypeError / RangeError / Error.
import createAttentionWasm from './attention_wasm.js';
import { Tensor, formatTensor } from './tensor.js';
import {
  unwrap, toTensor, floatArg, maskArg, checkTensorShape, optionsArg, boolOption, numberOption, integerArg, sizeArgs,
  describe, shapeString,
} from './validate.js';
import { nnMethods } from './nn.js';
import { installModules } from './modules.js';
import { pretrainedMethods } from './pretrained.js';
import { chooseSimd, browserPlatform } from './builds.js';

export { Tensor, formatTensor };
export { loadSafetensors } from './safetensors.js';
export { loadTokenizer } from './tokenizer.js';

// The C++ API names its arguments as torch's Python API; the JS API as torch's names in camelCase.
const SDPA_NAMES = {
  scaled_dot_product_attention: 'scaledDotProductAttention',
  attn_mask: 'attnMask', is_causal: 'isCausal', enable_gqa: 'enableGqa',
};

/** The library bound to one instance of the wasm module (its own heap and random generator). */
export class AttentionWasm {
  /** @param {object} raw the Emscripten module */
  constructor(raw) {
    this.raw = raw;
    installModules(this); // A.MultiheadAttention, A.TransformerEncoderLayer, ... (src/js/modules.js)
  }

  /**
   * Diagnostics for leak tests: `heapBytes` is the size of the wasm memory (it never shrinks: a
   * high-water mark), `allocatedBytes` what malloc holds now (back to its level after every call,
   * since results are copied out into JS-owned arrays).
   * @returns {{heapBytes: number, allocatedBytes: number}}
   */
  memoryStats() {
    return this.raw._memoryStats();
  }

  /**
   * What this module was built for: `simd` is xsimd's instruction set ("wasm" = WebAssembly SIMD128),
   * `floatLanes` the floats per vector, `threads` whether it is the pthread build.
   * @returns {{simd: string, floatLanes: number, threads: boolean, emscripten: string}}
   */
  buildInfo() {
    return this.raw._buildInfo();
  }

  /** Threads the ops use: 1 for the single-thread build (see init's `threads`). */
  get threads() {
    return this.raw._threadCount();
  }

  /**
   * Ends the threaded build's worker threads (nothing to do for the single-thread build). The
   * instance keeps working afterwards, on one thread. Idempotent.
   */
  dispose() {
    if (!this.raw.PThread) return;
    this.raw._setThreadCount(1);  // joins the pool's threads
    this.raw.PThread.terminateAllThreads();  // and ends their Workers
  }

  /** Size of this module's wasm memory in bytes. */
  heapBytes() {
    return this.memoryStats().heapBytes;
  }

  /** torch.manual_seed: reseeds this module's generator. */
  manualSeed(seed) {
    integerArg(seed, 'manualSeed: seed');
    if (seed < 0 || seed > Number.MAX_SAFE_INTEGER) {
      throw new RangeError(`manualSeed: seed must be in [0, 2^53), got ${seed}`);
    }
    unwrap(this.raw._manualSeed(seed));
  }

  /** torch.rand: uniform [0, 1) float32, bit-compatible with torch's CPU generator. */
  rand(...size) {
    return toTensor(unwrap(this.raw._rand(sizeArgs(size, 'rand'))));
  }

  /** torch.randn: standard normal float32, bit-compatible with torch's CPU generator. */
  randn(...size) {
    return toTensor(unwrap(this.raw._randn(sizeArgs(size, 'randn'))));
  }

  /** torch.matmul(input, other) */
  matmul(input, other) {
    floatArg(input, 'matmul: input');
    floatArg(other, 'matmul: other');
    return toTensor(unwrap(this.raw._matmul(input, other)));
  }

  /** torch.nn.functional.linear(input, weight, bias): input W^T + bias */
  linear(input, weight, bias) {
    floatArg(input, 'linear: input');
    floatArg(weight, 'linear: weight');
    if (bias !== undefined && bias !== null) floatArg(bias, 'linear: bias');
    return toTensor(unwrap(this.raw._linear(input, weight, bias ?? null)));
  }

  /** torch.softmax(input, dim) — dim defaults to -1. */
  softmax(input, options) {
    floatArg(input, 'softmax: input');
    const { dim = -1 } = optionsArg(options, ['dim'], 'softmax');
    integerArg(dim, 'softmax: dim');
    return toTensor(unwrap(this.raw._softmax(input, dim)));
  }

  /**
   * torch.nn.functional.embedding(input, weight): rows of `weight` picked by integer ids.
   * @param ids number[] | Int32Array (1-D) or {data: Int32Array, shape}
   */
  embedding(ids, weight) {
    const where = 'embedding: input';
    let idTensor;
    if (Array.isArray(ids)) {
      if (!ids.every((i) => typeof i === 'number')) throw new TypeError(`${where} must hold integers, got [${ids.slice(0, 8).map(describe).join(', ')}${ids.length > 8 ? ', ...' : ''}]`);
      // Int32Array.from would wrap 2^32 to 0: a huge or fractional id is out of range, not another row.
      const bad = ids.findIndex((i) => !Number.isInteger(i) || i < -(2 ** 31) || i >= 2 ** 31);
      if (bad >= 0) throw new RangeError(`${where}: index ${ids[bad]} (input position ${bad}) is not a row index of weight ${shapeString(weight?.shape)}`);
      idTensor = { data: Int32Array.from(ids), shape: [ids.length] };
    } else if (ids instanceof Int32Array) {
      idTensor = { data: ids, shape: [ids.length] };
    } else if (ids && ids.data instanceof Int32Array) {
      checkTensorShape(ids, where);
      idTensor = ids;
    } else {
      throw new TypeError(`${where} must be an array of integers, an Int32Array or {data: Int32Array, shape}, got ${describe(ids?.data ?? ids)}`);
    }
    floatArg(weight, 'embedding: weight');
    return toTensor(unwrap(this.raw._embedding(idTensor, weight)));
  }

  /**
   * torch.nn.functional.scaled_dot_product_attention(query, key, value, attn_mask, dropout_p,
   * is_causal, scale, enable_gqa), returning {output, weights?, scores?, scaled?, masked?}.
   */
  scaledDotProductAttention(query, key, value, options) {
    const fn = 'scaledDotProductAttention';
    floatArg(query, `${fn}: query`);
    floatArg(key, `${fn}: key`);
    floatArg(value, `${fn}: value`);
    const o = optionsArg(options,
      ['attnMask', 'dropoutP', 'isCausal', 'scale', 'enableGqa', 'returnWeights', 'returnIntermediates'], fn);
    const dropoutP = numberOption(o.dropoutP, `${fn}: dropoutP`);
    if (dropoutP !== undefined && dropoutP !== 0) {
      throw new RangeError(`${fn}: dropoutP must be 0 (attention-wasm is an inference library), got ${dropoutP}`);
    }
    const mask = o.attnMask === undefined || o.attnMask === null ? null : maskArg(o.attnMask, `${fn}: attnMask`);
    const isCausal = boolOption(o.isCausal, `${fn}: isCausal`);
    const scale = numberOption(o.scale, `${fn}: scale`) ?? NaN;  // NaN: 1/sqrt(E)
    const enableGqa = boolOption(o.enableGqa, `${fn}: enableGqa`);
    const returnWeights = boolOption(o.returnWeights, `${fn}: returnWeights`);
    const returnIntermediates = boolOption(o.returnIntermediates, `${fn}: returnIntermediates`);
    // Tensors as (data, shape) pairs and the options one by one: each property the glue reads
    // from a JS object costs a call (src/bindings/ops_bindings.cpp).
    const raw = unwrap(this.raw._scaledDotProductAttention(
      query.data, query.shape, key.data, key.shape, value.data, value.shape,
      mask?.data ?? null, mask?.shape ?? null, mask !== null && mask.data instanceof Uint8Array,
      isCausal, scale, enableGqa, returnWeights, returnIntermediates), SDPA_NAMES);
    const result = {};
    for (const [name, t] of Object.entries(raw)) result[name] = toTensor(t);
    return result;
  }
}

// Further method sets (one file each under src/js/) are mixed into AttentionWasm here, e.g.
//   import { nnMethods } from './nn.js';  Object.assign(AttentionWasm.prototype, nnMethods);
Object.assign(AttentionWasm.prototype, pretrainedMethods);  // A.loadPretrained (src/js/pretrained.js)
// Each method uses this.raw (the Embind module) and the helpers of validate.js.
Object.assign(AttentionWasm.prototype, nnMethods);
Object.assign(AttentionWasm.prototype, pretrainedMethods);  // A.loadPretrained (src/js/pretrained.js)
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
 * cannot run it). `A.buildInfo().simd` says which ('relaxed-simd' or 'simd128').
 *
 * `threads` (default false): with 'auto' (the machine's logical cores) or a number > 1, and
 * where shared memory is available (Node; a cross-origin-isolated page), the threaded build is
 * loaded and scaledDotProductAttention, matmul and linear split their work over that many
 * threads (the calling thread included), with results byte-identical to one thread. Elsewhere,
 * or with false or 1, the single-thread build. `A.threads` says which. In browsers the threaded
 * build is reached through `attention-wasm/threads` (its init); this entry point's init throws
 * when asked for threads it could run.
 * The other options are passed to the Emscripten factory of the build chosen.
 * @param {object} [options] {simd, threads, wasmBinary, locateFile, ...}
 * @param {import('./builds.js').Platform} [platform] internal: how the entry point (this one, threads.js,
 *   node.js) loads the builds
 */
export async function init(options = {}, platform = browserPlatform) {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`init: options must be an object, got ${describe(options)}`);
  }
  const { threads = false, simd = platform.simd ?? 'auto', ...moduleOptions } = options;
  const n = requestedThreads(threads, platform.cores);
  const flavour = chooseSimd(simd);
  if (n > 1 && sharedMemoryAvailable()) {
    if (!platform.threaded) {
      throw new Error(`init: threads: ${JSON.stringify(threads)} needs the threaded build, which the 'attention-wasm' ` +
        "entry point leaves out of bundles; import { init } from 'attention-wasm/threads' to use it");
    }
    const { create, options: files } = await platform.threaded(flavour);
    // awPoolSize: Workers the factory starts and waits for, one per thread besides the caller's
    const raw = await create({ ...files, ...moduleOptions, awPoolSize: n - 1 });
    raw._setThreadCount(n);
    return new AttentionWasm(raw);
  }
  const files = await platform.singleThread(flavour);
  return new AttentionWasm(await createAttentionWasm({ ...files, ...moduleOptions }));
}
