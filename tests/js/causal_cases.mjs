// The causal LM's entries of the table in cases.mjs (fuzz, errors, leaks): lm.forward,
// lm.createCache with the cache's members (length, batch, residentBytes, clear, dispose) and
// lm.generate, on gpt2-tiny and llama-tiny loaded once into the test file's module (helpers.mjs'
// library()), plus a third gpt2-tiny disposed at once (every call on it is an Error).
// Valid calls: random ids, batches, left-padded masks and chunks through a cache, checked against
// the float64 reference (reference/causal.mjs) by the causal tests' rule (1e-5 relative to the
// logit's terms); generate's greedy ids against the reference's greedy decoding, its sampled
// steps' candidates against softmax(reference logits / temperature). lm.generate's valid calls
// return a promise: fuzz.test.mjs and memory.test.mjs await it. Invalid calls: each documented
// bad input with its error type and message (the JS API's names, the sizes); a call on a cache
// must leave the cache as it was (checked in the call: a changed cache replaces the error).
import { library } from './helpers.mjs';
import { loadFixture } from './fixtures.mjs';
import {
  compare,
  logitsWithMagnitudes,
  positionIdsFromMask,
  referenceCausalLM,
  referenceGreedy,
} from './reference/index.mjs';

const A = await library();
const MODELS = [];
for (const name of ['gpt2-tiny', 'llama-tiny']) {
  const f = await loadFixture(name);
  MODELS.push({ name, f, lm: await A.loadPretrained(f.dir) });
}
const [gpt2, llama] = MODELS;
const disposed = await A.loadPretrained(gpt2.f.dir);
disposed.dispose();

const TOL = { rel: 1e-5, abs: 0, floor: 1 };

// The caches of gpt2-tiny not yet disposed. A forgotten cache would be freed by the
// FinalizationRegistry after a garbage collection, out of the memory test's sight: generate's
// small() asks that every cache its generations made was disposed when they ended.
const openCaches = new Set();
{
  const createCache = gpt2.lm.createCache;
  gpt2.lm.createCache = function () {
    const cache = createCache.call(this);
    openCaches.add(cache);
    const dispose = cache.dispose;
    cache.dispose = function () {
      openCaches.delete(cache);
      return dispose.call(this);
    };
    return cache;
  };
}

const randomIds = (r, N, L, V) => Array.from({ length: N }, () => Array.from({ length: L }, () => r.int(0, V - 1)));
/** Rows [from, to) of row n of (N, L, X) data. */
const rowsOf = (a, n, L, X, from, to) => Array.from(a.slice((n * L + from) * X, (n * L + to) * X));
const logitRows = (want, n, L, V, from, to) => ({
  data: rowsOf(want.data, n, L, V, from, to),
  mag: rowsOf(want.mag, n, L, V, from, to),
});

/** null, or why the logits of rows [from[n], L) of each row n differ from the reference's. */
function checkLogits(got, want, N, L, V, from = () => 0) {
  if (got.shape.join() !== [N, L, V].join()) return `logits shape [${got.shape}], want [${N}, ${L}, ${V}]`;
  for (let n = 0; n < N; n++) {
    const res = compare(rowsOf(got.data, n, L, V, from(n), L), logitRows(want, n, L, V, from(n), L), TOL);
    if (!res.ok) return `logits row ${n}: ${res.why}`;
  }
  return null;
}

/** An invalid call; `args`: the caller's typed arrays (tensors' form), unchanged after it. */
const bad = (label, run, type, message, args) => ({ label, run, type, message, ...(args && { args }) });

/** `call(cache)` on a fresh cache of `lm` holding the rows `held`; a call that changes it fails differently. */
function onCache(lm, held, call) {
  const cache = lm.createCache();
  try {
    lm.forward(held, { cache });
    call(cache);
  } finally {
    const length = cache.length;
    cache.dispose();
    if (length !== held[0].length) throw new Error(`the failed call changed the cache to ${length} tokens`);
  }
}

