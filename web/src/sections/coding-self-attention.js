// Document 000, "Understanding and coding self-attention" (PyTorch, step by step): E0.1-E0.10.
// Every number shown is computed here by the library, from torch.manual_seed onwards; the words
// around them are in content/coding-self-attention.js. One function per example card, called
// in the document's order: each shows its card and returns what the later steps use. The order
// matters beyond the data: E0.9 draws its weights from the generator right after E0.4's three
// matrices, as the document's notebook does.
import { Tensor } from 'attention-wasm';
import content from '../content/coding-self-attention.js';
import { documentSection, exampleOf } from '../example.js';
import { intValue, MAX_SEED } from '../controls.js';
import { pyStr, torchSize } from '../format.js';
import { transposeLast } from '../layout.js';
import { heatmap } from '../charts/heatmap.js';
import { attentionDetail, matrixOf } from '../detail.js';

const D = 16; // the embedding's width: nn.Embedding(vocab, 16)

/** Python's sorted() on str is code-point order, as JS's default sort. */
function vocabulary(sentence) {
  const words = sentence.replace(/,/g, '').split(/\s+/).filter(Boolean);
  const dc = Object.fromEntries([...new Set(words)].sort().map((s, i) => [s, i]));
  return { words, dc, ids: words.map((w) => dc[w]) };
}

function controlsHtml({ sentence, seed, dk, dv, heads }) {
  return `
    <label>Sentence <input type="text" name="sentence" value="${sentence}"></label>
    <label>Seed <input type="number" name="seed" value="${seed}" min="0" step="1"></label>
    <label>d_q = d_k <input type="number" name="dk" value="${dk}" min="1" max="256"></label>
    <label>d_v <input type="number" name="dv" value="${dv}" min="1" max="256"></label>
    <label>heads h (E0.9) <input type="number" name="heads" value="${heads}" min="1" max="8"></label>`;
}

/** The controls' values, clamped: { sentence, seed, dk (= d_q), dv, h }. */
function readControls(controls) {
  return {
    sentence: controls.querySelector('[name=sentence]').value,
    seed: intValue(controls, 'seed', 0, MAX_SEED),
    dk: intValue(controls, 'dk', 1, 256),
    dv: intValue(controls, 'dv', 1, 256),
    h: intValue(controls, 'heads', 1, 8),
  };
}

/** softmax(ω / √d_k) over a 1-D tensor of scores (dim 0). */
const scaledSoftmax = (A, omega, dk) =>
  A.softmax(
    new Tensor(
      omega.data.map((w) => w / Math.sqrt(dk)),
      omega.shape,
    ),
    { dim: 0 },
  );

/** The heat map of an SDPA result's weights (n, m), each cell explained on hover or focus. */
const weightsMap = (r, rows, cols, dk, title) =>
  heatmap(matrixOf(r.weights, rows.length, cols.length), {
    rowLabels: rows,
    colLabels: cols,
    title,
    detail: attentionDetail(r, { rows, cols, scale: 1 / Math.sqrt(dk) }),
  });

/** E0.1: the vocabulary dict. */
function showVocabulary(card, dc) {
  const vocab = Object.keys(dc).length;
  card.show(
    `{${Object.entries(dc)
      .map(([k, v]) => `${pyStr(k)}: ${v}`)
      .join(', ')}}`,
    card.what({ vocab }),
  );
}

/** E0.2: the sentence as integers. */
function showIds(card, ids) {
  card.show(`tensor([${ids.join(', ')}])`, card.what());
}

/** E0.3: the embedding table drawn after torch.manual_seed(seed); returns x (words, 16). */
function embed(A, card, { seed }, ids, vocab) {
  A.manualSeed(seed);
  const embedWeight = A.randn(vocab, D); // nn.Embedding(vocab, 16): weight ~ N(0, 1)
  const x = A.embedding(ids, embedWeight);
  card.show(`${x}\n${torchSize(x)}`, card.what({ seed, vocab }));
  return x;
}

/**
 * E0.4: W_query, W_key, W_value ~ U[0, 1) after reseeding, and the projections of x_2; returns
 * them with x_2. The generator stays where E0.9 continues it.
 */
