// Pretrained models from a Hugging Face model folder: A.loadPretrained(source, { onProgress }).
//
// The C++ side reads and validates the checkpoint, once (src/models/checkpoint.cpp: config.json
// through the architecture's table -- model_type 'distilbert', 'bert', 'gpt2', 'llama' or
// 'qwen2', transformers' defaults --, the safetensors header, each tensor the model needs by the
// base model's name with or without the checkpoint's prefix, its shape and dtype), before it
// allocates anything. This side only finds the files, streams the bytes of the tensors the model
// uses into the wasm heap chunk by chunk (converted to float32 there, once) and reports progress.
// The task head (issue 20) is the one config.json's architectures[0] names (or options.head): its
// tensors are read with the base model's, the other heads' left unread; model.forward(input, {
// outputLogits }) returns its logits and the task helpers of tasks.js (fillMask, classify, rerank,
// tagTokens, answer) turn them into the pipelines' answers. The weights stay resident until
// model.dispose().
import { Tensor, describe } from './tensor.js';
import { call, unwrap, optionsArg, boolOption, positiveIntegerOption } from './validate.js';
import { openModelFiles } from './model-files.js';
import { tokenizerFromFiles, modelTokenizer, SHIPPED_TOKENIZERS } from './tokenizer.js';
import { idRows, flatInts, checkInputFields } from './model-input.js';
import { CausalLM } from './causal-lm.js';
import { HEADS, labelsOf, taskMethods } from './tasks.js';

const FN = 'loadPretrained';
/** loadPretrained's dtypes: the linear layers in float32, or in int8 (quantized while loading). */
export const MODEL_DTYPES = Object.freeze(['fp32', 'q8']);
const WEIGHTS = 'model.safetensors';
/** options.head: 'auto' (architectures[0]), 'none' (the base model) or one of HEADS. */
const HEAD_OPTIONS = ['auto', 'none', ...HEADS];

function checkWeightsFile(files) {
  if (files.has(WEIGHTS)) return;
  const names = files.names;
  if (names.includes('model.safetensors.index.json')) {
    throw new Error(
      `${FN}: ${files.where} holds a sharded checkpoint (model.safetensors.index.json): only a single ${WEIGHTS} is read`,
    );
  }
  const pickle = names.find((n) => /\.(bin|pt|pth|ckpt)$/.test(n));
  if (pickle) {
    throw new Error(
      `${FN}: ${files.where} has ${pickle} but no ${WEIGHTS}: only safetensors checkpoints are read (a .bin is a Python pickle, which cannot be read safely; convert it, e.g. save_pretrained(dir, safe_serialization=True))`,
    );
  }
  throw new Error(`${FN}: ${WEIGHTS} is missing from ${files.where} (it has: ${names.join(', ') || 'no files'})`);
}

// ---------------------------------------------------------------------------------------------
// The model

// Frees a model's weights when its object is garbage-collected without dispose().
const finalizer =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry(({ raw, handle }) => raw._modelDispose(handle))
    : null;

/** config.json's architectures[0], for messages. */
const describeArchitecture = (config) =>
  typeof config?.architectures?.[0] === 'string' ? `'${config.architectures[0]}'` : 'not given';

