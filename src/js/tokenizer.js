// Text -> token ids with Hugging Face's own JS tokenizers (@huggingface/tokenizers, Apache-2.0,
// no dependencies: the tokenizers transformers.js uses), rather than a hand-written WordPiece.
//   - a folder with tokenizer.json (+ tokenizer_config.json): that pipeline as it is;
//   - a folder with only vocab.txt (+ tokenizer_config.json): the pipeline transformers builds
//     for a BERT vocabulary (convert_slow_tokenizer.py, BertConverter): BertNormalizer (clean
//     text, CJK split, lower-case and strip accents as do_lower_case / strip_accents say),
//     BertPreTokenizer, WordPiece with '##', [CLS] A [SEP] (pair: [CLS] A [SEP] B [SEP]);
//   - 'bert-base-uncased' / 'distilbert-base-uncased': that vocabulary, shipped in the package
//     (dist/vocab-bert-base-uncased.txt, converted at build time by scripts/convert-vocab.mjs),
//     read when first asked for.
// Imported statically: a lazy import() would make bundlers split the package into chunks, which
// Vite's default Worker format (iife) cannot hold (the issue-14 build error). A page without a
// bundler maps '@huggingface/tokenizers' in its import map as it maps 'attention-wasm'.
import { Tokenizer } from '@huggingface/tokenizers';
import { describe } from './tensor.js';
import { openModelFiles } from './model-files.js';

const FN = 'loadTokenizer';

/** The vocabularies shipped in the package, by Hugging Face model name. */
// The vocabulary file is named in the form bundlers recognise (new URL of a literal and
// import.meta.url): Vite and webpack emit it as an asset; elsewhere it is read from beside this file.
const SHIPPED = {
  'bert-base-uncased': {
    vocab: () => new URL('./vocab-bert-base-uncased.txt', import.meta.url),
    maxLength: 512,
    tokenTypeIds: true,
  },
  // distilbert-base-uncased uses bert-base-uncased's vocabulary and settings; its tokenizer
  // returns no token type ids (DistilBertTokenizer.model_input_names)
  'distilbert-base-uncased': {
    vocab: () => new URL('./vocab-bert-base-uncased.txt', import.meta.url),
    maxLength: 512,
    tokenTypeIds: false,
  },
};

/** A shipped vocabulary's text: read from disk in Node (its fetch has no file: URLs), else fetched. */
async function shippedVocabulary(url) {
  const fs = url.protocol === 'file:' ? globalThis.process?.getBuiltinModule?.('node:fs') : null;
  if (fs) return fs.promises.readFile(url, 'utf8');
  const response = await fetch(url);
  if (!response.ok) {
    throw new Error(
      `${FN}: the vocabulary shipped in the package could not be fetched from ${url} (HTTP ${response.status}); ` +
        'with a bundler that does not emit new URL(..., import.meta.url) assets, copy it beside the bundle',
    );
  }
  return response.text();
}

// A special token in tokenizer_config.json: "[CLS]" or {content: "[CLS]", ...}
const tokenName = (t, fallback) => (typeof t === 'string' ? t : typeof t?.content === 'string' ? t.content : fallback);

/**
 * tokenizer.json for a BERT WordPiece vocabulary (one token per line, id = line number), as
 * transformers' BertConverter builds it.
 * @param {string} vocabText @param {object} config tokenizer_config.json (or {})
 */
export function bertTokenizerJson(vocabText, config = {}, file = 'vocab.txt') {
  const tokens = vocabText.split(/\r?\n/);
  if (tokens.at(-1) === '') tokens.pop();
  if (tokens.length === 0) throw new Error(`${file}: the vocabulary is empty`);
  const vocab = Object.fromEntries(tokens.map((t, i) => [t, i]));
  const special = {
    unk: tokenName(config.unk_token, '[UNK]'),
    sep: tokenName(config.sep_token, '[SEP]'),
    pad: tokenName(config.pad_token, '[PAD]'),
    cls: tokenName(config.cls_token, '[CLS]'),
    mask: tokenName(config.mask_token, '[MASK]'),
  };
  for (const key of ['unk', 'sep', 'cls']) {
    if (!Object.hasOwn(vocab, special[key])) throw new Error(`${file}: the vocabulary has no ${special[key]} token`);
  }
  const lowercase = config.do_lower_case ?? true;
  const added = Object.values(special).filter((t, i, all) => Object.hasOwn(vocab, t) && all.indexOf(t) === i);
  const cls = { SpecialToken: { id: special.cls, type_id: 0 } },
    sep = { SpecialToken: { id: special.sep, type_id: 0 } };
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added.map((t) => ({
      id: vocab[t],
      content: t,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: config.tokenize_chinese_chars ?? true,
      strip_accents: config.strip_accents ?? null,
      lowercase,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [cls, { Sequence: { id: 'A', type_id: 0 } }, sep],
      pair: [
        cls,
        { Sequence: { id: 'A', type_id: 0 } },
        sep,
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: special.sep, type_id: 1 } },
      ],
      special_tokens: Object.fromEntries(
        [special.cls, special.sep].map((t) => [t, { id: t, ids: [vocab[t]], tokens: [t] }]),
      ),
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: special.unk,
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab,
    },
  };
}

