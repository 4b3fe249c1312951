// Document 001, "Self-Attention Mechanism" (batch shapes, scaling, masks): E1.1-E1.5.
// NumPy-style printing, as the document prints; the words are in content/scaling-and-masking.js.
import { Tensor } from 'attention-wasm';
import content from '../content/scaling-and-masking.js';
import { documentSection, exampleOf } from '../example.js';
import { intValue } from '../controls.js';
import { numpyString, shapeTuple, vec } from '../format.js';
import { transposeLast, row, boolMask } from '../layout.js';
import { heatmap } from '../charts/heatmap.js';
import { attentionDetail, matrixOf } from '../detail.js';

export function scalingAndMasking(A, root) {
  const { section, cards } = documentSection(content, root);
  batchShapes(A, cards['E1.1']);
  softmaxTemperature(A, cards['E1.2']);
  scalingBySqrtD(A, cards['E1.3']);
  masks(A, cards['E1.4']);
  afterAttention(A, cards['E1.5']);
  return section;
}

/** E1.1: the shapes, completed with random numbers. */
function batchShapes(A, card) {
  const B = 6,
    T = 8,
    C = 32,
    d = 16;
  A.manualSeed(0);
  const X = A.randn(B, T, C);
  const WK = A.randn(C, d),
    WQ = A.randn(C, d),
    WV = A.randn(C, d);
  const K = A.matmul(X, WK),
    Q = A.matmul(X, WQ),
    V = A.matmul(X, WV);
  const scores = A.matmul(Q, transposeLast(K));
  const r = A.scaledDotProductAttention(Q, K, V, { returnIntermediates: true });
  const lines = [
    `X ${shapeTuple(X)}`,
    `W^K, W^Q, W^V ${shapeTuple(WK)}`,
    `K ${shapeTuple(K)}`,
    `Q ${shapeTuple(Q)}`,
    `V ${shapeTuple(V)}`,
    `scores ${shapeTuple(scores)}`,
    `weights ${shapeTuple(r.weights)}`,
    `output ${shapeTuple(r.output)}`,
  ];
  card.show(lines.join('\n'), card.what());
  const labels = [...Array(T).keys()].map((i) => `t${i}`);
  card.controls.append(
    heatmap(matrixOf(r.weights, T, T), {
      rowLabels: labels,
      colLabels: labels,
      title: exampleOf(content, 'E1.1').plotTitle,
      detail: attentionDetail(r, { rows: labels, cols: labels, scale: 1 / Math.sqrt(d) }),
    }),
  );
}

/** E1.2: softmax of the logits, of the logits × 100, and of the logits × a chosen factor. */
function softmaxTemperature(A, card) {
  card.controls.innerHTML = `<label>multiply the logits by <input type="range" name="factor" min="0.1" max="100" step="0.1" value="1"> <output name="factorOut">1</output></label>`;
  const times = (s) =>
    new Tensor(
      Float32Array.from(content.logits, (v) => v * s),
      [content.logits.length],
    );
  const update = () => {
    const factor = Number(card.controls.querySelector('[name=factor]').value);
    card.controls.querySelector('[name=factorOut]').textContent = String(factor);
    const p1 = A.softmax(times(1), { dim: 0 }),
      p100 = A.softmax(times(100), { dim: 0 }),
      ps = A.softmax(times(factor), { dim: 0 });
    card.show(
      `${numpyString(p1, 2)}\n${numpyString(p100, 2)}\n× ${factor}: ${numpyString(ps, 2)}`,
      card.what({ factor, max: Math.max(...ps.data) }),
    );
  };
  card.controls.addEventListener('input', update);
  update();
}

/** E1.3: scaled vs unscaled for growing d. */
function scalingBySqrtD(A, card) {
  card.controls.innerHTML = `<label>d <input type="range" name="d" min="1" max="9" step="1" value="4"> <output name="dOut"></output></label>`;
  const update = () => {
    const d = 2 ** Number(card.controls.querySelector('[name=d]').value);
    card.controls.querySelector('[name=dOut]').textContent = String(d);
    A.manualSeed(1);
    const q = A.randn(1, d),
      K = A.randn(8, d);
    const raw = A.scaledDotProductAttention(q, K, K, { scale: 1, returnWeights: true });
    const scaled = A.scaledDotProductAttention(q, K, K, { returnWeights: true });
    card.show(
      `d = ${d}\nunscaled: ${numpyString(vec(raw.weights), 2)}\nscaled:   ${numpyString(vec(scaled.weights), 2)}`,
      card.what({ d, rawMax: Math.max(...raw.weights.data), scaledMax: Math.max(...scaled.weights.data) }),
    );
  };
  card.controls.addEventListener('input', update);
  update();
}

/** E1.4: the look-ahead and padding masks, masked cells hatched. */
function masks(A, card) {
  card.controls.innerHTML = `<label><input type="checkbox" name="causal"> look-ahead (causal) mask</label>
    <label>padding tokens at the end <input type="number" name="pad" min="0" max="5" value="0"></label>`;
  const plot = document.createElement('div');
  card.controls.after(plot);
  const T = 6,
    d = 16;
  const update = () => {
    const causal = card.controls.querySelector('[name=causal]').checked;
    const pad = intValue(card.controls, 'pad', 0, 5);
    A.manualSeed(123);
    const x = A.randn(T, d);
    const opts = { returnIntermediates: true };
    if (causal && pad === 0) opts.isCausal = true;
    else if (pad > 0) opts.attnMask = boolMask(T, T, (i, j) => j < T - pad && (!causal || j <= i));
    const r = A.scaledDotProductAttention(x, x, x, opts);
    const labels = content.words.map((w, i) => (i >= T - pad ? `<pad>${i}` : w));
    card.show(`${r.weights}`, card.what({ causal, pad }));
    plot.replaceChildren(
      heatmap(matrixOf(r.weights, T, T), {
        rowLabels: labels,
        colLabels: labels,
        masked: (i, j) => r.masked.data[i * T + j] === -Infinity,
        title: exampleOf(content, 'E1.4').plotTitle,
        detail: attentionDetail(r, { rows: labels, cols: labels, scale: 1 / Math.sqrt(d) }),
      }),
    );
  };
  card.controls.addEventListener('input', update);
  update();
}

/** E1.5: residual, LayerNorm and a GELU feed-forward network around attention. */
function afterAttention(A, card) {
  A.manualSeed(123);
  const T = 6,
    d = 16;
  const x = A.randn(T, d);
  const att = A.scaledDotProductAttention(x, x, x).output;
  const h = A.layerNorm(A.add(x, att), [d]);
  const W1 = A.randn(4 * d, d),
    W2 = A.randn(d, 4 * d);
  const ffn = A.linear(A.gelu(A.linear(h, W1)), W2);
  const y = A.layerNorm(A.add(h, ffn), [d]);
  card.show(
    `x + attention(x) -> layer_norm ${shapeTuple(h)}\nffn = linear(gelu(linear(h)))  ${shapeTuple(ffn)}\ny = layer_norm(h + ffn) ${shapeTuple(y)}\ny[0] = ${numpyString(row(y, 0), 2)}`,
    card.what(),
  );
}