function projections(A, card, { seed, dk, dv }, x) {
  A.manualSeed(seed);
  const W_query = A.rand(dk, D),
    W_key = A.rand(dk, D),
    W_value = A.rand(dv, D);
  const x2 = new Tensor(x.data.slice(D, 2 * D), [D]);
  const query2 = A.matmul(W_query, x2),
    key2 = A.matmul(W_key, x2),
    value2 = A.matmul(W_value, x2);
  card.show([query2, key2, value2].map(torchSize).join('\n'), card.what({ dk, dv }));
  return { W_query, W_key, W_value, x2, query2 };
}

/** E0.5: every word's key and value; returns { keys, values }. */
function keysAndValues(A, card, x, { W_key, W_value }) {
  const keys = A.linear(x, W_key),
    values = A.linear(x, W_value);
  card.show(`keys.shape: ${torchSize(keys)}\nvalues.shape: ${torchSize(values)}`, card.what());
  return { keys, values };
}

/** E0.6: ω_24 (with a fifth word) and ω_2 = query_2 · keys; returns ω_2. */
function unnormalisedWeights(A, card, { query2 }, { keys }, dk) {
  const omega24 =
    keys.shape[0] >= 5
      ? `${A.matmul(query2, new Tensor(keys.data.slice(4 * dk, 5 * dk), [dk]))}`
      : exampleOf(content, 'E0.6').noFifthWord;
  const omega2 = A.matmul(keys, query2);
  card.show(`${omega24}\n${omega2}`, card.what());
  return omega2;
}

/**
 * E0.7: attention_weights_2 = softmax(ω_2 / √d_k), and under it every word's weights through
 * the library's SDPA (row 2 is the printed one); returns attention_weights_2.
 */
function attentionWeights(A, card, plot, omega2, x, { W_query }, { keys, values }, words, dk) {
  const weights = scaledSoftmax(A, omega2, dk);
  card.show(`${weights}`, card.what({ dk }));
  const all = A.scaledDotProductAttention(A.linear(x, W_query), keys, values, { returnIntermediates: true });
  plot.replaceChildren(weightsMap(all, words, words, dk, exampleOf(content, 'E0.7').plotTitle));
  return weights;
}

/** E0.8: the context vector z(2) = attention_weights_2 · values. */
function contextVector(A, card, weights, { values }, words, dv) {
  const context = A.matmul(weights, values);
  card.show(`${torchSize(context)}\n${context}`, card.what({ words: words.length, dv }));
}

/**
 * E0.9: h heads of W_q, W_k, W_v drawn next from the generator, the document's bmm and permute
 * shapes, and (completing the document) each head's context vector of word 2; a heat map of the
 * heads' weights.
 */
function multiHead(A, card, plot, x, { x2 }, words, { dk, dv, h }) {
  const n = words.length;
  const mhWq = A.rand(h, dk, D),
    mhWk = A.rand(h, dk, D),
    mhWv = A.rand(h, dv, D);
  const mhQuery2 = A.matmul(mhWq, x2); // (h, d_q)
  const xT = transposeLast(x).data;
  const stacked = new Tensor(
    new Float32Array(h * D * n).map((_, i) => xT[i % (D * n)]),
    [h, D, n],
  ); // .T.repeat(h, 1, 1)
  const mhKeys = A.matmul(mhWk, stacked),
    mhValues = A.matmul(mhWv, stacked); // (h, d_k, n), (h, d_v, n)
  const keysP = transposeLast(mhKeys),
    valuesP = transposeLast(mhValues); // permute(0, 2, 1)
  const q2 = new Tensor(mhQuery2.data, [h, 1, dk]);
  const mh = A.scaledDotProductAttention(q2, keysP, valuesP, { returnIntermediates: true }); // output (h, 1, d_v)
  const mhContext = new Tensor(mh.output.data, [h, dv]);
  card.show(
    [
      torchSize(mhQuery2),
      torchSize(stacked),
      `multihead_keys.shape: ${torchSize(mhKeys)}`,
      `multihead_values.shape: ${torchSize(mhValues)}`,
      `multihead_keys.shape: ${torchSize(keysP)}`,
      `multihead_values.shape: ${torchSize(valuesP)}`,
      `multihead_context_vector_2.shape: ${torchSize(mhContext)}`,
      `${mhContext}`,
    ].join('\n'),
    card.what({ h, dk, dv }),
  );
  const headRows = [...Array(h).keys()].map((i) => `head ${i + 1}`);
  plot.replaceChildren(weightsMap(mh, headRows, words, dk, exampleOf(content, 'E0.9').plotTitle));
}

