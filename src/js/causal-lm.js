// Causal language models (GPT-2, Llama, Qwen2) loaded by A.loadPretrained: lm.forward with a KV
// cache resident in wasm memory, and lm.generate, an async iterable of steps (greedy, or sampled
// from the instance's generator or, seeded, the generation's own; stopped by EOS, maxNewTokens,
// stop strings or an AbortSignal), each with its token, the text it completes and, when asked,
// the attention of the new token in every layer and the step's top candidates. The contract with
// the page: docs/causal-lm.md; the forward itself is C++ (src/models/causal_lm.cpp).
import { Tensor, describe } from './tensor.js';
import { call, unwrap, optionsArg, boolOption } from './validate.js';
import { idRows, flatInts, checkInputFields } from './model-input.js';
import { modelTokenizer } from './tokenizer.js';
import { MT19937 } from './mt19937.js';

const finalizer =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry(({ raw, handle, cache }) =>
        cache ? raw._cacheDispose(handle) : raw._modelDispose(handle),
      )
    : null;

/** A KV cache of one model: lm.createCache(). forward({..}, { cache }) appends to it. */
export class KvCache {
  /** @private */
  constructor(lm, handle) {
    this.lm = lm;
    this.handle = handle;
    this.disposed = false;
    finalizer?.register(this, { raw: lm.A.raw, handle, cache: true }, this);
  }

  check(fn) {
    if (this.disposed || this.lm.disposed) throw new Error(`${fn}: the cache has been disposed`);
  }

  /** Tokens held per sequence. */
  get length() {
    return this.disposed || this.lm.disposed ? 0 : unwrap(this.lm.A.raw._cacheInfo(this.handle)).length;
  }

  /** Sequences held (0 before the first forward). */
  get batch() {
    return this.disposed || this.lm.disposed ? 0 : unwrap(this.lm.A.raw._cacheInfo(this.handle)).batch;
  }

  /** Bytes of wasm memory the keys and values take. */
  get residentBytes() {
    return this.disposed || this.lm.disposed ? 0 : unwrap(this.lm.A.raw._cacheInfo(this.handle)).residentBytes;
  }

  /** Empties the cache (and frees its memory); it can be used again. */
  clear() {
    this.check('cache.clear');
    unwrap(this.lm.A.raw._cacheClear(this.handle));
  }

  /** Frees the cache. Idempotent. */
  dispose() {
    if (this.disposed) return;
    this.disposed = true;
    finalizer?.unregister(this);
    if (!this.lm.disposed) this.lm.A.raw._cacheDispose(this.handle);
  }
}
if (typeof Symbol.dispose === 'symbol') KvCache.prototype[Symbol.dispose] = KvCache.prototype.dispose;

const GENERATE_OPTIONS = [
  'maxNewTokens',
  'doSample',
  'temperature',
  'topK',
  'topP',
  'repetitionPenalty',
  'seed',
  'stop',
  'outputAttentions',
  'candidates',
  'signal',
  'eosTokenId',
];

// One turn of the event loop, not a microtask: between two steps of generate, timers, a Stop
// button's click and AbortSignal.timeout run. setImmediate where there is one (Node); else a
// MessageChannel message (setTimeout is clamped to ~4 ms in browsers).
function nextTask() {
  if (typeof setImmediate === 'function') return new Promise((resolve) => setImmediate(resolve));
  return new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      resolve();
    };
    port2.postMessage(null);
  });
}

// generate's options whose defaults the folder's files give (the sampling options and the
// repetition penalty): generation_config.json's key, transformers' GenerationConfig default, and
// the values allowed
const SAMPLING = {
  doSample: { key: 'do_sample', fallback: false, ok: (x) => typeof x === 'boolean', range: 'a boolean' },
  temperature: {
    key: 'temperature',
    fallback: 1,
    ok: (x) => typeof x === 'number' && x > 0 && Number.isFinite(x),
    range: 'a positive number',
  },
  topK: { key: 'top_k', fallback: 50, ok: (x) => Number.isInteger(x) && x >= 0, range: 'an integer >= 0' },
  topP: { key: 'top_p', fallback: 1, ok: (x) => typeof x === 'number' && x > 0 && x <= 1, range: 'in (0, 1]' },
  // a logits processor: applied in greedy decoding too, as transformers' generate applies it
  repetitionPenalty: {
    key: 'repetition_penalty',
    fallback: 1,
    ok: (x) => typeof x === 'number' && x > 0 && Number.isFinite(x),
    range: 'a positive number',
  },
};