export class PretrainedModel {
  /** @private */
  constructor(
    A,
    handle,
    { config, model, tokenizer, where, hasPooler, residentBytes, ignoredTensors, dtype, head, numLabels, sentence },
  ) {
    // the library instance, not enumerable: console.log and JSON.stringify show the model's own fields
    Object.defineProperty(this, 'A', { value: A });
    this.handle = handle;
    /** 'encoder' (causal language models: 'causal-lm', src/js/causal-lm.js) */
    this.kind = 'encoder';
    /** The parsed config.json. */
    this.config = config;
    this.ownTokenizer = tokenizer;
    this.where = where;
    /** Whether the folder had a tokenizer (tokenizer.json or vocab.txt): `tokenizer` throws if not. */
    this.hasTokenizer = tokenizer !== null;
    /** 'distilbert' | 'bert' */
    this.modelType = model.modelType;
    this.numLayers = model.numLayers;
    this.numHeads = model.numHeads;
    this.hiddenSize = model.hiddenSize;
    /** config.json's max_position_embeddings: the most tokens one sequence may have. */
    this.maxPositions = model.maxPositions;
    /** Whether forward returns poolerOutput (BERT checkpoints with pooler.dense). */
    this.hasPooler = hasPooler;
    /** 'fp32' | 'q8': the form of the linear layers' weights (loadPretrained's dtype). */
    this.dtype = dtype;
    /** Bytes of wasm memory the weights hold (float32, and int8 for a q8 model's linear layers). */
    this.residentBytes = residentBytes;
    /** Tensors of the file that the model does not use (heads it did not load, buffers). */
    this.ignoredTensors = ignoredTensors;
    /** The task head loaded ('masked-lm', 'sequence-classification', ...), or null: the base model. */
    this.head = head;
    /** The classifier's labels in index order (config.json's id2label), null without a classification head. */
    this.labels =
      head === 'sequence-classification' || head === 'token-classification' ? labelsOf(config, numLabels) : null;
    /** config.json's vocab_size: the masked-LM head's outputs. */
    this.vocabSize = model.vocabSize;
    /**
     * A sentence-transformers folder's settings for embed ({ maxSeqLength, normalize,
     * doLowerCase }: sentenceSettings), null in a folder without its files.
     */
    this.sentenceTransformers = sentence;
    this.disposed = false;
    finalizer?.register(this, { raw: A.raw, handle }, this);
  }

  check(fn) {
    if (this.disposed) throw new Error(`${fn}: the model has been disposed`);
  }

  /** The folder's tokenizer (tokenizer.json or vocab.txt); an Error naming the files when it had neither. */
  get tokenizer() {
    return modelTokenizer(
      this.ownTokenizer,
      'model',
      this.where,
      "add the model's tokenizer.json, or vocab.txt (with tokenizer_config.json), to the folder and load it again, or tokenize with loadTokenizer(...) and pass the ids",
    );
  }

  /**
   * The encoder's forward pass (eval mode), as transformers' model(input_ids, attention_mask,
   * token_type_ids, output_hidden_states, output_attentions); with outputLogits, the task head's
   * too, as the ...For<Task> model's logits (question answering: start_logits, end_logits).
   * @param input number[] | Int32Array (one text's ids), or { inputIds, attentionMask?, tokenTypeIds? }
   *   with rows (a padded batch) or one row; tokenizer.encode's and encodeBatch's results work as they are
   * @param options { outputHiddenStates, outputAttentions, outputLogits }
   */
  forward(input, options) {
    const fn = 'model.forward';
    this.check(fn);
    const o = optionsArg(options, ['outputHiddenStates', 'outputAttentions', 'outputLogits'], fn);
    const hidden = boolOption(o.outputHiddenStates, `${fn}: outputHiddenStates`);
    const attentions = boolOption(o.outputAttentions, `${fn}: outputAttentions`);
    const logits = boolOption(o.outputLogits, `${fn}: outputLogits`);
    if (logits && !this.head)
      throw new Error(
        `${fn}: outputLogits needs a task head; the model was loaded without one (config.json's architectures[0] is ${describeArchitecture(this.config)})`,
      );
    const { ids, mask, types, N, L } = this.#inputs(input, fn);
    // {lastHiddenState, hiddenStates?, attentions?, poolerOutput?, logits? | startLogits?, endLogits?}, as Tensors
    return call(this.A, '_modelForward', this.handle, ids, mask, types, N, L, hidden, attentions, logits, null);
  }

  /**
   * The head's logits of a padded batch (the task helpers' forward): { logits } (masked LM and
   * token classification (N, L, K); at `positions` [[n, l], ...] only, (positions, K);
   * sequence classification (N, K)) or { startLogits, endLogits } (N, L). fn: the helper, for
   * messages.
   * @private
   */
  headForward(batch, { positions, fn = 'model.forward' } = {}) {
    const input = { inputIds: batch.inputIds, attentionMask: batch.attentionMask };
    if (batch.tokenTypeIds && this.modelType !== 'distilbert') input.tokenTypeIds = batch.tokenTypeIds;
    const { ids, mask, types, N, L } = this.#inputs(input, fn);
    const at = positions ? Int32Array.from(positions.flat()) : null;
    return call(this.A, '_modelForward', this.handle, ids, mask, types, N, L, false, false, true, at);
  }