/** lm.generate options of the wrong type: [name, value, how the message shows it] (a TypeError). */
export const WRONG_TYPE_OPTIONS = [
  ['maxNewTokens', '3', 'string'],
  ['temperature', '0.7', 'string'],
  ['topK', null, 'null'],
  ['topP', '0.5', 'string'],
  ['candidates', [2], 'Array\\(1\\)'],
  ['seed', '42', 'string'],
];
export const causalCases = {
  'lm.forward': {
    valid(r) {
      const m = r.pick(MODELS);
      const { vocabSize: V, numLayers, numHeads: H, hiddenSize: D } = m.lm.config;
      const N = r.int(1, 3),
        L = r.int(1, 10);
      const inputIds = randomIds(r, N, L, V);
      // a left-padded batch (the first rows' leading tokens masked) half the time
      const pad = r.chance(0.5) ? inputIds.map(() => r.int(0, L - 1)) : null;
      const attentionMask = pad && inputIds.map((row, n) => row.map((_, l) => (l < pad[n] ? 0 : 1)));
      const outputAttentions = r.chance(0.3),
        outputHiddenStates = r.chance(0.3);
      const form = N === 1 ? r.pick(['row', 'int32', 'rows', 'object']) : r.pick(['rows', 'object']);
      const int32 = Int32Array.from(inputIds[0]);
      const input = pad
        ? { inputIds, attentionMask }
        : { row: inputIds[0], int32, rows: inputIds, object: { inputIds } }[form];
      const before = JSON.stringify(input);
      return {
        label: `lm.forward ${m.name} [${N}, ${L}] ${pad ? `padded ${pad}` : form} attentions ${outputAttentions} hidden ${outputHiddenStates}`,
        args: form === 'int32' && !pad ? [{ data: int32 }] : [],
        run: () => m.lm.forward(input, { outputAttentions, outputHiddenStates }),
        check(got) {
          if (JSON.stringify(input) !== before) return 'the input was modified';
          const want = referenceCausalLM(m.f, {
            inputIds,
            attentionMask: attentionMask ?? undefined,
            positionIds: attentionMask ? positionIdsFromMask(attentionMask) : undefined,
          });
          // a padding query's row is not compared (reference/causal.mjs: Masks)
          const why = checkLogits(got.logits, logitsWithMagnitudes(m.f, want), N, L, V, (n) => pad?.[n] ?? 0);
          if (why) return why;
          if ((got.attentions !== undefined) !== outputAttentions) return 'attentions present or not as asked';
          if ((got.hiddenStates !== undefined) !== outputHiddenStates) return 'hiddenStates present or not as asked';
          if (outputAttentions) {
            if (got.attentions.length !== numLayers) return `${got.attentions.length} attentions`;
            for (let k = 0; k < numLayers; k++) {
              if (got.attentions[k].shape.join() !== [N, H, L, L].join()) return `attentions[${k}] shape`;
              if (pad) continue;
              const res = compare(got.attentions[k].data, want.attentions[k], TOL);
              if (!res.ok) return `attentions[${k}]: ${res.why}`;
            }
          }
          if (outputHiddenStates) {
            if (got.hiddenStates.length !== numLayers + 1) return `${got.hiddenStates.length} hiddenStates`;
            for (let k = 0; k <= numLayers; k++) {
              if (got.hiddenStates[k].shape.join() !== [N, L, D].join()) return `hiddenStates[${k}] shape`;
              for (let n = 0; n < N; n++) {
                const from = pad?.[n] ?? 0;
                const res = compare(
                  rowsOf(got.hiddenStates[k].data, n, L, D, from, L),
                  rowsOf(want.hiddenStates[k], n, L, D, from, L),
                  TOL,
                );
                if (!res.ok) return `hiddenStates[${k}] row ${n}: ${res.why}`;
              }
            }
          }
          return null;
        },
      };
    },
    invalid(r) {
      const lm = r.pick(MODELS).lm;
      const { vocabSize: V, maxPositions: P } = lm.config;
      const f = /^lm\.forward: /.source;
      const ids = Int32Array.from([1, 2, 3]);
      return r.pick([
        () => {
          const [Type, name] = r.pick([
            [Float64Array, 'Float64Array'],
            [Float32Array, 'Float32Array'],
            [Uint8Array, 'Uint8Array'],
            [Uint32Array, 'Uint32Array'],
          ]);
          const data = Type.from([1, 2, 3]);
          return bad(
            `lm.forward(${name} ids)`,
            () => lm.forward(data),
            TypeError,
            new RegExp(`${f}input must be token ids \\(number\\[\\] \\| Int32Array.*got ${name}\\(3\\)`),
            [{ data }],
          );
        },
        () => {
          const data = Float32Array.from([1, 2]);
          return bad(
            'lm.forward({ inputIds: Float32Array })',
            () => lm.forward({ inputIds: data }),
            TypeError,
            new RegExp(`${f}inputIds must be an array of token ids .*got Float32Array\\(2\\)`),
            [{ data }],
          );
        },
        () =>
          bad(
            'lm.forward(fractional id)',
            () => lm.forward([[1, 2.5]]),
            RangeError,
            new RegExp(`${f}inputIds\\[0\\]\\[1\\] = 2\\.5 is not an integer id`),
          ),
        () => {
          const [input, what, shown] = r.pick([
            [[5, , 7], 'inputIds', 'an integer id'], // eslint-disable-line no-sparse-arrays
            [{ inputIds: [5, 6, 7], attentionMask: [1, , 1] }, 'attentionMask', '0 or 1'], // eslint-disable-line no-sparse-arrays
          ]);
          return bad(
            `lm.forward(a hole in ${what})`,
            () => lm.forward(input),
            TypeError,
            new RegExp(`${f}${what}\\[0\\]\\[1\\] = undefined is not ${shown}`),
          );
        },
        () =>
          bad(
            'lm.forward(string id)',
            () => lm.forward(['1', 2]),
            TypeError,
            new RegExp(`${f}inputIds\\[0\\]\\[0\\] = string is not an integer id`),
          ),
        () => {
          const id = r.pick([V, V + r.int(1, 1000), -1, -r.int(2, 1000)]);
          const n = r.int(0, 1),
            l = r.int(0, 2);
          const rows = [
            [1, 2, 3],
            [4, 5, 6],
          ];
          rows[n][l] = id;
          const data = Int32Array.from(rows.flat());
          return bad(
            `lm.forward(out-of-vocabulary id ${id})`,
            () => lm.forward([data.subarray(0, 3), data.subarray(3)]),
            RangeError,
            new RegExp(`${f}inputIds at \\[${n}, ${l}\\] = ${id} is not a token id in \\[0, ${V}\\)`),
            [{ data }],
          );
        },
        () =>
          bad(
            'lm.forward(ragged rows)',
            () => lm.forward([[1, 2, 3], [4]]),
            RangeError,
            new RegExp(`${f}inputIds row 1 has 1 values, expected 3`),
          ),
        () =>
          bad(
            'lm.forward(no tokens)',
            () => lm.forward(r.pick([[], [[]], { inputIds: [] }])),
            RangeError,
            new RegExp(`${f}inputIds is empty`),
          ),
        () => {
          const L = P + r.int(1, 5);
          return bad(
            `lm.forward(${L} tokens)`,
            () => lm.forward([new Array(L).fill(1)]),
            RangeError,
            new RegExp(`${f}${L} tokens are more than the model's maxPositions ${P}`),
          );
        },
        () =>
          bad(
            'lm.forward(attentionMask of 2 for 3 tokens)',
            () => lm.forward({ inputIds: ids, attentionMask: [1, 1] }),
            RangeError,
            new RegExp(`${f}attentionMask row 0 has 2 values, expected 3`),
            [{ data: ids }],
          ),
        () =>
          bad(
            'lm.forward(attentionMask of 2 rows for 1)',
            () =>
              lm.forward({
                inputIds: [[1, 2, 3]],
                attentionMask: [
                  [1, 1, 1],
                  [1, 1, 1],
                ],
              }),
            RangeError,
            new RegExp(`${f}attentionMask has 2 rows, inputIds 1`),
          ),
        () => {
          const v = r.pick([2, 0.5, -1]);
          return bad(
            `lm.forward(attentionMask value ${v})`,
            () => lm.forward({ inputIds: ids, attentionMask: [1, v, 1] }),
            RangeError,
            new RegExp(`${f}attentionMask\\[0\\]\\[1\\] = ${v} is not 0 or 1`),
            [{ data: ids }],
          );
        },
        () => {
          const mask = r.pick([Float32Array, Uint8Array]).from([1, 1, 1]);
          return bad(
            `lm.forward(attentionMask ${mask.constructor.name})`,
            () => lm.forward({ inputIds: ids, attentionMask: mask }),
            TypeError,
            new RegExp(`${f}attentionMask must be an array of 0/1 values .*got ${mask.constructor.name}\\(3\\)`),
            [{ data: ids }, { data: mask }],
          );
        },
        () => {
          const p = r.pick([P, P + 7, -1]);
          return bad(
            `lm.forward(positionIds ${p})`,
            () => lm.forward({ inputIds: ids, positionIds: [0, 1, p] }),
            RangeError,
            new RegExp(`${f}positionIds at \\[0, 2\\] = ${p} is not in \\[0, ${P}\\)`),
          );
        },
        () =>
          bad(
            'lm.forward(unknown input field)',
            () => lm.forward({ inputIds: [1], input_ids: [1] }),
            TypeError,
            new RegExp(`${f}unknown input field 'input_ids'`),
          ),
        () =>
          bad(
            'lm.forward(input null)',
            () => lm.forward(r.pick([null, undefined, 3, 'the cat'])),
            TypeError,
            new RegExp(`${f}input must be token ids`),
          ),
        () =>
          bad(
            'lm.forward(unknown option)',
            () => lm.forward([1], { output_attentions: true }),
            TypeError,
            new RegExp(`${f}unknown option 'output_attentions'`),
          ),
        () => {
          const key = r.pick(['outputAttentions', 'outputHiddenStates']);
          return bad(
            `lm.forward(${key} not a boolean)`,
            () => lm.forward([1], { [key]: r.pick([1, 'yes']) }),
            TypeError,
            new RegExp(`${f}${key} must be a boolean`),
          );
        },
        () =>
          bad(
            'lm.forward(on a disposed model)',
            () => disposed.forward([1, 2]),
            Error,
            new RegExp(`${f}the model has been disposed`),
          ),
      ])();
    },
    small: () => gpt2.lm.forward([[1, 2, 3]], { outputAttentions: true }),
  },

  'lm.createCache': {
    valid(r) {
      const m = r.pick(MODELS);
      const { vocabSize: V, maxPositions: P } = m.lm.config;
      const N = r.int(1, 2);
      const chunks = Array.from({ length: r.int(1, 4) }, () => r.int(1, 5));
      const T = chunks.reduce((a, b) => a + b, 0);
      const inputIds = randomIds(r, N, T, V);
      const clear = r.chance(0.3);
      return {
        label: `lm.createCache ${m.name} ${N} rows, chunks ${chunks}${clear ? ', cleared and reused' : ''}`,
        run() {
          const cache = m.lm.createCache();
          const seen = { before: [cache.length, cache.batch, cache.residentBytes], lengths: [], logits: [] };
          let at = 0;
          for (const c of chunks) {
            seen.logits.push(
              m.lm.forward(
                inputIds.map((row) => row.slice(at, at + c)),
                { cache },
              ).logits,
            );
            at += c;
            seen.lengths.push([cache.length, cache.batch, cache.residentBytes > 0]);
          }
          if (clear) {
            cache.clear();
            seen.cleared = [cache.length, cache.batch];
            // reused: the first chunk again gives the first chunk's logits
            seen.again = m.lm.forward(
              inputIds.map((row) => row.slice(0, chunks[0])),
              { cache },
            ).logits;
          }
          cache.dispose();
          cache.dispose(); // idempotent
          seen.after = [cache.length, cache.batch, cache.residentBytes];
          return seen;
        },
        check(seen) {
          if (seen.before.join() !== '0,0,0') return `a new cache: ${seen.before}`;
          if (seen.after.join() !== '0,0,0') return `a disposed cache: ${seen.after}`;
          const want = logitsWithMagnitudes(m.f, referenceCausalLM(m.f, { inputIds }));
          let at = 0;
          for (let i = 0; i < chunks.length; i++) {
            const c = chunks[i];
            if (seen.lengths[i].join() !== [at + c, N, true].join()) return `after chunk ${i}: ${seen.lengths[i]}`;
            for (let n = 0; n < N; n++) {
              const res = compare(
                rowsOf(seen.logits[i].data, n, c, V, 0, c),
                logitRows(want, n, T, V, at, at + c),
                TOL,
              );
              if (!res.ok) return `chunk ${i} row ${n}: ${res.why}`;
            }
            at += c;
          }
          if (clear) {
            if (seen.cleared.join() !== '0,0') return `a cleared cache: ${seen.cleared}`;
            const res = compare(seen.again.data, seen.logits[0].data, { rel: 0, abs: 0 });
            if (!res.ok) return `after clear(): ${res.why}`;
          }
          return T <= P ? null : 'chunks past maxPositions';
        },
      };
    },
    invalid(r) {
      const m = r.pick(MODELS);
      const lm = m.lm;
      const P = lm.config.maxPositions;
      const other = m === gpt2 ? llama.lm : gpt2.lm;
      const f = /^lm\.forward: /.source;
      return r.pick([
        () =>
          bad(
            'lm.forward(cache of another model)',
            () => onCache(lm, [[1, 2, 3]], (cache) => other.forward([1], { cache })),
            Error,
            new RegExp(`${f}cache belongs to another model`),
          ),
        () =>
          bad(
            'lm.forward(2 rows on a cache of 1)',
            () => onCache(lm, [[1, 2, 3]], (cache) => lm.forward([[1], [2]], { cache })),
            RangeError,
            new RegExp(`${f}cache holds 1 sequences, inputIds has 2`),
          ),
        () => {
          const L = P - 3 + r.int(1, 4);
          return bad(
            `lm.forward(3 cached + ${L} tokens)`,
            () => onCache(lm, [[1, 2, 3]], (cache) => lm.forward([new Array(L).fill(1)], { cache })),
            RangeError,
            new RegExp(`${f}3 cached \\+ ${L} tokens are more than the model's maxPositions ${P}`),
          );
        },
        () =>
          bad(
            'lm.forward(attentionMask neither new nor cached + new)',
            () =>
              onCache(lm, [[1, 2, 3]], (cache) =>
                lm.forward({ inputIds: [4], attentionMask: [1, 1, 1, 1, 1] }, { cache }),
              ),
            RangeError,
            new RegExp(
              `${f}attentionMask row 0 has 5 values, expected 1 \\(the new tokens\\) or 4 \\(the cache's 3 and the new 1\\)`,
            ),
          ),
        () =>
          bad(
            'lm.forward(attentionMask rows mixing the two forms)',
            () =>
              onCache(
                lm,
                [
                  [1, 2, 3],
                  [4, 5, 6],
                ],
                (cache) => lm.forward({ inputIds: [[7], [8]], attentionMask: [[1, 1, 1, 1], [1]] }, { cache }),
              ),
            RangeError,
            new RegExp(
              `${f}attentionMask rows mix the two forms: row 0 has 4 values \\(the cache's 3 and the new 1\\), row 1 has 1 \\(the new tokens\\)`,
            ),
          ),
        () =>
          bad(
            'lm.forward(bad id on a cache)',
            () => onCache(lm, [[1, 2, 3]], (cache) => lm.forward([lm.config.vocabSize], { cache })),
            RangeError,
            new RegExp(`${f}inputIds at \\[0, 0\\] = \\d+ is not a token id`),
          ),
        () =>
          bad(
            'lm.forward(a disposed cache)',
            () => {
              const cache = lm.createCache();
              cache.dispose();
              lm.forward([1], { cache });
            },
            Error,
            new RegExp(`${f}the cache has been disposed`),
          ),
        () =>
          bad(
            'cache.clear() on a disposed cache',
            () => {
              const cache = lm.createCache();
              cache.dispose();
              cache.clear();
            },
            Error,
            /^cache\.clear: the cache has been disposed/,
          ),
        () =>
          bad(
            'lm.forward(cache not a KvCache)',
            () => lm.forward([1], { cache: r.pick([{}, 3, 'cache', { handle: 1 }]) }),
            TypeError,
            new RegExp(`${f}cache must be a KvCache \\(lm\\.createCache\\(\\)\\)`),
          ),
        () =>
          bad(
            'lm.createCache() on a disposed model',
            () => disposed.createCache(),
            Error,
            /^lm\.createCache: the model has been disposed/,
          ),
      ])();
    },
    small() {
      const cache = gpt2.lm.createCache();
      gpt2.lm.forward([1, 2, 3], { cache });
      gpt2.lm.forward([4], { cache });
      cache.clear();
      gpt2.lm.forward([5], { cache });
      cache.dispose();
    },
  },

  'lm.generate': {
    valid(r) {
      const m = r.pick(MODELS);
      const { vocabSize: V, maxPositions: P, numLayers, numHeads: H } = m.lm.config;
      const prompt = randomIds(r, 1, r.int(1, 6), V)[0];
      const maxNewTokens = r.int(0, 6);
      const int32 = r.chance(0.3) ? Int32Array.from(prompt) : null;
      const given = int32 ?? (r.chance(0.2) ? [prompt] : prompt);
      const sample = r.chance(0.4);
      const options = { maxNewTokens, eosTokenId: r.chance(0.5) ? null : undefined };
      if (sample) {
        Object.assign(options, {
          doSample: true,
          seed: r.int(0, 1000),
          temperature: r.pick([0.5, 1, 1.7]),
          topK: r.pick([0, 1, 5]),
          topP: r.pick([1, 0.9, 0.3]),
          candidates: r.int(1, 4),
        });
      } else if (r.chance(0.3)) options.outputAttentions = true;
      return {
        label: `lm.generate ${m.name} [${prompt}] ${JSON.stringify(options)}`,
        args: int32 ? [{ data: int32 }] : [],
        async run() {
          const result = await m.lm.generate(given, options).all();
          // a seed draws the same tokens again
          if (sample) result.again = (await m.lm.generate(given, options).all()).newIds;
          return result;
        },
        check(result) {
          const eos = options.eosTokenId === null ? [] : [m.lm.eosTokenId].flat();
          const n = result.newIds.length;
          if (n > maxNewTokens) return `${n} new tokens, maxNewTokens ${maxNewTokens}`;
          if (n < maxNewTokens && !(n > 0 && eos.includes(result.newIds[n - 1]))) return `stopped after ${n} tokens`;
          if (result.ids.join() !== [...prompt, ...result.newIds].join()) return 'ids are not prompt + newIds';
          if (prompt.length + maxNewTokens > P) return 'past maxPositions';
          const reason = n > 0 && eos.includes(result.newIds[n - 1]) ? 'eos' : 'length';
          if (result.finishReason !== reason) return `finishReason ${result.finishReason}, want ${reason}`;
          if (!sample) {
            const want = referenceGreedy(m.f, { inputIds: [prompt] }, { maxNewTokens, eosTokenId: eos });
            // equal while the reference's choice is clear of float32 rounding
            for (let i = 0; i < n; i++) {
              if (want.margins[i][0] < 1e-3) break;
              if (result.newIds[i] !== want.newTokens[0][i])
                return `step ${i}: ${result.newIds[i]}, reference ${want.newTokens[0][i]}`;
            }
            if (options.outputAttentions)
              for (const step of result.steps) {
                if (step.attentions.length !== numLayers)
                  return `step ${step.index}: ${step.attentions.length} attentions`;
                if (step.attentions[0].shape.join() !== [H, step.position + 1].join())
                  return `step ${step.index}: attention shape`;
              }
            return null;
          }
          if (result.again.join() !== result.newIds.join())
            return `seed ${options.seed}: ${result.again} then ${result.newIds}`;
          // each step's candidates: softmax(reference logits / temperature) of the position before it
          const ids = result.ids;
          const full = ids.length > 0 && n > 0 ? referenceCausalLM(m.f, { inputIds: [ids.slice(0, -1)] }).logits : null;
          for (const step of result.steps) {
            if (step.candidates.length !== Math.min(options.candidates, V)) return `step ${step.index}: candidates`;
            const row = full.subarray((step.position - 1) * V, step.position * V);
            const max = Math.max(...row);
            let sum = 0;
            for (const x of row) sum += Math.exp((x - max) / options.temperature);
            for (const c of step.candidates) {
              const p = Math.exp((row[c.id] - max) / options.temperature) / sum;
              if (!(Math.abs(c.probability - p) <= 1e-4))
                return `step ${step.index}: p(${c.id}) ${c.probability}, reference ${p}`;
            }
            if (!step.candidates[0].kept) return `step ${step.index}: the most probable token is not kept`;
            if (options.topK === 1 && step.id !== step.candidates[0].id)
              return `step ${step.index}: topK 1 drew ${step.id}`;
          }
          return null;
        },
      };
    },
    invalid(r) {
      const lm = r.pick(MODELS).lm;
      const { vocabSize: V, maxPositions: P } = lm.config;
      const g = /^lm\.generate: /.source;
      const option = (label, options, type, message) =>
        bad(`lm.generate(${label})`, () => lm.generate([1, 2], options), type, new RegExp(`${g}${message}`));
      return r.pick([
        () => {
          const v = r.pick([-1, 1.5, -0.5, NaN, Infinity]);
          return option(
            `maxNewTokens ${v}`,
            { maxNewTokens: v },
            RangeError,
            `maxNewTokens must be an integer >= 0, got ${v}`,
          );
        },
        () => {
          // an option of the wrong type: TypeError (a number out of range: RangeError)
          const [key, v, shown] = r.pick(WRONG_TYPE_OPTIONS);
          return option(`${key} ${shown}`, { [key]: v }, TypeError, `${key} must be .*, got ${shown}$`);
        },
        () => {
          const v = r.pick([0, -1, NaN, Infinity]);
          return option(
            `temperature ${v}`,
            { temperature: v },
            RangeError,
            `temperature must be a positive number, got ${v}`,
          );
        },
        () => {
          const v = r.pick([-1, 2.5]);
          return option(`topK ${v}`, { topK: v }, RangeError, `topK must be an integer >= 0, got ${v}`);
        },
        () => {
          const v = r.pick([0, -0.1, 1.5, NaN]);
          return option(`topP ${v}`, { topP: v }, RangeError, `topP must be in \\(0, 1\\], got ${v}`);
        },
        () => {
          const v = r.pick([-3, 0.5, 2 ** 53]);
          return option(`seed ${v}`, { seed: v }, RangeError, `seed must be an integer in \\[0, 2\\^53\\), got ${v}`);
        },
        () => option('candidates -1', { candidates: -1 }, RangeError, 'candidates must be an integer >= 0, got -1'),
        () => {
          const [v, shown] = r.pick([
            [{}, 'Object'],
            ['abort', 'string'],
            [{ aborted: 'no' }, 'Object'],
          ]);
          return option('signal', { signal: v }, TypeError, `signal must be an AbortSignal, got ${shown}`);
        },
        () =>
          option(
            'stop',
            { stop: r.pick(['', 5, ['a', '']]) },
            TypeError,
            'stop must be a non-empty string or an array of them',
          ),
        () => option('doSample', { doSample: 'yes' }, TypeError, 'doSample must be a boolean'),
        () => option('outputAttentions', { outputAttentions: 1 }, TypeError, 'outputAttentions must be a boolean'),
        () => {
          const [v, shown] = r.pick([
            ['2', 'string'],
            [[2, 1.5], '1\\.5'],
            [{}, 'Object'],
          ]);
          return option(
            'eosTokenId',
            { eosTokenId: v },
            TypeError,
            `eosTokenId must be a token id, an array of them or null, got ${shown}`,
          );
        },
        () => option('unknown option', { max_new_tokens: 3 }, TypeError, "unknown option 'max_new_tokens'"),
        () => option('options not an object', r.pick([3, 'greedy']), TypeError, 'options must be an object'),
        () => {
          const id = r.pick([V, -1]);
          const data = Int32Array.from([1, id, 2]);
          return bad(
            `lm.generate(prompt id ${id})`,
            () => lm.generate(data),
            RangeError,
            new RegExp(`${g}prompt\\[1\\] = ${id} is not a token id in \\[0, ${V}\\)`),
            [{ data }],
          );
        },
        () => {
          const data = Float64Array.from([1, 2]);
          return bad(
            'lm.generate(Float64Array prompt)',
            () => lm.generate(data),
            TypeError,
            new RegExp(
              `${g}prompt must be a string or token ids \\(number\\[\\] \\| Int32Array\\), got Float64Array\\(2\\)`,
            ),
            [{ data }],
          );
        },
        () =>
          bad(
            'lm.generate(fractional id)',
            () => lm.generate([1, 2.5]),
            TypeError,
            new RegExp(`${g}prompt\\[1\\] = 2\\.5 is not an integer token id`),
          ),
        () =>
          bad(
            'lm.generate(empty prompt)',
            () => lm.generate(r.pick([[], [[]]])),
            RangeError,
            new RegExp(`${g}the prompt has no tokens`),
          ),
        () =>
          bad(
            'lm.generate(2 prompts)',
            () =>
              lm.generate([
                [1, 2],
                [3, 4],
              ]),
            RangeError,
            new RegExp(`${g}prompt has 2 rows: generate takes one sequence`),
          ),
        () => {
          const L = P + r.int(1, 4);
          return bad(
            `lm.generate(${L} prompt tokens)`,
            () => lm.generate(new Array(L).fill(1)),
            RangeError,
            new RegExp(`${g}the prompt has ${L} tokens, more than the model's maxPositions ${P}`),
          );
        },
        () => {
          const k = r.int(1, 5);
          const maxNewTokens = P - 3 + k;
          return bad(
            `lm.generate(3 tokens + maxNewTokens ${maxNewTokens})`,
            () => lm.generate([1, 2, 3], { maxNewTokens }),
            RangeError,
            new RegExp(
              `${g}the prompt's 3 tokens \\+ maxNewTokens ${maxNewTokens} are more than the model's maxPositions ${P}`,
            ),
          );
        },
        () =>
          // GPT-2's empty prompt has no tokens (Llama's is <s>, from which generation starts)
          bad(
            "gpt2.generate('')",
            () => gpt2.lm.generate(''),
            RangeError,
            new RegExp(`${g}the prompt has no tokens \\(an empty string\\)`),
          ),
        () => {
          const text = 'the bank '.repeat(r.int(40, 60));
          const n = lm.tokenizer.encode(text, { maxLength: Infinity }).inputIds.length;
          return bad(
            `lm.generate(a text of ${n} tokens)`,
            () => lm.generate(text),
            RangeError,
            new RegExp(`${g}the prompt has ${n} tokens, more than the model's maxPositions ${P}`),
          );
        },
        () =>
          bad(
            'lm.generate(a hole in the prompt)',
            () => lm.generate([1, , 2]), // eslint-disable-line no-sparse-arrays
            TypeError,
            new RegExp(`${g}prompt\\[1\\] = undefined is not an integer token id`),
          ),
        () =>
          bad(
            'lm.generate(prompt null)',
            () => lm.generate(null),
            TypeError,
            new RegExp(`${g}prompt must be a string or token ids`),
          ),
        () =>
          bad(
            'lm.generate(on a disposed model)',
            () => disposed.generate([1]),
            Error,
            new RegExp(`${g}the model has been disposed`),
          ),
      ])();
    },
    // generations that end every way: run out, aborted after a step, and the consumer throwing
    // (or breaking) in the middle: each frees its cache (memory.test.mjs)
    async small() {
      const lm = gpt2.lm;
      await lm.generate([1, 2, 3], { maxNewTokens: 3, eosTokenId: null }).all();
      const controller = new AbortController();
      for await (const step of lm.generate([1, 2], { maxNewTokens: 5, signal: controller.signal, eosTokenId: null }))
        if (step.index === 0) controller.abort();
      try {
        for await (const step of lm.generate([4, 5], { maxNewTokens: 5, outputAttentions: true, eosTokenId: null }))
          if (step.index === 1) throw new Error('the consumer fails');
      } catch (e) {
        if (e.message !== 'the consumer fails') throw e;
      }
      for await (const step of lm.generate([6], { maxNewTokens: 5, doSample: true, candidates: 2, eosTokenId: null }))
        if (step.index === 1) break;
      if (openCaches.size) throw new Error(`lm.generate: ${openCaches.size} caches left undisposed`);
    },
  },
};