// What transformers' generate would take from generation_config.json (or config.json) and
// lm.generate does not apply: for each key, when a value of it changes what generate does (the
// conditions of generation/utils.py's _get_logits_processor and generation mode), and whether
// only sampling (or only greedy decoding) reads it. A file whose value applies gets a warning, once per key and model, that
// the tokens can differ from transformers'.
const present = (v) => v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0);
const above = (bound) => (v) => typeof v === 'number' && v > bound;
const UNAPPLIED = {
  num_beams: { applies: above(1) }, // beam search
  penalty_alpha: { applies: above(0), greedy: true }, // contrastive search: do_sample false
  dola_layers: { applies: present }, // DoLa decoding
  stop_strings: { applies: present }, // lm.generate's `stop`, not read from the file
  max_time: { applies: present },
  no_repeat_ngram_size: { applies: above(0) },
  encoder_no_repeat_ngram_size: { applies: above(0) },
  encoder_repetition_penalty: { applies: (v) => present(v) && v !== 1 }, // the prompt's tokens, for a decoder
  min_length: { applies: above(0) },
  min_new_tokens: { applies: above(0) },
  bad_words_ids: { applies: present },
  suppress_tokens: { applies: present },
  begin_suppress_tokens: { applies: present },
  forced_bos_token_id: { applies: present },
  forced_eos_token_id: { applies: present },
  forced_decoder_ids: { applies: present },
  sequence_bias: { applies: present },
  exponential_decay_length_penalty: { applies: present },
  guidance_scale: { applies: (v) => present(v) && v !== 1 },
  watermarking_config: { applies: present },
  min_p: { applies: above(0), sampling: true },
  typical_p: { applies: (v) => typeof v === 'number' && v < 1, sampling: true },
  epsilon_cutoff: { applies: (v) => typeof v === 'number' && v > 0 && v < 1, sampling: true },
  eta_cutoff: { applies: (v) => typeof v === 'number' && v > 0 && v < 1, sampling: true },
};

/**
 * transformers' RepetitionPenaltyLogitsProcessor (generation/logits_process.py): the logit of
 * every token of the sequence so far (the prompt's included) divided by `penalty` where it is
 * positive and multiplied where negative, in float32 as torch computes it. In place.
 * @param {Float32Array} logits (vocab)
 * @param {Iterable<number>} ids
 */
export function penalizeRepetition(logits, ids, penalty) {
  const p = Math.fround(penalty);
  for (const id of ids) {
    const x = logits[id];
    logits[id] = x < 0 ? x * p : x / p;
  }
}

// An option of the wrong type (a string, null, an object) is a TypeError; a number out of range
// (negative, fractional, NaN, too large) a RangeError. `undefined` is the option left out.
function integerOption(value, fallback, where, min = 0, max = Infinity, range = `an integer >= ${min}`) {
  if (value === undefined) return fallback;
  if (typeof value !== 'number') throw new TypeError(`${where} must be ${range}, got ${describe(value)}`);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new RangeError(`${where} must be ${range}, got ${value}`);
  return value;
}

function numberOption(value, fallback, where, ok, range) {
  if (value === undefined) return fallback;
  if (typeof value !== 'number') throw new TypeError(`${where} must be ${range}, got ${describe(value)}`);
  if (!ok(value)) throw new RangeError(`${where} must be ${range}, got ${value}`);
  return value;
}

/** ids of token ids: number[] | Int32Array of integers (checked by the forward against the vocabulary). */
function tokenIdList(value, where) {
  if (!(Array.isArray(value) || value instanceof Int32Array))
    throw new TypeError(`${where} must be a string or token ids (number[] | Int32Array), got ${describe(value)}`);
  return Array.from(value, (x, i) => {
    if (typeof x !== 'number' || !Number.isInteger(x))
      throw new TypeError(`${where}[${i}] = ${typeof x === 'number' ? x : describe(x)} is not an integer token id`);
    return x;
  });
}

/**
 * The distribution of a step: p = softmax(logits / temperature) in float64, then the kept set of
 * transformers' warpers in their order (generation/logits_process.py): TopKLogitsWarper removes
 * the tokens whose score is below the k-th largest (`scores < topk(scores, k)[0][..., -1]`), so
 * every token tied with the k-th is kept; then TopPLogitsWarper over the renormalised top k:
 * tokens whose cumulative probability, ascending, is <= 1 - topP are removed, at least one kept.
 * The scores compared are transformers' float32 ones, TemperatureLogitsWarper's
 * `scores / temperature` (fround of the float32 logit over the float32 temperature), not the
 * probabilities, whose rounding could split a tie or make one. Returns { order (ids by logit
 * desc, then id: probability desc, the greedy choice first; with topK, the first max(kept, need)
 * of them at least: only as many are ranked as the cut needs), probs, kept (count of `order`
 * kept, a prefix: the scores are monotone in the logits) }.
 */