  /** forward's input -> flat typed arrays (ids, mask, types) and the batch's shape, checked. */
  #inputs(input, fn) {
    let ids,
      mask = null,
      types = null;
    if (Array.isArray(input) || input instanceof Int32Array) {
      ids = idRows(input, 'input');
    } else if (input !== null && typeof input === 'object' && !ArrayBuffer.isView(input)) {
      checkInputFields(input, ['inputIds', 'attentionMask', 'tokenTypeIds'], fn);
      ids = idRows(input.inputIds, 'inputIds');
      if (input.attentionMask !== undefined && input.attentionMask !== null)
        mask = idRows(input.attentionMask, 'attentionMask');
      if (input.tokenTypeIds !== undefined && input.tokenTypeIds !== null)
        types = idRows(input.tokenTypeIds, 'tokenTypeIds');
    } else if (typeof input === 'string') {
      throw new TypeError(
        `${fn}: input is a string; tokenize it first: model.forward(model.tokenizer.encode(text)), or model.embed(texts) for sentence embeddings`,
      );
    } else {
      throw new TypeError(
        `${fn}: input must be token ids (number[] | Int32Array) or { inputIds, attentionMask, tokenTypeIds }, got ${describe(input)}`,
      );
    }
    const N = ids.length,
      L = ids[0]?.length ?? 0;
    if (N === 0 || L === 0) throw new RangeError(`${fn}: inputIds is empty (no tokens)`);
    const idData = flatInts(ids, N, L, 'inputIds');
    const maskData = mask && flatInts(mask, N, L, 'attentionMask', { bool: true });
    if (types && this.modelType === 'distilbert')
      throw new TypeError(`${fn}: tokenTypeIds are not an input of distilbert (it has no token type embeddings)`);
    const typeData = types && flatInts(types, N, L, 'tokenTypeIds');
    return { ids: idData, mask: maskData, types: typeData, N, L };
  }

  /**
   * The learned (input) embeddings of token ids, before position embeddings and LayerNorm:
   * model.embeddings.word_embeddings(ids) in transformers. Tensor [ids.length, hiddenSize].
   * @param ids number[] | Int32Array
   */
  wordEmbeddings(ids) {
    const fn = 'model.wordEmbeddings';
    this.check(fn);
    if (!Array.isArray(ids) && !(ids instanceof Int32Array))
      throw new TypeError(`${fn}: ids must be number[] or Int32Array, got ${describe(ids)}`);
    const data = Int32Array.from(ids, (x, i) => {
      if (typeof x !== 'number' || !Number.isInteger(x) || x < -(2 ** 31) || x >= 2 ** 31)
        throw new RangeError(`${fn}: ids[${i}] = ${x} is not an integer id`);
      return x;
    });
    return call(this.A, '_modelWordEmbeddings', this.handle, data);
  }

  /**
   * Sentence embeddings as sentence-transformers computes them: the texts tokenized and padded,
   * run as one batch (batchSize at a time), then pooled over the tokens their attention mask
   * keeps: 'mean' (sum of h * mask / max(sum of mask, 1e-9)) or 'cls' (the first token); with
   * `normalize`, divided by max(L2 norm, 1e-12). Tensor [texts.length, hiddenSize]. In a
   * sentence-transformers folder (sentenceTransformers), its settings: texts cut to
   * max_seq_length (truncation on unless false is given), normalized when modules.json has
   * Normalize, lower-cased with do_lower_case.
   * @param texts string[], or one string: one text, [1, hiddenSize] (as sentence-transformers'
   *   encode takes a string, though it returns a vector)
   */
  embed(texts, options) {
    const fn = 'model.embed';
    this.check(fn);
    const o = optionsArg(options, ['pooling', 'normalize', 'truncation', 'batchSize'], fn);
    // a sentence-transformers folder: its settings are encode's (sentenceSettings)
    const st = this.sentenceTransformers;
    if (st?.unsupported.length) {
      throw new Error(
        `${fn}: this sentence-transformers folder has modules embed does not compute: ${st.unsupported.join('; ')}. ` +
          "model.forward gives the Transformer module's token states",
      );
    }
    if (o.pooling === undefined && st && st.pooling === null) {
      throw new Error(
        `${fn}: modules.json lists no Pooling module whose config.json was given (e.g. 1_Pooling/config.json): pass pooling: 'mean' or 'cls'`,
      );
    }
    const pooling = o.pooling ?? st?.pooling ?? 'mean';
    if (pooling !== 'mean' && pooling !== 'cls')
      throw new TypeError(`${fn}: pooling must be 'mean' or 'cls', got ${JSON.stringify(pooling)}`);
    const normalize =
      o.normalize === undefined ? (st?.normalize ?? false) : boolOption(o.normalize, `${fn}: normalize`);
    const truncation = o.truncation === undefined ? st !== null : boolOption(o.truncation, `${fn}: truncation`);
    const batchSize = positiveIntegerOption(o.batchSize ?? 32, `${fn}: batchSize`);
    const tokenizer = this.tokenizer; // an Error naming the files when the folder had none
    let list = typeof texts === 'string' ? [texts] : texts;
    if (!Array.isArray(list) || list.length === 0 || !list.every((t) => typeof t === 'string')) {
      throw new TypeError(`${fn}: texts must be a string or a non-empty array of strings, got ${describe(texts)}`);
    }
    if (st?.doLowerCase) list = list.map((t) => t.toLowerCase());
    const D = this.hiddenSize;
    const out = new Float32Array(list.length * D);
    for (let start = 0; start < list.length; start += batchSize) {
      let batch;
      try {
        batch = tokenizer.encodeBatch(list.slice(start, start + batchSize), {
          truncation,
          maxLength: st?.maxSeqLength,
        });
      } catch (e) {
        // the element of this part named as the caller's: model.embed: texts[start + i]
        if (e instanceof Error)
          e.message = e.message.replace(
            /^tokenizer\.encodeBatch: texts\[(\d+)\]/,
            (_, i) => `${fn}: texts[${start + Number(i)}]`,
          );
        throw e;
      }
      if (this.modelType === 'distilbert') delete batch.tokenTypeIds;
      const h = this.forward(batch).lastHiddenState; // [n, L, D]
      const [n, L] = h.shape;
      for (let i = 0; i < n; i++) {
        const v = new Float64Array(D);
        if (pooling === 'cls') {
          for (let d = 0; d < D; d++) v[d] = h.data[i * L * D + d];
        } else {
          let count = 0;
          for (let l = 0; l < L; l++) {
            if (!batch.attentionMask[i][l]) continue;
            count++;
            for (let d = 0; d < D; d++) v[d] += h.data[(i * L + l) * D + d];
          }
          for (let d = 0; d < D; d++) v[d] /= Math.max(count, 1e-9);
        }
        if (normalize) {
          let squares = 0;
          for (let d = 0; d < D; d++) squares += v[d] * v[d];
          const norm = Math.max(Math.sqrt(squares), 1e-12);
          for (let d = 0; d < D; d++) v[d] /= norm;
        }
        out.set(v, (start + i) * D);
      }
    }
    return new Tensor(out, [list.length, D]);
  }

  /** Frees the weights (the wasm memory returns to the allocator). Idempotent. */
  dispose() {
    if (this.disposed) return;
    this.disposed = true;
    finalizer?.unregister(this);
    this.A.raw._modelDispose(this.handle);
  }
}
Object.assign(PretrainedModel.prototype, taskMethods);
if (typeof Symbol.dispose === 'symbol') PretrainedModel.prototype[Symbol.dispose] = PretrainedModel.prototype.dispose;

