// Document 003, "Illustrated self-attention" (3 inputs of dimension 4): E3.1-E3.5.
// Unscaled dot-product attention (scale 1), as the document does; inputs and weights editable.
// The words and the document's matrices are in content/worked-by-hand.js. One function per example
// card, called in the document's order.
import { Tensor } from 'attention-wasm';
import content from '../content/worked-by-hand.js';
import { documentSection, exampleOf } from '../example.js';
import { pyList, rows } from '../format.js';
import { row } from '../layout.js';
import { heatmap } from '../charts/heatmap.js';
import { attentionDetail, matrixOf } from '../detail.js';

/** Integers print as `4`, anything else with `decimals` places. */
const num = (decimals) => (v) => (Number.isInteger(v) ? String(v) : v.toFixed(decimals));
const list = (vs, f) => `[${vs.map((v) => (Array.isArray(v) ? list(v, f) : f(v))).join(', ')}]`;

/** E3.1: the inputs and the three weight matrices, as the document lists them. */
function showInputs(card, { x, wk, wq, wv }) {
  const i0 = num(0);
  card.show(
    `Inputs: ${list(rows(x), i0)}\nWeights for key: ${list(rows(wk), i0)}\nWeights for query: ${list(rows(wq), i0)}\nWeights for value: ${list(rows(wv), i0)}`,
    card.what(),
  );
}

/** E3.2: keys, values and queries (x W); returns them. */
function projections(A, card, { x, wk, wq, wv }) {
  const keys = A.matmul(x, wk),
    values = A.matmul(x, wv),
    queries = A.matmul(x, wq);
  const f2 = num(2);
  card.show(
    `keys:    ${list(rows(keys), f2)}\nvalues:  ${list(rows(values), f2)}\nqueries: ${list(rows(queries), f2)}`,
    card.what(),
  );
  return { keys, values, queries };
}

/**
 * E3.3: input 1's scores and softmax. The document's rounded weights are coarser than one
 * decimal (its first weight is 0): its weights are rounded to the nearest 0.5. The page shows the
 * exact, the one-decimal and the document's weights; returns the document's (E3.4 carries them on).
 */
function scoresOfInput1(card, r) {
  const f2 = num(2);
  const s1 = Array.from(row(r.scores, 0).data),
    w1 = Array.from(row(r.weights, 0).data);
  const wr = w1.map((w) => Math.round(w * 2) / 2);
  card.show(
    `scores for input 1: ${list(s1, f2)}\nsoftmax: ${pyList(w1, 4)}\nto one decimal: ${pyList(w1, 1)}\nas the document rounds them: ${pyList(wr, 1)}`,
    card.what(),
  );
  return wr;
}

/** E3.4: output 1 with the document's rounded weights (each weighted value), and with the exact ones. */
function output1(A, card, r, values, wr) {
  const f2 = num(2);
  const weighted = A.matmul(
    new Tensor(Float32Array.from([0, 1, 2].flatMap((i) => [0, 1, 2].map((j) => (i === j ? wr[i] : 0)))), [3, 3]),
    values,
  );
  const out1r = A.matmul(new Tensor(Float32Array.from(wr), [1, 3]), values);
  card.show(
    `${rows(weighted)
      .map((v, i) => `${i + 1}: ${wr[i].toFixed(1)} * ${list(rows(values)[i], f2)} = ${pyList(v, 1)}`)
      .join(
        '\n',
      )}\nsum (document's weights) = ${pyList(rows(out1r)[0], 1)}\nsum (exact weights)      = ${pyList(rows(r.output)[0], 4)}`,
    card.what(),
  );
}

/** E3.5: outputs 2 and 3 (which the document leaves to the reader), and the weights' heat map. */
function outputs2and3(card, plot, r) {
  const outs = rows(r.output);
  card.show(
    `Output 2: ${pyList(outs[1], 4)}\nOutput 3: ${pyList(outs[2], 4)}\nsoftmax for input 2: ${pyList(Array.from(row(r.weights, 1).data), 4)}\nsoftmax for input 3: ${pyList(Array.from(row(r.weights, 2).data), 4)}`,
    card.what(),
  );
  const labels = content.labels;
  plot.replaceChildren(
    heatmap(matrixOf(r.weights, 3, 3), {
      rowLabels: labels,
      colLabels: labels,
      cell: 56,
      title: exampleOf(content, 'E3.5').plotTitle,
      detail: attentionDetail(r, { rows: labels, cols: labels, scale: 1 }),
    }),
  );
}

export function workedByHand(A, root) {
  const controls = document.createElement('div');
  controls.className = 'controls matrices';
  controls.innerHTML = content.matrices
    .map(
      ([n, l, , , v]) =>
        `<label>${l}<textarea name="${n}" rows="4" cols="16" spellcheck="false">${v}</textarea></label>`,
    )
    .join('');
  const error = document.createElement('p');
  error.className = 'error';
  error.setAttribute('role', 'alert');
  const { section, cards } = documentSection(content, root, { before: [controls, error] });
  const plot = document.createElement('div');
  cards['E3.5'].controls.after(plot);

  const parse = (name, label, r, c) => {
    let v;
    try {
      v = JSON.parse(controls.querySelector(`[name=${name}]`).value);
    } catch (e) {
      throw new Error(`${label}: not a list of numbers (${e.message})`);
    }
    if (
      !Array.isArray(v) ||
      v.length !== r ||
      v.some((x) => !Array.isArray(x) || x.length !== c || x.some((y) => typeof y !== 'number'))
    )
      throw new Error(`${label}: expected a ${r}×${c} list of numbers`);
    return Tensor.fromArray(v);
  };
  const update = () => {
    let m;
    try {
      const [x, wk, wq, wv] = content.matrices.map(([name, label, r, c]) => parse(name, label, r, c));
      m = { x, wk, wq, wv };
      error.textContent = '';
    } catch (e) {
      // no result of the last matrices stays up beside the message
      error.textContent = e.message;
      for (const card of Object.values(cards)) card.show('');
      plot.replaceChildren();
      return;
    }
    showInputs(cards['E3.1'], m);
    const { keys, values, queries } = projections(A, cards['E3.2'], m);
    // unscaled, as the document computes: softmax(q k^T) v
    const r = A.scaledDotProductAttention(queries, keys, values, { scale: 1, returnIntermediates: true });
    const wr = scoresOfInput1(cards['E3.3'], r);
    output1(A, cards['E3.4'], r, values, wr);
    outputs2and3(cards['E3.5'], plot, r);
  };
  controls.addEventListener('input', update);
  update();
  return section;
}
