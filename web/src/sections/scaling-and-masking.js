// Document 001, "Self-Attention Mechanism" (batch shapes, scaling, masks): E1.1-E1.5.
// NumPy-style printing, as the document prints.
import { Tensor } from 'attention-wasm';
import { exampleCard } from '../example.js';
import { numpyString, shapeTuple, vec } from '../format.js';
import { transposeLast, row, boolMask } from '../layout.js';
import { heatmap } from '../plot.js';
import { attentionDetail, slice2d } from '../detail.js';

const WORDS = ['Life', 'is', 'short', 'eat', 'dessert', 'first'];

export function seed001(A, root) {
  const section = document.createElement('section');
  section.className = 'document';
  section.dataset.document = '001';
  section.innerHTML = `<h2>Self-Attention Mechanism</h2>
    <p>Document 001 explains the batch shapes, why scores are divided by √d, and masking.</p>`;
  const cards = {
    'E1.1': exampleCard({ id: 'E1.1', title: 'a batch: B = 6 sentences, T = 8 words, C = 32, head size d = 16',
      code: 'X: (B, T, C) = (6, 8, 32);  W^K, W^Q, W^V: (C, d) = (32, 16)\nK = X @ W^K;  Q = X @ W^Q;  V = X @ W^V\nscores = Q @ K^T\nweights = softmax(scores / sqrt(d), dim=-1)\noutput = weights @ V' }),
    'E1.2': exampleCard({ id: 'E1.2', title: 'softmax of logits and of logits × 100',
      code: 'logits = torch.tensor([0.1,0.4,-0.9, 0.02, 0.35, -0.62])\nprint(torch.softmax(logits, dim=0).numpy().round(2)) # diffused\nprint(torch.softmax(logits*100, dim=0).numpy().round(2)) # One-hot-encoding' }),
    'E1.3': exampleCard({ id: 'E1.3', title: 'scaling by √d keeps the softmax from saturating',
      code: 'q = torch.randn(d); K = torch.randn(8, d)\nsoftmax(K @ q)            # unscaled: saturates as d grows\nsoftmax(K @ q / sqrt(d))  # scaled' }),
    'E1.4': exampleCard({ id: 'E1.4', title: 'look-ahead (causal) and padding masks',
      code: 'scores = Q @ K.T / sqrt(d)\nscores[future] = -inf      # look-ahead mask\nscores[:, padding] = -inf  # padding mask\nweights = softmax(scores, dim=-1)' }),
    'E1.5': exampleCard({ id: 'E1.5', title: 'what follows attention: residual, LayerNorm, ReLU/GELU, feed-forward',
      code: 'h = layer_norm(x + attention(x))\nffn = linear(gelu(linear(h, W1)), W2)\ny = layer_norm(h + ffn)' }),
  };
  for (const c of Object.values(cards)) section.append(c.el);
  root.append(section);

  // E1.1 — shapes, completed with random numbers.
  {
    const B = 6, T = 8, C = 32, d = 16;
    A.manualSeed(0);
    const X = A.randn(B, T, C);
    const WK = A.randn(C, d), WQ = A.randn(C, d), WV = A.randn(C, d);
    const K = A.matmul(X, WK), Q = A.matmul(X, WQ), V = A.matmul(X, WV);
    const scores = A.matmul(Q, transposeLast(K));
    const r = A.scaledDotProductAttention(Q, K, V, { returnIntermediates: true });
    const lines = [`X ${shapeTuple(X)}`, `W^K, W^Q, W^V ${shapeTuple(WK)}`, `K ${shapeTuple(K)}`, `Q ${shapeTuple(Q)}`,
      `V ${shapeTuple(V)}`, `scores ${shapeTuple(scores)}`, `weights ${shapeTuple(r.weights)}`, `output ${shapeTuple(r.output)}`];
    cards['E1.1'].show(lines.join('\n'),
      'The document gives shapes only; the page completes the computation with torch.manual_seed(0), X and the W\'s ~ N(0, 1). The heat map shows sentence 0\'s 8×8 weights.');
    const rows = [...Array(T).keys()].map((i) => `t${i}`);
    cards['E1.1'].controls.append(heatmap(slice2d(r.weights, T, T), { rows, rowLabels: rows, colLabels: rows,
      title: 'sentence 0: softmax(Q Kᵀ / √16)', detail: attentionDetail(r, { rows, cols: rows, scale: 1 / Math.sqrt(d) }) }));
  }

  // E1.2 — softmax of the logits, of the logits × 100, and of the logits × a chosen factor.
  {
    const card = cards['E1.2'];
    card.controls.innerHTML = `<label>multiply the logits by <input type="range" name="factor" min="0.1" max="100" step="0.1" value="1"> <output name="factorOut">1</output></label>`;
    const logits = [0.1, 0.4, -0.9, 0.02, 0.35, -0.62];
    const times = (s) => new Tensor(Float32Array.from(logits, (v) => v * s), [logits.length]);
    const update = () => {
      const s = Number(card.controls.querySelector('[name=factor]').value);
      card.controls.querySelector('[name=factorOut]').textContent = String(s);
      const p1 = A.softmax(times(1), { dim: 0 }), p100 = A.softmax(times(100), { dim: 0 }), ps = A.softmax(times(s), { dim: 0 });
      card.show(`${numpyString(p1, 2)}\n${numpyString(p100, 2)}\n× ${s}: ${numpyString(ps, 2)}`,
        `Softmax of the logits is spread out; × 100 makes it almost one-hot (a temperature of 0.01). The third line uses the slider (× ${s}, max weight ${Math.max(...ps.data).toFixed(2)}).`);
    };
    card.controls.addEventListener('input', update);
    update();
  }

  // E1.3 — scaled vs unscaled for growing d.
  {
    const card = cards['E1.3'];
    card.controls.innerHTML = `<label>d <input type="range" name="d" min="1" max="9" step="1" value="4"> <output name="dOut"></output></label>`;
    const update = () => {
      const d = 2 ** Number(card.controls.querySelector('[name=d]').value);
      card.controls.querySelector('[name=dOut]').textContent = String(d);
      A.manualSeed(1);
      const q = A.randn(1, d), K = A.randn(8, d);
      const raw = A.scaledDotProductAttention(q, K, K, { scale: 1, returnWeights: true });
      const scaled = A.scaledDotProductAttention(q, K, K, { returnWeights: true });
      card.show(`d = ${d}\nunscaled: ${numpyString(vec(raw.weights), 2)}\nscaled:   ${numpyString(vec(scaled.weights), 2)}`,
        `q·k has a standard deviation of about √d = ${Math.sqrt(d).toFixed(1)}, so without scaling the softmax turns one-hot as d grows (max ${Math.max(...raw.weights.data).toFixed(2)}); dividing by √d keeps it spread (max ${Math.max(...scaled.weights.data).toFixed(2)}).`);
    };
    card.controls.addEventListener('input', update);
    update();
  }

  // E1.4 — masks.
  {
    const card = cards['E1.4'];
    card.controls.innerHTML = `<label><input type="checkbox" name="causal"> look-ahead (causal) mask</label>
      <label>padding tokens at the end <input type="number" name="pad" min="0" max="5" value="0"></label>`;
    const plot = document.createElement('div');
    card.controls.after(plot);
    const T = 6, d = 16;
    const update = () => {
      const causal = card.controls.querySelector('[name=causal]').checked;
      const pad = Math.max(0, Math.min(5, Math.trunc(Number(card.controls.querySelector('[name=pad]').value) || 0)));
      A.manualSeed(123);
      const x = A.randn(T, d);
      const opts = { returnIntermediates: true };
      if (causal && pad === 0) opts.isCausal = true;
      else if (pad > 0) opts.attnMask = boolMask(T, T, (i, j) => j < T - pad && (!causal || j <= i));
      const r = A.scaledDotProductAttention(x, x, x, opts);
      const rows = WORDS.map((w, i) => (i >= T - pad ? `<pad>${i}` : w));
      card.show(`${r.weights}`, `q = k = v = the 6 word vectors (seed 123, N(0, 1)). ${causal ? 'Each word sees only itself and earlier words: the upper triangle is 0. ' : ''}${pad ? `The last ${pad} key column(s) are padding and get weight 0. ` : ''}Masked scores become −∞ before the softmax (hatched cells).`);
      plot.replaceChildren(heatmap(slice2d(r.weights, T, T), { rowLabels: rows, colLabels: rows,
        masked: (i, j) => r.masked.data[i * T + j] === -Infinity, title: 'attention weights (rows: queries, columns: keys)',
        detail: attentionDetail(r, { rows, cols: rows, scale: 1 / Math.sqrt(d) }) }));
    };
    card.controls.addEventListener('input', update);
    update();
  }

  // E1.5 — needs the nn ops (layerNorm, gelu, add); shown when the library has them.
  {
    const card = cards['E1.5'];
    if (typeof A.layerNorm !== 'function') {
      card.show('(needs A.layerNorm, A.gelu and A.add, which this build of the library does not have yet)',
        'The document describes these steps in words only.');
    } else {
      e15(A, card);
    }
  }
  return section;
}

function e15(A, card) {
  A.manualSeed(123);
  const T = 6, d = 16;
  const x = A.randn(T, d);
  const att = A.scaledDotProductAttention(x, x, x).output;
  const h = A.layerNorm(A.add(x, att), [d]);
  const W1 = A.randn(4 * d, d), W2 = A.randn(d, 4 * d);
  const ffn = A.linear(A.gelu(A.linear(h, W1)), W2);
  const y = A.layerNorm(A.add(h, ffn), [d]);
  card.show(`x + attention(x) -> layer_norm ${shapeTuple(h)}\nffn = linear(gelu(linear(h)))  ${shapeTuple(ffn)}\ny = layer_norm(h + ffn) ${shapeTuple(y)}\ny[0] = ${numpyString(row(y, 0), 2)}`,
    'Residual connection, LayerNorm (each row to mean 0, variance 1), a GELU feed-forward network (16 -> 64 -> 16), and again residual + LayerNorm; weights ~ N(0, 1), seed 123.');
}
