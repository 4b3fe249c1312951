// Causal language models (GPT-2, Llama, Qwen2) loaded by A.loadPretrained: lm.forward with a KV
// cache resident in wasm memory, and lm.generate, an async iterable of steps (greedy or sampled
// from the instance's seeded generator, stopped by EOS, maxNewTokens, stop strings or an
// AbortSignal), each with its token, the text it completes and, when asked, the attention of the
// new token in every layer and the step's top candidates. The contract with the page:
// docs/causal-lm.md; the forward itself is C++ (src/models/causal_lm.cpp).
import { Tensor, describe } from './tensor.js';
import { call, unwrap, optionsArg, boolOption } from './validate.js';
import { idRows, flatInts } from './model-input.js';
import { modelTokenizer } from './tokenizer.js';

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

function integerOption(value, fallback, where, min = 0) {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min)
    throw new RangeError(
      `${where} must be an integer >= ${min}, got ${typeof value === 'number' ? value : describe(value)}`,
    );
  return value;
}

function numberOption(value, fallback, where, ok, range) {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !ok(value))
    throw new RangeError(`${where} must be ${range}, got ${typeof value === 'number' ? value : describe(value)}`);
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
 * transformers' warpers in their order (TopKLogitsWarper, then TopPLogitsWarper over the
 * renormalised top k: tokens whose cumulative probability, ascending, is <= 1 - topP are removed,
 * at least one kept). Returns { order (ids by probability desc), probs, kept (count of `order`
 * kept) }.
 */
export function stepDistribution(logits, { temperature = 1, topK = 0, topP = 1 } = {}) {
  const V = logits.length;
  const t = temperature > 0 ? temperature : 1;
  let max = -Infinity;
  for (let i = 0; i < V; i++) max = Math.max(max, logits[i] / t);
  const probs = new Float64Array(V);
  let sum = 0;
  for (let i = 0; i < V; i++) sum += probs[i] = Math.exp(logits[i] / t - max);
  for (let i = 0; i < V; i++) probs[i] /= sum;
  const order = Array.from({ length: V }, (_, i) => i).sort((a, b) => probs[b] - probs[a] || a - b);
  let kept = topK > 0 ? Math.min(topK, V) : V;
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

export class CausalLM {
  /** @private */
  constructor(A, handle, { opened, configJson, generationConfig, tokenizer, where, residentBytes, ignoredTensors }) {
    this.A = A;
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
    /** config.json as parsed; generation_config.json's (or {}). */
    this.configJson = configJson;
    this.generationConfig = generationConfig;
    this.ownTokenizer = tokenizer;
    this.where = where;
    /** Whether the folder had a tokenizer (tokenizer.json): `tokenizer` throws if not. */
    this.hasTokenizer = tokenizer !== null;
    const pick = (key) => generationConfig[key] ?? configJson[key] ?? null;
    /** generation_config.json's eos_token_id (else config.json's): number | number[] | null */
    this.eosTokenId = pick('eos_token_id');
    this.bosTokenId = pick('bos_token_id');
    this.padTokenId = pick('pad_token_id');
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
      const known = [
        'inputIds',
        'ids',
        'attentionMask',
        'positionIds',
        'tokens',
        'offsets',
        'sequenceIds',
        'tokenTypeIds',
      ];
      const unknown = Object.keys(input).filter((k) => !known.includes(k));
      if (unknown.length)
        throw new TypeError(
          `${fn}: unknown input field '${unknown[0]}' (allowed: inputIds, attentionMask, positionIds)`,
        );
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
    if (mask && cache !== null && mask[0]?.length !== L) {
      // transformers' form: the mask of the cached tokens and the new ones
      const P = this.A.raw._cacheInfo(cache).length;
      if (mask.every((row) => Array.isArray(row) && row.length === P + L)) mask = mask.map((row) => row.slice(P));
      const bad = mask.findIndex((row) => !Array.isArray(row) || row.length !== L);
      if (bad >= 0 && Array.isArray(mask[bad]))
        throw new RangeError(
          `${fn}: attentionMask row ${bad} has ${mask[bad].length} values, expected ${L} (the new tokens) or ${P + L} (the cache's ${P} and the new ${L})`,
        );
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
   * draws from softmax(logits / temperature) cut to topK and topP, with the instance's generator
   * (seeded by `seed`: A.manualSeed).
   */
  generate(prompt, options) {
    const fn = 'lm.generate';
    this.check(fn);
    const o = optionsArg(options, GENERATE_OPTIONS, fn);
    const maxNewTokens = integerOption(o.maxNewTokens, 20, `${fn}: maxNewTokens`);
    const doSample = boolOption(o.doSample, `${fn}: doSample`);
    const temperature = numberOption(
      o.temperature,
      1,
      `${fn}: temperature`,
      (x) => x > 0 && Number.isFinite(x),
      'a positive number',
    );
    const topK = integerOption(o.topK, 0, `${fn}: topK`);
    const topP = numberOption(o.topP, 1, `${fn}: topP`, (x) => x > 0 && x <= 1, 'in (0, 1]');
    const candidates = integerOption(o.candidates, 0, `${fn}: candidates`);
    const outputAttentions = boolOption(o.outputAttentions, `${fn}: outputAttentions`);
    if (o.seed !== undefined) integerOption(o.seed, 0, `${fn}: seed`);
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
      promptIds = Array.from(this.tokenizer.encode(prompt).inputIds);
    } else {
      // one row of ids, or a batch of one row ([[...ids]])
      const batch = Array.isArray(prompt) && prompt.length > 0 && typeof prompt[0] === 'object' && prompt[0] !== null;
      if (batch && prompt.length !== 1)
        throw new RangeError(`${fn}: prompt has ${prompt.length} rows: generate takes one sequence (ids, or [ids])`);
      const row = batch ? prompt[0] : prompt;
      promptIds = tokenIdList(row, `${fn}: prompt`);
    }
    if (promptIds.length === 0) throw new RangeError(`${fn}: the prompt has no tokens`);
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
    if (doSample && o.seed !== undefined) this.A.manualSeed(o.seed);
    const run = this.steps({
      promptIds,
      maxNewTokens,
      doSample,
      temperature,
      topK,
      topP,
      candidates,
      outputAttentions,
      stops,
      signal,
      eos,
    });
    const lm = this;
    const generation = {
      finishReason: null,
      [Symbol.asyncIterator]() {
        return run;
      },
      async all() {
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
      },
    };
    run.finish = (reason) => (generation.finishReason = reason);
    return generation;
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
        for (let index = 0; index < s.maxNewTokens; index++) {
          if (index > 0) await nextTask(); // a timer, a click or AbortSignal.timeout may run now
          if (s.signal?.aborted) return generatorFinish('abort');
          lm.check(fn);
          const logits = out.logits.data;
          let id;
          const needDistribution = s.doSample || s.candidates > 0;
          const dist = needDistribution
            ? stepDistribution(logits, s.doSample ? s : { temperature: s.temperature })
            : null;
          if (s.doSample) {
            id = draw(dist, A.rand(1).data[0]);
          } else {
            id = 0;
            for (let v = 1; v < logits.length; v++) if (logits[v] > logits[id]) id = v;
          }
          newIds.push(id);
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
