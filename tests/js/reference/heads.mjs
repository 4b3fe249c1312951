// Float64 reference of the task heads on the encoders and of transformers' pipelines over them,
// written from transformers' and tokenizers' code, not from the library:
//   heads      src/transformers/models/distilbert/modeling_distilbert.py (at 00b326f4caca):
//              DistilBertForMaskedLM.forward (vocab_transform, the config's activation,
//              vocab_layer_norm with eps 1e-12, vocab_projector tied to the word embeddings),
//              DistilBertForSequenceClassification.forward (hidden_state[:, 0], pre_classifier,
//              nn.ReLU, classifier), DistilBertForTokenClassification.forward (classifier),
//              DistilBertForQuestionAnswering.forward (qa_outputs, logits.split(1, dim=-1));
//              src/transformers/models/bert/modeling_bert.py (at 004ad5f50b62):
//              BertPredictionHeadTransform (dense, ACT2FN[hidden_act], LayerNorm with
//              layer_norm_eps), BertLMPredictionHead (decoder tied to the word embeddings, its
//              bias the head's `bias`), BertForSequenceClassification (the pooler output,
//              classifier), BertForTokenClassification, BertForQuestionAnswering. Dropout is
//              the identity in eval mode. The tie: PreTrainedModel.tie_weights, when
//              config.tie_word_embeddings (true unless the config says false).
//   pipelines  src/transformers/pipelines/fill_mask.py (FillMaskPipeline.postprocess),
//              text_classification.py (TextClassificationPipeline.postprocess: the default
//              function_to_apply, sigmoid / softmax / none, top_k), token_classification.py
//              (gather_pre_entities with is_subword, aggregate, aggregate_words, aggregate_word
//              for 'first' / 'average' / 'max', get_tag, group_entities, group_sub_entities), question_answering.py as of v4.53 (preprocess: windows with
//              doc_stride, p_mask with [CLS] kept; select_starts_ends; decode_spans; postprocess
//              with get_indices (align_to_words) and get_answer). A cross-encoder's rerank is
//              sentence-transformers' CrossEncoder.rank: the pair scores, sorted.
//   windows    tokenizers' truncate_encodings (tokenizers/src/utils/truncation.rs, 'only_first'
//              / 'only_second') and Encoding::truncate with a stride (tokenizer/encoding.rs).
import assert from 'node:assert/strict';
import { referenceEncoder } from './encoder.mjs';
import * as ops from './ops.mjs';
import { gelu, geluTanh, relu } from './ops.mjs';

const ACT2FN = { gelu, gelu_new: geluTanh, gelu_pytorch_tanh: geluTanh, relu };

// y (rows, out) = x (rows, in) W^T + b; LayerNorm over the last dim
const linear = (x, rows, w, b) => ops.linear({ data: x, shape: [rows, w.shape[1]] }, w, b).data;
/** The logits' layer: its values and `mag` (sum |x_d w_d| + |b|: the tolerance rule's scale, reference/tolerance.mjs). */
const logitsLinear = (x, rows, w, b) => ops.linear({ data: x, shape: [rows, w.shape[1]] }, w, b);
const layerNorm = (x, rows, D, w, b, eps) => ops.layerNorm({ data: x, shape: [rows, D] }, 1, w, b, eps).data;

/** PretrainedConfig: num_labels is len(id2label) when there is one, else num_labels, else 2. */
export function configNumLabels(config) {
  if (config.id2label && typeof config.id2label === 'object') return Object.keys(config.id2label).length;
  return config.num_labels ?? 2;
}

/** config.id2label[i], or PretrainedConfig's default LABEL_i. */
export const configLabel = (config, i) => config.id2label?.[String(i)] ?? `LABEL_${i}`;

/**
 * The head's outputs in float64 for a padded batch, from the encoder reference's last hidden
 * state (and pooler output):
 *   'masked-lm'                (N, L, V) logits
 *   'sequence-classification'  (N, K) logits
 *   'token-classification'     (N, L, K) logits
 *   'question-answering'       startLogits, endLogits (N, L)
 * @param {{arch: 'distilbert'|'bert', config: object, weights: Map}} model
 * @param {{inputIds: number[][], attentionMask?: number[][], tokenTypeIds?: number[][]}} input
 * @param {string} head
 */