export function stepDistribution(logits, { temperature = 1, topK = 0, topP = 1 } = {}, need = 0) {
  const V = logits.length;
  const t = temperature > 0 ? temperature : 1;
  let max = -Infinity;
  for (let i = 0; i < V; i++) max = Math.max(max, logits[i] / t);
  const probs = new Float64Array(V);
  let sum = 0;
  for (let i = 0; i < V; i++) sum += probs[i] = Math.exp(logits[i] / t - max);
  for (let i = 0; i < V; i++) probs[i] /= sum;
  let order = null;
  let kept = V;
  if (topK > 0 && topK < V) {
    // TopKLogitsWarper: the k largest scores and every one tied with the k-th, found among the
    // largest logits ranked (4x more while the ties may go on past them)
    const t32 = Math.fround(t);
    const score = (i) => Math.fround(logits[i] / t32);
    for (let m = Math.min(V, Math.max(64, topK, need)); ; m = Math.min(V, m * 4)) {
      order = m === V ? byLogit(logits) : largestLogits(logits, m);
      if (order.length < Math.min(V, Math.max(topK, need))) continue; // NaN logits: rank them all
      const kth = score(order[topK - 1]);
      kept = topK;
      while (kept < order.length && score(order[kept]) >= kth) kept++;
      if (kept < order.length || order.length === V) break;
    }
  } else order = byLogit(logits);
  if (topP < 1) {
    let total = 0;
    for (let i = 0; i < kept; i++) total += probs[order[i]];
    // ascending cumulative of the renormalised top-k: drop the tail whose mass is <= 1 - topP
    let tail = 0;
    let keep = kept;
    for (let i = kept - 1; i > 0; i--) {
      tail += probs[order[i]] / total;
      if (tail <= 1 - topP) keep = i;
      else break;
    }
    kept = keep;
  }
  return { order, probs, kept };
}

const word32 = new Float32Array(1),
  bits32 = new Uint32Array(word32.buffer);
const ID_BITS = 2 ** 21; // ids below it fit beside a float32's 32 bits in a double's 53

/**
 * The ids by logit descending, then by id: of float32 logits (a model's), one native sort of
 * keys (the logit's bits made monotone, negated, then the id) instead of a sort calling a
 * comparator V log V times (3x faster at 50257 tokens).
 */
function byLogit(logits) {
  const V = logits.length;
  if (!(logits instanceof Float32Array && V <= ID_BITS))
    return Array.from({ length: V }, (_, i) => i).sort((a, b) => logits[b] - logits[a] || a - b);
  const keys = new Float64Array(V);
  for (let i = 0; i < V; i++) {
    word32[0] = logits[i] === 0 ? 0 : -logits[i]; // -0 and 0 tie, as the comparator has them
    const b = bits32[0];
    keys[i] = (b & 0x80000000 ? ~b >>> 0 : (b | 0x80000000) >>> 0) * ID_BITS + i;
  }
  keys.sort();
  const order = new Array(V);
  for (let i = 0; i < V; i++) order[i] = keys[i] % ID_BITS;
  return order;
}

/**
 * The ids of the m largest logits and of every logit tied with the m-th, by logit descending, then
 * by id (byLogit's order, its first m or more): the m-th largest found by selection (Hoare's
 * partition, median-of-three pivots), O(V), and only those ids sorted.
 */