/** Text -> ids for one model, with a maximum length. */
export class TextTokenizer {
  /**
   * @param {object} hf a @huggingface/tokenizers Tokenizer
   * @param {{maxLength: number, tokenTypeIds: boolean, padToken: string|null}} options
   */
  constructor(hf, { maxLength = Infinity, tokenTypeIds = true, padToken = null } = {}) {
    this.hf = hf;
    /** The most tokens (special ones included) a text may have: the model's max length. */
    this.maxLength = maxLength;
    /** Whether encode() returns tokenTypeIds (BERT does; DistilBERT has no token types). */
    this.returnsTokenTypeIds = tokenTypeIds;
    /** The id padding uses in encodeBatch (the pad token, [PAD] unless the config says otherwise; else 0). */
    this.padId = hf.token_to_id(tokenName(padToken ?? hf.config?.pad_token, '[PAD]')) ?? 0;
    /** The special tokens a text gets around it ([CLS] and [SEP]: 2). */
    this.specialTokenCount = hf.post_processor ? hf.post_processor([], null, true).tokens.length : 0;
  }

  get vocabSize() {
    return this.hf.get_vocab(true).size;
  }

  tokenToId(token) {
    return this.hf.token_to_id(token);
  }
  idToToken(id) {
    return this.hf.id_to_token(id);
  }
  decode(ids, { skipSpecialTokens = false } = {}) {
    return this.hf.decode(ids, { skip_special_tokens: skipSpecialTokens });
  }

  /**
   * One text -> { ids, tokens, attentionMask, tokenTypeIds? } with the special tokens. A text
   * longer than maxLength is a RangeError unless `truncation` (then its tokens are cut to fit, as
   * transformers' truncation=True); a text with no tokens (empty, or only spaces) is a RangeError.
   */
  encode(text, { truncation = false } = {}) {
    const fn = 'tokenizer.encode';
    if (typeof text !== 'string') throw new TypeError(`${fn}: text must be a string, got ${describe(text)}`);
    if (typeof truncation !== 'boolean')
      throw new TypeError(`${fn}: truncation must be a boolean, got ${describe(truncation)}`);
    let { ids, tokens, token_type_ids: types } = this.hf.encode(text, { return_token_type_ids: true });
    if (ids.length <= this.specialTokenCount) {
      throw new RangeError(
        `${fn}: the text has no tokens (${text.length ? 'only spaces or characters the tokenizer drops' : 'an empty string'})`,
      );
    }
    if (ids.length > this.maxLength) {
      if (!truncation) {
        throw new RangeError(
          `${fn}: the text has ${ids.length} tokens, more than the model's maximum of ${this.maxLength} (pass { truncation: true } to keep the first ${this.maxLength})`,
        );
      }
      const kept = this.hf.tokenize(text).slice(0, Math.max(0, this.maxLength - this.specialTokenCount));
      const processed = this.hf.post_processor ? this.hf.post_processor(kept, null, true) : { tokens: kept };
      tokens = processed.tokens;
      types = processed.token_type_ids;
      ids = tokens.map((t) => this.hf.token_to_id(t) ?? this.hf.model.unk_token_id);
    }
    const out = { ids, tokens, attentionMask: new Array(ids.length).fill(1) };
    if (this.returnsTokenTypeIds) out.tokenTypeIds = types ?? new Array(ids.length).fill(0);
    return out;
  }

