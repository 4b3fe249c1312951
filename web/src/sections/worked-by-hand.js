// Document 003, "Illustrated self-attention" (3 inputs of dimension 4): E3.1-E3.5.
// Unscaled dot-product attention (scale 1), as the document does; inputs and weights editable.
import { Tensor } from 'attention-wasm';
import { exampleCard } from '../example.js';
import { pyList, rows } from '../format.js';
import { row } from '../layout.js';
import { heatmap } from '../plot.js';
import { attentionDetail, slice2d } from '../detail.js';

const INPUTS = '[[1, 0, 1, 0],\n [0, 2, 0, 2],\n [1, 1, 1, 1]]';
const W_KEY = '[[0, 0, 1],\n [1, 1, 0],\n [0, 1, 0],\n [1, 1, 0]]';
const W_QUERY = '[[1, 0, 1],\n [1, 0, 0],\n [0, 0, 1],\n [0, 1, 1]]';
const W_VALUE = '[[0, 2, 0],\n [0, 3, 0],\n [1, 0, 3],\n [1, 1, 0]]';

/** Integers print as `4`, anything else with `decimals` places. */
const num = (decimals) => (v) => (Number.isInteger(v) ? String(v) : v.toFixed(decimals));
const list = (vs, f) => `[${vs.map((v) => (Array.isArray(v) ? list(v, f) : f(v))).join(', ')}]`;