// ---------------------------------------------------------------------------------------------
// Loading

/** The bytes of the safetensors header: its length from the first 8 bytes (checked in C++), then the header. */
async function readHeader(raw, files) {
  const size = files.size(WEIGHTS);
  const n = unwrap(raw._safetensorsHeaderLength((await files.read(WEIGHTS, 0, 8)).slice(), size));
  // The format allows 100 MB of header; its parse lives in the wasm heap, which never shrinks (a
  // 99 MB header grew it by 340-930 MiB), and the checkpoints this loads have headers of KBs (a
  // tensor is ~100 bytes of JSON; DistilBERT's ~15 KB, a 7B Llama's ~30 KB).
  if (n > MAX_HEADER_BYTES)
    throw new RangeError(
      `${FN}: ${WEIGHTS}: a header of ${n} bytes, more than the ${MAX_HEADER_BYTES / 2 ** 20} MiB loadPretrained reads (a checkpoint's header holds ~100 bytes per tensor)`,
    );
  return (await files.read(WEIGHTS, 8, 8 + n)).slice();
}
const MAX_HEADER_BYTES = 16 * 2 ** 20;

/** Streams the model's byte ranges into its arena; onProgress({loaded, total}) after each chunk. */
async function streamWeights(raw, opened, files, progress) {
  // chunks of the staging buffer's size (1 MiB, model_bindings.cpp): only the pages a chunk fills
  // become resident (in browsers a chunk is also in a Blob read's buffer), which shows in a q8
  // load's peak (0.5x the file is the budget, the int8 weights 0.26x): 1 MiB keeps it 3 MiB below
  // 4 MiB, at no measurable cost in load time (docs/performance.md)
  const { handle, stagingBytes: chunkBytes, dataStart, ranges } = opened;
  for (const [rangeBegin, rangeEnd] of ranges) {
    for (let begin = rangeBegin; begin < rangeEnd; begin += chunkBytes) {
      const length = Math.min(rangeEnd - begin, chunkBytes);
      // the view is taken right before the bytes land: growing the heap detaches older views
      await files.readInto(WEIGHTS, dataStart + begin, dataStart + begin + length, () =>
        unwrap(raw._modelStagingView(handle)).subarray(0, length),
      );
      unwrap(raw._modelWrite(handle, begin, length));
      progress(length);
    }
  }
}

