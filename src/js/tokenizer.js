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
import { describe, typedArrayTag } from './tensor.js';
import { openModelFiles } from './model-files.js';
import { optionsArg, boolOption } from './validate.js';
import { checkTokenizerPatterns, maxInputCharsFor, preparePatternAnalysis } from './tokenizer-patterns.js';

const FN = 'loadTokenizer';

/**
 * The most characters one encode() takes by default (tokenizer.maxInputChars): 0.4 s of BERT
 * tokenization of English here, 27 s of its worst text (100-letter words), against hours for a
 * 1 GB string (docs/security.md).
 */
const MAX_INPUT_CHARS = 1_000_000;
/**
 * The longest word a WordPiece model may try to split: transformers' and the tokenizers
 * library's default, which every BERT file has (100). The greedy longest match costs about L^3/6
 * steps on a word of L characters, so the cost per character of a text grows as L^2: 200 would
 * be 4 times the shipped BERT's worst (docs/security.md has the figures), 1000 (the bound
 * before) 100 times.
 */
const MAX_WORDPIECE_CHARS = 100;
/**
 * The longest added token (characters): the library splits a text at added tokens with a trie
 * walked from every position as deep as the text matches, n x K steps for a token of K
 * characters. Real ones are special and chat-template tokens ('<|begin_of_text|>', 17; runs of
 * spaces for code models, under 32).
 */
const MAX_ADDED_TOKEN_CHARS = 256;
/**
 * The longest Unigram piece (characters): the library's lattice has a node for every piece that
 * starts at each position of a pre-token, and Viterbi does |begin| x |end| work per position, so
 * memory grows as K and time as about K^2 per character for pieces up to K long. SentencePiece
 * and the tokenizers library's UnigramTrainer make pieces of at most 16 characters
 * (max_sentencepiece_length, max_piece_length) and user-defined symbols ('<extra_id_99>') are
 * short; 32 leaves room for both.
 */
const MAX_UNIGRAM_PIECE_CHARS = 32;
/** The most Unigram pieces (the largest real vocabularies, mT5's and XLM-R's, have about 250,000). */
const MAX_UNIGRAM_PIECES = 1_000_000;
/** Token ids are below this (the largest vocabularies have about 260,000): the library keeps id -> token in an array. */
const MAX_TOKEN_ID = 2 ** 24;

/** Refuses token ids outside [0, MAX_TOKEN_ID) in tokenizer.json's vocabulary and added tokens. */
function checkTokenIds(json) {
  const bad = (id) => !(Number.isInteger(id) && id >= 0 && id < MAX_TOKEN_ID);
  const vocab = json.model?.vocab;
  if (vocab && typeof vocab === 'object' && !Array.isArray(vocab)) {
    // for-in rather than Object.entries: no array per token (docs/performance.md)
    for (const token in vocab) {
      const id = vocab[token];
      if (bad(id))
        throw new Error(
          `tokenizer.json: model.vocab[${JSON.stringify(token.slice(0, 40))}] = ${JSON.stringify(id)} is not a token id in [0, ${MAX_TOKEN_ID})`,
        );
    }
  }
  (Array.isArray(json.added_tokens) ? json.added_tokens : []).forEach((t, i) => {
    if (bad(t?.id))
      throw new Error(
        `tokenizer.json: added_tokens[${i}].id = ${JSON.stringify(t?.id)} is not a token id in [0, ${MAX_TOKEN_ID})`,
      );
  });
}

/** The models @huggingface/tokenizers builds as tokenizers (Rust) does (WordLevel it has not). */
const MODELS = ['WordPiece', 'BPE', 'Unigram'];

/**
 * Refuses a model the tokenizers library (Rust) would refuse or fail on, which
 * @huggingface/tokenizers builds anyway and then gives ids that are not ids (undefined, or past
 * the vocabulary): a type it does not have, a WordPiece or BPE vocabulary that is not an object,
 * an unknown token missing from it, a Unigram unk_id past its pieces.
 */
function checkTokenizerModel(json) {
  const model = json.model;
  const type = model.type;
  if (type !== undefined && !MODELS.includes(type))
    throw new Error(
      `tokenizer.json: model.type ${JSON.stringify(type)} is not supported (supported: ${MODELS.join(', ')})`,
    );
  const vocab = model.vocab;
  if (type === 'WordPiece' || type === 'BPE') {
    if (vocab === null || typeof vocab !== 'object' || Array.isArray(vocab))
      throw new Error(`tokenizer.json: model.vocab of a ${type} model must be an object of token -> id`);
    const unk = model.unk_token;
    if (unk !== undefined && unk !== null && !Object.hasOwn(vocab, unk))
      throw new Error(
        `tokenizer.json: model.unk_token ${JSON.stringify(String(unk).slice(0, 40))} is not in model.vocab (tokenizers: "Missing [UNK] token from the vocabulary")`,
      );
  }
  if (type === 'Unigram') {
    if (!Array.isArray(vocab))
      throw new Error('tokenizer.json: model.vocab of a Unigram model must be an array of [piece, score]');
    const unk = model.unk_id;
    if (unk !== undefined && unk !== null && !(Number.isInteger(unk) && unk >= 0 && unk < vocab.length))
      throw new Error(
        `tokenizer.json: model.unk_id ${JSON.stringify(unk)} is not one of its ${vocab.length} pieces (tokenizers: UnkIdNotInVocabulary)`,
      );
  }
}

/**
 * How many times longer a text can come out of the pipeline part's Replace steps of a literal
 * (`{ String }`) pattern than it went in: each multiplies by its content's length over the
 * pattern's (the content's length + 1 for the empty string, which matches between every two
 * characters), a Sequence multiplies its steps'. Capped at 2^30. A `{ Regex }` pattern's shortest
 * match is not known here (a lookahead matches nothing anywhere): its steps are bounded as they
 * run (guardReplaceSteps).
 */
function replaceGrowth(node, depth = 0) {
  if (node === null || typeof node !== 'object' || depth > 32) return 1;
  if (Array.isArray(node)) return node.reduce((g, child) => Math.min(2 ** 30, g * replaceGrowth(child, depth + 1)), 1);
  let growth = 1;
  const literal = node.pattern?.String;
  if (node.type === 'Replace' && typeof node.content === 'string' && typeof literal === 'string')
    growth = literal.length === 0 ? node.content.length + 1 : Math.max(1, node.content.length / literal.length);
  for (const key of ['normalizers', 'decoders', 'pretokenizers'])
    if (Array.isArray(node[key])) growth = Math.min(2 ** 30, growth * replaceGrowth(node[key], depth + 1));
  return growth;
}

/**
 * Each Replace step of the library's pipeline (normalizers, pre-tokenizers, decoders, in
 * Sequences too) counts its matches before it replaces them and draws what it adds to a text
 * from `budget.left`, which the tokenizer sets to 4 x maxInputChars at each of its calls: past
 * it, a RangeError. A `{ Regex }` pattern that matches nothing (a lookahead) puts its content
 * between every two characters; sixteen such steps would multiply a text by 65,536, and steps
 * run on each piece or token would pass any bound per piece. The content is put in as written,
 * as tokenizers (Rust) puts it (String.prototype.replaceAll would expand '$`' and '$&').
 * @param {object} hf the library's Tokenizer @param {{ left: number }} budget
 */
