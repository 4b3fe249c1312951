// The task helpers of a pretrained encoder with a head (issue 20), with the semantics of
// transformers' pipelines: model.fillMask (pipelines/fill_mask.py), model.classify
// (text_classification.py), model.tagTokens (token_classification.py, every aggregation
// strategy: 'none', 'simple', 'first', 'average', 'max'), model.answer (question_answering.py)
// and model.rerank (a cross-encoder: sequence classification of (query, passage) pairs, sorted,
// as sentence-transformers' CrossEncoder.rank).
//
// The model computes the head's logits (C++: the head's steps of its architecture's table, on
// the padded batch); this file turns them into the pipelines' answers in float64: softmax,
// sigmoid, top-k, entity grouping, answer spans. Each function below names the pipeline
// function it follows; tests/js/reference/heads.mjs is the float64 reference written from the
// same files, and tests/js/tasks.test.mjs compares the two.
import { describe } from './tensor.js';
import { optionsArg, boolOption, positiveIntegerOption } from './validate.js';

/** The heads a model may have (config.json's architectures[0]: ...ForMaskedLM, ...). */
export const HEADS = ['masked-lm', 'sequence-classification', 'token-classification', 'question-answering'];

/** The helpers and the head each needs. */
const NEEDS = {
  fillMask: 'masked-lm',
  classify: 'sequence-classification',
  rerank: 'sequence-classification',
  tagTokens: 'token-classification',
  answer: 'question-answering',
};

// ---------------------------------------------------------------------------------------------
// Post-processing, in float64 (exported for the tests)

/** numpy's softmax as the pipelines write it: exp(x - max) / sum(exp(x - max)). */
export function softmax(x) {
  let max = -Infinity;
  for (const v of x) if (v > max) max = v;
  const out = new Float64Array(x.length);
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += out[i] = Math.exp(x[i] - max);
  for (let i = 0; i < x.length; i++) out[i] /= sum;
  return out;
}

const sigmoid = (x) => 1 / (1 + Math.exp(-x));

/** The indices of the k largest values, largest first; equal values in index order. */
export function topIndices(values, k) {
  const order = Array.from({ length: values.length }, (_, i) => i);
  order.sort((i, j) => values[j] - values[i] || i - j);
  return order.slice(0, k);
}

/** config.json's labels: id2label in index order (PretrainedConfig's LABEL_i where it has none). */
export function labelsOf(config, count) {
  const map = config?.id2label;
  return Array.from({ length: count }, (_, i) => {
    const label = map && typeof map === 'object' ? map[String(i)] : undefined;
    return typeof label === 'string' ? label : `LABEL_${i}`;
  });
}

/**
 * The function TextClassificationPipeline.postprocess applies when none is asked for: none for
 * problem_type 'regression'; sigmoid for 'multi_label_classification' or a single label;
 * softmax for 'single_label_classification' or several labels.
 */
export function defaultFunction(config, numLabels) {
  const problem = config?.problem_type;
  if (problem === 'regression') return 'none';
  if (problem === 'multi_label_classification' || numLabels === 1) return 'sigmoid';
  return 'softmax';
}

// CrossEncoder's activations by the names its config.json key holds (torch.nn.modules.*)
const CROSS_ENCODER_ACTIVATIONS = {
  'torch.nn.modules.activation.Sigmoid': sigmoid,
  'torch.nn.modules.linear.Identity': (x) => x,
  'torch.nn.modules.activation.Tanh': Math.tanh,
};

/**
 * The activation sentence-transformers' CrossEncoder applies to a score (cross_encoder's
 * get_activation_function): config.json's sentence_transformers.activation_fn, else its
 * sbert_ce_default_activation_function, else Sigmoid for one label (Identity for more).
 * ms-marco-MiniLM-L-6-v2 names Identity: its scores are the logits.
 */