/** For a folder that is not there: what loadTokenizer, unlike loadPretrained, can do without one. */
function shippedHint(source) {
  const calls = SHIPPED_TOKENIZERS.map((n) => `loadTokenizer('${n}')`).join(' or ');
  return SHIPPED_TOKENIZERS.includes(source)
    ? `. Only its tokenizer ships in the package (loadTokenizer('${source}') needs no folder); the model's weights must be a local copy of its folder`
    : `. The one exception is a tokenizer: ${calls} reads a vocabulary shipped in the package`;
}

// sentence-transformers' module types (modules.json), and the Pooling module's modes in the order
// Pooling.forward concatenates them (models/Pooling.py): [config key, pooling_mode string, default].
// embed computes one mode, 'cls' or 'mean'.
const ST = 'sentence_transformers.models.';
const POOLING_MODES = [
  ['pooling_mode_cls_token', 'cls', false],
  ['pooling_mode_max_tokens', 'max', false],
  ['pooling_mode_mean_tokens', 'mean', true],
  ['pooling_mode_mean_sqrt_len_tokens', 'mean_sqrt_len_tokens', false],
  ['pooling_mode_weightedmean_tokens', 'weightedmean', false],
  ['pooling_mode_lasttoken', 'lasttoken', false],
];

/** Python's truth of a JSON value (Pooling's flags are tested with `if`). */
const truthy = (v) =>
  !(v === null || v === false || v === 0 || v === '' || (typeof v === 'object' && Object.keys(v).length === 0));

/**
 * The Pooling module's mode from its folder's config.json, as Pooling(**config) sets it: a
 * `pooling_mode` string chooses one mode; else each flag as given, or its default (mean pooling on,
 * the others off). { pooling: 'cls' | 'mean' }, or { unsupported } naming what embed cannot compute.
 */
async function poolingMode(files, name) {
  const c = await files.json(name);
  if (c === null || typeof c !== 'object' || Array.isArray(c)) throw new Error(`${name}: expected a JSON object`);
  let on;
  if (c.pooling_mode !== undefined && c.pooling_mode !== null) {
    const mode = typeof c.pooling_mode === 'string' ? c.pooling_mode.toLowerCase() : null;
    if (!POOLING_MODES.some(([, m]) => m === mode))
      throw new Error(
        `${name}: pooling_mode must be one of ${POOLING_MODES.map(([, m]) => `'${m}'`).join(', ')}, got ${JSON.stringify(c.pooling_mode)}`,
      );
    on = POOLING_MODES.filter(([, m]) => m === mode);
  } else on = POOLING_MODES.filter(([key, , fallback]) => (key in c ? truthy(c[key]) : fallback));
  if (on.length === 1 && (on[0][1] === 'cls' || on[0][1] === 'mean')) return { pooling: on[0][1] };
  const what = on.length ? on.map(([key]) => key).join(' + ') : 'no pooling mode';
  return { unsupported: `${name}: ${what} (embed computes one of pooling_mode_cls_token, pooling_mode_mean_tokens)` };
}