function guardReplaceSteps(hf, budget) {
  const seen = new Set();
  const guarded = (text, pattern, content) => {
    let added = 0;
    for (const match of text.matchAll(pattern)) {
      added += content.length - match[0].length;
      if (added > budget.left)
        throw new RangeError(
          `tokenizer: a Replace step of the tokenizer's pipeline (pattern ${pattern}) would add more than ${budget.left} characters to a text of ${text.length} (at most 4 x maxInputChars in one call)`,
        );
    }
    budget.left -= Math.max(0, added);
    return text.replaceAll(pattern, () => content);
  };
  const visit = (node, depth) => {
    // the library's steps are Callables: functions with their class's methods
    if (node === null || (typeof node !== 'object' && typeof node !== 'function') || seen.has(node) || depth > 32)
      return;
    seen.add(node);
    if (node.config?.type === 'Replace' && node.pattern instanceof RegExp && node.pattern.global) {
      const content = () => node.config.content ?? '';
      if (typeof node.normalize === 'function') node.normalize = (text) => guarded(text, node.pattern, content());
      if (typeof node.pre_tokenize_text === 'function')
        node.pre_tokenize_text = (text) => [guarded(text, node.pattern, content())];
      if (typeof node.decode_chain === 'function')
        node.decode_chain = (tokens) => tokens.map((token) => guarded(token, node.pattern, content()));
    }
    for (const value of Object.values(node)) if (Array.isArray(value)) value.forEach((v) => visit(v, depth + 1));
  };
  for (const part of [hf.normalizer, hf.pre_tokenizer, hf.decoder]) visit(part, 0);
}

/** The most a pipeline part's Replace steps may lengthen a text (replaceGrowth): real ones are 1. */
const MAX_REPLACE_GROWTH = 4;
/**
 * The most characters all added tokens may have together: the library builds a trie of one
 * object per character (about 200 bytes each: 100,000 tokens of 256 characters exhausted V8's
 * heap). Real files: Llama 3's 256 special tokens, under 6,000 characters; Gemma's, about 100,000.
 */
const MAX_ADDED_TOKENS_CHARS = 2 ** 18;

/**
 * Refuses what would make one encode() run for minutes though the text is within maxInputChars
 * (docs/security.md): added tokens over MAX_ADDED_TOKEN_CHARS (or over MAX_ADDED_TOKENS_CHARS
 * together), Replace steps that lengthen a text more than MAX_REPLACE_GROWTH times, a WordPiece
 * max_input_chars_per_word over MAX_WORDPIECE_CHARS, Unigram pieces over MAX_UNIGRAM_PIECE_CHARS
 * or more than MAX_UNIGRAM_PIECES of them. Lengths are JavaScript string lengths (UTF-16 units),
 * what the library walks.
 */
function checkTokenizerCost(json) {
  let addedChars = 0;
  (Array.isArray(json.added_tokens) ? json.added_tokens : []).forEach((t, i) => {
    const content = t?.content;
    if (typeof content === 'string' && content.length > MAX_ADDED_TOKEN_CHARS)
      throw new Error(
        `tokenizer.json: added_tokens[${i}].content has ${content.length} characters, more than ${MAX_ADDED_TOKEN_CHARS} (splitting a text at added tokens costs its length times theirs)`,
      );
    addedChars += typeof content === 'string' ? content.length : 0;
    if (addedChars > MAX_ADDED_TOKENS_CHARS)
      throw new Error(
        `tokenizer.json: added_tokens[0..${i}] have ${addedChars} characters together, more than ${MAX_ADDED_TOKENS_CHARS} (the library keeps an object per character of them)`,
      );
  });
  for (const part of ['normalizer', 'pre_tokenizer', 'decoder']) {
    const growth = replaceGrowth(json[part]);
    if (growth > MAX_REPLACE_GROWTH)
      throw new Error(
        `tokenizer.json: the Replace steps of ${part} can make a text ${growth >= 2 ** 30 ? 'more than 2^30' : Math.round(growth * 10) / 10} times longer, more than ${MAX_REPLACE_GROWTH} (each Replace: its content's length over its pattern's shortest match)`,
      );
  }
  const model = json.model ?? {};
  const perWord = model.max_input_chars_per_word;
  if (perWord !== undefined && !(Number.isInteger(perWord) && perWord >= 0 && perWord <= MAX_WORDPIECE_CHARS)) {
    throw new Error(
      `tokenizer.json: model.max_input_chars_per_word ${JSON.stringify(perWord)} is not an integer in [0, ${MAX_WORDPIECE_CHARS}] (splitting a word costs the cube of its length)`,
    );
  }
  if (model.type === 'Unigram' && Array.isArray(model.vocab)) {
    const vocab = model.vocab;
    if (vocab.length > MAX_UNIGRAM_PIECES)
      throw new Error(`tokenizer.json: model.vocab has ${vocab.length} pieces, more than ${MAX_UNIGRAM_PIECES}`);
    for (let i = 0; i < vocab.length; i++) {
      const piece = Array.isArray(vocab[i]) ? vocab[i][0] : undefined;
      if (typeof piece === 'string' && piece.length > MAX_UNIGRAM_PIECE_CHARS)
        throw new Error(
          `tokenizer.json: model.vocab[${i}][0] ${JSON.stringify(piece.slice(0, 40))}${piece.length > 40 ? '…' : ''} has ${piece.length} characters, more than ${MAX_UNIGRAM_PIECE_CHARS} (a Unigram lattice costs time as the square of its longest piece)`,
        );
    }
  }
}

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

/** The Hugging Face names whose tokenizers ship in the package (loadTokenizer needs no folder for them). */
export const SHIPPED_TOKENIZERS = Object.freeze(Object.keys(SHIPPED));

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
 * A BERT WordPiece vocabulary (one token per line, id = line number) as token -> id (a token
 * that comes twice keeps its last line, as an object built from the lines would).
 * @param {string} vocabText @returns {Map<string, number>}
 */
function bertVocabulary(vocabText, file) {
  const tokens = vocabText.split(/\r?\n/);
  if (tokens.at(-1) === '') tokens.pop();
  if (tokens.length === 0) throw new Error(`${file}: the vocabulary is empty`);
  const ids = new Map();
  tokens.forEach((token, id) => ids.set(token, id));
  return ids;
}

/**
 * tokenizer.json for a BERT WordPiece vocabulary (`ids`, token -> id), as transformers'
 * BertConverter builds it, with model.vocab left null for the caller to fill.
 * @param {Map<string, number>} ids @param {object} config tokenizer_config.json (or {})
 */