export function crossEncoderActivation(config, where) {
  const nested = config?.sentence_transformers?.activation_fn;
  const [key, name] =
    nested !== undefined && nested !== null
      ? ['sentence_transformers.activation_fn', nested]
      : ['sbert_ce_default_activation_function', config?.sbert_ce_default_activation_function ?? null];
  if (name === null) return { name: 'torch.nn.modules.activation.Sigmoid', apply: sigmoid };
  const apply = Object.hasOwn(CROSS_ENCODER_ACTIVATIONS, name) ? CROSS_ENCODER_ACTIVATIONS[name] : null;
  if (!apply)
    throw new Error(
      `${where}: config.json's ${key} ${JSON.stringify(name)} is not supported (supported: ${Object.keys(CROSS_ENCODER_ACTIVATIONS).join(', ')})`,
    );
  return { name, apply };
}

/** Scores of one row of logits under 'softmax' | 'sigmoid' | 'none'. */
export function classificationScores(logits, fn) {
  if (fn === 'softmax') return softmax(logits);
  return Float64Array.from(logits, fn === 'sigmoid' ? sigmoid : (x) => x);
}

/** Every label with its score, sorted by score (ties in label order), the first topK (null: all). */
export function rankLabels(scores, labels, topK) {
  const order = topIndices(scores, topK === null ? scores.length : topK);
  return order.map((i) => ({ label: labels[i], score: scores[i] }));
}

/**
 * FillMaskPipeline.postprocess: for each [MASK] position its softmax over the vocabulary, the
 * topK tokens, and the text with that token in place of the mask (padding removed, decoded
 * without special tokens when there is one mask, with them when there are several).
 * @param rows (masks, V) logits of the mask positions; ids the encoded text
 */
export function fillMaskPredictions({ rows, V, ids, positions, topK, padId, decode }) {
  const single = positions.length === 1;
  return positions.map((position, m) => {
    const probs = softmax(rows.subarray(m * V, (m + 1) * V));
    return topIndices(probs, topK).map((id) => {
      const filled = ids.map((t, i) => (i === position ? id : t)).filter((t) => t !== padId);
      return { score: probs[id], id, token: decode([id], false), sequence: decode(filled, single) };
    });
  });
}

/** token_classification.py get_tag: [B or I, tag]; a label with neither prefix counts as I. */
function tagOf(label) {
  if (label.startsWith('B-')) return ['B', label.slice(2)];
  if (label.startsWith('I-')) return ['I', label.slice(2)];
  return ['I', label];
}

/**
 * group_entities / group_sub_entities: consecutive tokens (or words) join one entity while their
 * tag is the same and the next is not a B-; the entity's group is the label after its first '-',
 * its score the mean of its tokens', its word the tokens (or words) joined as the tokenizer
 * writes them.
 */
export function groupEntities(tokens, tokensToString) {
  const groups = [];
  const close = (group) => {
    const first = group[0].entity;
    groups.push({
      entityGroup: first.includes('-') ? first.slice(first.indexOf('-') + 1) : first,
      score: group.reduce((sum, t) => sum + t.score, 0) / group.length,
      word: tokensToString(group.map((t) => t.word)),
      start: group[0].start,
      end: group.at(-1).end,
    });
  };
  let group = [];
  for (const token of tokens) {
    if (group.length && (tagOf(token.entity)[0] === 'B' || tagOf(token.entity)[1] !== tagOf(group.at(-1).entity)[1])) {
      close(group);
      group = [];
    }
    group.push(token);
  }
  if (group.length) close(group);
  return groups;
}

/** The values of tagTokens' aggregation: token_classification.py's AggregationStrategy. */
export const AGGREGATIONS = ['none', 'simple', 'first', 'average', 'max'];

/** The first index of the largest value (numpy's argmax). */
function argmax(x) {
  let best = 0;
  for (let i = 1; i < x.length; i++) if (x[i] > x[best]) best = i;
  return best;
}

