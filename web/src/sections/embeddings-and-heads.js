// Document 004, "Self-Attention Explained with Code": E4.1-E4.5 (E4.6 needs model weights).
// NumPy-style printing, as the document prints. The PE matrix and multi-head attention are
// computed in the Web Worker.
import { Tensor } from 'attention-wasm';
import { exampleCard } from '../example.js';
import { numpyString, vec } from '../format.js';
import { positionalEncoding, hasPE } from '../jobs.js';
import { run } from '../worker-client.js';
import { heatmap, bigHeatmap, scatter } from '../plot.js';
import { attentionDetail, slice2d } from '../detail.js';

// The document's toy 2-D embeddings (inputs of its plot).
const TOY = { words: ['money', 'deposit', 'withdraw', 'nature', 'river', 'water'],
  xs: [0.5, 1.5, 2.5, 6.0, 7.5, 8.0], ys: [3.0, 1.2, 0.5, 8.0, 7.5, 5.5], bank: [4.5, 4.5] };
const SENTENCE = 'write a poem about a man fishing on a river bank'.split(' ');

export function seed004(A, root) {
  const section = document.createElement('section');
  section.className = 'document';
  section.dataset.document = '004';
  section.innerHTML = `<h2>Self-Attention Explained with Code</h2>
    <p>Document 004: positional encoding, the "bank" picture, parameter-free self-attention, Q/K/V and multi-head attention.</p>`;
  const cards = {
    'E4.1': exampleCard({ id: 'E4.1', title: 'sinusoidal positional encoding (d_model = 3, max_length = 5, rounding = 2)',
      code: "PE = PositionalEncoder(d_model=3, max_length=5, rounding=2)\ninput = np.round(np.random.rand(5, 3), 2)\noutput = PE.encode(input)\nprint(f'Embeddings without positional encoding:\\n\\n{input}\\n')\nprint(f'Positional encoding:\\n\\n{output-input}\\n')\nprint(f'Embeddings with positional encoding:\\n\\n{output}')" }),
    'E4.2': exampleCard({ id: 'E4.2', title: 'the positional-encoding matrix as a heat map',
      code: "PE = PositionalEncoder(d_model=400, max_length=100, rounding=4)\npositional_encoding = PE.generate_positional_encoding()\nplt.matshow(positional_encoding, cmap='coolwarm'); plt.colorbar()" }),
    'E4.3': exampleCard({ id: 'E4.3', title: 'the 2-D "bank" picture: bank moves towards its context',
      code: "xs = [0.5, 1.5, 2.5, 6.0, 7.5, 8.0]\nys = [3.0, 1.2, 0.5, 8.0, 7.5, 5.5]\nwords = ['money', 'deposit', 'withdraw', 'nature', 'river', 'water']\nbank = [4.5, 4.5]   # before attention" }),
    'E4.4': exampleCard({ id: 'E4.4', title: 'parameter-free self-attention: S_bank = x_bank · Xᵀ, softmax, weighted sum',
      code: 'S_bank = x_bank @ X.T / np.sqrt(d_model)\nW_bank = softmax(S_bank)\ny_bank = W_bank @ X\nY = softmax(X @ X.T / np.sqrt(d_model)) @ X   # every token at once' }),
    'E4.5': exampleCard({ id: 'E4.5', title: 'Q, K, V with learned weights; multi-head attention (d_k = d_model / h)',
      code: 'Q, K, V = X @ W_Q, X @ W_K, X @ W_V          # (L, 512)\nsplit into h heads of d_k = 512 / h           # (h, L, d_k)\nheads = softmax(Q_h K_h^T / sqrt(d_k)) V_h\nY = concat(heads) @ W_O                       # (L, 512)' }),
    'E4.6': exampleCard({ id: 'E4.6', title: 'DistilBERT: learned vs contextual embeddings of "bank"',
      code: "model = AutoModel.from_pretrained('distilbert-base-uncased')\nextract_te('Write a poem about a man fishing on a river bank.', tokenizer, model)[11]" }),
  };
  for (const c of Object.values(cards)) section.append(c.el);
  root.append(section);

  // E4.1
  {
    const card = cards['E4.1'];
    card.controls.innerHTML = '<label>Seed for the random embeddings <input type="number" name="seed" value="0" min="0"></label>';
    const update = () => {
      const pe = positionalEncoding(A, { dModel: 3, maxLength: 5, rounding: 2 });
      A.manualSeed(Math.max(0, Math.trunc(Number(card.controls.querySelector('[name=seed]').value) || 0)));
      const input = new Tensor(A.rand(5, 3).data.map((v) => Math.round(v * 100) / 100), [5, 3]);
      const output = typeof A.add === 'function' ? A.add(input, pe) : new Tensor(input.data.map((v, i) => v + pe.data[i]), [5, 3]);
      card.show(`Embeddings without positional encoding:\n\n${numpyString(input, 2)}\n\nPositional encoding:\n\n${numpyString(pe, 2)}\n\nEmbeddings with positional encoding:\n\n${numpyString(output, 2)}`,
        `${hasPE(A) ? 'A.positionalEncoding' : 'The page (this build of the library has no positionalEncoding yet)'} computes the matrix: row pos holds sin/cos of pos / 10000^(2i/3); d_model = 3 is odd, so the 4th (cosine) column is dropped.`
        + ' The document\'s random input is unseeded: the page draws its own (torch.rand with this seed), so only the positional encoding matches the document.');
    };
    card.controls.addEventListener('input', update);
    update();
  }

  // E4.2 (worker)
  {
    const card = cards['E4.2'];
    card.controls.innerHTML = `<label>d_model <input type="number" name="dModel" min="2" max="1024" value="400"></label>
      <label>max_length <input type="number" name="maxLength" min="1" max="512" value="100"></label>`;
    const plot = document.createElement('div');
    card.controls.after(plot);
    const update = async () => {
      const v = (n, lo, hi) => Math.max(lo, Math.min(hi, Math.trunc(Number(card.controls.querySelector(`[name=${n}]`).value) || lo)));
      const dModel = v('dModel', 2, 1024), maxLength = v('maxLength', 1, 512);
      const r = await run('pe', { dModel, maxLength, rounding: 4 });
      if (!r) return;
      const values = Array.from({ length: maxLength }, (_, i) => Array.from(r.data.subarray(i * dModel, (i + 1) * dModel)));
      plot.replaceChildren(bigHeatmap(values, { title: `Positional Encoding Matrix (d_model=${dModel}, max_length=${maxLength})`,
        xLabel: 'Embedding Dimension, i', yLabel: 'Position, pos',
        detail: (i, j) => `pos ${i}, i ${j}: ${j % 2 ? 'cos' : 'sin'}(${i} / 10000^(${j - (j % 2)}/${dModel})) = ${values[i][j].toFixed(4)}` }));
      card.show(`positional_encoding.shape: (${maxLength}, ${dModel})\nrow 1, first 4 columns: ${numpyString(new Tensor(r.data.slice(dModel, dModel + Math.min(4, dModel)), [Math.min(4, dModel)]), 4)}`,
        'Low dimensions oscillate quickly along the positions, high ones slowly: the curving blue (negative) bands from the left edge are what the model learns to read position from.');
    };
    card.controls.addEventListener('input', update);
    update();
  }

  // E4.3 + E4.4: bank picture from parameter-free attention.
  {
    const c3 = cards['E4.3'], c4 = cards['E4.4'];
    c3.controls.innerHTML = '<label><input type="checkbox" name="scaled" checked> divide by √d_model (d_model = 2)</label> <span class="hint">Drag "bank" (or focus it and use the arrow keys).</span>';
    const before = scatter({ title: 'Learned embedding for "bank" without context', movable: 'bank', onMove: (x, y) => { bank = [x, y]; update(); } });
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
      after.update([...words, { x: bank[0], y: bank[1], label: 'bank (before)', kind: 'ghost' }, { x: y[0], y: y[1], label: 'bank', kind: 'after' }],
        [{ from: bank, to: y }]);
      c3.show(`bank before: ${numpyString(new Tensor(Float32Array.from(bank), [2]), 2)}\nbank after:  ${numpyString(vec(rb.output), 2)}`,
        `Computed by attention over the six toy words and bank itself (the document draws its second picture by hand). Bank moves towards the words it is most similar to — here ${tokens[rb.weights.data.indexOf(Math.max(...rb.weights.data))]}.`);
      c4.show(`tokens: ${tokens.join(', ')}\nS_bank = ${numpyString(vec(rb.scaled), 2)}\nW_bank = ${numpyString(vec(rb.weights), 2)}\ny_bank = ${numpyString(vec(rb.output), 2)}\nY =\n${numpyString(rall.output, 2)}`,
        `Dot products of bank with every token${scaled ? ', divided by √2' : ''}, a softmax, and the weighted sum of the token vectors. Y does the same for every token at once (its last row is y_bank).`);
    };
    c3.controls.addEventListener('input', update);
    update();
  }

  // E4.5 (worker)
  {
    const card = cards['E4.5'];
    card.controls.innerHTML = `<label>heads h <select name="heads">${[1, 2, 4, 8, 16].map((h) => `<option${h === 8 ? ' selected' : ''}>${h}</option>`).join('')}</select></label>
      <label>seed <input type="number" name="seed" value="0" min="0"></label>`;
    const plots = document.createElement('div');
    plots.className = 'heads';
    const info = document.createElement('p');
    info.className = 'hover';
    info.setAttribute('aria-live', 'polite');
    info.textContent = 'Hover or focus a cell of any head to see how it was computed.';
    card.controls.after(plots, info);
    const update = async () => {
      const heads = Number(card.controls.querySelector('[name=heads]').value);
      const seed = Math.max(0, Math.trunc(Number(card.controls.querySelector('[name=seed]').value) || 0));
      const dModel = 512, L = SENTENCE.length;
      const r = await run('multihead', { seed, heads, dModel, tokens: SENTENCE });
      if (!r) return;
      const s = r.shapes, sh = (a) => `(${a.join(', ')})`;
      card.show(`X ${sh(s.X)} -> Q, K, V per head ${sh(s.Q)}\nheads ${sh(s.heads)} -> concat ${sh(s.concat)} -> Y = concat @ W_O ${sh(s.Y)}\nd_k = 512 / ${heads} = ${512 / heads}\nY[bank][:5] = ${numpyString(new Tensor(Float32Array.from(r.yRow), [5]), 2)}${r.moduleMaxDiff === null ? '' : `\nA.MultiheadAttention with the same weights: max |ΔY| = ${r.moduleMaxDiff.toExponential(1)}`}`,
        `The 11 words (random N(0, 1) vectors, seed ${seed}; weights N(0, 1/512)) go through ${heads} head(s) of size ${512 / heads}; each head has its own attention pattern (below); a linear layer mixes the concatenated heads back to 512 dimensions.`);
      const inter = { weights: { data: r.weights, shape: [heads, L, L] }, scores: { data: r.scores }, scaled: { data: r.scaled }, masked: { data: r.masked } };
      plots.replaceChildren(...Array.from({ length: heads }, (_, h) => heatmap(slice2d(inter.weights, L, L, h * L * L), {
        rowLabels: SENTENCE, colLabels: SENTENCE, cell: heads > 4 ? 14 : 22, showValues: false, title: `head ${h + 1}`, info,
        detail: attentionDetail(inter, { rows: SENTENCE, cols: SENTENCE, scale: 1 / Math.sqrt(512 / heads), offset: h * L * L }) })));
    };
    card.controls.addEventListener('input', update);
    update();
  }

  cards['E4.6'].show('(not computed: needs the distilbert-base-uncased weights, which the page cannot download)',
    'This example needs a user-supplied copy of the model weights (safetensors); it is out of scope for this page.');
  return section;
}