function bertPipeline(ids, config, file) {
  const special = {
    unk: tokenName(config.unk_token, '[UNK]'),
    sep: tokenName(config.sep_token, '[SEP]'),
    pad: tokenName(config.pad_token, '[PAD]'),
    cls: tokenName(config.cls_token, '[CLS]'),
    mask: tokenName(config.mask_token, '[MASK]'),
  };
  for (const key of ['unk', 'sep', 'cls']) {
    if (!ids.has(special[key])) throw new Error(`${file}: the vocabulary has no ${special[key]} token`);
  }
  const lowercase = config.do_lower_case ?? true;
  const added = Object.values(special).filter((t, i, all) => ids.has(t) && all.indexOf(t) === i);
  const cls = { SpecialToken: { id: special.cls, type_id: 0 } },
    sep = { SpecialToken: { id: special.sep, type_id: 0 } };
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added.map((t) => ({
      id: ids.get(t),
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
        [special.cls, special.sep].map((t) => [t, { id: t, ids: [ids.get(t)], tokens: [t] }]),
      ),
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: special.unk,
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: null,
    },
  };
}

/**
 * tokenizer.json for a BERT WordPiece vocabulary (one token per line, id = line number), as
 * transformers' BertConverter builds it.
 * @param {string} vocabText @param {object} config tokenizer_config.json (or {})
 */
export function bertTokenizerJson(vocabText, config = {}, file = 'vocab.txt') {
  const ids = bertVocabulary(vocabText, file);
  const json = bertPipeline(ids, config, file);
  json.model.vocab = Object.fromEntries(ids);
  return json;
}

/**
 * Hugging Face's Tokenizer for a tokenizer.json object. A WordPiece model's vocabulary (BERT's:
 * 30,522 tokens) is not handed to the library, which would copy the object into a Map through
 * Object.entries (an array per token): that copy, and the object built from vocab.txt to give
 * it, grew V8's heap by ~16 MiB that it keeps through a model load's peak (docs/performance.md).
 * The library gets the model with its unknown token alone, and its WordPiece model is then given
 * what its constructor builds from the whole vocabulary (token -> id, and id -> token), with the
 * added tokens put in as its Tokenizer puts them. Other models go to the library as they are.
 * @param {object} json @param {object} config
 * @param {Map<string, number>} [ids] the vocabulary as token -> id, when the caller has it so
 */
function wordPieceTokenizer(json, config, ids) {
  const hf = libraryTokenizer(json, config, ids);
  // the library's constructor matched added tokens ("normalized": true) under its own
  // normalisation: those are done again under the Rust one
  const before = normalizedAddedTokens(hf);
  rustNormalization(hf.normalizer);
  const after = normalizedAddedTokens(hf);
  if (!after || after.every(([, content], i) => content === before[i][1])) return hf;
  // the map built again as the library's constructor builds it, in place
  const normalized = new Map(after);
  const map = hf.added_tokens_map;
  map.clear();
  for (const token of hf.added_tokens) {
    map.set(token.content, token);
    if (normalized.has(token)) map.set(normalized.get(token), token);
  }
  hf.splitter_normalized = new hf.splitter_normalized.constructor([...normalized.values()]);
  return hf;
}

/** [token, its normalised content] of the library's added tokens matched after normalisation, or null. */
function normalizedAddedTokens(hf) {
  if (!hf.normalizer || !Array.isArray(hf.added_tokens) || !(hf.added_tokens_map instanceof Map)) return null;
  if (typeof hf.splitter_normalized?.constructor !== 'function') return null;
  return hf.added_tokens.filter((t) => t.normalized).map((t) => [t, hf.normalizer(t.content)]);
}

// Rust's is_chinese_char (tokenizers' normalizers/bert.rs; transformers' _tokenize_chinese_chars):
// CJK Unified Ideographs and their extensions A to F, the compatibility ideographs and supplement
const CJK = [
  [0x4e00, 0x9fff],
  [0x3400, 0x4dbf],
  [0x20000, 0x2a6df],
  [0x2a700, 0x2b73f],
  [0x2b740, 0x2b81f],
  [0x2b920, 0x2ceaf], // Rust's range (transformers' Python one starts at 0x2B820)
  [0xf900, 0xfaff],
  [0x2f800, 0x2fa1f],
];
const isCjk = (cp) => CJK.some(([lo, hi]) => cp >= lo && cp <= hi);

/**
 * Lower-cased as tokenizers lower-cases (normalizer.rs's NormalizedString::lowercase): each
 * character on its own (char::to_lowercase), so a word's last 'Σ' is 'σ', where
 * String.prototype.toLowerCase gives the final 'ς' (its only mapping that looks at the
 * characters around one).
 */
export function lowercaseEach(text) {
  if (!text.includes('\u03a3')) return text.toLowerCase();
  let out = '';
  for (const c of text) out += c.toLowerCase();
  return out;
}

/**
 * The library's normalizers made to give what tokenizers (Rust), and so AutoTokenizer's fast
 * tokenizers, give: its BertNormalizer walks UTF-16 units to find CJK characters (so none past
 * U+FFFF, CJK Extension B on, is split off) and, as its Lowercase, lower-cases the text whole
 * (lowercaseEach). Each such normalizer of the tree (Sequences included) gets those two steps
 * done per character, the rest of its steps as the library does them; a normalizer not shaped
 * as the one this was written for is left alone.
 */
function rustNormalization(normalizer) {
  if (!normalizer || (typeof normalizer !== 'object' && typeof normalizer !== 'function')) return;
  for (const child of Array.isArray(normalizer.normalizers) ? normalizer.normalizers : []) rustNormalization(child);
  const type = normalizer.config?.type;
  if (type === 'Lowercase' && typeof normalizer.normalize === 'function') {
    normalizer.normalize = lowercaseEach;
  } else if (
    type === 'BertNormalizer' &&
    ['clean_text', 'tokenize_chinese_chars', 'strip_accents'].every((m) => typeof normalizer[m] === 'function')
  ) {
    normalizer.tokenize_chinese_chars = (text) => {
      let out = '';
      for (const c of text) out += isCjk(c.codePointAt(0)) ? ` ${c} ` : c;
      return out;
    };
    // BertNormalizer.normalize's steps (normalizers/bert.rs), lower-casing per character
    normalizer.normalize = function (text) {
      const c = this.config;
      if (c.clean_text) text = this.clean_text(text);
      if (c.handle_chinese_chars) text = this.tokenize_chinese_chars(text);
      if (c.lowercase) {
        text = lowercaseEach(text);
        if (c.strip_accents !== false) text = this.strip_accents(text);
      } else if (c.strip_accents) text = this.strip_accents(text);
      return text;
    };
  }
}

/** The library's Tokenizer of tokenizer.json (wordPieceTokenizer). */
function libraryTokenizer(json, config, ids) {
  const model = json.model;
  const vocab = model?.vocab;
  if (model?.type !== 'WordPiece' || (!ids && (vocab === null || typeof vocab !== 'object' || Array.isArray(vocab))))
    return new Tokenizer(json, config);
  if (!ids) {
    ids = new Map();
    for (const token in vocab) ids.set(token, vocab[token]);
  }
  const unk = model.unk_token;
  const lean = { ...model, vocab: ids.has(unk) ? { [unk]: ids.get(unk) } : {} };
  const hf = new Tokenizer({ ...json, model: lean }, config);
  const wordPiece = hf.model;
  if (!(wordPiece.tokens_to_ids instanceof Map && Array.isArray(wordPiece.vocab))) {
    // not the model this was written for: the library builds it whole
    model.vocab ??= Object.fromEntries(ids);
    return new Tokenizer(json, config);
  }
  const tokens = new Array(ids.size);
  ids.forEach((id, token) => {
    tokens[id] = token;
  });
  for (const added of hf.added_tokens) {
    ids.set(added.content, added.id);
    tokens[added.id] = added.content;
  }
  wordPiece.tokens_to_ids = ids;
  wordPiece.vocab = tokens;
  return hf;
}