/**
 * gather_pre_entities: each token that is not a special token with its softmax scores, its
 * offsets, its word (the token; for [UNK] the text under it) and whether it continues the word
 * before it. transformers decides is_subword with a word-aware tokenizer (its model has a
 * continuing_subword_prefix, as every WordPiece: the only tokenizers returnOffsets serves) as
 * `len(word) != len(word_ref)`, the token against the text under it in code points ('##ffa' is
 * 5, 'ffa' 3); [UNK] never is one. On the BERT family's texts this is tokenizers' word ids: a
 * token continues a word exactly when it is a '##' piece.
 */
function preEntities({ logits, K, encoding, text, unkId }) {
  const pre = [];
  encoding.sequenceIds.forEach((sequence, index) => {
    if (sequence === null) return; // [CLS], [SEP]
    const [start, end] = encoding.offsets[index];
    const wordRef = text.slice(start, end);
    const unknown = encoding.inputIds[index] === unkId;
    const word = unknown ? wordRef : encoding.tokens[index];
    pre.push({
      word,
      scores: softmax(logits.subarray(index * K, (index + 1) * K)),
      start,
      end,
      index,
      isSubword: !unknown && [...encoding.tokens[index]].length !== [...wordRef].length,
    });
  });
  return pre;
}

/**
 * aggregate_word: one word's tokens as one entity, its label from the scores of the first token
 * ('first'), of the token whose best score is largest ('max'; the first such token), or of the
 * mean of the tokens' scores ('average'); its word the tokens joined as the tokenizer writes them.
 */
function aggregateWord(tokens, aggregation, labels, tokensToString) {
  let scores;
  if (aggregation === 'first') scores = tokens[0].scores;
  else if (aggregation === 'max') {
    let best = tokens[0];
    for (const t of tokens) if (Math.max(...t.scores) > Math.max(...best.scores)) best = t;
    scores = best.scores;
  } else {
    scores = new Float64Array(tokens[0].scores.length);
    for (const t of tokens) t.scores.forEach((v, k) => (scores[k] += v));
    scores = scores.map((v) => v / tokens.length);
  }
  const k = argmax(scores);
  return {
    entity: labels[k],
    score: scores[k],
    word: tokensToString(tokens.map((t) => t.word)),
    start: tokens[0].start,
    end: tokens.at(-1).end,
  };
}

/** aggregate_words: each token that is not a subword starts a word; each word aggregate_word's entity. */
function aggregateWords(pre, aggregation, labels, tokensToString) {
  const words = [];
  for (const token of pre) {
    if (words.length && token.isSubword) words.at(-1).push(token);
    else words.push([token]);
  }
  return words.map((tokens) => aggregateWord(tokens, aggregation, labels, tokensToString));
}

/**
 * TokenClassificationPipeline.postprocess for one text (pipelines/token_classification.py):
 * gather_pre_entities, then aggregate: 'none' keeps each token with the label of its largest
 * softmax score and the tokens whose label is not ignored; 'simple' groups those tokens
 * (group_entities); 'first', 'average' and 'max' first make each word one entity
 * (aggregate_words), so a word cannot be split between labels, then group the words. The groups
 * whose label is not ignored are kept.
 * @param logits (L, K) of the encoded text
 */
export function tokenEntities({ logits, K, encoding, text, labels, unkId, aggregation, ignoreLabels, tokensToString }) {
  const pre = preEntities({ logits, K, encoding, text, unkId });
  const entities =
    aggregation === 'none' || aggregation === 'simple'
      ? pre.map(({ scores, index, word, start, end }) => {
          const best = argmax(scores);
          return { entity: labels[best], score: scores[best], index, word, start, end };
        })
      : aggregateWords(pre, aggregation, labels, tokensToString);
  if (aggregation === 'none') return entities.filter((t) => !ignoreLabels.includes(t.entity));
  return groupEntities(entities, tokensToString).filter((g) => !ignoreLabels.includes(g.entityGroup));
}

/**
 * select_starts_ends and decode_spans for one window: the question and special tokens out of the
 * softmax (p_mask: logits -10000, [CLS] kept), start and end softmax, [CLS] (position 0) zeroed,
 * then the spans i <= j < i + maxAnswerLength of context tokens by start[i] * end[j], the best
 * topK. (The pipeline's top-k also runs over the spans that score 0, which it can return when
 * topK is more than the context's spans; those are left out here.)
 * @param window { start, end: (L) logits, context: (L) booleans, the context tokens }
 */