export function referenceHead(model, input, head) {
  const { arch, config, weights } = model;
  const W = (name) => {
    const t = weights.get(name);
    assert.ok(t, `reference: no weight ${name}`);
    return t;
  };
  const enc = referenceEncoder(model, input);
  const { N, L, D } = enc.shape;
  const h = enc.lastHiddenState; // (N*L, D)
  const distil = arch === 'distilbert';
  const out = { encoder: enc, shape: { N, L, D } };
  if (head === 'masked-lm') {
    // transform: dense, activation, LayerNorm; then the projection onto the vocabulary
    const [dense, norm, eps, act] = distil
      ? ['vocab_transform', 'vocab_layer_norm', 1e-12, ACT2FN[config.activation ?? 'gelu']]
      : [
          'cls.predictions.transform.dense',
          'cls.predictions.transform.LayerNorm',
          config.layer_norm_eps ?? 1e-12,
          ACT2FN[config.hidden_act ?? 'gelu'],
        ];
    let x = linear(h, N * L, W(`${dense}.weight`), W(`${dense}.bias`)).map(act);
    x = layerNorm(x, N * L, D, W(`${norm}.weight`), W(`${norm}.bias`), eps);
    const tied = config.tie_word_embeddings ?? true;
    const projection = tied
      ? W('embeddings.word_embeddings.weight')
      : W(distil ? 'vocab_projector.weight' : 'cls.predictions.decoder.weight');
    const bias = W(distil ? 'vocab_projector.bias' : 'cls.predictions.bias');
    ({ data: out.logits, mag: out.logitsMag } = logitsLinear(x, N * L, projection, bias));
    out.logitsShape = [N, L, projection.shape[0]];
  } else if (head === 'sequence-classification') {
    let pooled;
    if (distil) {
      const first = new Float64Array(N * D);
      for (let n = 0; n < N; n++) first.set(h.subarray(n * L * D, n * L * D + D), n * D);
      pooled = linear(first, N, W('pre_classifier.weight'), W('pre_classifier.bias')).map(relu);
    } else {
      assert.ok(enc.poolerOutput, 'reference: BertForSequenceClassification needs the pooler');
      pooled = enc.poolerOutput;
    }
    ({ data: out.logits, mag: out.logitsMag } = logitsLinear(pooled, N, W('classifier.weight'), W('classifier.bias')));
    out.logitsShape = [N, W('classifier.weight').shape[0]];
  } else if (head === 'token-classification') {
    ({ data: out.logits, mag: out.logitsMag } = logitsLinear(h, N * L, W('classifier.weight'), W('classifier.bias')));
    out.logitsShape = [N, L, W('classifier.weight').shape[0]];
  } else if (head === 'question-answering') {
    const { data: logits, mag } = logitsLinear(h, N * L, W('qa_outputs.weight'), W('qa_outputs.bias')); // (N*L, 2)
    const column = (x, c) => Float64Array.from({ length: N * L }, (_, i) => x[2 * i + c]);
    [out.startLogits, out.endLogits] = [column(logits, 0), column(logits, 1)];
    [out.startMag, out.endMag] = [column(mag, 0), column(mag, 1)];
  } else {
    throw new Error(`reference: head ${head}`);
  }
  return out;
}