  /**
   * Several texts -> a padded batch { inputIds, attentionMask, tokenTypeIds?, tokens } (each
   * number[][] of the longest text's length; padding gets padId and mask 0), as
   * tokenizer(texts, padding=True) in transformers.
   */
  encodeBatch(texts, { truncation = false } = {}) {
    if (!Array.isArray(texts) || texts.length === 0) {
      throw new TypeError(`tokenizer.encodeBatch: texts must be a non-empty array of strings, got ${describe(texts)}`);
    }
    const encoded = texts.map((t) => this.encode(t, { truncation }));
    const L = Math.max(...encoded.map((e) => e.ids.length));
    const pad = (row, value) => [...row, ...new Array(L - row.length).fill(value)];
    const batch = {
      inputIds: encoded.map((e) => pad(e.ids, this.padId)),
      attentionMask: encoded.map((e) => pad(e.attentionMask, 0)),
      tokens: encoded.map((e) => e.tokens),
    };
    if (this.returnsTokenTypeIds) batch.tokenTypeIds = encoded.map((e) => pad(e.tokenTypeIds, 0));
    return batch;
  }
}

// tokenizer_config.json's model_max_length: transformers writes 1e30 (VERY_LARGE_INTEGER) when
// there is none.
function configuredMaxLength(config) {
  const m = config?.model_max_length;
  return Number.isInteger(m) && m > 0 && m < 1e9 ? m : Infinity;
}

/**
 * The tokenizer of a model folder: tokenizer.json if there is one, else vocab.txt. `maxLength`
 * (the model's max_position_embeddings) caps tokenizer_config.json's model_max_length.
 * Returns null when the folder has neither file.
 * @param {import('./model-files.js').ModelFiles} files
 */
export async function tokenizerFromFiles(files, { maxLength = Infinity, tokenTypeIds = true } = {}) {
  const config = files.has('tokenizer_config.json') ? await files.json('tokenizer_config.json') : {};
  if (config === null || typeof config !== 'object' || Array.isArray(config))
    throw new Error('tokenizer_config.json: expected a JSON object');
  let json;
  if (files.has('tokenizer.json')) {
    json = await files.json('tokenizer.json');
    if (json === null || typeof json !== 'object' || typeof json.model !== 'object')
      throw new Error('tokenizer.json: expected a JSON object with a model');
  } else if (files.has('vocab.txt')) {
    json = bertTokenizerJson(await files.text('vocab.txt'), config);
  } else {
    return null;
  }
  let hf;
  try {
    hf = new Tokenizer(json, config);
  } catch (e) {
    throw new Error(`${files.has('tokenizer.json') ? 'tokenizer.json' : 'vocab.txt'}: ${e.message}`);
  }
  return new TextTokenizer(hf, { maxLength: Math.min(maxLength, configuredMaxLength(config)), tokenTypeIds });
}

/**
 * A tokenizer without model weights: 'bert-base-uncased' or 'distilbert-base-uncased' (the
 * vocabulary shipped in the package), or a folder / files as loadPretrained takes them.
 * @param {string | FileList | File[] | Record<string, Blob | ArrayBuffer | Uint8Array>} source
 * @param {{maxLength?: number}} [options]
 */
export async function loadTokenizer(source, options = {}) {
  if (options === null || typeof options !== 'object')
    throw new TypeError(`${FN}: options must be an object, got ${describe(options)}`);
  const { maxLength } = options;
  if (maxLength !== undefined && !(Number.isInteger(maxLength) && maxLength > 0)) {
    throw new RangeError(`${FN}: maxLength must be a positive integer, got ${maxLength}`);
  }
  if (typeof source === 'string' && Object.hasOwn(SHIPPED, source)) {
    const shipped = SHIPPED[source];
    const vocab = await shippedVocabulary(shipped.vocab());
    const hf = new Tokenizer(bertTokenizerJson(vocab, { do_lower_case: true }, source), { do_lower_case: true });
    return new TextTokenizer(hf, { maxLength: maxLength ?? shipped.maxLength, tokenTypeIds: shipped.tokenTypeIds });
  }
  let files;
  try {
    files = await openModelFiles(source, FN);
  } catch (e) {
    if (typeof source === 'string')
      e.message += ` (vocabularies shipped in the package: ${Object.keys(SHIPPED).join(', ')})`;
    throw e;
  }
  try {
    let positions = Infinity,
      tokenTypeIds = true;
    if (files.has('config.json')) {
      const config = await files.json('config.json');
      if (Number.isInteger(config?.max_position_embeddings)) positions = config.max_position_embeddings;
      if (config?.model_type === 'distilbert') tokenTypeIds = false;
    }
    const tokenizer = await tokenizerFromFiles(files, { maxLength: maxLength ?? positions, tokenTypeIds });
    if (!tokenizer) throw new Error(`${FN}: ${files.where} has neither tokenizer.json nor vocab.txt`);
    if (maxLength !== undefined) tokenizer.maxLength = maxLength;
    return tokenizer;
  } finally {
    await files.close();
  }
}
