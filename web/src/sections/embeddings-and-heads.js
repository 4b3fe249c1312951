// Document 004, "Self-Attention Explained with Code": E4.1-E4.5 here, NumPy-style printing as the
// document prints; E4.6 (DistilBERT, the reader's files) in contextual-embeddings.js with the
// model explorer. The PE matrix and multi-head attention are computed in the Web Worker. The
// words and the document's toy inputs are in content/embeddings-and-heads.js.
import { Tensor } from 'attention-wasm';
import content from '../content/embeddings-and-heads.js';
import { documentSection } from '../example.js';
import { intValue, MAX_SEED } from '../controls.js';
import { numpyString, vec } from '../format.js';
import { positionalEncoding } from '../jobs.js';
import { run } from '../worker-client.js';
import { heatmap } from '../charts/heatmap.js';
import { scatter } from '../charts/scatter.js';
import { readout } from '../charts/readout.js';
import { attentionDetail, matrixOf } from '../detail.js';
import { contextualEmbeddings } from './contextual-embeddings.js';

const { toy: TOY, sentence: SENTENCE } = content;

/** Returns the section and a promise settled when the worker's first results are shown. */
export function embeddingsAndHeads(A, root) {
  const { section, cards } = documentSection(content, root);
  positionalEncodingExample(A, cards['E4.1']);
  const ready = [positionalEncodingMatrix(cards['E4.2'])];
  bankPicture(A, cards['E4.3'], cards['E4.4']);
  ready.push(multiHead(cards['E4.5']), contextualEmbeddings(cards['E4.6']));
  return { section, ready: Promise.all(ready) };
}

/** E4.1: the positional encoding added to random embeddings, d_model = 3. */
function positionalEncodingExample(A, card) {
  card.controls.innerHTML =
    '<label>Seed for the random embeddings <input type="number" name="seed" value="0" min="0"></label>';
  const update = () => {
    const pe = positionalEncoding(A, { dModel: 3, maxLength: 5, rounding: 2 });
    A.manualSeed(intValue(card.controls, 'seed', 0, MAX_SEED));
    const input = new Tensor(
      A.rand(5, 3).data.map((v) => Math.round(v * 100) / 100),
      [5, 3],
    );
    const output = A.add(input, pe);
    card.show(
      `Embeddings without positional encoding:\n\n${numpyString(input, 2)}\n\nPositional encoding:\n\n${numpyString(pe, 2)}\n\nEmbeddings with positional encoding:\n\n${numpyString(output, 2)}`,
      card.what(),
    );
  };
  card.controls.addEventListener('input', update);
  update();
}

/** E4.2 (worker): the PE matrix as a heat map. */
function positionalEncodingMatrix(card) {
  card.controls.innerHTML = `<label>d_model <input type="number" name="dModel" min="2" max="1024" value="400"></label>
    <label>max_length <input type="number" name="maxLength" min="1" max="512" value="100"></label>`;
  const plot = document.createElement('div');
  card.controls.after(plot);
  const update = async () => {
    const dModel = intValue(card.controls, 'dModel', 2, 1024),
      maxLength = intValue(card.controls, 'maxLength', 1, 512);
    const r = await run('pe', { dModel, maxLength, rounding: 4 });
    if (!r) return;
    const pe = (i, j) => r.data[i * dModel + j];
    plot.replaceChildren(
      heatmap(
        { data: r.data, n: maxLength, m: dModel },
        {
          title: `Positional Encoding Matrix (d_model=${dModel}, max_length=${maxLength})`,
          domain: [-1, 0, 1],
          colourBar: true,
          cell: 12,
          maxWidth: 640,
          maxHeight: 480,
          xLabel: 'Embedding Dimension, i',
          yLabel: 'Position, pos',
          detail: (i, j) =>
            `pos ${i}, i ${j}: ${j % 2 ? 'cos' : 'sin'}(${i} / 10000^(${j - (j % 2)}/${dModel})) = ${pe(i, j).toFixed(4)}`,
        },
      ),
    );
    const row = Math.min(1, maxLength - 1), // row 1 (pos 1), or row 0 of a one-row matrix
      columns = Math.min(4, dModel);
    const first = new Tensor(r.data.slice(row * dModel, row * dModel + columns), [columns]);
    card.show(
      `positional_encoding.shape: (${maxLength}, ${dModel})\nrow ${row}, first ${columns} columns: ${numpyString(first, 4)}`,
      card.what(),
    );
  };
  card.controls.addEventListener('input', update);
  return update();
}