export function bestSpans({ start, end, context }, topK, maxAnswerLength) {
  const L = context.length;
  const masked = (logits) => Float64Array.from(logits, (x, i) => (context[i] || i === 0 ? x : -10000.0));
  const p = softmax(masked(start)),
    q = softmax(masked(end));
  p[0] = q[0] = 0;
  const spans = [];
  for (let i = 1; i < L; i++) {
    if (!context[i]) continue;
    for (let j = i; j < Math.min(L, i + maxAnswerLength); j++) {
      if (context[j] && p[i] * q[j] > 0) spans.push({ s: i, e: j, score: p[i] * q[j] });
    }
  }
  spans.sort((a, b) => b.score - a.score || a.s - b.s || a.e - b.e);
  return spans.slice(0, topK);
}

/**
 * QuestionAnsweringPipeline.postprocess over a question's windows: each window's best
 * topK * 2 + 10 spans (its pre_topk with align_to_words: spans inside one word become one answer)
 * widened to whole words of the context (get_indices with align_to_words), an answer equal
 * (ignoring case) to one already found adding its score to it (get_answer); sorted by score, the
 * first topK.
 * @param windows [{ start, end, encoding }] (encodings with offsets, sequence and word ids)
 */
export function answerSpans(windows, context, topK, maxAnswerLength) {
  const answers = [];
  for (const { start, end, encoding } of windows) {
    const inContext = encoding.sequenceIds.map((s) => s === 1);
    // word -> [first start, last end] of its tokens in this window
    const words = new Map();
    encoding.wordIds.forEach((word, t) => {
      if (!inContext[t]) return;
      const [from, to] = encoding.offsets[t];
      const w = words.get(word);
      words.set(word, w ? [w[0], to] : [from, to]);
    });
    const preTopK = topK * 2 + 10;
    for (const { s, e, score } of bestSpans({ start, end, context: inContext }, preTopK, maxAnswerLength)) {
      const from = words.get(encoding.wordIds[s])[0],
        to = words.get(encoding.wordIds[e])[1];
      const answer = context.slice(from, to);
      const same = answers.find((a) => a.answer.toLowerCase() === answer.toLowerCase());
      if (same) same.score += score;
      else answers.push({ answer, score, start: from, end: to });
    }
  }
  answers.sort((a, b) => b.score - a.score);
  return answers.slice(0, topK);
}

// ---------------------------------------------------------------------------------------------
// Arguments

function text(value, where) {
  if (typeof value !== 'string') throw new TypeError(`${where} must be a string, got ${describe(value)}`);
  return value;
}

/** A classification input: a text, or a pair as { text, textPair } or [text, textPair]. */
function classificationInput(value, where) {
  if (typeof value === 'string') return [value, undefined];
  if (Array.isArray(value) && value.length === 2 && value.every((t) => typeof t === 'string')) return value;
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const unknown = Object.keys(value).filter((k) => k !== 'text' && k !== 'textPair');
    if (unknown.length === 0 && typeof value.text === 'string' && typeof value.textPair === 'string')
      return [value.text, value.textPair];
  }
  throw new TypeError(
    `${where} must be a text, a pair { text, textPair } or [text, textPair], got ${Array.isArray(value) ? `Array(${value.length})` : describe(value)}`,
  );
}

// ---------------------------------------------------------------------------------------------
// The helpers, as methods of PretrainedModel (mixed into its prototype by pretrained.js). Each
// uses this.headForward(batch, rows?) for the logits.

/** transformers' class suffix of each head. */
const CLASS = {
  'masked-lm': 'ForMaskedLM',
  'sequence-classification': 'ForSequenceClassification',
  'token-classification': 'ForTokenClassification',
  'question-answering': 'ForQuestionAnswering',
};

