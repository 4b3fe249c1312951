// The task helpers' entries of the table in cases.mjs (fuzz, errors, leaks): model.fillMask,
// classify, rerank, tagTokens and answer on the tiny fixtures with each head, loaded once into
// the test file's module (helpers.mjs' library()). Valid calls: random texts of the fixtures'
// vocabulary, each result checked against its invariants and against the float64 reference of
// the head and of transformers' pipeline (reference/heads.mjs; heads.test.mjs has fixed cases).
// Invalid calls: each documented bad input, with the error type and message.
import { library } from './helpers.mjs';
import { loadFixture } from './fixtures.mjs';
import {
  referenceHead,
  referenceFillMask,
  referenceClassify,
  referenceTokenClassification,
  referenceAnswer,
  referenceAnswerWindows,
} from './reference/index.mjs';

const NAMES = ['distilbert-mlm', 'bert-seq', 'bert-rerank', 'bert-tok', 'distilbert-qa'];
const fixtures = {},
  models = {};
{
  const A = await library();
  for (const name of NAMES) {
    fixtures[name] = await loadFixture(name);
    models[name] = await A.loadPretrained(fixtures[name].dir);
  }
}

// Words of the fixtures' small vocabulary (one token each), and words that split into pieces or
// are [UNK] (for the helpers that cut or window long texts).
const WORDS = `the a man woman fishing on river bank money berlin paris new york city lives in my name is
what where who capital of france love this movie terrible music guitar playing people population three
. , ?`.split(/\s+/);
const PIECES = [...WORDS, 'unaffable', 'zürich', '😀', 'Wolfgang'];
const sentence = (r, n, words = WORDS) => Array.from({ length: n }, () => r.pick(words)).join(' ');

/** 1e-5 relative to max(1, |x|). */
const close = (a, b) => Math.abs(a - b) <= 1e-5 * Math.max(1, Math.abs(b));

/** The reference's logits of one encoded text on fixture `name`. */
function referenceLogits(name, encoding) {
  const fx = fixtures[name];
  const input = { inputIds: [encoding.inputIds] };
  if (encoding.tokenTypeIds) input.tokenTypeIds = [encoding.tokenTypeIds];
  return referenceHead({ arch: fx.spec.arch, config: fx.config, weights: fx.weights }, input, models[name].head);
}

/** An invalid call of `fn` on fixture `name`. */
const invalid = (label, name, call, type, message) => ({
  label,
  run: () => call(models[name]),
  type,
  message,
});