/** E4.3 + E4.4: the bank picture from parameter-free attention. */
function bankPicture(A, c3, c4) {
  c3.controls.innerHTML =
    '<label><input type="checkbox" name="scaled" checked> divide by √d_model (d_model = 2)</label> <span class="hint">Drag "bank" (or focus it and use the arrow keys).</span>';
  const before = scatter({
    title: 'Learned embedding for "bank" without context',
    movable: 'bank',
    onMove: (x, y) => {
      bank = [x, y];
      update();
    },
  });
  const after = scatter({ title: 'Contextual embedding for "bank" after self-attention' });
  const plots = document.createElement('div');
  plots.className = 'scatters';
  plots.append(before, after);
  c3.controls.after(plots);
  let bank = [...TOY.bank];
  const tokens = [...TOY.words, 'bank'];
  const update = () => {
    const scaled = c3.controls.querySelector('[name=scaled]').checked;
    const X = new Tensor(Float32Array.from([...TOY.xs.flatMap((x, i) => [x, TOY.ys[i]]), ...bank]), [7, 2]);
    const opts = { returnIntermediates: true, scale: scaled ? undefined : 1 };
    const rb = A.scaledDotProductAttention(new Tensor(Float32Array.from(bank), [1, 2]), X, X, opts);
    const rall = A.scaledDotProductAttention(X, X, X, opts);
    const y = Array.from(rb.output.data);
    const words = TOY.words.map((w, i) => ({ x: TOY.xs[i], y: TOY.ys[i], label: w, kind: 'word' }));
    before.update([...words, { x: bank[0], y: bank[1], label: 'bank', kind: 'bank' }]);
    after.update(
      [
        ...words,
        { x: bank[0], y: bank[1], label: 'bank (before)', kind: 'ghost' },
        { x: y[0], y: y[1], label: 'bank', kind: 'after' },
      ],
      [{ from: bank, to: y }],
    );
    c3.show(
      `bank before: ${numpyString(new Tensor(Float32Array.from(bank), [2]), 2)}\nbank after:  ${numpyString(vec(rb.output), 2)}`,
      c3.what({ nearest: tokens[rb.weights.data.indexOf(Math.max(...rb.weights.data))] }),
    );
    c4.show(
      `tokens: ${tokens.join(', ')}\nS_bank = ${numpyString(vec(rb.scaled), 2)}\nW_bank = ${numpyString(vec(rb.weights), 2)}\ny_bank = ${numpyString(vec(rb.output), 2)}\nY =\n${numpyString(rall.output, 2)}`,
      c4.what({ scaled }),
    );
  };
  c3.controls.addEventListener('input', update);
  update();
}

/** E4.5 (worker): multi-head attention at d_model = 512, a heat map per head. */
function multiHead(card) {
  card.controls.innerHTML = `<label>heads h <select name="heads">${[1, 2, 4, 8, 16].map((h) => `<option${h === 8 ? ' selected' : ''}>${h}</option>`).join('')}</select></label>
    <label>seed <input type="number" name="seed" value="0" min="0"></label>`;
  const plots = document.createElement('div');
  plots.className = 'heads';
  const shared = readout('Hover or focus a cell of any head to see how it was computed.');
  card.controls.after(plots, shared.el);
  const update = async () => {
    const heads = Number(card.controls.querySelector('[name=heads]').value);
    const seed = intValue(card.controls, 'seed', 0, MAX_SEED);
    const dModel = 512,
      L = SENTENCE.length;
    const r = await run('multihead', { seed, heads, dModel, tokens: SENTENCE });
    if (!r) return;
    const s = r.shapes,
      sh = (a) => `(${a.join(', ')})`;
    card.show(
      `X ${sh(s.X)} -> Q, K, V per head ${sh(s.Q)}\nheads ${sh(s.heads)} -> concat ${sh(s.concat)} -> Y = concat @ W_O ${sh(s.Y)}\nd_k = 512 / ${heads} = ${512 / heads}\nY[bank][:5] = ${numpyString(new Tensor(Float32Array.from(r.yRow), [5]), 2)}\nA.MultiheadAttention with the same weights: max |ΔY| = ${r.moduleMaxDiff.toExponential(1)}`,
      card.what({ seed, heads, words: L }),
    );
    const inter = {
      weights: { data: r.weights, shape: [heads, L, L] },
      scores: { data: r.scores },
      scaled: { data: r.scaled },
      masked: { data: r.masked },
    };
    plots.replaceChildren(
      ...Array.from({ length: heads }, (_, h) =>
        heatmap(matrixOf(inter.weights, L, L, h * L * L), {
          rowLabels: SENTENCE,
          colLabels: SENTENCE,
          cell: heads > 4 ? 14 : 22,
          showValues: false,
          title: `head ${h + 1}`,
          readout: shared,
          detail: attentionDetail(inter, {
            rows: SENTENCE,
            cols: SENTENCE,
            scale: 1 / Math.sqrt(512 / heads),
            offset: h * L * L,
          }),
        }),
      ),
    );
  };
  card.controls.addEventListener('input', update);
  return update();
}