/** Truncation strategies as transformers names them; truncation: true is 'longest_first'. */
const STRATEGIES = ['longest_first', 'only_first', 'only_second'];

/**
 * How many tokens of each text a truncation keeps, as Hugging Face's tokenizers do
 * (tokenizers/src/utils/truncation.rs, truncate_encodings, direction right): `budget` is the
 * maximum length less the special tokens, n2 null for one text. 'longest_first' cuts the longer
 * text down to what the shorter leaves, or both to half the budget (the first gets the smaller
 * half); 'only_first' / 'only_second' cut that text alone. Returns [n1, n2], or a string saying
 * why the strategy cannot fit the budget.
 */
export function truncatedLengths(n1, n2, budget, strategy) {
  if (budget === 0) return [0, n2 === null ? null : 0];
  const total = n1 + (n2 ?? 0);
  if (total <= budget) return [n1, n2];
  const remove = total - budget;
  if (strategy === 'longest_first') {
    if (n2 === null) return [budget, null];
    let [short, long] = n1 > n2 ? [n2, n1] : [n1, n2];
    long = short > budget ? short : Math.max(short, budget - short);
    if (short + long > budget) {
      short = Math.floor(budget / 2);
      long = short + (budget % 2);
    }
    return n1 > n2 ? [long, short] : [short, long];
  }
  if (strategy === 'only_second' && n2 === null) return "'only_second' needs a textPair";
  const [n, which] = strategy === 'only_first' ? [n1, 'first'] : [n2, 'second'];
  if (n <= remove)
    return `the ${which} text has ${n} tokens, and ${remove} must go: '${strategy}' cannot cut it enough`;
  return strategy === 'only_first' ? [n1 - remove, n2] : [n1, n2 - remove];
}

/**
 * The windows over n tokens that keep `keep` at a time, each overlapping the one before by
 * `stride` (stride < keep): [start, end) from 0 in steps of keep - stride until one reaches n, as
 * tokenizers' Encoding::truncate splits what overflows (tokenizer/encoding.rs).
 */
export function windowRanges(n, keep, stride) {
  const ranges = [];
  for (let start = 0; ; start += keep - stride) {
    const end = Math.min(start + keep, n);
    ranges.push([start, end]);
    if (end === n) return ranges;
  }
}

/**
 * The library's split of `s` at its added tokens (`splitter`, one of its DictionarySplitters), as
 * Tokenizer.encode_text makes it: pieces { start, end } of s that cover it in order, where a piece
 * beside an added token with lstrip (rstrip) loses its white space on that side, as the library
 * trims it, and the added token's span [spanStart, spanEnd) takes that white space in, as
 * tokenizers' offsets do ('a  [MASK]' with lstrip: [MASK] covers '  [MASK]'). `added`: the
 * library's added_tokens_map (content -> AddedToken).
 */
function addedTokenSplit(splitter, added, s) {
  const pieces = [];
  let at = 0;
  for (const piece of splitter.split(s)) pieces.push({ start: at, end: (at += piece.length) });
  const space = (i) => /\s/.test(s[i]); // String.prototype.trim's white space
  pieces.forEach((p, i) => {
    const token = added.get(s.slice(p.start, p.end));
    const before = pieces[i - 1],
      after = pieces[i + 1];
    p.spanStart = p.start;
    p.spanEnd = p.end;
    if (token?.lstrip && before) {
      while (before.end > before.start && space(before.end - 1)) before.end--;
      p.spanStart = before.end;
    }
    if (token?.rstrip && after) {
      while (after.start < after.end && space(after.start)) after.start++;
      p.spanEnd = after.start;
    }
  });
  return pieces;
}

/** The most characters alignment() normalises together where a normaliser looks at context. */
const ALIGN_WINDOW = 16;

/**
 * Where each UTF-16 unit u of `normal`, text.slice(start, end) normalised whole, came from in the
 * text: { from(u), to(u) }, [from, to) in the text; null if it cannot be told. Each character
 * (code point) is normalised alone (`memo` keeps character -> normalised text), and its output
 * must go on from where the last one's stopped in `normal`. A normaliser that looks at the
 * characters around one (String.prototype.toLowerCase's 'ς' for a word's last 'Σ', NFC joins 'e' and U+0301,
 * NFD reorders accents) makes them differ there; then the fewest characters around that one (up
 * to ALIGN_WINDOW, those before it too) whose output, normalised together, goes on from where
 * theirs began are taken together, and their output is shared out among them as tokenizers'
 * NormalizedString aligns a change with what it came from (below). A character whose output is
 * empty (dropped) covers nothing. Work: one normalisation per character, and at most
 * ALIGN_WINDOW^2 / 2 more where they differ: linear in the text.
 */
function alignment(text, start, end, normal, normalize, memo) {
  const chars = []; // each character's first index in the text; then `end`
  for (let i = start; i < end; i += text.codePointAt(i) > 0xffff ? 2 : 1) chars.push(i);
  const n = chars.length;
  chars.push(end);
  const from = new Int32Array(normal.length),
    to = new Int32Array(normal.length);
  const begins = new Int32Array(n).fill(-1); // where character k's output begins in `normal` (-1: inside a window)
  // character k's output, normalised alone
  const alone = (k) => {
    const c = text.slice(chars[k], chars[k + 1]);
    let out = memo.get(c);
    if (out === undefined) memo.set(c, (out = normalize(c)));
    return out;
  };
  // characters j..m (inclusive) gave `out` at u in `normal`; returns where it ends
  const take = (j, m, u, out) => {
    begins[j] = u;
    from.fill(chars[j], u, u + out.length);
    to.fill(chars[m + 1], u, u + out.length);
    return u + out.length;
  };
  let u = 0;
  for (let k = 0; k < n;) {
    const out = alone(k);
    if (normal.startsWith(out, u)) {
      u = take(k, k, u, out);
      k++;
      continue;
    }
    // the smallest window j..m that holds k (k its first character, then each one before it)
    // whose output, normalised together, goes on from where j's began
    let next = -1;
    window: for (let size = 2; size <= ALIGN_WINDOW; size++) {
      for (let back = 0; back < size; back++) {
        const j = k - back,
          m = j + size - 1,
          at = j === k ? u : begins[j];
        if (j < 0 || m >= n || at < 0) continue;
        const together = normalize(text.slice(chars[j], chars[m + 1]));
        if (!normal.startsWith(together, at)) continue;
        // the characters' own outputs, as long in all as theirs together: each keeps its share
        // ('α' 'σ' against 'ας'). Else, fewer characters out than in (NFC's 'é' from 'e' U+0301):
        // the i-th comes from the i-th in, as tokenizers aligns a composition (the first
        // character's span; the ones it absorbed are gone, as a dropped one is). Else the output
        // comes from all of them.
        const own = [];
        for (let i = j; i <= m; i++) own.push(alone(i));
        const out = [...together];
        u = at;
        if (own.reduce((sum, o) => sum + o.length, 0) === together.length) {
          own.forEach((o, i) => (u = take(j + i, j + i, u, o)));
        } else if (out.length <= size) {
          out.forEach((o, i) => (u = take(j + i, j + i, u, o)));
          begins.fill(-1, j + out.length, m + 1);
        } else {
          u = take(j, m, at, together);
          begins.fill(-1, j + 1, m + 1);
        }
        next = m + 1;
        break window;
      }
    }
    if (next < 0) return null;
    k = next;
  }
  if (u !== normal.length) return null;
  return { from: (i) => from[i], to: (i) => to[i] };
}