export function seed003(A, root) {
  const section = document.createElement('section');
  section.className = 'document';
  section.dataset.document = '003';
  section.innerHTML = `<h2>Illustrated self-attention</h2>
    <p>Document 003 works through three inputs of dimension 4 with 4×3 weights, using the plain
    dot product (no 1/√d_k). Edit any matrix: every step is recomputed.</p>`;
  const controls = document.createElement('div');
  controls.className = 'controls matrices';
  controls.innerHTML = [['inputs', 'Inputs (3×4)', INPUTS], ['wkey', 'Weights for key (4×3)', W_KEY],
    ['wquery', 'Weights for query (4×3)', W_QUERY], ['wvalue', 'Weights for value (4×3)', W_VALUE]]
    .map(([n, l, v]) => `<label>${l}<textarea name="${n}" rows="4" cols="16" spellcheck="false">${v}</textarea></label>`).join('');
  const error = document.createElement('p');
  error.className = 'error';
  error.setAttribute('role', 'alert');
  section.append(controls, error);
  const cards = {
    'E3.1': exampleCard({ id: 'E3.1', title: 'inputs and weights', code: 'x = torch.tensor(inputs, dtype=torch.float32)\nw_key, w_query, w_value = ...  # 4 x 3 each' }),
    'E3.2': exampleCard({ id: 'E3.2', title: 'keys, values and queries', code: 'keys = x @ w_key\nvalues = x @ w_value\nquerys = x @ w_query' }),
    'E3.3': exampleCard({ id: 'E3.3', title: 'attention scores for input 1 and their softmax', code: 'attn_scores = querys @ keys.T\nattn_scores_softmax = softmax(attn_scores, dim=-1)\n# input 1: the softmax of its three scores' }),
    'E3.4': exampleCard({ id: 'E3.4', title: 'weighted values and their sum: output 1', code: 'weighted_values = values[:, None] * attn_scores_softmax.T[:, :, None]\noutputs = weighted_values.sum(dim=0)' }),
    'E3.5': exampleCard({ id: 'E3.5', title: 'outputs 2 and 3 ("left to the reader")', code: '# steps 4-7 for input 2 and input 3' }),
  };
  for (const c of Object.values(cards)) section.append(c.el);
  root.append(section);
  const plot = document.createElement('div');
  cards['E3.5'].controls.after(plot);

  const parse = (name, r, c) => {
    const v = JSON.parse(controls.querySelector(`[name=${name}]`).value);
    if (!Array.isArray(v) || v.length !== r || v.some((x) => !Array.isArray(x) || x.length !== c || x.some((y) => typeof y !== 'number')))
      throw new Error(`${name}: expected a ${r}×${c} list of numbers`);
    return Tensor.fromArray(v);
  };
  const update = () => {
    let x, wk, wq, wv;
    try {
      x = parse('inputs', 3, 4); wk = parse('wkey', 4, 3); wq = parse('wquery', 4, 3); wv = parse('wvalue', 4, 3);
      error.textContent = '';
    } catch (e) { error.textContent = e.message; return; }
    const i0 = num(0);
    cards['E3.1'].show(`Inputs: ${list(rows(x), i0)}\nWeights for key: ${list(rows(wk), i0)}\nWeights for query: ${list(rows(wq), i0)}\nWeights for value: ${list(rows(wv), i0)}`,
      'Three inputs of dimension 4; each weight matrix maps 4 dimensions to 3.');
    const keys = A.matmul(x, wk), values = A.matmul(x, wv), queries = A.matmul(x, wq);
    const f2 = num(2);
    cards['E3.2'].show(`keys:    ${list(rows(keys), f2)}\nvalues:  ${list(rows(values), f2)}\nqueries: ${list(rows(queries), f2)}`,
      'Each input row times each weight matrix: row i of keys is input i @ w_key.');
    const r = A.scaledDotProductAttention(queries, keys, values, { scale: 1, returnIntermediates: true });
    const s1 = Array.from(row(r.scores, 0).data), w1 = Array.from(row(r.weights, 0).data);
    // The document's rounded weights are coarser than one decimal (its first weight is 0):
    // its weights are rounded to the nearest 0.5. The page shows the exact, the one-decimal and
    // the document's weights, and carries the document's on to output 1.
    const wr = w1.map((w) => Math.round(w * 2) / 2);
    cards['E3.3'].show(`scores for input 1: ${list(s1, f2)}\nsoftmax: ${pyList(w1, 4)}\nto one decimal: ${pyList(w1, 1)}\nas the document rounds them: ${pyList(wr, 1)}`,
      'Query 1 dotted with every key (no √d_k scaling here), then softmax. The document says it rounds to one decimal, but its weights are rounded to the nearest 0.5 (the first weight is really ≈ 0.06).');
    // Output 1 with the document's rounded weights, and with the exact ones.
    const weighted = A.matmul(new Tensor(Float32Array.from([0, 1, 2].flatMap((i) => [0, 1, 2].map((j) => (i === j ? wr[i] : 0)))), [3, 3]), values);
    const out1r = A.matmul(new Tensor(Float32Array.from(wr), [1, 3]), values);
    cards['E3.4'].show(`${rows(weighted).map((v, i) => `${i + 1}: ${wr[i].toFixed(1)} * ${list(rows(values)[i], f2)} = ${pyList(v, 1)}`).join('\n')}\nsum (document's weights) = ${pyList(rows(out1r)[0], 1)}\nsum (exact weights)      = ${pyList(rows(r.output)[0], 4)}`,
      'Each value scaled by its weight, then summed. With the document\'s rounded weights the sum is the document\'s vector; the exact weights give a slightly different one.');
    const outs = rows(r.output);
    cards['E3.5'].show(`Output 2: ${pyList(outs[1], 4)}\nOutput 3: ${pyList(outs[2], 4)}\nsoftmax for input 2: ${pyList(Array.from(row(r.weights, 1).data), 4)}\nsoftmax for input 3: ${pyList(Array.from(row(r.weights, 2).data), 4)}`,
      'The document leaves these to the reader; the page completes them: query 2 and query 3 against all keys, softmax, weighted sum of the values.');
    const labels = ['input 1', 'input 2', 'input 3'];
    plot.replaceChildren(heatmap(slice2d(r.weights, 3, 3), { rowLabels: labels, colLabels: labels, cell: 56,
      title: 'softmax(querys @ keys.T) — rows: queries', detail: attentionDetail(r, { rows: labels, cols: labels, scale: 1 }) }));
  };
  controls.addEventListener('input', update);
  update();
  return section;
}