/** numpy's softmax of the pipelines: exp(x - max) / sum. */
export function softmax64(x) {
  const max = Math.max(...x);
  const e = Array.from(x, (v) => Math.exp(v - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / sum);
}

const sigmoid = (x) => 1 / (1 + Math.exp(-x));

/** Indices of the k largest values, largest first (ties: the lower index first, as a stable sort). */
function topIndices(values, k) {
  return Array.from(values.keys())
    .sort((i, j) => values[j] - values[i] || i - j)
    .slice(0, k);
}

/**
 * FillMaskPipeline.postprocess for one sequence. logits: (L, V) rows of the sequence; decode:
 * (ids, skipSpecialTokens) -> text (the tokenizer's decode). Every [MASK] position gets its own
 * softmax over the vocabulary and top_k; the sequence is the input with that position filled,
 * padding removed, decoded without special tokens when there is one mask (with them otherwise).
 * One mask: [{score, token, token_str, sequence}]; several: one such list per mask.
 */
export function referenceFillMask({ logits, V, inputIds, maskId, padId, topK = 5, decode }) {
  const masked = inputIds.flatMap((id, i) => (id === maskId ? [i] : []));
  assert.ok(masked.length > 0, 'reference: no mask token');
  const single = masked.length === 1;
  const rows = masked.map((pos) => {
    const probs = softmax64(logits.subarray(pos * V, (pos + 1) * V));
    return topIndices(probs, topK).map((p) => {
      const tokens = inputIds.slice();
      tokens[pos] = p;
      return {
        score: probs[p],
        token: p,
        token_str: decode([p], false),
        sequence: decode(
          tokens.filter((t) => t !== padId),
          single,
        ),
      };
    });
  });
  return single ? rows[0] : rows;
}

/**
 * TextClassificationPipeline.postprocess for one row of logits: the function (config's
 * problem_type: regression -> none; multi_label_classification or one label -> sigmoid;
 * single_label_classification or several labels -> softmax), then every label with its score
 * sorted by score (stable), the first top_k (null: all).
 */
export function referenceClassify(logits, config, { functionToApply, topK = 1 } = {}) {
  let fn = functionToApply;
  if (fn === undefined) {
    const K = configNumLabels(config);
    if (config.problem_type === 'regression') fn = 'none';
    else if (config.problem_type === 'multi_label_classification' || K === 1) fn = 'sigmoid';
    else if (config.problem_type === 'single_label_classification' || K > 1) fn = 'softmax';
    else fn = config.function_to_apply ?? 'none';
  }
  const x = Array.from(logits);
  const scores = fn === 'sigmoid' ? x.map(sigmoid) : fn === 'softmax' ? softmax64(x) : x;
  const all = scores.map((score, i) => ({ label: configLabel(config, i), score }));
  all.sort((a, b) => b.score - a.score);
  return topK === null ? all : all.slice(0, topK);
}

/** The first index of the largest value (numpy's argmax). */
const argmax = (x) => x.reduce((best, v, i) => (v > x[best] ? i : best), 0);

/** token_classification.py get_tag: ('B' | 'I', tag); a label without B-/I- counts as I. */
function getTag(name) {
  if (name.startsWith('B-')) return ['B', name.slice(2)];
  if (name.startsWith('I-')) return ['I', name.slice(2)];
  return ['I', name];
}

/** A Python str's len: code points. */
const pyLen = (s) => Array.from(s).length;

/**
 * TokenClassificationPipeline for one text (no stride): softmax per token, the special tokens
 * dropped (gather_pre_entities: word = the token, or the text under it for [UNK]; is_subword,
 * for a tokenizer whose model has a continuing_subword_prefix as WordPiece's '##', is
 * len(word) != len(sentence[start:end]), False for [UNK]), then aggregate: 'none' (each token:
 * its best label, filtered by ignore_labels), 'simple' (group_entities over every token: a token
 * joins the group before it when its tag is the same and it is not a B-; each group's label
 * without its B-/I- prefix, its mean score, its tokens joined by the tokenizer's
 * convert_tokens_to_string, its first start and last end; then filtered by ignore_labels), or
 * 'first' / 'average' / 'max' (aggregate_words: a word is a token that is not a subword and the
 * subwords after it; aggregate_word gives it the label of argmax of its first token's scores, of
 * np.nanmean of its tokens' scores, or of the scores of max(tokens, key=scores.max()); then
 * group_entities over the words).
 * @param {{logits: Float64Array, K: number, sentence: string, tokens: string[], inputIds: number[],
 *   specialTokensMask: number[], offsets: number[][], unkId: number, config: object,
 *   tokensToString: (tokens: string[]) => string}} input
 */
export function referenceTokenClassification(
  { logits, K, sentence, tokens, inputIds, specialTokensMask, offsets, unkId, config, tokensToString },
  { aggregation = 'none', ignoreLabels = ['O'] } = {},
) {
  const pre = [];
  tokens.forEach((token, idx) => {
    if (specialTokensMask[idx]) return;
    const scores = softmax64(logits.subarray(idx * K, (idx + 1) * K));
    const [start, end] = offsets[idx];
    const wordRef = sentence.slice(start, end);
    const unk = inputIds[idx] === unkId;
    const isSubword = unk ? false : pyLen(token) !== pyLen(wordRef);
    pre.push({ word: unk ? wordRef : token, scores, start, end, index: idx, isSubword });
  });
  let entities;
  if (aggregation === 'none' || aggregation === 'simple') {
    entities = pre.map((p) => {
      const i = argmax(p.scores);
      return {
        entity: configLabel(config, i),
        score: p.scores[i],
        index: p.index,
        word: p.word,
        start: p.start,
        end: p.end,
      };
    });
  } else {
    // aggregate_words, then aggregate_word of each word
    const words = [];
    let wordGroup = null;
    for (const p of pre) {
      if (wordGroup === null) wordGroup = [p];
      else if (p.isSubword) wordGroup.push(p);
      else {
        words.push(wordGroup);
        wordGroup = [p];
      }
    }
    if (wordGroup) words.push(wordGroup);
    entities = words.map((group) => {
      let scores;
      if (aggregation === 'first') scores = group[0].scores;
      else if (aggregation === 'max') {
        const top = (p) => p.scores.reduce((a, b) => Math.max(a, b), -Infinity);
        scores = group.reduce((best, p) => (top(p) > top(best) ? p : best)).scores;
      } else {
        assert.equal(aggregation, 'average');
        scores = Array.from({ length: K }, (_, k) => group.reduce((s, p) => s + p.scores[k], 0) / group.length);
      }
      const i = argmax(scores);
      return {
        entity: configLabel(config, i),
        score: scores[i],
        word: tokensToString(group.map((p) => p.word)),
        start: group[0].start,
        end: group.at(-1).end,
      };
    });
  }
  if (aggregation === 'none') return entities.filter((e) => !ignoreLabels.includes(e.entity));
  const groupOf = (group) => ({
    entity_group: group[0].entity.includes('-')
      ? group[0].entity.slice(group[0].entity.indexOf('-') + 1)
      : group[0].entity,
    score: group.reduce((s, e) => s + e.score, 0) / group.length,
    word: tokensToString(group.map((e) => e.word)),
    start: group[0].start,
    end: group.at(-1).end,
  });
  const groups = [];
  let current = [];
  for (const entity of entities) {
    if (current.length === 0) {
      current.push(entity);
      continue;
    }
    const [bi, tag] = getTag(entity.entity);
    const [, lastTag] = getTag(current.at(-1).entity);
    if (tag === lastTag && bi !== 'B') current.push(entity);
    else {
      groups.push(groupOf(current));
      current = [entity];
    }
  }
  if (current.length) groups.push(groupOf(current));
  return groups.filter((g) => !ignoreLabels.includes(g.entity_group));
}

/**
 * The context windows of a question-answering input, as tokenizers makes them for
 * tokenizer(question, context, truncation='only_second', max_length, stride,
 * return_overflowing_tokens=True): truncate_encodings removes total - max_length tokens from the
 * context (an error, SequenceTooShort, when it has no more than that), then Encoding::truncate
 * keeps the first `keep` and splits the rest into parts of keep - stride tokens, each part
 * preceded by the last `stride` tokens of the window before (get_current_part; a panic when
 * stride >= keep). Returns [start, end) ranges of context tokens, or the error's name.
 */
export function referenceContextWindows(nQuestion, nContext, maxLength, specials, stride) {
  const total = nQuestion + nContext + specials;
  if (total <= maxLength) return [[0, nContext]];
  const toRemove = total - maxLength;
  if (!(nContext > toRemove)) return 'SequenceTooShort';
  const keep = nContext - toRemove;
  if (!(stride < keep)) return 'stride >= max_len';
  const windows = [[0, keep]];
  const overflowing = nContext - keep; // o_ids: the tokens after the first window
  const partSize = keep - stride;
  for (let part = 0; partSize * part < overflowing; part++) {
    const prev = windows.at(-1);
    const from = keep + part * partSize,
      to = Math.min(keep + (part + 1) * partSize, nContext);
    windows.push([prev[1] - stride, to]); // the previous window's last `stride` tokens, then the part
    assert.equal(windows.at(-1)[1] - windows.at(-1)[0], stride + (to - from));
  }
  return windows;
}

/**
 * QuestionAnsweringPipeline's span choice for one window (select_starts_ends, decode_spans):
 * the question and special tokens masked to -10000 (p_mask, with [CLS] kept), start and end
 * softmax over the window, position 0 ([CLS]) zeroed, then the products start[i] * end[j] for
 * i <= j <= i + max_answer_len - 1, the top_k of them (argmax when top_k is 1), kept when both
 * ends are context tokens (or [CLS]).
 * @param {{start: ArrayLike<number>, end: ArrayLike<number>, pMask: number[]}} window
 */
export function referenceSpans({ start, end, pMask }, { topK = 1, maxAnswerLength = 15 } = {}) {
  const L = pMask.length;
  const desired = pMask.map((p) => 1 - p); // undesired_tokens = abs(p_mask - 1) (attention mask all 1)
  const masked = (x) => Array.from(x, (v, i) => (desired[i] ? v : -10000.0));
  const s = softmax64(masked(start)),
    e = softmax64(masked(end));
  s[0] = 0;
  e[0] = 0;
  // candidates = tril(triu(outer), max_answer_len - 1), flattened row by row
  const candidates = new Float64Array(L * L);
  for (let i = 0; i < L; i++)
    for (let j = i; j < Math.min(L, i + maxAnswerLength); j++) candidates[i * L + j] = s[i] * e[j];
  const order = topK === 1 ? [argmax(candidates)] : topIndices(candidates, topK);
  return order
    .map((flat) => [Math.floor(flat / L), flat % L])
    .filter(([i, j]) => desired[i] && desired[j])
    .map(([i, j]) => ({ s: i, e: j, score: candidates[i * L + j] }));
}

/**
 * The windows of `context` beside `question` as the question-answering pipeline makes them
 * (tokenizer(question, context, truncation='only_second', max_length, stride,
 * return_overflowing_tokens)), each with its start / end logits (`logitsOf(encoding)`) and p_mask
 * ([CLS] and the context allowed): { encodings, windows } for referenceAnswer.
 */
export function referenceAnswerWindows(tok, question, context, { maxSeqLength, docStride } = {}, logitsOf) {
  const maxLength = maxSeqLength ?? Math.min(tok.maxLength, 384);
  const first = tok.encode(question, {
    textPair: context,
    truncation: 'only_second',
    maxLength,
    stride: docStride ?? Math.min(Math.floor(maxLength / 2), 128),
    returnOverflowingTokens: true,
    returnOffsets: true,
  });
  const encodings = [first, ...first.overflowing];
  const cls = tok.tokenToId('[CLS]');
  const windows = encodings.map((e) => {
    const ref = logitsOf(e);
    return {
      start: ref.startLogits,
      end: ref.endLogits,
      pMask: e.sequenceIds.map((s, i) => (s === 1 || e.inputIds[i] === cls ? 0 : 1)),
      offsets: e.offsets,
      wordIds: e.wordIds,
      sequenceIds: e.sequenceIds,
    };
  });
  return { encodings, windows };
}

/**
 * QuestionAnsweringPipeline.postprocess over a question's windows: each window's best
 * pre_topk = top_k * 2 + 10 spans (align_to_words: some become the same answer) mapped
 * to characters of the context (get_indices with align_to_words: from the start of the start
 * token's word to the end of the end token's word, the words as the window's word ids give them;
 * the token's own offsets where it has no word), an answer equal (lower-cased) to one found
 * before adding its score to it (get_answer), then sorted by score and the first top_k.
 * @param {{start, end, pMask: number[], offsets: number[][], wordIds: (number|null)[],
 *   sequenceIds: (number|null)[]}[]} windows
 */
export function referenceAnswer(windows, context, { topK = 1, maxAnswerLength = 15 } = {}) {
  const answers = [];
  for (const w of windows) {
    const wordChars = (token) => {
      const word = w.wordIds[token];
      if (word === null || w.sequenceIds[token] !== 1) return w.offsets[token];
      const own = w.wordIds.flatMap((id, t) => (id === word && w.sequenceIds[t] === 1 ? [w.offsets[t]] : []));
      return [own[0][0], own.at(-1)[1]];
    };
    for (const { s, e, score } of referenceSpans(w, { topK: topK * 2 + 10, maxAnswerLength })) {
      const startIndex = wordChars(s)[0],
        endIndex = wordChars(e)[1];
      const text = context.slice(startIndex, endIndex);
      const same = answers.find((a) => a.answer.toLowerCase() === text.toLowerCase());
      if (same) same.score += score;
      else answers.push({ score, start: startIndex, end: endIndex, answer: text });
    }
  }
  answers.sort((a, b) => b.score - a.score);
  return answers.slice(0, topK);
}