/**
 * E0.10: cross-attention after reseeding: queries from the sentence, keys and values from a
 * second sequence of 8 random tokens; word 2's context vector and every word's weights.
 */
function crossAttention(A, card, plot, x, words, { seed, dk, dv }) {
  A.manualSeed(seed);
  const cWq = A.rand(dk, D),
    cWk = A.rand(dk, D),
    cWv = A.rand(dv, D);
  const x2 = new Tensor(x.data.slice(D, 2 * D), [D]);
  const cQuery2 = A.matmul(cWq, x2);
  const x2seq = A.rand(8, D);
  const cKeys = A.linear(x2seq, cWk),
    cValues = A.linear(x2seq, cWv);
  const cross = A.scaledDotProductAttention(A.linear(x, cWq), cKeys, cValues, { returnIntermediates: true });
  const cWeights = scaledSoftmax(A, A.matmul(cKeys, cQuery2), dk);
  const cContext = A.matmul(cWeights, cValues);
  card.show(
    `keys.shape: ${torchSize(cKeys)}\nvalues.shape: ${torchSize(cValues)}\ncontext_vector_2.shape: ${torchSize(cContext)}\n${cContext}`,
    card.what(),
  );
  const cols = [...Array(8).keys()].map((j) => `y${j}`);
  plot.replaceChildren(weightsMap(cross, words, cols, dk, exampleOf(content, 'E0.10').plotTitle));
}

export function codingSelfAttention(A, root) {
  const controls = document.createElement('div');
  controls.className = 'controls';
  controls.innerHTML = controlsHtml(content.defaults);
  const { section, cards } = documentSection(content, root, { before: [controls] });
  const plotAfter = (id, className) => {
    const div = document.createElement('div');
    if (className) div.className = className;
    cards[id].controls.after(div);
    return div;
  };
  const weightsPlot = plotAfter('E0.7'),
    headsPlot = plotAfter('E0.9', 'heads'),
    crossPlot = plotAfter('E0.10');

  function update() {
    const c = readControls(controls);
    const e09 = exampleOf(content, 'E0.9');
    cards['E0.9'].retitle(e09.title(c.h));
    cards['E0.9'].recode(e09.code(c.h));
    const { words, dc, ids } = vocabulary(c.sentence);
    showVocabulary(cards['E0.1'], dc);
    showIds(cards['E0.2'], ids);
    if (words.length < 2) {
      // every example from E0.3 on needs word 2: none keeps the last sentence's results
      for (const id of ['E0.3', 'E0.4', 'E0.5', 'E0.6', 'E0.7', 'E0.8', 'E0.9', 'E0.10'])
        cards[id].show(exampleOf(content, 'E0.3').tooShort, '');
      for (const plot of [weightsPlot, headsPlot, crossPlot]) plot.replaceChildren();
      return;
    }
    const x = embed(A, cards['E0.3'], c, ids, Object.keys(dc).length);
    const w = projections(A, cards['E0.4'], c, x);
    const kv = keysAndValues(A, cards['E0.5'], x, w);
    const omega2 = unnormalisedWeights(A, cards['E0.6'], w, kv, c.dk);
    const weights = attentionWeights(A, cards['E0.7'], weightsPlot, omega2, x, w, kv, words, c.dk);
    contextVector(A, cards['E0.8'], weights, kv, words, c.dv);
    multiHead(A, cards['E0.9'], headsPlot, x, w, words, c); // continues E0.4's generator stream
    crossAttention(A, cards['E0.10'], crossPlot, x, words, c);
  }
  controls.addEventListener('input', update);
  update();
  return section;
}