function largestLogits(logits, m) {
  const a = Float64Array.from(logits);
  const k = m - 1;
  let lo = 0,
    hi = a.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const [x, y, z] = [a[lo], a[mid], a[hi]];
    const pivot = Math.max(Math.min(x, y), Math.min(Math.max(x, y), z)); // the median of three
    let i = lo,
      j = hi;
    while (i <= j) {
      while (a[i] > pivot) i++;
      while (a[j] < pivot) j--;
      if (i <= j) {
        const swap = a[i];
        a[i++] = a[j];
        a[j--] = swap;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  const threshold = a[k];
  const ids = [];
  for (let i = 0; i < logits.length; i++) if (logits[i] >= threshold) ids.push(i);
  return ids.sort((x, y) => logits[y] - logits[x] || x - y);
}

/** A token drawn from the kept set with a uniform u in [0, 1). */
function draw({ order, probs, kept }, u) {
  let total = 0;
  for (let i = 0; i < kept; i++) total += probs[order[i]];
  let target = u * total;
  for (let i = 0; i < kept; i++) {
    target -= probs[order[i]];
    if (target < 0) return order[i];
  }
  return order[kept - 1];
}

/**
 * Streaming text: the text of the generated ids so far (`decoded`) against what has been shown
 * (`printed`). A trailing U+FFFD is a character whose bytes are still arriving (one character,
 * several byte-level tokens): nothing is shown until it completes, so a broken character never
 * appears. Returns { text (new to show), printed }.
 */
export function streamed(printed, decoded) {
  if (decoded.endsWith('\uFFFD') || !decoded.startsWith(printed)) {
    // held back; a decoder that rewrote earlier text (rare) shows from where they differ later
    return { text: '', printed };
  }
  return { text: decoded.slice(printed.length), printed: decoded };
}

/**
 * The file whose values transformers' generate() reads as `model.generation_config`:
 * generation_config.json when the folder has one (GenerationConfig.from_pretrained, in
 * modeling_utils.py's from_pretrained; config.json's generation keys are then not read), else
 * config.json (GenerationConfig.from_model_config, which takes its generation keys and token ids).
 * generationConfig: the parsed generation_config.json, or null when the folder has none.
 */
function generationSource(configJson, generationConfig) {
  return generationConfig
    ? { json: generationConfig, file: 'generation_config.json' }
    : { json: configJson, file: 'config.json' };
}

export class CausalLM {
  /** @private */
  constructor(
    A,
    handle,
    { opened, configJson, generationConfig, tokenizer, where, residentBytes, ignoredTensors, dtype },
  ) {
    // the library instance, not enumerable: console.log and JSON.stringify show the model's own fields
    Object.defineProperty(this, 'A', { value: A });
    this.handle = handle;
    /** 'causal-lm' (encoders: 'encoder') */
    this.kind = 'causal-lm';
    /** The model's sizes as read from config.json (transformers' defaults filled in). */
    this.config = {
      modelType: opened.modelType,
      numLayers: opened.numLayers,
      numHeads: opened.numHeads,
      numKvHeads: opened.numKvHeads,
      headDim: opened.headDim,
      hiddenSize: opened.hiddenSize,
      intermediateSize: opened.intermediateSize,
      vocabSize: opened.vocabSize,
      maxPositions: opened.maxPositions,
      tieWordEmbeddings: opened.tieWordEmbeddings,
    };
    this.modelType = opened.modelType;
    /** config.json as parsed; generation_config.json's (or {} when the folder has none). */
    this.configJson = configJson;
    this.generationConfig = generationConfig ?? {};
    /** @private where generate's defaults come from (generationSource) */
    this.generationFile = generationSource(configJson, generationConfig);
    this.ownTokenizer = tokenizer;
    this.where = where;
    /** Whether the folder had a tokenizer (tokenizer.json): `tokenizer` throws if not. */
    this.hasTokenizer = tokenizer !== null;
    const pick = (key) => this.generationFile.json[key] ?? null;
    /** eos_token_id of generation_config.json (of config.json when the folder has none) */
    this.eosTokenId = pick('eos_token_id');
    this.bosTokenId = pick('bos_token_id');
    this.padTokenId = pick('pad_token_id');
    /** 'fp32' | 'q8': the form of the linear layers' weights (loadPretrained's dtype), as an encoder's. */
    this.dtype = dtype;
    this.residentBytes = residentBytes;
    this.ignoredTensors = ignoredTensors;
    this.disposed = false;
    finalizer?.register(this, { raw: A.raw, handle }, this);
  }

  check(fn) {
    if (this.disposed) throw new Error(`${fn}: the model has been disposed`);
  }

  /**
   * The forward of GPT2LMHeadModel / LlamaForCausalLM: { logits [N, L, V], attentions?
   * (numLayers of [N, H, L, S], S = cached + L), hiddenStates? (numLayers + 1 of [N, L, D], the
   * last after the final norm) }. Positions come from the attention mask as generate computes
   * them (a left-padded row gives what it gives alone); with a cache the new tokens attend to the
   * cached ones and are appended. attentionMask covers the new tokens, or the cached and the new
   * ones (transformers' form: the cached columns are the cache's own and are not read again).
   */
  forward(input, options) {
    const fn = 'lm.forward';
    this.check(fn);
    const o = optionsArg(options, ['outputHiddenStates', 'outputAttentions', 'cache'], fn);
    const hidden = boolOption(o.outputHiddenStates, `${fn}: outputHiddenStates`);
    const attentions = boolOption(o.outputAttentions, `${fn}: outputAttentions`);
    const cache = this.cacheArg(o.cache, fn);
    const { ids, mask, positions, N, L } = this.input(input, fn, cache);
    return call(this.A, '_causalForward', this.handle, ids, mask, positions, N, L, hidden, attentions, cache, false);
  }

  /** @private the cache option: a KvCache of this model, or undefined/null */
  cacheArg(cache, fn) {
    if (cache === undefined || cache === null) return null;
    if (!(cache instanceof KvCache))
      throw new TypeError(`${fn}: cache must be a KvCache (lm.createCache()), got ${describe(cache)}`);
    cache.check(fn);
    if (cache.lm !== this)
      throw new Error(
        `${fn}: cache belongs to another model (a cache holds one model's keys and values: lm.createCache())`,
      );
    return cache.handle;
  }

  /** @private ids | ids[][] | { inputIds, attentionMask?, positionIds? } -> flat arrays */
  input(input, fn, cache) {
    let ids,
      mask = null,
      positions = null;
    if (Array.isArray(input) || input instanceof Int32Array) {
      ids = idRows(input, 'input', fn);
    } else if (input !== null && typeof input === 'object' && !ArrayBuffer.isView(input)) {
      // no tokenTypeIds: Llama and Qwen2 take none, and GPT-2 would add their embeddings, which
      // this model does not (its tokenizer gives none)
      checkInputFields(input, ['inputIds', 'ids', 'attentionMask', 'positionIds'], fn);
      ids = idRows(input.inputIds ?? input.ids, 'inputIds', fn);
      if (input.attentionMask !== undefined && input.attentionMask !== null)
        mask = idRows(input.attentionMask, 'attentionMask', fn);
      if (input.positionIds !== undefined && input.positionIds !== null)
        positions = idRows(input.positionIds, 'positionIds', fn);
    } else {
      throw new TypeError(
        `${fn}: input must be token ids (number[] | Int32Array, or rows of them) or { inputIds, attentionMask, positionIds }, got ${describe(input)}`,
      );
    }
    const N = ids.length,
      L = ids[0]?.length ?? 0;
    if (N === 0 || L === 0) throw new RangeError(`${fn}: inputIds is empty (no tokens)`);
    const P = mask && cache !== null ? unwrap(this.A.raw._cacheInfo(cache)).length : 0;
    if (P > 0) {
      // Rows of the new tokens (L), or transformers' form, the cached tokens and the new ones
      // (P + L), whose cached columns are dropped (the cache keeps its own). One form for every
      // row: the first row of neither length is reported, else a batch mixing the two. A row
      // that is not an array is left to flatInts (its own message).
      const lengths = Array.from(mask, (row) => (Array.isArray(row) ? row.length : null));
      const bad = lengths.findIndex((n) => n !== null && n !== L && n !== P + L);
      if (bad >= 0)
        throw new RangeError(
          `${fn}: attentionMask row ${bad} has ${lengths[bad]} values, expected ${L} (the new tokens) or ${P + L} (the cache's ${P} and the new ${L})`,
        );
      const full = lengths.indexOf(P + L);
      const short = lengths.indexOf(L);
      if (full >= 0 && short >= 0)
        throw new RangeError(
          `${fn}: attentionMask rows mix the two forms: row ${full} has ${P + L} values (the cache's ${P} and the new ${L}), row ${short} has ${L} (the new tokens); give every row the same form`,
        );
      if (full >= 0) {
        // the cached columns are checked as the new ones are (0 or 1, no holes), then dropped
        flatInts(mask, mask.length, P + L, 'attentionMask', { bool: true, fn });
        mask = mask.map((row) => row.slice(P));
      }
    }
    return {
      ids: flatInts(ids, N, L, 'inputIds', { fn }),
      mask: mask && flatInts(mask, N, L, 'attentionMask', { bool: true, fn }),
      positions: positions && flatInts(positions, N, L, 'positionIds', { fn }),
      N,
      L,
    };
  }

  /** A KV cache for this model, in wasm memory (grows with the tokens; cache.dispose() frees it). */
  createCache() {
    this.check('lm.createCache');
    return new KvCache(this, unwrap(this.A.raw._cacheCreate(this.handle)));
  }

  /** The folder's tokenizer (tokenizer.json); an Error naming the file when it had none (as the encoders'). */
  get tokenizer() {
    return modelTokenizer(
      this.ownTokenizer,
      'lm',
      this.where,
      "add the model's tokenizer.json to the folder and load it again, or pass token ids",
    );
  }

  /**
   * Generates after a prompt (a string, tokenized with special tokens as the tokenizer adds them,
   * or token ids): an async iterable of steps { index, position, id, token, text, attentions?,
   * candidates? } that ends at an EOS token (yielded), maxNewTokens, a stop string, or when
   * `signal` aborts; `.all()` runs it to the end: { ids, newIds, text, steps, finishReason }.
   * Greedy (doSample false) picks the first largest logit, as transformers' generate; sampling
   * draws from softmax(logits / temperature) cut to topK (ties at the cut kept) and topP, with
   * the instance's generator (A.rand), or with `seed` the generation's own, seeded as
   * A.manualSeed(seed) seeds the instance's (which it leaves alone). Before either, the logits
   * processor transformers applies from repetition_penalty (penalizeRepetition); the others a
   * folder may set are not applied, and warned about (warnUnapplied).
   */
  generate(prompt, options) {
    const fn = 'lm.generate';
    this.check(fn);
    const o = optionsArg(options, GENERATE_OPTIONS, fn);
    const maxNewTokens = integerOption(o.maxNewTokens, 20, `${fn}: maxNewTokens`);
    // an option left out takes the model's generation_config.json value (samplingDefault)
    const doSample =
      o.doSample === undefined ? this.samplingDefault('doSample', fn) : boolOption(o.doSample, `${fn}: doSample`);
    // an option given is checked; one left out takes the folder's value (samplingDefault) when it
    // is read: the sampling options when sampling (greedy decoding keeps their neutral values),
    // the repetition penalty (a logits processor) always
    const fromFiles = (name, neutral, greedyToo = false) =>
      o[name] !== undefined
        ? numberOption(o[name], neutral, `${fn}: ${name}`, SAMPLING[name].ok, SAMPLING[name].range)
        : doSample || greedyToo
          ? this.samplingDefault(name, fn)
          : neutral;
    const temperature = fromFiles('temperature', 1);
    const repetitionPenalty = fromFiles('repetitionPenalty', 1, true);
    const topK = fromFiles('topK', 0);
    const topP = fromFiles('topP', 1);
    const candidates = integerOption(o.candidates, 0, `${fn}: candidates`);
    const outputAttentions = boolOption(o.outputAttentions, `${fn}: outputAttentions`);
    // A.manualSeed's range, checked here under this function's name
    const seed = integerOption(o.seed, null, `${fn}: seed`, 0, Number.MAX_SAFE_INTEGER, 'an integer in [0, 2^53)');
    const stops = o.stop === undefined || o.stop === null ? [] : [o.stop].flat();
    if (!stops.every((s) => typeof s === 'string' && s.length > 0))
      throw new TypeError(`${fn}: stop must be a non-empty string or an array of them, got ${describe(o.stop)}`);
    const signal = o.signal ?? null;
    if (signal !== null && (typeof signal !== 'object' || typeof signal.aborted !== 'boolean'))
      throw new TypeError(`${fn}: signal must be an AbortSignal, got ${describe(signal)}`);
    const eosOption = o.eosTokenId === undefined ? this.eosTokenId : o.eosTokenId;
    const eos = eosOption === null ? [] : [eosOption].flat();
    eos.forEach((id) => {
      if (typeof id !== 'number' || !Number.isInteger(id))
        throw new TypeError(
          `${fn}: eosTokenId must be a token id, an array of them or null, got ${typeof id === 'number' ? id : describe(id)}`,
        );
    });
    let promptIds;
    if (typeof prompt === 'string') {
      if (!this.hasTokenizer) throw new Error(`${fn}: the model folder had no tokenizer: pass token ids`);
      promptIds = this.encodePrompt(prompt, fn);
    } else {
      // one row of ids, or a batch of one row ([[...ids]])
      const batch = Array.isArray(prompt) && prompt.length > 0 && typeof prompt[0] === 'object' && prompt[0] !== null;
      if (batch && prompt.length !== 1)
        throw new RangeError(`${fn}: prompt has ${prompt.length} rows: generate takes one sequence (ids, or [ids])`);
      const row = batch ? prompt[0] : prompt;
      promptIds = tokenIdList(row, `${fn}: prompt`);
      if (promptIds.length === 0) throw new RangeError(`${fn}: the prompt has no tokens (an empty list of ids)`);
    }
    const P = this.config.maxPositions;
    if (promptIds.length > P)
      throw new RangeError(`${fn}: the prompt has ${promptIds.length} tokens, more than the model's maxPositions ${P}`);
    // with outputAttentions the last new token runs through the model too
    if (promptIds.length + maxNewTokens > P)
      throw new RangeError(
        `${fn}: the prompt's ${promptIds.length} tokens + maxNewTokens ${maxNewTokens} are more than the model's maxPositions ${P}`,
      );
    const V = this.config.vocabSize;
    promptIds.forEach((id, i) => {
      if (id < 0 || id >= V) throw new RangeError(`${fn}: prompt[${i}] = ${id} is not a token id in [0, ${V})`);
    });
    // The uniform of each sampled step. A seed gives the generation its own generator, the stream
    // of A.manualSeed(seed) then A.rand(1) per step (mt19937.js), so that other generations and
    // random calls between its steps leave its tokens alone; without one, the instance's (A.rand).
    const generator = doSample && seed !== null ? new MT19937(seed) : null;
    const uniform = generator ? () => generator.uniform() : () => this.A.rand(1).data[0];
    const run = this.steps({
      uniform,
      promptIds,
      maxNewTokens,
      doSample,
      temperature,
      topK,
      topP,
      repetitionPenalty,
      candidates,
      outputAttentions,
      stops,
      signal,
      eos,
    });
    this.warnUnapplied(fn, doSample);
    const lm = this;
    // One run, consumed once: by for await, or by all() (whose promise a second all() returns).
    // Taking it twice is a TypeError, not a silently empty or partial result.
    let consumer = null,
      whole = null;
    const take = (by) => {
      if (consumer !== null) {
        throw new TypeError(
          `${fn}: this generation was already consumed by ${consumer}: iterate it once or call all() ` +
            '(call lm.generate again for another run)',
        );
      }
      consumer = by;
    };
    const generation = {
      finishReason: null,
      [Symbol.asyncIterator]() {
        take('for await');
        return run;
      },
      // a plain for...of: say what to write instead of V8's "is not iterable"
      [Symbol.iterator]() {
        throw new TypeError(
          `${fn}: a generation is iterated with for await (const step of lm.generate(...)), or awaited whole with all()`,
        );
      },
      all() {
        if (whole !== null) return whole;
        try {
          take('all()');
        } catch (e) {
          return Promise.reject(e);
        }
        whole = (async () => {
          const steps = [];
          for await (const step of run) steps.push(step);
          const newIds = steps.map((s) => s.id);
          return {
            ids: [...promptIds, ...newIds],
            newIds,
            text: lm.decodeNew(newIds),
            steps,
            finishReason: generation.finishReason,
          };
        })();
        return whole;
      },
    };
    run.finish = (reason) => (generation.finishReason = reason);
    return generation;
  }

  /**
   * @private A string prompt's ids, as tokenizer.encode gives them (special tokens added), with
   * the prompt's own errors: the limit is the model's maxPositions, checked by generate (not the
   * tokenizer's maximum, whose advice, truncation, is not an option of generate), and the
   * tokenizer's other refusals (too many characters) are given under generate's name. An empty
   * prompt is the tokenizer's special tokens alone: Llama's <s>, from which generation starts (the
   * text-generation pipeline allows empty prompts); GPT-2's none, a RangeError.
   */
  encodePrompt(prompt, fn) {
    let ids;
    try {
      ids = Array.from(this.tokenizer.encode(prompt, { maxLength: Infinity }).inputIds);
    } catch (e) {
      if (!(e instanceof Error) || !e.message.startsWith('tokenizer.encode: ')) throw e;
      const message = e.message.slice('tokenizer.encode: '.length).replace(/^(the )?text\b/, '$1prompt');
      throw new e.constructor(`${fn}: ${message}`, { cause: e });
    }
    if (ids.length === 0)
      throw new RangeError(
        `${fn}: the prompt has no tokens (${prompt.length ? 'only characters the tokenizer drops' : 'an empty string'})`,
      );
    return ids;
  }

  /**
   * @private The value of a sampling option left out of generate: the folder's
   * (generationSource), else the default of transformers' GenerationConfig
   * (generation/configuration_utils.py: do_sample False, temperature 1.0, top_k 50, top_p 1.0,
   * repetition_penalty 1.0). A value of the file that is not valid is an Error naming it.
   */
  samplingDefault(option, fn) {
    const { key, fallback, ok, range } = SAMPLING[option];
    const { json, file } = this.generationFile;
    const value = json[key];
    if (value === undefined || value === null) return fallback;
    if (!ok(value))
      throw new RangeError(
        `${fn}: ${this.where}: ${file}'s ${key} = ${JSON.stringify(value)} is not ${range} (pass ${option} to override it)`,
      );
    return value;
  }

  /**
   * @private A console warning naming what the folder's generation_config.json (or config.json:
   * generationSource) asks of transformers' generate, in this decoding (greedy or sampled), that
   * lm.generate does not apply (UNAPPLIED); each key once per model.
   */
  warnUnapplied(fn, doSample) {
    this.warnedUnapplied ??= new Set();
    const { json, file } = this.generationFile;
    const keys = Object.entries(UNAPPLIED)
      .filter(
        ([key, { applies, sampling, greedy }]) =>
          applies(json[key]) && (sampling ? doSample : greedy ? !doSample : true),
      )
      .map(([key]) => key)
      .filter((key) => !this.warnedUnapplied.has(key));
    keys.forEach((key) => this.warnedUnapplied.add(key));
    if (keys.length)
      console.warn(
        `${fn}: ${this.where}: ${keys.map((key) => `${file}'s ${key} = ${JSON.stringify(json[key])}`).join(', ')}: ` +
          `lm.generate does not apply ${keys.length > 1 ? 'these' : 'it'} ` +
          "(transformers' generate would), so its tokens can differ from transformers'",
      );
  }

  /** @private the text of generated ids (special tokens skipped) */
  decodeNew(ids) {
    return this.hasTokenizer && ids.length ? this.tokenizer.decode(ids, { skipSpecialTokens: true }) : '';
  }

  /** @private the generation loop (see generate) */
  steps(s) {
    const lm = this;
    const fn = 'lm.generate';
    const A = this.A;
    async function* loop() {
      lm.check(fn); // disposed between generate() and the first step: generate's error
      const cache = lm.createCache();
      try {
        const newIds = [];
        let printed = '';
        const forward = (ids, attentions) =>
          call(
            A,
            '_causalForward',
            lm.handle,
            Int32Array.from(ids),
            null,
            null,
            1,
            ids.length,
            false,
            attentions,
            cache.handle,
            true,
          );
        let out = forward(s.promptIds, false);
        const sequence = new Set(s.promptIds); // the ids so far, for the repetition penalty
        for (let index = 0; index < s.maxNewTokens; index++) {
          if (index > 0) await nextTask(); // a timer, a click or AbortSignal.timeout may run now
          if (s.signal?.aborted) return generatorFinish('abort');
          lm.check(fn);
          const logits = out.logits.data; // this step's own array: the processors change it in place
          if (s.repetitionPenalty !== 1) penalizeRepetition(logits, sequence, s.repetitionPenalty);
          let id;
          const needDistribution = s.doSample || s.candidates > 0;
          const dist = needDistribution
            ? s.doSample
              ? stepDistribution(logits, s, s.candidates)
              : stepDistribution(logits, { temperature: s.temperature, topK: s.candidates }) // candidates' ranks
            : null;
          if (s.doSample) {
            id = draw(dist, s.uniform());
          } else {
            id = 0;
            for (let v = 1; v < logits.length; v++) if (logits[v] > logits[id]) id = v;
          }
          newIds.push(id);
          sequence.add(id);
          const position = s.promptIds.length + index;
          const isEos = s.eos.includes(id);
          // the text so far; a trailing U+FFFD is a character still incomplete: wait for it
          const decoded = lm.decodeNew(newIds);
          const stream = streamed(printed, decoded);
          let text = stream.text;
          printed = stream.printed;
          const stopped = s.stops.some((stop) => printed.includes(stop));
          const last = isEos || stopped || index + 1 === s.maxNewTokens || s.signal?.aborted;
          if (last && printed !== decoded) {
            // the end: what is held back is flushed (an invalid sequence stays U+FFFD)
            text += decoded.slice(printed.length);
            printed = decoded;
          }
          const step = {
            index,
            position,
            id,
            token: lm.ownTokenizer?.idToToken(id) ?? String(id),
            text,
          };
          if (s.candidates > 0) {
            const probs = dist.probs;
            step.candidates = dist.order.slice(0, s.candidates).map((c, rank) => ({
              id: c,
              token: lm.ownTokenizer?.idToToken(c) ?? String(c),
              probability: probs[c],
              kept: s.doSample ? rank < dist.kept : rank === 0,
            }));
          }
          if (!last || s.outputAttentions) {
            // the new token through the model: the next step's logits, and its attention row
            out = forward([id], s.outputAttentions);
            if (s.outputAttentions)
              step.attentions = out.attentions.map((a) => new Tensor(a.data, [a.shape[1], a.shape[3]]));
          }
          yield step;
          if (last)
            return generatorFinish(
              isEos ? 'eos' : stopped ? 'stop' : index + 1 === s.maxNewTokens ? 'length' : 'abort',
            );
        }
        return generatorFinish('length');
      } finally {
        cache.dispose();
      }
    }
    let finishReason = null;
    function generatorFinish(reason) {
      finishReason = reason;
      it.finish?.(reason);
      return undefined;
    }
    const it = loop();
    Object.defineProperty(it, 'finishReason', { get: () => finishReason });
    return it;
  }

  /** Frees the weights and every cache of this model. Idempotent. */
  dispose() {
    if (this.disposed) return;
    this.disposed = true;
    finalizer?.unregister(this);
    this.A.raw._modelDispose(this.handle);
  }
}
if (typeof Symbol.dispose === 'symbol') CausalLM.prototype[Symbol.dispose] = CausalLM.prototype.dispose;
