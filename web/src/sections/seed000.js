// Document 000, "Understanding and coding self-attention" (PyTorch, step by step): E0.1-E0.8.
// Every number shown is computed here by the library, from torch.manual_seed onwards.
import { Tensor } from 'attention-wasm';
import { exampleCard } from '../example.js';

const shapeOf = (t) => `torch.Size([${t.shape.join(', ')}])`;

/** Python's sorted() on str is code-point order, as JS's default sort. */
export function vocabulary(sentence) {
  const words = sentence.replace(/,/g, '').split(/\s+/).filter(Boolean);
  const dc = Object.fromEntries([...new Set(words)].sort().map((s, i) => [s, i]));
  return { words, dc, ids: words.map((w) => dc[w]) };
}

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
    <label>Seed <input type="number" name="seed" value="123" min="0" step="1"></label>`;
  section.append(controls);

  const cards = {
    'E0.1': exampleCard({ id: 'E0.1', title: 'vocabulary', code: "sentence = 'Life is short, eat dessert first'\ndc = {s:i for i,s in enumerate(sorted(sentence.replace(',', '').split()))}\nprint(dc)" }),
    'E0.2': exampleCard({ id: 'E0.2', title: 'sentence as integers', code: "sentence_int = torch.tensor([dc[s] for s in sentence.replace(',', '').split()])\nprint(sentence_int)" }),
    'E0.3': exampleCard({ id: 'E0.3', title: 'embedding', code: 'torch.manual_seed(123)\nembed = torch.nn.Embedding(6, 16)\nembedded_sentence = embed(sentence_int).detach()\nprint(embedded_sentence)\nprint(embedded_sentence.shape)' }),
    'E0.4': exampleCard({ id: 'E0.4', title: 'weight matrices and the projections of x_2', code: 'torch.manual_seed(123)\nd_q, d_k, d_v = 24, 24, 28\nW_query = torch.nn.Parameter(torch.rand(d_q, d))\nW_key = torch.nn.Parameter(torch.rand(d_k, d))\nW_value = torch.nn.Parameter(torch.rand(d_v, d))\nx_2 = embedded_sentence[1]\nquery_2 = W_query.matmul(x_2)\nkey_2 = W_key.matmul(x_2)\nvalue_2 = W_value.matmul(x_2)\nprint(query_2.shape)\nprint(key_2.shape)\nprint(value_2.shape)' }),
    'E0.5': exampleCard({ id: 'E0.5', title: 'all keys and values', code: 'keys = W_key.matmul(embedded_sentence.T).T\nvalues = W_value.matmul(embedded_sentence.T).T\nprint("keys.shape:", keys.shape)\nprint("values.shape:", values.shape)' }),
    'E0.6': exampleCard({ id: 'E0.6', title: 'unnormalised attention weights ω', code: 'omega_24 = query_2.dot(keys[4])\nprint(omega_24)\nomega_2 = query_2.matmul(keys.T)\nprint(omega_2)' }),
    'E0.7': exampleCard({ id: 'E0.7', title: 'scaled softmax', code: 'attention_weights_2 = F.softmax(omega_2 / d_k**0.5, dim=0)\nprint(attention_weights_2)' }),
    'E0.8': exampleCard({ id: 'E0.8', title: 'context vector z(2)', code: 'context_vector_2 = attention_weights_2.matmul(values)\nprint(context_vector_2.shape)\nprint(context_vector_2)' }),
  };
  for (const c of Object.values(cards)) section.append(c.el);
  root.append(section);

  function update() {
    const sentence = controls.querySelector('[name=sentence]').value;
    const seed = Math.max(0, Math.trunc(Number(controls.querySelector('[name=seed]').value) || 0));
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
    const d = 16, dq = 24, dk = 24, dv = 28;
    const W_query = A.rand(dq, d), W_key = A.rand(dk, d), W_value = A.rand(dv, d);
    const x2 = new Tensor(x.data.slice(d, 2 * d), [d]);
    const query2 = A.matmul(W_query, x2), key2 = A.matmul(W_key, x2), value2 = A.matmul(W_value, x2);
    cards['E0.4'].show([query2, key2, value2].map(shapeOf).join('\n'),
      'Three uniform [0, 1) weight matrices; the 2nd word projected to a query, a key (24 values) and a value (28).');

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
    cards['E0.8'].show(`${shapeOf(context)}\n${context}`, 'The attention-weighted sum of the 6 value vectors: 28 numbers, the context of word 2.');
  }
  controls.addEventListener('input', update);
  update();
}