/** The model has the head helper `fn` needs, and a tokenizer; else an Error saying what is missing. */
function requireHead(model, fn) {
  model.check(fn);
  const head = NEEDS[fn.slice('model.'.length)];
  if (model.head !== head) {
    const has = model.head ? `its head is '${model.head}'` : 'it was loaded without a task head';
    throw new Error(
      `${fn} needs a model with the '${head}' head (config.json's architectures[0] a ...${CLASS[head]}); ${has}`,
    );
  }
  if (!model.hasTokenizer) throw new Error(`${fn}: the model folder had no tokenizer (tokenizer.json or vocab.txt)`);
  return model.tokenizer;
}

/**
 * Runs a tokenizer call for helper `fn`: its errors name the helper and the helper's argument
 * (`names`: text -> question, ...) instead of the tokenizer's; an encodeBatch error's element
 * (`texts[i]` of the part it was given) is named by `element(i)` (the caller's argument, its
 * index in the whole batch; null: not named).
 */
function tokenized(fn, names, run, element = (i) => `texts[${i}]`) {
  try {
    return run();
  } catch (e) {
    if (e instanceof Error && /^tokenizer\.encode(Batch)?:/.test(e.message)) {
      e.message = e.message
        .replace(/^tokenizer\.encode(Batch)?:(?: texts\[(\d+)\]:)?/, (_, batch, i) =>
          i === undefined || element(Number(i)) === null ? `${fn}:` : `${fn}: ${element(Number(i))}:`,
        )
        .replace(/\b(textPair|text)\b(?= (has|must))/g, (name) => names[name] ?? name);
    }
    throw e;
  }
}

/** Encodings of one kind (each with ids, attentionMask, tokenTypeIds?) padded into one batch. */
function padded(encodings, padId) {
  const L = Math.max(...encodings.map((e) => e.inputIds.length));
  const pad = (row, value) => [...row, ...new Array(L - row.length).fill(value)];
  const batch = {
    inputIds: encodings.map((e) => pad(e.inputIds, padId)),
    attentionMask: encodings.map((e) => pad(e.attentionMask, 0)),
  };
  if (encodings[0].tokenTypeIds) batch.tokenTypeIds = encodings.map((e) => pad(e.tokenTypeIds, 0));
  return batch;
}

/**
 * The sequence classifier's logits of each input ([text, textPair?]), batchSize at a time; an
 * input's error names it as `element(index)` and its texts by `names`.
 */
function sequenceLogits(model, inputs, fn, { truncation, batchSize, element, names = {}, emptyPairIsPair = false }) {
  const rows = [];
  for (let start = 0; start < inputs.length; start += batchSize) {
    const part = inputs.slice(start, start + batchSize);
    const batch = tokenized(
      fn,
      names,
      () =>
        model.tokenizer.encodeBatch(
          // the pipeline tokenizes each input alone, where an empty second text is no pair;
          // CrossEncoder (rerank) tokenizes its pairs in one batched call, where it is one
          part.map(([t, pair]) => (pair === undefined || (pair === '' && !emptyPairIsPair) ? t : [t, pair])),
          { truncation },
        ),
      (i) => element(start + i),
    );
    const { logits } = model.headForward(batch, { fn });
    const K = logits.shape[1];
    part.forEach((_, i) => rows.push(logits.data.subarray(i * K, (i + 1) * K)));
  }
  return rows;
}

