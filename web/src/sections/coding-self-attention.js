// Document 000, "Understanding and coding self-attention" (PyTorch, step by step): E0.1-E0.10.
// Every number shown is computed here by the library, from torch.manual_seed onwards.
import { Tensor } from 'attention-wasm';
import { exampleCard } from '../example.js';
import { transposeLast } from '../layout.js';
import { heatmap } from '../plot.js';
import { attentionDetail, slice2d } from '../detail.js';

const shapeOf = (t) => `torch.Size([${t.shape.join(', ')}])`;

/** Python's sorted() on str is code-point order, as JS's default sort. */
export function vocabulary(sentence) {
  const words = sentence.replace(/,/g, '').split(/\s+/).filter(Boolean);
  const dc = Object.fromEntries([...new Set(words)].sort().map((s, i) => [s, i]));
  return { words, dc, ids: words.map((w) => dc[w]) };
}

/** E0.9's heading and snippet for h heads (the document's h = 3; they follow the heads control). */
const e09Title = (h) => `multi-head attention, h = ${h}`;
const e09Code = (h) => `h = ${h}\nmultihead_W_query = torch.nn.Parameter(torch.rand(h, d_q, d))\nmultihead_W_key = torch.nn.Parameter(torch.rand(h, d_k, d))\nmultihead_W_value = torch.nn.Parameter(torch.rand(h, d_v, d))\nmultihead_query_2 = multihead_W_query.matmul(x_2)\nprint(multihead_query_2.shape)\nstacked_inputs = embedded_sentence.T.repeat(${h}, 1, 1)\nprint(stacked_inputs.shape)\nmultihead_keys = torch.bmm(multihead_W_key, stacked_inputs)\nmultihead_values = torch.bmm(multihead_W_value, stacked_inputs)\nprint("multihead_keys.shape:", multihead_keys.shape)\nprint("multihead_values.shape:", multihead_values.shape)\nmultihead_keys = multihead_keys.permute(0, 2, 1)\nmultihead_values = multihead_values.permute(0, 2, 1)\nprint("multihead_keys.shape:", multihead_keys.shape)\nprint("multihead_values.shape:", multihead_values.shape)\n# then: scaled softmax per head -> an h x d_v context vector for x_2`;