/**
 * What SentenceTransformer(folder) reads beside the model for encode: sentence_bert_config.json's
 * max_seq_length (models/Transformer.py cuts every text to it; here at most `maxLength`, the
 * model's and its tokenizer's maximum, which is the default) and do_lower_case; modules.json's
 * modules: a Normalize module (models/Normalize.py), the Pooling module's mode from its folder's
 * config.json (models/Pooling.py: 'cls' or 'mean'; null when that file was not given, or when
 * modules.json lists no Pooling module), and, in `unsupported`, every module or pooling mode that
 * embed does not compute (Dense, LayerNorm, max pooling, several modes at once, ...): embed then
 * refuses rather than return other numbers than encode would. Without modules.json,
 * sentence-transformers builds Transformer + mean Pooling. null when neither file is there.
 */
async function sentenceSettings(files, maxLength) {
  if (!files.has('sentence_bert_config.json') && !files.has('modules.json')) return null;
  const settings = { maxSeqLength: maxLength, normalize: false, doLowerCase: false, pooling: 'mean', unsupported: [] };
  if (files.has('sentence_bert_config.json')) {
    const name = 'sentence_bert_config.json';
    const c = await files.json(name);
    if (c === null || typeof c !== 'object' || Array.isArray(c)) throw new Error(`${name}: expected a JSON object`);
    const m = c.max_seq_length ?? null;
    if (m !== null && !(Number.isInteger(m) && m > 0))
      throw new Error(`${name}: max_seq_length must be a positive integer, got ${JSON.stringify(m)}`);
    if (m !== null) settings.maxSeqLength = Math.min(m, maxLength);
    if (c.do_lower_case !== undefined && c.do_lower_case !== null && typeof c.do_lower_case !== 'boolean')
      throw new Error(`${name}: do_lower_case must be true or false, got ${JSON.stringify(c.do_lower_case)}`);
    settings.doLowerCase = c.do_lower_case === true;
  }
  if (files.has('modules.json')) {
    const modules = await files.json('modules.json');
    if (!Array.isArray(modules)) throw new Error('modules.json: expected a JSON array of modules');
    settings.pooling = null;
    for (const [i, m] of modules.entries()) {
      const type = m?.type;
      if (type === `${ST}Transformer`) continue;
      if (type === `${ST}Normalize`) {
        settings.normalize = true;
        continue;
      }
      if (type === `${ST}Pooling` && typeof m.path === 'string') {
        const name = `${m.path.replace(/\/+$/, '')}/config.json`;
        if (!m.path || !files.has(name)) continue; // not given: embed asks for `pooling`
        const mode = await poolingMode(files, name);
        if (mode.pooling) settings.pooling = mode.pooling;
        else settings.unsupported.push(mode.unsupported);
        continue;
      }
      settings.unsupported.push(
        `modules.json[${i}]: ${typeof type === 'string' ? type : describe(type)}${typeof m?.path === 'string' && m.path ? ` (${m.path})` : ''}`,
      );
    }
  }
  return settings;
}