export const taskMethods = {
  /**
   * The tokens most likely at each [MASK] of `text` (transformers' fill-mask pipeline): one mask
   * gives [{ score, id, token, sequence }] (topK of them, best first); several give one such list
   * per mask, in text order.
   */
  fillMask(textArg, options) {
    const fn = 'model.fillMask';
    const tokenizer = requireHead(this, fn);
    const o = optionsArg(options, ['topK', 'truncation'], fn);
    const value = text(textArg, `${fn}: text`);
    const truncation = boolOption(o.truncation, `${fn}: truncation`);
    const V = this.vocabSize;

    const topK = positiveIntegerOption(o.topK, `${fn}: topK`, 5);
    if (topK > V) throw new RangeError(`${fn}: topK ${topK} is more than the vocabulary's ${V} tokens`);
    const mask = tokenizer.maskToken;
    if (mask === null) throw new Error(`${fn}: the tokenizer has no mask token`);
    const encoding = tokenized(fn, {}, () => tokenizer.encode(value, { truncation }));
    const maskId = tokenizer.tokenToId(mask);
    const positions = encoding.inputIds.flatMap((id, i) => (id === maskId ? [i] : []));
    if (positions.length === 0)
      throw new Error(
        `${fn}: the text has no ${mask} token${truncation && value.includes(mask) ? ` left after truncation to ${tokenizer.maxLength} tokens` : ''} (put ${mask} where a token is to be predicted)`,
      );
    const { logits } = this.headForward(padded([encoding], tokenizer.padId), {
      positions: positions.map((p) => [0, p]),
      fn,
    });
    const predictions = fillMaskPredictions({
      rows: logits.data,
      V,
      ids: encoding.inputIds,
      positions,
      topK,
      padId: tokenizer.padId,
      decode: (ids, skipSpecialTokens) => tokenizer.decode(ids, { skipSpecialTokens }),
    });
    return positions.length === 1 ? predictions[0] : predictions;
  },

  /**
   * Labels with scores for a text or a pair (transformers' text-classification pipeline): the
   * topK labels (default 1; null: all) sorted by score; scores by `functionToApply`, by default
   * softmax over several labels, sigmoid for one label or problem_type multi_label_classification,
   * none for problem_type regression. An array of inputs gives one list per input, run as padded
   * batches of `batchSize`.
   */
  classify(input, options) {
    const fn = 'model.classify';
    const tokenizer = requireHead(this, fn);
    const o = optionsArg(options, ['topK', 'functionToApply', 'truncation', 'batchSize'], fn);
    const batch = Array.isArray(input); // an array is a batch: a pair in it is [text, textPair]
    const inputs = (batch ? input : [input]).map((x, i) =>
      classificationInput(x, batch ? `${fn}: input[${i}]` : `${fn}: input`),
    );
    if (inputs.length === 0) throw new TypeError(`${fn}: input is an empty array`);
    const labels = this.labels;
    const topK = o.topK === null ? null : positiveIntegerOption(o.topK, `${fn}: topK`, 1);
    const functionToApply =
      o.functionToApply === undefined ? defaultFunction(this.config, labels.length) : o.functionToApply;
    if (!['softmax', 'sigmoid', 'none'].includes(functionToApply))
      throw new TypeError(
        `${fn}: functionToApply must be 'softmax', 'sigmoid' or 'none', got ${typeof functionToApply === 'string' ? `'${functionToApply}'` : describe(functionToApply)}`,
      );
    const scores = sequenceLogits(this, inputs, fn, {
      truncation: o.truncation ?? false,
      batchSize: positiveIntegerOption(o.batchSize, `${fn}: batchSize`, 32),
      element: (i) => (batch ? `input[${i}]` : null), // one input: the message is about it
    });
    const results = scores.map((row) => rankLabels(classificationScores(row, functionToApply), labels, topK));
    return batch ? results : results[0];
  },

  /**
   * Each (query, passage) pair scored by a cross-encoder (a sequence classifier with one label,
   * as ms-marco-MiniLM), best first: [{ index, score, text }] (topK of them; default all). The
   * score is CrossEncoder's: the logit through the activation config.json names
   * (crossEncoderActivation: the logit itself for ms-marco-MiniLM), else its sigmoid;
   * pairs longer than the model's maximum are cut, the passage first (truncation 'longest_first',
   * as CrossEncoder tokenizes).
   */
  rerank(query, passages, options) {
    const fn = 'model.rerank';
    requireHead(this, fn);
    const o = optionsArg(options, ['topK', 'batchSize', 'truncation'], fn);
    text(query, `${fn}: query`);
    if (!Array.isArray(passages) || passages.length === 0)
      throw new TypeError(`${fn}: passages must be a non-empty array of strings, got ${describe(passages)}`);
    passages.forEach((p, i) => text(p, `${fn}: passages[${i}]`));
    if (this.labels.length !== 1) {
      throw new Error(
        `${fn} needs a cross-encoder with one output; config.json has ${this.labels.length} labels (${this.labels.join(', ')}): use model.classify for pairs`,
      );
    }
    const topK = positiveIntegerOption(o.topK, `${fn}: topK`, passages.length);
    const truncation = o.truncation ?? true;
    const activation = crossEncoderActivation(this.config, `${fn}: ${this.where}`).apply;
    const logits = sequenceLogits(
      this,
      passages.map((p) => [query, p]),
      fn,
      {
        truncation,
        batchSize: positiveIntegerOption(o.batchSize, `${fn}: batchSize`, 32),
        element: (i) => `passages[${i}]`,
        names: { text: 'query', textPair: 'passage' },
        emptyPairIsPair: true,
      },
    );
    const ranked = logits.map((row, index) => ({
      index,
      score: activation(row[0]),
      text: passages[index],
    }));
    ranked.sort((a, b) => b.score - a.score || a.index - b.index);
    return ranked.slice(0, topK);
  },

  /**
   * The label of each token of a text (transformers' token-classification pipeline, the text cut
   * to the model's maximum): aggregation 'none' (default) gives [{ entity, score, index, word,
   * start, end }] per token; 'simple' groups consecutive tokens of one entity (B-/I- tags) into
   * [{ entityGroup, score, word, start, end }]; 'first', 'average' and 'max' first give each word
   * one label (its first token's, its tokens' mean scores' best, its most confident token's), then
   * group the words as 'simple' does. start and end are character offsets in the text. Tokens
   * (or groups) labelled with one of `ignoreLabels` (default ['O']) are left out.
   */
  tagTokens(textArg, options) {
    const fn = 'model.tagTokens';
    const tokenizer = requireHead(this, fn);
    const o = optionsArg(options, ['aggregation', 'ignoreLabels'], fn);
    const value = text(textArg, `${fn}: text`);
    const aggregation = o.aggregation ?? 'none';
    if (!AGGREGATIONS.includes(aggregation)) {
      const valid = `${AGGREGATIONS.slice(0, -1)
        .map((a) => `'${a}'`)
        .join(', ')} or '${AGGREGATIONS.at(-1)}'`;
      if (typeof aggregation !== 'string')
        throw new TypeError(`${fn}: aggregation must be ${valid}, got ${describe(aggregation)}`);
      throw new RangeError(`${fn}: aggregation must be ${valid}, got '${aggregation}'`);
    }
    const ignoreLabels = o.ignoreLabels ?? ['O'];
    if (!Array.isArray(ignoreLabels) || !ignoreLabels.every((l) => typeof l === 'string'))
      throw new TypeError(`${fn}: ignoreLabels must be an array of strings, got ${describe(ignoreLabels)}`);
    const encoding = tokenized(fn, {}, () => tokenizer.encode(value, { truncation: true, returnOffsets: true }));
    const { logits } = this.headForward(padded([encoding], tokenizer.padId), { fn });
    return tokenEntities({
      logits: logits.data,
      K: this.labels.length,
      encoding,
      text: value,
      labels: this.labels,
      unkId: tokenizer.unkId,
      aggregation,
      ignoreLabels,
      tokensToString: (tokens) => tokenizer.convertTokensToString(tokens),
    });
  },

  /**
   * The answer to `question` found in `context` (transformers' question-answering pipeline):
   * { answer, score, start, end } with the character offsets of the answer in the context, or,
   * with `topK`, the topK best as an array. A long context is read in windows of maxSeqLength
   * tokens (default min(384, the model's maximum)) that overlap by docStride (default
   * min(maxSeqLength / 2, 128)), batchSize windows per padded batch (default 4); answers are
   * spans of at most maxAnswerLength tokens (default 15), widened to whole words.
   */
  answer(question, context, options) {
    const fn = 'model.answer';
    const tokenizer = requireHead(this, fn);
    const o = optionsArg(options, ['topK', 'maxAnswerLength', 'maxSeqLength', 'docStride', 'batchSize'], fn);
    text(question, `${fn}: question`);
    text(context, `${fn}: context`);
    const topK = positiveIntegerOption(o.topK, `${fn}: topK`, 1);
    const maxAnswerLength = positiveIntegerOption(o.maxAnswerLength, `${fn}: maxAnswerLength`, 15);
    const maxSeqLength = positiveIntegerOption(
      o.maxSeqLength,
      `${fn}: maxSeqLength`,
      Math.min(tokenizer.maxLength, 384),
    );
    if (maxSeqLength > tokenizer.maxLength)
      throw new RangeError(
        `${fn}: maxSeqLength ${maxSeqLength} is more than the model's maximum of ${tokenizer.maxLength} tokens`,
      );
    const docStride =
      o.docStride === undefined
        ? Math.min(Math.floor(maxSeqLength / 2), 128)
        : o.docStride === 0
          ? 0
          : positiveIntegerOption(o.docStride, `${fn}: docStride`);
    if (docStride > maxSeqLength)
      throw new RangeError(`${fn}: docStride ${docStride} is more than maxSeqLength ${maxSeqLength}`);
    const batchSize = positiveIntegerOption(o.batchSize, `${fn}: batchSize`, 4);
    // the windows of context beside the question (tokenizers' only_second truncation with a
    // stride): none when the question leaves no more than docStride tokens for the context
    const names = { text: 'question', textPair: 'context' };
    const count = (t, what) =>
      tokenized(fn, { text: what }, () => tokenizer.encode(t, { maxLength: Infinity })).inputIds.length -
      tokenizer.specialTokenCount;
    const q = count(question, 'question'),
      c = count(context, 'context');
    // the pipeline's "`question` cannot be empty" (QuestionAnsweringArgumentHandler: an empty
    // string; one of spaces runs), and context's; a context with no tokens has no answer
    for (const [t, what] of [
      [question, 'question'],
      [context, 'context'],
    ]) {
      if (t.length === 0) throw new RangeError(`${fn}: the ${what} has no tokens (an empty string)`);
    }
    if (c === 0) return o.topK === undefined ? null : [];
    const room = maxSeqLength - q - tokenizer.pairSpecialTokenCount;
    if (q + c + tokenizer.pairSpecialTokenCount > maxSeqLength && room <= docStride) {
      throw new RangeError(
        `${fn}: the question's ${q} tokens leave ${Math.max(room, 0)} tokens for the context in windows of maxSeqLength ${maxSeqLength} (with ${tokenizer.pairSpecialTokenCount} special tokens), and a window must hold more than docStride ${docStride} of the context's ${c}: shorten the question or lower docStride`,
      );
    }
    const first = tokenized(fn, names, () =>
      tokenizer.encode(question, {
        textPair: context,
        truncation: 'only_second',
        maxLength: maxSeqLength,
        stride: docStride,
        returnOverflowingTokens: true,
        returnOffsets: true,
      }),
    );
    const encodings = [first, ...first.overflowing];
    delete first.overflowing;
    // batchSize windows per forward: a long context's scratch memory stays that of a batch
    // (the pipeline, a ChunkPipeline, runs one window per forward)
    const windows = [];
    for (let from = 0; from < encodings.length; from += batchSize) {
      const part = encodings.slice(from, from + batchSize);
      const { startLogits, endLogits } = this.headForward(padded(part, tokenizer.padId), { fn });
      const L = startLogits.shape[1];
      part.forEach((encoding, n) =>
        windows.push({
          encoding,
          start: startLogits.data.subarray(n * L, n * L + encoding.inputIds.length),
          end: endLogits.data.subarray(n * L, n * L + encoding.inputIds.length),
        }),
      );
    }
    const answers = answerSpans(windows, context, topK, maxAnswerLength);
    return o.topK === undefined ? (answers[0] ?? null) : answers;
  },
};

/** Which helper needs which head. */
export { NEEDS as HELPER_HEADS };