export function seed000(A, root) {
  const section = document.createElement('section');
  section.className = 'document';
  section.dataset.document = '000';
  section.innerHTML = `<h2>Understanding and coding self-attention</h2>
    <p>Document 000 builds scaled dot-product attention step by step in PyTorch. Edit the
    sentence or the seed: every step below is recomputed.</p>`;
  const controls = document.createElement('div');
  controls.className = 'controls';
  controls.innerHTML = `
    <label>Sentence <input type="text" name="sentence" value="Life is short, eat dessert first"></label>
    <label>Seed <input type="number" name="seed" value="123" min="0" step="1"></label>
    <label>d_q = d_k <input type="number" name="dk" value="24" min="1" max="256"></label>
    <label>d_v <input type="number" name="dv" value="28" min="1" max="256"></label>
    <label>heads h (E0.9) <input type="number" name="heads" value="3" min="1" max="8"></label>`;
  section.append(controls);

  const cards = {
    'E0.1': exampleCard({ id: 'E0.1', title: 'vocabulary', code: "sentence = 'Life is short, eat dessert first'\ndc = {s:i for i,s in enumerate(sorted(sentence.replace(',', '').split()))}\nprint(dc)" }),
    'E0.2': exampleCard({ id: 'E0.2', title: 'sentence as integers', code: "sentence_int = torch.tensor([dc[s] for s in sentence.replace(',', '').split()])\nprint(sentence_int)" }),
    'E0.3': exampleCard({ id: 'E0.3', title: 'embedding', code: 'torch.manual_seed(123)\nembed = torch.nn.Embedding(6, 16)\nembedded_sentence = embed(sentence_int).detach()\nprint(embedded_sentence)\nprint(embedded_sentence.shape)' }),
    'E0.4': exampleCard({ id: 'E0.4', title: 'weight matrices and the projections of x_2', code: 'torch.manual_seed(123)\nd_q, d_k, d_v = 24, 24, 28\nW_query = torch.nn.Parameter(torch.rand(d_q, d))\nW_key = torch.nn.Parameter(torch.rand(d_k, d))\nW_value = torch.nn.Parameter(torch.rand(d_v, d))\nx_2 = embedded_sentence[1]\nquery_2 = W_query.matmul(x_2)\nkey_2 = W_key.matmul(x_2)\nvalue_2 = W_value.matmul(x_2)\nprint(query_2.shape)\nprint(key_2.shape)\nprint(value_2.shape)' }),
    'E0.5': exampleCard({ id: 'E0.5', title: 'all keys and values', code: 'keys = W_key.matmul(embedded_sentence.T).T\nvalues = W_value.matmul(embedded_sentence.T).T\nprint("keys.shape:", keys.shape)\nprint("values.shape:", values.shape)' }),
    'E0.6': exampleCard({ id: 'E0.6', title: 'unnormalised attention weights ω', code: 'omega_24 = query_2.dot(keys[4])\nprint(omega_24)\nomega_2 = query_2.matmul(keys.T)\nprint(omega_2)' }),
    'E0.7': exampleCard({ id: 'E0.7', title: 'scaled softmax', code: 'attention_weights_2 = F.softmax(omega_2 / d_k**0.5, dim=0)\nprint(attention_weights_2)' }),
    'E0.9': exampleCard({ id: 'E0.9', title: e09Title(3), code: e09Code(3) }),
    'E0.10': exampleCard({ id: 'E0.10', title: 'cross-attention with a second sequence of 8 tokens', code: 'torch.manual_seed(123)\nW_query = torch.rand(d_q, d)\nW_key = torch.rand(d_k, d)\nW_value = torch.rand(d_v, d)\nx_2 = embedded_sentence[1]\nquery_2 = W_query.matmul(x_2)\nembedded_sentence_2 = torch.rand(8, 16) # 2nd input sequence\nkeys = W_key.matmul(embedded_sentence_2.T).T\nvalues = W_value.matmul(embedded_sentence_2.T).T\nprint("keys.shape:", keys.shape)\nprint("values.shape:", values.shape)' }),
    'E0.8': exampleCard({ id: 'E0.8', title: 'context vector z(2)', code: 'context_vector_2 = attention_weights_2.matmul(values)\nprint(context_vector_2.shape)\nprint(context_vector_2)' }),
  };
  for (const id of ['E0.1', 'E0.2', 'E0.3', 'E0.4', 'E0.5', 'E0.6', 'E0.7', 'E0.8', 'E0.9', 'E0.10']) section.append(cards[id].el);
  const weightsPlot = document.createElement('div'), headsPlot = document.createElement('div'), crossPlot = document.createElement('div');
  headsPlot.className = 'heads';
  cards['E0.7'].controls.after(weightsPlot);
  cards['E0.9'].controls.after(headsPlot);
  cards['E0.10'].controls.after(crossPlot);
  root.append(section);

  function update() {
    const sentence = controls.querySelector('[name=sentence]').value;
    const seed = Math.max(0, Math.trunc(Number(controls.querySelector('[name=seed]').value) || 0));
    const int = (n, lo, hi) => Math.max(lo, Math.min(hi, Math.trunc(Number(controls.querySelector(`[name=${n}]`).value) || lo)));
    const h = int('heads', 1, 8);
    cards['E0.9'].retitle(e09Title(h));
    cards['E0.9'].recode(e09Code(h));
    const { words, dc, ids } = vocabulary(sentence);
    const vocab = Object.keys(dc).length;
    cards['E0.1'].show(`{${Object.entries(dc).map(([k, v]) => `'${k}': ${v}`).join(', ')}}`,
      `${vocab} distinct words, sorted case-sensitively (capitals first), numbered from 0.`);
    cards['E0.2'].show(`tensor([${ids.join(', ')}])`, 'Each word replaced by its index in the vocabulary.');
    if (words.length < 2) {
      cards['E0.3'].show('(type a sentence of at least two words)', '');
      return;
    }

    A.manualSeed(seed);
    const embedWeight = A.randn(vocab, 16); // nn.Embedding(vocab, 16): weight ~ N(0, 1)
    const x = A.embedding(ids, embedWeight);
    cards['E0.3'].show(`${x}\n${shapeOf(x)}`,
      `torch.manual_seed(${seed}) then a ${vocab}×16 embedding table drawn with torch's normal generator; row i is the vector of word i.`);

    A.manualSeed(seed);
    const d = 16, dq = int('dk', 1, 256), dk = dq, dv = int('dv', 1, 256);
    const W_query = A.rand(dq, d), W_key = A.rand(dk, d), W_value = A.rand(dv, d);
    const x2 = new Tensor(x.data.slice(d, 2 * d), [d]);
    const query2 = A.matmul(W_query, x2), key2 = A.matmul(W_key, x2), value2 = A.matmul(W_value, x2);
    cards['E0.4'].show([query2, key2, value2].map(shapeOf).join('\n'),
      `Three uniform [0, 1) weight matrices; the 2nd word projected to a query, a key (${dk} values) and a value (${dv}).`);

    const keys = A.linear(x, W_key), values = A.linear(x, W_value);
    cards['E0.5'].show(`keys.shape: ${shapeOf(keys)}\nvalues.shape: ${shapeOf(values)}`,
      'W x for every word at once: one key and one value per word.');

    const key4 = new Tensor(keys.data.slice(4 * dk, 5 * dk), [dk]);
    const omega24 = A.matmul(query2, key4);
    const omega2 = A.matmul(keys, query2);
    cards['E0.6'].show(`${omega24}\n${omega2}`, 'Dot products of query 2 with every key: how well each word matches word 2.');

    const weights = A.softmax(new Tensor(omega2.data.map((w) => w / Math.sqrt(dk)), omega2.shape), { dim: 0 });
    cards['E0.7'].show(`${weights}`, `ω divided by √d_k = √${dk} ≈ ${Math.sqrt(dk).toFixed(4)}, then softmax: the weights sum to 1.`);

    const context = A.matmul(weights, values);
    cards['E0.8'].show(`${shapeOf(context)}\n${context}`, `The attention-weighted sum of the ${words.length} value vectors: ${dv} numbers, the context of word 2.`);

    // The same row through the library's SDPA, for the heat map of every word's weights.
    const queries = A.linear(x, W_query);
    const all = A.scaledDotProductAttention(queries, keys, values, { returnIntermediates: true });
    const n = words.length;
    weightsPlot.replaceChildren(heatmap(slice2d(all.weights, n, n), { rowLabels: words, colLabels: words,
      title: 'softmax(ω / √d_k) for every query word (row 2 is attention_weights_2)',
      detail: attentionDetail(all, { rows: words, cols: words, scale: 1 / Math.sqrt(dk) }) }));

    // E0.9: drawn right after the single-head weights (same generator stream).
    const mhWq = A.rand(h, dq, d), mhWk = A.rand(h, dk, d), mhWv = A.rand(h, dv, d);
    const mhQuery2 = A.matmul(mhWq, x2); // (h, d_q)
    const xT = transposeLast(x).data;
    const stacked = new Tensor(new Float32Array(h * d * n).map((_, i) => xT[i % (d * n)]), [h, d, n]); // .T.repeat(h, 1, 1)
    const mhKeys = A.matmul(mhWk, stacked), mhValues = A.matmul(mhWv, stacked); // (h, d_k, n), (h, d_v, n)
    const keysP = transposeLast(mhKeys), valuesP = transposeLast(mhValues); // permute(0, 2, 1)
    const q2 = new Tensor(mhQuery2.data, [h, 1, dq]);
    const mh = A.scaledDotProductAttention(q2, keysP, valuesP, { returnIntermediates: true }); // output (h, 1, d_v)
    const mhContext = new Tensor(mh.output.data, [h, dv]);
    cards['E0.9'].show([shapeOf(mhQuery2), shapeOf(stacked), `multihead_keys.shape: ${shapeOf(mhKeys)}`, `multihead_values.shape: ${shapeOf(mhValues)}`,
      `multihead_keys.shape: ${shapeOf(keysP)}`, `multihead_values.shape: ${shapeOf(valuesP)}`,
      `multihead_context_vector_2.shape: ${shapeOf(mhContext)}`, `${mhContext}`].join('\n'),
    `The document stops at the shapes; the page completes it: each of the ${h} heads takes softmax(q·k / √${dk}) over its own keys and sums its own values, giving ${h} context vectors of ${dv} values for word 2.`);
    const headRows = [...Array(h).keys()].map((i) => `head ${i + 1}`);
    headsPlot.replaceChildren(heatmap(slice2d(mh.weights, h, n), { rowLabels: headRows, colLabels: words,
      title: 'attention weights of word 2, per head', detail: attentionDetail(mh, { rows: headRows, cols: words, scale: 1 / Math.sqrt(dk) }) }));

    // E0.10: cross-attention against a second sequence of 8 random tokens.
    A.manualSeed(seed);
    const cWq = A.rand(dq, d), cWk = A.rand(dk, d), cWv = A.rand(dv, d);
    const cQuery2 = A.matmul(cWq, x2);
    const x2seq = A.rand(8, d);
    const cKeys = A.linear(x2seq, cWk), cValues = A.linear(x2seq, cWv);
    const cq = A.linear(x, cWq); // every query word of sequence 1
    const cross = A.scaledDotProductAttention(cq, cKeys, cValues, { returnIntermediates: true });
    const cOmega = A.matmul(cKeys, cQuery2);
    const cWeights = A.softmax(new Tensor(cOmega.data.map((w) => w / Math.sqrt(dk)), cOmega.shape), { dim: 0 });
    const cContext = A.matmul(cWeights, cValues);
    cards['E0.10'].show(`keys.shape: ${shapeOf(cKeys)}\nvalues.shape: ${shapeOf(cValues)}\ncontext_vector_2.shape: ${shapeOf(cContext)}\n${cContext}`,
      'Queries from the sentence, keys and values from a second sequence of 8 random tokens: the context of word 2 now mixes the 8 values of the other sequence (the document prints the shapes; the page completes the context vector).');
    const cols = [...Array(8).keys()].map((j) => `y${j}`);
    crossPlot.replaceChildren(heatmap(slice2d(cross.weights, n, 8), { rowLabels: words, colLabels: cols,
      title: 'cross-attention weights: sentence words (rows) × second sequence (columns)',
      detail: attentionDetail(cross, { rows: words, cols, scale: 1 / Math.sqrt(dk) }) }));
  }
  controls.addEventListener('input', update);
  update();
}