export const taskCases = {
  'model.fillMask': {
    valid(r) {
      const words = sentence(r, r.int(1, 8)).split(' ');
      const masks = r.chance(0.8) ? 1 : 2;
      for (let m = 0; m < masks; m++) words.splice(r.int(0, words.length), 0, '[MASK]');
      const text = words.join(' ');
      const topK = r.chance(0.5) ? undefined : r.int(1, 12);
      return {
        label: `fillMask "${text}" topK ${topK}`,
        run: () => models['distilbert-mlm'].fillMask(text, topK === undefined ? undefined : { topK }),
        check(got) {
          const tok = models['distilbert-mlm'].tokenizer;
          const encoding = tok.encode(text);
          const want = referenceFillMask({
            logits: referenceLogits('distilbert-mlm', encoding).logits,
            V: models['distilbert-mlm'].vocabSize,
            inputIds: encoding.inputIds,
            maskId: tok.tokenToId('[MASK]'),
            padId: tok.padId,
            topK: topK ?? 5,
            decode: (ids, skip) => tok.decode(ids, { skipSpecialTokens: skip }),
          });
          const lists = masks === 1 ? [[got, want]] : got.map((g, m) => [g, want[m]]);
          for (const [g, w] of lists) {
            if (g.length !== w.length) return `${g.length} predictions, want ${w.length}`;
            for (let i = 0; i < g.length; i++) {
              // equal scores may come in either order: compare the ids where the scores differ
              if (!close(g[i].score, w[i].score)) return `score ${i}: ${g[i].score} vs ${w[i].score}`;
              const tie = i + 1 < w.length && close(w[i].score, w[i + 1].score);
              if (!tie && (g[i].id !== w[i].token || g[i].sequence !== w[i].sequence))
                return `prediction ${i}: ${g[i].id} '${g[i].sequence}' vs ${w[i].token} '${w[i].sequence}'`;
            }
          }
          return null;
        },
      };
    },
    invalid(r) {
      return r.pick([
        invalid(
          'fillMask no mask',
          'distilbert-mlm',
          (m) => m.fillMask('a river bank'),
          Error,
          /^model\.fillMask: the text has no \[MASK\] token/,
        ),
        invalid(
          'fillMask topK 0',
          'distilbert-mlm',
          (m) => m.fillMask('a [MASK]', { topK: r.pick([0, -1, 1.5, NaN]) }),
          RangeError,
          /^model\.fillMask: topK must be a positive integer/,
        ),
        invalid(
          'fillMask text',
          'distilbert-mlm',
          (m) => m.fillMask(r.pick([null, 3, ['a [MASK]']])),
          TypeError,
          /^model\.fillMask: text must be a string/,
        ),
        invalid(
          'fillMask too long',
          'distilbert-mlm',
          (m) => m.fillMask('a [MASK] '.repeat(30)),
          RangeError,
          /^model\.fillMask: the text has \d+ tokens, more than the model's maximum of 40/,
        ),
        invalid(
          'fillMask option',
          'distilbert-mlm',
          (m) => m.fillMask('a [MASK]', { top_k: 3 }),
          TypeError,
          /^model\.fillMask: unknown option 'top_k'/,
        ),
        invalid(
          'fillMask without the head',
          'bert-seq',
          (m) => m.fillMask('a [MASK]'),
          Error,
          /^model\.fillMask needs a model with the 'masked-lm' head/,
        ),
      ]);
    },
    small: () => models['distilbert-mlm'].fillMask('the river [MASK].', { topK: 2 }),
  },

  'model.classify': {
    valid(r) {
      const one = () =>
        r.chance(0.5) ? sentence(r, r.int(1, 8)) : [sentence(r, r.int(1, 6)), sentence(r, r.int(1, 6))];
      const batch = r.chance(0.5);
      const inputs = batch ? Array.from({ length: r.int(1, 4) }, one) : [one()];
      const options = r.pick([{}, { topK: null }, { topK: 2 }, { functionToApply: 'sigmoid' }, { batchSize: 1 }]);
      return {
        label: `classify ${JSON.stringify(inputs)} ${JSON.stringify(options)}`,
        run: () => {
          const single = inputs[0];
          const arg = batch ? inputs : typeof single === 'string' ? single : { text: single[0], textPair: single[1] };
          return models['bert-seq'].classify(arg, options);
        },
        check(got) {
          const tok = models['bert-seq'].tokenizer;
          const lists = batch ? got : [got];
          for (let i = 0; i < inputs.length; i++) {
            const x = inputs[i];
            const encoding = typeof x === 'string' ? tok.encode(x) : tok.encode(x[0], { textPair: x[1] });
            const { topK, functionToApply } = options;
            const want = referenceClassify(referenceLogits('bert-seq', encoding).logits, fixtures['bert-seq'].config, {
              topK,
              functionToApply,
            });
            if (lists[i].length !== want.length) return `input ${i}: ${lists[i].length} labels, want ${want.length}`;
            for (let k = 0; k < want.length; k++) {
              if (!close(lists[i][k].score, want[k].score)) return `input ${i} label ${k}: score`;
              const tie = k + 1 < want.length && close(want[k].score, want[k + 1].score);
              if (!tie && lists[i][k].label !== want[k].label) return `input ${i} label ${k}: ${lists[i][k].label}`;
            }
          }
          return null;
        },
      };
    },
    invalid(r) {
      const long = 'the river bank '.repeat(20);
      return r.pick([
        invalid(
          'classify functionToApply',
          'bert-seq',
          (m) => m.classify('a', { functionToApply: r.pick(['relu', 1, 'Softmax']) }),
          TypeError,
          /^model\.classify: functionToApply must be 'softmax', 'sigmoid' or 'none'/,
        ),
        invalid(
          'classify empty',
          'bert-seq',
          (m) => m.classify([]),
          TypeError,
          /^model\.classify: input is an empty array/,
        ),
        invalid(
          'classify bad input',
          'bert-seq',
          (m) => m.classify(r.pick([3, null, { text: 'a' }, { text: 'a', pair: 'b' }])),
          TypeError,
          /^model\.classify: input must be a text, a pair/,
        ),
        invalid(
          'classify pair too long',
          'bert-seq',
          (m) => m.classify({ text: 'a man', textPair: long }),
          RangeError,
          /^model\.classify: (texts\[0\]: )?the pair has \d+ tokens, more than the model's maximum of 40/,
        ),
        invalid(
          'classify topK',
          'bert-seq',
          (m) => m.classify('a', { topK: 0 }),
          RangeError,
          /^model\.classify: topK must be a positive integer/,
        ),
        invalid(
          'classify without the head',
          'bert-tok',
          (m) => m.classify('a'),
          Error,
          /^model\.classify needs a model with the 'sequence-classification' head/,
        ),
      ]);
    },
    small: () => models['bert-seq'].classify(['a man', ['a man', 'a guitar']], { topK: 1 }),
  },

  'model.rerank': {
    valid(r) {
      const query = sentence(r, r.int(1, 5));
      const passages = Array.from({ length: r.int(1, 5) }, () => sentence(r, r.int(1, 30), PIECES));
      const topK = r.chance(0.5) ? undefined : r.int(1, passages.length);
      return {
        label: `rerank "${query}" ${passages.length} passages topK ${topK}`,
        run: () => models['bert-rerank'].rerank(query, passages, topK === undefined ? undefined : { topK }),
        check(got) {
          if (got.length !== (topK ?? passages.length)) return `${got.length} results`;
          const tok = models['bert-rerank'].tokenizer;
          for (let i = 0; i < got.length; i++) {
            const { index, score, text } = got[i];
            if (passages[index] !== text) return `result ${i}: text of passage ${index}`;
            if (!(score > 0 && score < 1)) return `result ${i}: score ${score} is not a sigmoid`;
            if (i && got[i - 1].score < score) return 'not sorted';
            // the float64 reference: CrossEncoder's sigmoid of the one logit of (query, passage)
            const encoding = tok.encode(query, { textPair: text, truncation: true });
            const [want] = referenceClassify(
              referenceLogits('bert-rerank', encoding).logits,
              fixtures['bert-rerank'].config,
            );
            if (!close(score, want.score)) return `result ${i}: score ${score}, the reference's ${want.score}`;
          }
          return new Set(got.map((g) => g.index)).size === got.length ? null : 'a passage twice';
        },
      };
    },
    invalid(r) {
      return r.pick([
        invalid(
          'rerank passages',
          'bert-rerank',
          (m) => m.rerank('q', r.pick(['p', [], null])),
          TypeError,
          /^model\.rerank: passages must be a non-empty array of strings/,
        ),
        invalid(
          'rerank passage',
          'bert-rerank',
          (m) => m.rerank('q', ['p', 3]),
          TypeError,
          /^model\.rerank: passages\[1\] must be a string/,
        ),
        invalid(
          'rerank query',
          'bert-rerank',
          (m) => m.rerank(null, ['p']),
          TypeError,
          /^model\.rerank: query must be a string/,
        ),
        invalid(
          'rerank of a classifier',
          'bert-seq',
          (m) => m.rerank('q', ['p']),
          Error,
          /^model\.rerank needs a cross-encoder with one output; config\.json has 3 labels/,
        ),
      ]);
    },
    small: () => models['bert-rerank'].rerank('berlin', ['the city', 'a river'], { topK: 1 }),
  },

  'model.tagTokens': {
    valid(r) {
      const text = sentence(r, r.int(1, 30), PIECES);
      const aggregation = r.pick(['none', 'simple', 'first', 'average', 'max']);
      const ignoreLabels = r.chance(0.3) ? [] : undefined;
      return {
        label: `tagTokens "${text}" ${aggregation}`,
        run: () => models['bert-tok'].tagTokens(text, { aggregation, ignoreLabels }),
        check(got) {
          const model = models['bert-tok'],
            tok = model.tokenizer;
          const labels = model.labels;
          for (const e of got) {
            if (!(e.start >= 0 && e.start <= e.end && e.end <= text.length)) return `offsets [${e.start}, ${e.end})`;
            if (!(e.score > 0 && e.score <= 1)) return `score ${e.score}`;
            const label = aggregation === 'none' ? e.entity : e.entityGroup;
            if (!labels.some((l) => l === label || l.slice(2) === label)) return `label ${label}`;
            if (!ignoreLabels && label === 'O') return "an 'O' token kept";
          }
          // the float64 reference of the token-classification pipeline, entity by entity
          const encoding = tok.encode(text, { truncation: true, returnOffsets: true });
          const want = referenceTokenClassification(
            {
              logits: referenceLogits('bert-tok', encoding).logits,
              K: labels.length,
              sentence: text,
              tokens: encoding.tokens,
              inputIds: encoding.inputIds,
              specialTokensMask: encoding.sequenceIds.map((s) => (s === null ? 1 : 0)),
              offsets: encoding.offsets,
              unkId: tok.unkId,
              config: fixtures['bert-tok'].config,
              tokensToString: (t) => tok.convertTokensToString(t),
            },
            { aggregation, ...(ignoreLabels ? { ignoreLabels } : {}) },
          );
          if (got.length !== want.length) return `${got.length} entities, the reference ${want.length}`;
          for (let i = 0; i < want.length; i++) {
            const { score, entity_group: group, ...rest } = want[i];
            const { score: gotScore, ...gotRest } = got[i];
            const wantRest = group === undefined ? rest : { entityGroup: group, ...rest };
            if (JSON.stringify(gotRest) !== JSON.stringify(wantRest))
              return `entity ${i}: ${JSON.stringify(gotRest)}, the reference ${JSON.stringify(wantRest)}`;
            if (!close(gotScore, score)) return `entity ${i}: score ${gotScore}, the reference ${score}`;
          }
          return null;
        },
      };
    },
    invalid(r) {
      return r.pick([
        invalid(
          'tagTokens aggregation',
          'bert-tok',
          (m) => m.tagTokens('x', { aggregation: r.pick(['FIRST', 'mean', 'grouped', '']) }),
          RangeError,
          /^model\.tagTokens: aggregation must be 'none', 'simple', 'first', 'average' or 'max', got '/,
        ),
        invalid(
          'tagTokens aggregation type',
          'bert-tok',
          (m) => m.tagTokens('x', { aggregation: r.pick([1, true, ['first']]) }),
          TypeError,
          /^model\.tagTokens: aggregation must be 'none', 'simple', 'first', 'average' or 'max', got /,
        ),
        invalid(
          'tagTokens ignoreLabels',
          'bert-tok',
          (m) => m.tagTokens('x', { ignoreLabels: 'O' }),
          TypeError,
          /^model\.tagTokens: ignoreLabels must be an array of strings/,
        ),
        invalid(
          'tagTokens text',
          'bert-tok',
          (m) => m.tagTokens(7),
          TypeError,
          /^model\.tagTokens: text must be a string/,
        ),
        invalid(
          'tagTokens without the head',
          'distilbert-qa',
          (m) => m.tagTokens('x'),
          Error,
          /^model\.tagTokens needs a model with the 'token-classification' head/,
        ),
      ]);
    },
    small: () => models['bert-tok'].tagTokens('my name is wolfgang', { aggregation: 'simple' }),
  },

  'model.answer': {
    valid(r) {
      const question = `${r.pick(['where', 'who', 'what'])} ${sentence(r, r.int(0, 4))}?`;
      const context = sentence(r, r.int(1, 60), PIECES);
      const options = r.pick([{}, { topK: r.int(1, 4) }, { maxAnswerLength: r.int(1, 5), topK: 2 }, { docStride: 0 }]);
      return {
        label: `answer "${question}" of ${context.length} characters ${JSON.stringify(options)}`,
        run: () => models['distilbert-qa'].answer(question, context, options),
        check(got) {
          const list = options.topK === undefined ? (got === null ? [] : [got]) : got;
          if (options.topK !== undefined && list.length > options.topK) return `${list.length} answers`;
          for (const a of list) {
            if (context.slice(a.start, a.end) !== a.answer) return `'${a.answer}' is not context[${a.start}, ${a.end})`;
            if (!(a.score > 0 && a.score <= 1 + 1e-9)) return `score ${a.score}`;
          }
          for (let i = 1; i < list.length; i++) if (list[i - 1].score < list[i].score) return 'not sorted';
          // the float64 reference of the question-answering pipeline over the same windows
          const tok = models['distilbert-qa'].tokenizer;
          const { windows } = referenceAnswerWindows(tok, question, context, options, (e) =>
            referenceLogits('distilbert-qa', e),
          );
          // less the spans that score 0, which the pipeline's top-k can return where topK is more
          // than the context's spans (which of them: numpy's argpartition among ties) and
          // tasks.js's bestSpans leaves out
          const want = referenceAnswer(windows, context, {
            topK: options.topK ?? 1,
            maxAnswerLength: options.maxAnswerLength ?? 15,
          }).filter((a) => a.score > 0);
          if (list.length !== want.length) return `${list.length} answers, the reference ${want.length}`;
          for (let i = 0; i < want.length; i++) {
            if (!close(list[i].score, want[i].score))
              return `answer ${i}: score ${list[i].score}, the reference ${want[i].score}`;
            const tie = (j) => j >= 0 && j < want.length && close(want[i].score, want[j].score);
            if (!tie(i - 1) && !tie(i + 1) && (list[i].start !== want[i].start || list[i].end !== want[i].end))
              return `answer ${i}: [${list[i].start}, ${list[i].end}), the reference [${want[i].start}, ${want[i].end})`;
          }
          return null;
        },
      };
    },
    invalid(r) {
      const question = 'where does the man who lives by the river bank fish in the river today?';
      return r.pick([
        invalid(
          'answer no room',
          'distilbert-qa',
          (m) => m.answer(question, 'a man fishing on a river bank. '.repeat(10)),
          RangeError,
          /^model\.answer: the question's \d+ tokens leave \d+ tokens for the context/,
        ),
        invalid(
          'answer docStride',
          'distilbert-qa',
          (m) => m.answer('where?', 'a bank', { docStride: 50 }),
          RangeError,
          /^model\.answer: docStride 50 is more than maxSeqLength 40/,
        ),
        invalid(
          'answer maxSeqLength',
          'distilbert-qa',
          (m) => m.answer('where?', 'a bank', { maxSeqLength: 100 }),
          RangeError,
          /^model\.answer: maxSeqLength 100 is more than the model's maximum of 40/,
        ),
        invalid(
          'answer empty question',
          'distilbert-qa',
          (m) => m.answer('', 'a bank'),
          RangeError,
          /^model\.answer: the question has no tokens/,
        ),
        invalid(
          'answer context',
          'distilbert-qa',
          (m) => m.answer('where?', r.pick([null, 3, ['a']])),
          TypeError,
          /^model\.answer: context must be a string/,
        ),
        invalid(
          'answer without the head',
          'distilbert-mlm',
          (m) => m.answer('where?', 'a bank'),
          Error,
          /^model\.answer needs a model with the 'question-answering' head/,
        ),
      ]);
    },
    small: () => models['distilbert-qa'].answer('where?', 'the man lives in berlin', { topK: 2 }),
  },
};