/** Text -> ids for one model, with a maximum length. */
export class TextTokenizer {
  /** What the pipeline's Replace steps may still add in this call (guardReplaceSteps). */
  #replaced = { left: 0 };
  /** A call into the library begins: its Replace steps may add 4 x maxInputChars characters. */
  #begin() {
    this.#replaced.left = 4 * this.maxInputChars;
  }

  /**
   * @param {object} hf a @huggingface/tokenizers Tokenizer
   * @param {{maxLength: number, tokenTypeIds: boolean, padToken: string|null}} options
   */
  constructor(
    hf,
    { maxLength = Infinity, tokenTypeIds = true, padToken = null, maxInputChars = MAX_INPUT_CHARS } = {},
  ) {
    this.hf = hf;
    /** The most tokens (special ones included) a text may have: the model's max length. */
    this.maxLength = maxLength;
    /**
     * The most characters a text (or text pair) may have: a bound on the work of one call, set
     * before any normalisation (docs/security.md): 1,000,000, less for a tokenizer whose patterns
     * can take many ways from one position (tokenizer-patterns.js, maxInputCharsFor). Settable.
     */
    this.maxInputChars = maxInputChars;
    guardReplaceSteps(hf, this.#replaced);
    /** Whether encode() returns tokenTypeIds (BERT does; DistilBERT has no token types). */
    this.returnsTokenTypeIds = tokenTypeIds;
    /** The id padding uses in encodeBatch (the pad token, [PAD] unless the config says otherwise; else 0). */
    this.padId = hf.token_to_id(tokenName(padToken ?? hf.config?.pad_token, '[PAD]')) ?? 0;
    /** The special tokens a text gets around it ([CLS] and [SEP]: 2). */
    this.specialTokenCount = this.#specials(false).length;
    /** The special tokens a pair of texts gets ([CLS] A [SEP] B [SEP]: 3). */
    this.pairSpecialTokenCount = this.#specials(true).length;
  }

  get vocabSize() {
    return this.hf.get_vocab(true).size;
  }

  /** The mask token ([MASK], or tokenizer_config.json's mask_token) if the vocabulary has it, else null. */
  get maskToken() {
    const mask = tokenName(this.hf.config?.mask_token, '[MASK]');
    return this.hf.token_to_id(mask) === undefined ? null : mask;
  }

  /** The id of the unknown token ([UNK]), or null if the model has none. */
  get unkId() {
    return this.hf.model.unk_token_id ?? null;
  }

  /**
   * Tokens joined as the decoder writes them ('fish', '##ing' -> 'fishing'): transformers'
   * convert_tokens_to_string; [] is ''. The decoder gets a copy of the caller's array.
   */
  convertTokensToString(tokens) {
    const fn = 'tokenizer.convertTokensToString';
    if (!Array.isArray(tokens))
      throw new TypeError(`${fn}: tokens must be an array of strings, got ${describe(tokens)}`);
    const list = new Array(tokens.length);
    for (let i = 0; i < list.length; i++) {
      const token = tokens[i];
      if (typeof token !== 'string')
        throw new TypeError(`${fn}: tokens[${i}] must be a string, got ${describe(token)}`);
      list[i] = token;
    }
    if (list.length === 0) return '';
    this.#begin();
    return this.hf.decoder ? this.hf.decoder(list) : list.join(' ');
  }

  tokenToId(token) {
    return this.hf.token_to_id(token);
  }
  idToToken(id) {
    return this.hf.id_to_token(id);
  }
  /**
   * Token ids -> text, as transformers' tokenizer.decode: `ids` a number[] or an Int32Array
   * (encode's inputIds, generated ids), each an integer in [0, 2^32), else a RangeError naming it;
   * an id with no token is left out (below; the library would decode it as [UNK]); [] is '' (the
   * library throws). `skipSpecialTokens` leaves out the special tokens ([CLS], [SEP], [PAD], ...).
   */
  decode(ids, options) {
    const fn = 'tokenizer.decode';
    const o = optionsArg(options, ['skipSpecialTokens'], fn);
    const skipSpecialTokens = boolOption(o.skipSpecialTokens, `${fn}: skipSpecialTokens`);
    if (!Array.isArray(ids) && typedArrayTag(ids) !== 'Int32Array')
      throw new TypeError(`${fn}: ids must be an array of token ids (number[] or Int32Array), got ${describe(ids)}`);
    const tokens = this.hf.model.vocab; // id -> token, as the library decodes them
    // A plain array, as the library takes it; each id read once. An id with no token (a model's
    // output rows beyond its tokenizer's vocabulary, as Qwen2's 151936 rows for 151665 tokens) is
    // left out, as the Rust tokenizers' decode does (Tokenizer::decode: filter_map over
    // id_to_token); ids are u32 there: a negative one or one past 2^32 - 1 is refused.
    const list = [];
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      if (typeof id !== 'number') throw new TypeError(`${fn}: ids[${i}] must be a token id, got ${describe(id)}`);
      if (!Number.isInteger(id) || id < 0 || id > 0xffffffff)
        throw new RangeError(`${fn}: ids[${i}] = ${id} is not a token id (an integer in [0, 2^32))`);
      if (id < tokens.length && tokens[id] !== undefined) list.push(id);
    }
    if (list.length === 0) return '';
    this.#begin();
    return this.hf.decode(list, { skip_special_tokens: skipSpecialTokens });
  }

  /** The special tokens the post-processor puts around empty text(s). */
  #specials(pair) {
    return this.#postProcess([], pair ? [] : null).items.filter((t) => typeof t === 'string');
  }

  /**
   * The post-processor's sequence for tokens a (and b): the special tokens as strings, and each
   * text's tokens as { sequence: 0 | 1, index } markers, so that where every token came from stays
   * known. A post-processor that leaves the pair apart (ByteLevel) or none at all: a then b, as
   * tokenizers' default_process does.
   */
  #postProcess(a, b) {
    const markers = (tokens, sequence) => tokens.map((_, index) => ({ sequence, index }));
    const A = markers(a, 0),
      B = b && markers(b, 1);
    const processed = this.hf.post_processor?.(A, B, true) ?? { tokens: A, tokens_pair: B };
    const out = processed.tokens;
    const typed = processed.token_type_ids;
    // (an empty second text has no marker either way: the template's own output and types stand)
    if (b?.length && !out.some((t) => t?.sequence === 1)) return { items: [...out, ...(processed.tokens_pair ?? B)] };
    return { items: out, types: typed };
  }

  /** One text's tokens, bounded in length first. */
  #tokenize(text, fn, what) {
    if (typeof text !== 'string') throw new TypeError(`${fn}: ${what} must be a string, got ${describe(text)}`);
    if (text.length > this.maxInputChars) {
      throw new RangeError(
        `${fn}: ${what} has ${text.length} characters, more than tokenizer.maxInputChars (${this.maxInputChars}), the bound on one call's work`,
      );
    }
    this.#begin();
    // an empty text has no tokens (nor, in WordPiece, one of only spaces): the encoding is the
    // post-processor's special tokens alone, as transformers' tokenizer('') gives [CLS] [SEP]
    return this.hf.tokenize(text);
  }

  /** A token's id as the library's encode gives it: an added token's, the vocabulary's, else [UNK]'s. */
  #id(token) {
    const hf = this.hf;
    return hf.added_tokens_map.get(token)?.id ?? hf.model.tokens_to_ids.get(token) ?? hf.model.unk_token_id;
  }

  /**
   * One text, or a pair of texts, -> { inputIds, tokens, attentionMask, tokenTypeIds?, offsets?,
   * sequenceIds?, wordIds?, overflowing? } with the special tokens, as transformers'
   * tokenizer(text, text_pair). A result longer than maxLength is a RangeError unless
   * `truncation`: true or 'longest_first' (cut the longer text first), 'only_first' or
   * 'only_second' (tokenizers' truncation strategies); a text with no tokens (empty; in WordPiece
   * also only spaces) gives the post-processor's special tokens alone (BERT [CLS] [SEP], Llama
   * <s>, GPT-2 none), as transformers does, and an empty textPair is no pair (as its single call). With `returnOverflowingTokens`, what truncation cuts is not lost:
   * `overflowing` holds the further windows over the truncated text, each overlapping the one
   * before by `stride` tokens (tokenizers' Encoding::truncate with a stride; the
   * question-answering pipeline's windows over a long context).
   * @param {string} text
   * @param {{ textPair?: string, truncation?: boolean | string, maxLength?: number, returnOffsets?: boolean, stride?: number, returnOverflowingTokens?: boolean }} [options]
   */
  encode(text, options) {
    return this.#encodeOne(text, options, false);
  }

  /**
   * encode's work. An empty textPair: no pair in transformers' single call (`tokenizer('a', '')`
   * is `[CLS] a [SEP]`: its fast tokenizer drops a falsy pair), a pair in its batched call
   * (`tokenizer(['a'], [''])` is `[CLS] a [SEP] [SEP]`), which encodeBatch is.
   */
  #encodeOne(text, options, emptyPairIsPair) {
    const fn = 'tokenizer.encode';
    const o = optionsArg(
      options,
      ['textPair', 'truncation', 'maxLength', 'returnOffsets', 'stride', 'returnOverflowingTokens'],
      fn,
    );
    let strategy = o.truncation ?? false;
    if (strategy === true) strategy = 'longest_first';
    if (strategy !== false && !STRATEGIES.includes(strategy)) {
      throw new TypeError(
        `${fn}: truncation must be a boolean or one of ${STRATEGIES.map((s) => `'${s}'`).join(', ')}, got ${typeof strategy === 'string' ? `'${strategy}'` : describe(strategy)}`,
      );
    }
    const maxLength = o.maxLength ?? this.maxLength;
    if (!(maxLength === Infinity || (Number.isInteger(maxLength) && maxLength > 0)))
      throw new RangeError(`${fn}: maxLength must be a positive integer, got ${maxLength}`);
    const returnOffsets = boolOption(o.returnOffsets, `${fn}: returnOffsets`);
    const overflow = boolOption(o.returnOverflowingTokens, `${fn}: returnOverflowingTokens`);
    const stride = o.stride ?? 0;
    if (!(Number.isInteger(stride) && stride >= 0))
      throw new RangeError(
        `${fn}: stride must be a non-negative integer, got ${typeof stride === 'number' ? stride : describe(stride)}`,
      );
    if (stride > 0 && !overflow)
      throw new TypeError(`${fn}: stride needs returnOverflowingTokens: true (it is the overlap of the windows)`);
    const pair = o.textPair !== undefined && o.textPair !== null && (emptyPairIsPair || o.textPair !== '');
    const chars = text?.length + (pair ? o.textPair?.length : 0);
    if (pair && typeof text === 'string' && typeof o.textPair === 'string' && chars > this.maxInputChars) {
      throw new RangeError(
        `${fn}: text and textPair have ${chars} characters, more than tokenizer.maxInputChars (${this.maxInputChars}), the bound on one call's work`,
      );
    }
    if (overflow && pair && strategy === 'longest_first') {
      throw new TypeError(
        `${fn}: returnOverflowingTokens with a textPair needs truncation 'only_first' or 'only_second' (the text whose windows overflow)`,
      );
    }
    const a = this.#tokenize(text, fn, 'text');
    const b = pair ? this.#tokenize(o.textPair, fn, 'textPair') : null;

    // truncation, as tokenizers' post_process: the budget is maxLength less the special tokens
    const specials = pair ? this.pairSpecialTokenCount : this.specialTokenCount;
    const total = a.length + (b?.length ?? 0) + specials;
    // each window: the tokens of each text it keeps, [start, end)
    let windows = [[[0, a.length], b && [0, b.length]]];
    if (total > maxLength) {
      const what = pair ? 'the pair' : 'the text';
      const maximum = `${o.maxLength === undefined ? "the model's maximum" : 'maxLength'} of ${maxLength}`;
      if (strategy === false) {
        throw new RangeError(
          `${fn}: ${what} has ${total} tokens, more than ${maximum} (pass { truncation: true } to ${pair ? 'cut the longer text first' : `keep the first ${maxLength}`})`,
        );
      }
      if (maxLength <= specials)
        throw new RangeError(`${fn}: maxLength ${maxLength} leaves no room for text beside ${specials} special tokens`);
      const kept = truncatedLengths(a.length, b?.length ?? null, maxLength - specials, strategy);
      if (typeof kept === 'string')
        throw new RangeError(`${fn}: ${what} has ${total} tokens, more than ${maximum}; ${kept}`);
      windows = [[[0, kept[0]], b && [0, kept[1]]]];
      if (overflow) {
        // the truncated text's windows: tokenizers cuts it to `keep` tokens, and what overflows
        // into windows of `keep` that overlap the one before by `stride` (Encoding::truncate)
        const target = strategy === 'only_second' ? 1 : 0;
        const n = target ? b.length : a.length,
          keep = kept[target];
        if (stride >= keep) {
          throw new RangeError(
            `${fn}: stride ${stride} must be less than the ${keep} tokens of the ${target ? 'second' : 'first'} text that fit in maxLength ${maxLength} (beside the other text and ${specials} special tokens)`,
          );
        }
        windows = windowRanges(n, keep, stride).map((range) => {
          const w = [[0, a.length], b && [0, b.length]];
          w[target] = range;
          return w;
        });
      }
    }

    // the offsets of the tokens the windows keep: each text's up to the furthest window's end
    const kept = (t) => windows.reduce((most, w) => Math.max(most, w[t][1]), 0);
    const spans = returnOffsets
      ? [this.#offsets(text, a, kept(0), fn), pair ? this.#offsets(o.textPair, b, kept(1), fn) : null]
      : null;
    const [first, ...rest] = windows.map((w) => this.#assemble([a, b], w, spans));
    if (overflow) first.overflowing = rest;
    return first;
  }

  /**
   * One encoding of the tokens of each text in `window` ([start, end) per text): the
   * post-processor's special tokens around them, ids, the mask, token types, offsets, sequence
   * and word ids (from `spans`, the offsets and word ids of every token of each text).
   */
  #assemble(texts, window, spans) {
    const parts = texts.map((t, i) => t && t.slice(...window[i]));
    const { items, types } = this.#postProcess(parts[0], parts[1]);
    const at = (t) => window[t.sequence][0] + t.index; // the token's index in its whole text
    const tokens = items.map((t) => (typeof t === 'string' ? t : parts[t.sequence][t.index]));
    const ids = tokens.map((t) => this.#id(t));
    const out = { inputIds: ids, tokens, attentionMask: new Array(ids.length).fill(1) };
    if (this.returnsTokenTypeIds)
      out.tokenTypeIds = types ?? items.map((t) => (typeof t === 'string' ? 0 : t.sequence));
    if (spans) {
      out.offsets = items.map((t) => (typeof t === 'string' ? [0, 0] : spans[t.sequence].offsets[at(t)]));
      out.sequenceIds = items.map((t) => (typeof t === 'string' ? null : t.sequence));
      out.wordIds = items.map((t) => (typeof t === 'string' ? null : spans[t.sequence].words[at(t)]));
    }
    return out;
  }

  /**
   * { offsets, words } of the first `count` of the text's tokens (`tokens`, as #tokenize gave
   * them): offsets, [start, end) in the text (UTF-16 indices, as String.prototype.slice takes
   * them), as transformers' return_offsets_mapping: a WordPiece token covers the characters it
   * came from (a continuation '##ing' its own), [UNK] the whole word, an added token its text;
   * words, the index of the pre-tokenizer's word each token belongs to (transformers' word_ids():
   * a continuation belongs to the word before it, an added token is a word of its own).
   *
   * The library's own steps (Tokenizer.encode_text) are walked again with positions kept: the text
   * split at the added tokens matched as written, each other section normalised whole as the
   * library normalises it (NFC joins 'e' and U+0301, a character the normaliser drops before
   * [SEP] is gone) and aligned with the text (alignment()), split at the added tokens
   * matched after normalisation ("normalized": true), pre-tokenized into words, each found from
   * where the one before ended, and each word given to the model alone. Every token must be the
   * one #tokenize gave, else an Error. Linear in the text, and it stops after `count` tokens
   * (those the truncation keeps). A model other than WordPiece (byte-level BPE, SentencePiece,
   * whose tokens are not pieces of the text) is an Error.
   */
  #offsets(text, tokens, count, fn) {
    const hf = this.hf;
    this.#begin();
    const model = hf.model;
    if (model.config?.type !== 'WordPiece')
      throw new Error(
        `${fn}: returnOffsets needs a WordPiece tokenizer (the BERT family); this one's model is ${model.config?.type}`,
      );
    const unplaced = (why) => new Error(`${fn}: returnOffsets could not place the tokens in the text: ${why}`);
    const offsets = [],
      words = [];
    if (count === 0) return { offsets, words };
    const prefix = model.config.continuing_subword_prefix ?? '##';
    const added = hf.added_tokens_map;
    const normalize = hf.normalizer ? (s) => hf.normalizer(s) : null;
    const memo = new Map(); // one character -> its normalised text, for alignment()
    // the next token, [start, end) in the text; true once `count` are placed
    const place = (token, start, end, newWord) => {
      const i = offsets.length;
      if (token !== tokens[i])
        throw unplaced(`token ${i} is '${tokens[i]}', and the tokenizer's steps walked again give '${token}'`);
      offsets.push([start, end]);
      words.push((words.at(-1) ?? -1) + (newWord ? 1 : 0));
      return offsets.length === count;
    };
    const sections = addedTokenSplit(hf.splitter_unnormalized, added, text);
    walk: for (let s = 0; s < sections.length; s++) {
      const { start, end, spanStart, spanEnd } = sections[s];
      if (start === end) continue;
      const raw = text.slice(start, end);
      if (added.has(raw)) {
        if (place(raw, spanStart, spanEnd, true)) break walk;
        continue;
      }
      const normal = normalize ? normalize(raw) : raw;
      // where each UTF-16 unit of `normal` came from: [from[u], to[u]) in the text
      const aligned = normalize
        ? alignment(text, start, end, normal, normalize, memo)
        : { from: (u) => start + u, to: (u) => start + u + 1 };
      if (!aligned)
        throw unplaced(`the normalised text of characters ${start} to ${end} does not follow from its characters`);
      const { from, to } = aligned;
      for (const part of addedTokenSplit(hf.splitter_normalized, added, normal)) {
        const { start: a, end: b } = part; // in `normal`
        if (a === b) continue;
        const sub = normal.slice(a, b);
        if (added.has(sub)) {
          if (place(sub, from(part.spanStart), to(part.spanEnd - 1), true)) break walk;
          continue;
        }
        let cursor = a; // in `normal`: where the last word ended
        for (const word of hf.pre_tokenizer ? hf.pre_tokenizer(sub, { section_index: s }) : [sub]) {
          const w = normal.indexOf(word, cursor);
          if (w < 0 || w + word.length > b)
            throw unplaced(
              `the pre-tokenizer's word '${word}' is not in the normalised text of characters ${start} to ${end}`,
            );
          cursor = w + word.length;
          const pieces = model([word]); // WordPiece splits each word on its own
          let at = w;
          for (let k = 0; k < pieces.length; k++) {
            const token = pieces[k];
            let end = cursor; // [UNK] covers the whole word
            if (!(token === model.unk_token && pieces.length === 1)) {
              const piece = k > 0 && token.startsWith(prefix) ? token.slice(prefix.length) : token;
              if (!normal.startsWith(piece, at))
                throw unplaced(`the piece '${token}' of the word '${word}' is not where the piece before ended`);
              end = at + piece.length;
            }
            if (place(token, from(at), to(end - 1), k === 0)) break walk;
            at = end;
          }
        }
      }
    }
    if (offsets.length < count)
      throw unplaced(`the tokenizer's steps walked again give ${offsets.length} tokens, not ${count}`);
    return { offsets, words };
  }

  /**
   * Several texts (or pairs [text, textPair], or texts with options.textPairs) -> a padded batch
   * { inputIds, attentionMask, tokenTypeIds?, offsets?, sequenceIds?, wordIds?, tokens } (each of
   * the longest row's length; padding gets padId, mask 0, token type 0, offsets [0, 0], sequence
   * and word null), as tokenizer(texts, text_pairs, padding=True) in transformers.
   */
  encodeBatch(texts, options) {
    const fn = 'tokenizer.encodeBatch';
    if (!Array.isArray(texts) || texts.length === 0) {
      throw new TypeError(
        `${fn}: texts must be a non-empty array of strings (or of [text, textPair]), got ${describe(texts)}`,
      );
    }
    const { textPairs, ...rest } = optionsArg(options, ['textPairs', 'truncation', 'maxLength', 'returnOffsets'], fn);
    if (textPairs !== undefined && (!Array.isArray(textPairs) || textPairs.length !== texts.length))
      throw new TypeError(`${fn}: textPairs must be an array of ${texts.length} strings, got ${describe(textPairs)}`);
    const encoded = texts.map((t, i) => {
      const [text, textPair] = Array.isArray(t) && t.length === 2 ? t : [t, textPairs?.[i]];
      try {
        return this.#encodeOne(text, { ...rest, textPair }, true);
      } catch (e) {
        e.message = e.message.replace('tokenizer.encode:', `${fn}: texts[${i}]:`);
        throw e;
      }
    });
    const L = Math.max(...encoded.map((e) => e.inputIds.length));
    const pad = (row, value) => [...row, ...new Array(L - row.length).fill(value)];
    const batch = {
      inputIds: encoded.map((e) => pad(e.inputIds, this.padId)),
      attentionMask: encoded.map((e) => pad(e.attentionMask, 0)),
      tokens: encoded.map((e) => e.tokens),
    };
    if (this.returnsTokenTypeIds) batch.tokenTypeIds = encoded.map((e) => pad(e.tokenTypeIds, 0));
    if (rest.returnOffsets) {
      batch.offsets = encoded.map((e) => [
        ...e.offsets,
        ...Array.from({ length: L - e.inputIds.length }, () => [0, 0]),
      ]);
      batch.sequenceIds = encoded.map((e) => pad(e.sequenceIds, null));
      batch.wordIds = encoded.map((e) => pad(e.wordIds, null));
    }
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
 * (the model's max_position_embeddings) caps tokenizer_config.json's model_max_length;
 * `trustPatterns` runs tokenizer.json's patterns unchecked (tokenizer-patterns.js).
 * Returns null when the folder has neither file.
 * @param {import('./model-files.js').ModelFiles} files
 */
export async function tokenizerFromFiles(
  files,
  { maxLength = Infinity, tokenTypeIds = true, trustPatterns = false } = {},
) {
  const config = files.has('tokenizer_config.json') ? await files.json('tokenizer_config.json') : {};
  if (config === null || typeof config !== 'object' || Array.isArray(config))
    throw new Error('tokenizer_config.json: expected a JSON object');
  let json, ids;
  let paths = 1; // the patterns' ways from one position (checkTokenizerPatterns)
  if (files.has('tokenizer.json')) {
    json = await files.json('tokenizer.json');
    if (json === null || typeof json !== 'object' || typeof json.model !== 'object')
      throw new Error('tokenizer.json: expected a JSON object with a model');
    await preparePatternAnalysis(json, 'tokenizer.json', { trustPatterns });
    paths = checkTokenizerPatterns(json, 'tokenizer.json', { trustPatterns });
    checkTokenIds(json);
    checkTokenizerModel(json);
    checkTokenizerCost(json);
  } else if (files.has('vocab.txt')) {
    ids = bertVocabulary(await files.text('vocab.txt'), 'vocab.txt');
    json = bertPipeline(ids, config, 'vocab.txt');
  } else {
    return null;
  }
  // the library's errors (a post-processor without its pair template...) name the file
  try {
    return new TextTokenizer(wordPieceTokenizer(json, config, ids), {
      maxLength: Math.min(maxLength, configuredMaxLength(config)),
      tokenTypeIds,
      maxInputChars: maxInputCharsFor(paths, MAX_INPUT_CHARS),
    });
  } catch (e) {
    throw new Error(`${files.has('tokenizer.json') ? 'tokenizer.json' : 'vocab.txt'}: ${e.message}`);
  }
}

/**
 * A loaded model's `tokenizer` (tokenizerFromFiles's), the same for encoders and causal LMs: the
 * folder's tokenizer, or an Error saying that the folder (`where`) had none and what to do instead
 * (`advice`). `owner`: the model's name in the API's messages ('model', 'lm').
 */
export function modelTokenizer(tokenizer, owner, where, advice) {
  if (tokenizer) return tokenizer;
  throw new Error(
    `${owner}.tokenizer: ${where} had no tokenizer: ${advice} (${owner}.hasTokenizer says whether there is one)`,
  );
}

/** The model types whose tokenizers give no token type ids (model_input_names without them). */
const NO_TOKEN_TYPE_IDS = ['distilbert', 'gpt2', 'llama', 'qwen2'];

/**
 * A tokenizer without model weights: 'bert-base-uncased' or 'distilbert-base-uncased' (the
 * vocabulary shipped in the package), or a folder / files as loadPretrained takes them.
 * @param {string | FileList | File[] | Record<string, Blob | ArrayBuffer | Uint8Array>} source
 * @param {{maxLength?: number, trustPatterns?: boolean}} [options]
 */
export async function loadTokenizer(source, options) {
  const o = optionsArg(options, ['maxLength', 'trustPatterns'], FN);
  const { maxLength } = o;
  const trustPatterns = boolOption(o.trustPatterns, `${FN}: trustPatterns`);
  if (maxLength !== undefined && !(Number.isInteger(maxLength) && maxLength > 0)) {
    throw new RangeError(`${FN}: maxLength must be a positive integer, got ${maxLength}`);
  }
  if (typeof source === 'string' && Object.hasOwn(SHIPPED, source)) {
    const shipped = SHIPPED[source];
    const vocab = await shippedVocabulary(shipped.vocab());
    const config = { do_lower_case: true };
    const ids = bertVocabulary(vocab, source);
    const hf = wordPieceTokenizer(bertPipeline(ids, config, source), config, ids);
    return new TextTokenizer(hf, { maxLength: maxLength ?? shipped.maxLength, tokenTypeIds: shipped.tokenTypeIds });
  }
  let files;
  try {
    files = await openModelFiles(source, FN);
  } catch (e) {
    if (typeof source === 'string')
      e.message += `; the vocabularies shipped in the package need no folder: ${SHIPPED_TOKENIZERS.join(', ')}`;
    throw e;
  }
  try {
    let positions = Infinity,
      tokenTypeIds = true;
    if (files.has('config.json')) {
      // the positions as loadPretrained takes them (GPT-2 names them n_positions), and token type
      // ids unless the model type's tokenizer has none: transformers' tokenizers list
      // token_type_ids in model_input_names by default, and DistilBERT's, GPT-2's, Llama's and
      // Qwen2's (the other model types the library reads) leave them out
      const config = await files.json('config.json');
      const P = config?.max_position_embeddings ?? config?.n_positions;
      if (Number.isInteger(P)) positions = P;
      if (NO_TOKEN_TYPE_IDS.includes(config?.model_type)) tokenTypeIds = false;
    }
    const tokenizer = await tokenizerFromFiles(files, {
      maxLength: maxLength ?? positions,
      tokenTypeIds,
      trustPatterns,
    });
    if (!tokenizer) throw new Error(`${FN}: ${files.where} has neither tokenizer.json nor vocab.txt`);
    if (maxLength !== undefined) tokenizer.maxLength = maxLength;
    return tokenizer;
  } catch (e) {
    if (e instanceof Error && !e.message.startsWith(FN)) e.message = `${FN}: ${e.message}`;
    throw e;
  } finally {
    await files.close();
  }
}