export const pretrainedMethods = {
  /**
   * Loads a Hugging Face model folder (config.json, model.safetensors, tokenizer.json and/or
   * vocab.txt): model_type 'distilbert' or 'bert' (a PretrainedModel), 'gpt2', 'llama' or 'qwen2'
   * (a CausalLM, causal-lm.js); F32, F16 or BF16 weights (read once into this module's wasm memory
   * as float32, or int8 with dtype 'q8'; model.dispose() frees them).
   * @param source Node: a folder path; browsers: FileList | File[] | { name: Blob | ArrayBuffer | Uint8Array }
   * @param options { onProgress({loaded, total}) }: bytes of model.safetensors read so far / to read
   *   (its header and the tensors the model uses); trustPatterns: run tokenizer.json's regular
   *   expressions unchecked (src/js/tokenizer-patterns.js); dtype: 'fp32' (default) or 'q8' (the
   *   linear layers' weights quantized to int8 as they stream in); head: 'auto' (default: the task
   *   head config.json's architectures[0] names, none for ...Model or a class without a supported
   *   head), 'none' (the base model alone, as AutoModel) or a head of tasks.js's HEADS (an Error
   *   naming its tensors when the file lacks them)
   */
  async loadPretrained(source, options) {
    const o = optionsArg(options, ['onProgress', 'trustPatterns', 'dtype', 'head'], FN);
    const head = o.head === undefined ? 'auto' : o.head; // null is not 'auto' (model.head null means none)
    if (!HEAD_OPTIONS.includes(head)) {
      const list = HEAD_OPTIONS.map((h) => `'${h}'`);
      throw new TypeError(
        `${FN}: head must be ${list.slice(0, -1).join(', ')} or ${list.at(-1)}, got ${typeof head === 'string' ? `'${head}'` : describe(head)}`,
      );
    }
    if (o.onProgress !== undefined && typeof o.onProgress !== 'function') {
      throw new TypeError(`${FN}: onProgress must be a function, got ${describe(o.onProgress)}`);
    }
    const dtype = o.dtype === undefined ? 'fp32' : o.dtype;
    if (typeof dtype !== 'string') throw new TypeError(`${FN}: dtype must be 'fp32' or 'q8', got ${describe(dtype)}`);
    if (!MODEL_DTYPES.includes(dtype)) throw new RangeError(`${FN}: dtype must be 'fp32' or 'q8', got '${dtype}'`);
    const trustPatterns = boolOption(o.trustPatterns, `${FN}: trustPatterns`);
    const raw = this.raw;
    const files = await openModelFiles(source, FN).catch((e) => {
      if (typeof source === 'string' && e instanceof Error && e.code === 'ENOENT') e.message += shippedHint(source);
      throw e;
    });
    try {
      const configBytes = (await files.whole('config.json')).slice();
      checkWeightsFile(files);
      const header = await readHeader(raw, files);
      // config.json and the header read and validated by the C++ side, which then allocates
      const opened = unwrap(raw._modelOpen(configBytes, header, files.size(WEIGHTS), dtype, head));
      try {
        const config = JSON.parse(new TextDecoder().decode(configBytes)); // valid: the C++ side parsed it
        const tokenizer = await tokenizerFromFiles(files, {
          maxLength: opened.maxPositions,
          tokenTypeIds: opened.typeVocabSize > 0,
          trustPatterns,
        });
        const total = opened.dataStart + opened.ranges.reduce((sum, [b, e]) => sum + e - b, 0);
        let loaded = opened.dataStart;
        const progress = (n) => {
          loaded += n;
          o.onProgress?.({ loaded, total });
        };
        progress(0);
        await streamWeights(raw, opened, files, progress);
        const info = unwrap(raw._modelFinish(opened.handle));
        if (opened.kind === 'causal-lm') {
          // generation_config.json, or null when the folder has none (config.json then serves)
          let generationConfig = null;
          if (files.has('generation_config.json')) {
            generationConfig = await files.json('generation_config.json');
            if (generationConfig === null || typeof generationConfig !== 'object' || Array.isArray(generationConfig))
              throw new Error('generation_config.json: expected a JSON object');
          }
          return new CausalLM(this, opened.handle, {
            opened,
            configJson: config,
            generationConfig,
            tokenizer,
            where: files.where,
            residentBytes: info.residentBytes,
            ignoredTensors: opened.ignoredTensors,
            dtype,
          });
        }
        // as Transformer.py: max_seq_length, else min(max_position_embeddings, the tokenizer's maximum)
        const sentence = await sentenceSettings(files, Math.min(opened.maxPositions, tokenizer?.maxLength ?? Infinity));
        return new PretrainedModel(this, opened.handle, {
          config,
          model: opened,
          tokenizer,
          where: files.where,
          hasPooler: info.hasPooler,
          residentBytes: info.residentBytes,
          ignoredTensors: opened.ignoredTensors,
          dtype,
          head: opened.head,
          numLabels: opened.numLabels,
          sentence,
        });
      } catch (e) {
        raw._modelDispose(opened.handle);
        throw e;
      }
    } catch (e) {
      if (e instanceof Error && !e.message.startsWith(FN)) e.message = `${FN}: ${e.message}`;
      throw e;
    } finally {
      await files.close();
    }
  },
};
