// Document 000, "Understanding and coding self-attention" (PyTorch, step by step): E0.1-E0.10.
// Every number shown is computed here by the library, from torch.manual_seed onwards; the words
// around them are in content/coding-self-attention.js.
import { Tensor } from 'attention-wasm';
import content from '../content/coding-self-attention.js';
import { documentSection, exampleOf } from '../example.js';
import { intValue, MAX_SEED } from '../controls.js';
import { torchSize } from '../format.js';
import { transposeLast } from '../layout.js';
import { heatmap } from '../plot.js';
import { attentionDetail, slice2d } from '../detail.js';

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
    const sentence = controls.querySelector('[name=sentence]').value;
    const seed = intValue(controls, 'seed', 0, MAX_SEED);
    const h = intValue(controls, 'heads', 1, 8);
    const e09 = exampleOf(content, 'E0.9');
    cards['E0.9'].retitle(e09.title(h));
    cards['E0.9'].recode(e09.code(h));
    const { words, dc, ids } = vocabulary(sentence);
    const vocab = Object.keys(dc).length;
    cards['E0.1'].show(
      `{${Object.entries(dc)
        .map(([k, v]) => `'${k}': ${v}`)
        .join(', ')}}`,
      cards['E0.1'].what({ vocab }),
    );
    cards['E0.2'].show(`tensor([${ids.join(', ')}])`, cards['E0.2'].what());
    if (words.length < 2) {
      cards['E0.3'].show(exampleOf(content, 'E0.3').tooShort, '');
      return;
    }

    A.manualSeed(seed);
    const embedWeight = A.randn(vocab, 16); // nn.Embedding(vocab, 16): weight ~ N(0, 1)
    const x = A.embedding(ids, embedWeight);
    cards['E0.3'].show(`${x}\n${torchSize(x)}`, cards['E0.3'].what({ seed, vocab }));

    A.manualSeed(seed);
    const d = 16,
      dq = intValue(controls, 'dk', 1, 256),
      dk = dq,
      dv = intValue(controls, 'dv', 1, 256);
    const W_query = A.rand(dq, d),
      W_key = A.rand(dk, d),
      W_value = A.rand(dv, d);
    const x2 = new Tensor(x.data.slice(d, 2 * d), [d]);
    const query2 = A.matmul(W_query, x2),
      key2 = A.matmul(W_key, x2),
      value2 = A.matmul(W_value, x2);
    cards['E0.4'].show([query2, key2, value2].map(torchSize).join('\n'), cards['E0.4'].what({ dk, dv }));

    const keys = A.linear(x, W_key),
      values = A.linear(x, W_value);
    cards['E0.5'].show(`keys.shape: ${torchSize(keys)}\nvalues.shape: ${torchSize(values)}`, cards['E0.5'].what());

    const key4 = new Tensor(keys.data.slice(4 * dk, 5 * dk), [dk]);
    const omega24 = A.matmul(query2, key4);
    const omega2 = A.matmul(keys, query2);
    cards['E0.6'].show(`${omega24}\n${omega2}`, cards['E0.6'].what());

    const weights = A.softmax(
      new Tensor(
        omega2.data.map((w) => w / Math.sqrt(dk)),
        omega2.shape,
      ),
      { dim: 0 },
    );
    cards['E0.7'].show(`${weights}`, cards['E0.7'].what({ dk }));

    const context = A.matmul(weights, values);
    cards['E0.8'].show(`${torchSize(context)}\n${context}`, cards['E0.8'].what({ words: words.length, dv }));

    // The same row through the library's SDPA, for the heat map of every word's weights.
    const queries = A.linear(x, W_query);
    const all = A.scaledDotProductAttention(queries, keys, values, { returnIntermediates: true });
    const n = words.length;
    weightsPlot.replaceChildren(
      heatmap(slice2d(all.weights, n, n), {
        rowLabels: words,
        colLabels: words,
        title: exampleOf(content, 'E0.7').plotTitle,
        detail: attentionDetail(all, { rows: words, cols: words, scale: 1 / Math.sqrt(dk) }),
      }),
    );

    // E0.9: drawn right after the single-head weights (same generator stream).
    const mhWq = A.rand(h, dq, d),
      mhWk = A.rand(h, dk, d),
      mhWv = A.rand(h, dv, d);
    const mhQuery2 = A.matmul(mhWq, x2); // (h, d_q)
    const xT = transposeLast(x).data;
    const stacked = new Tensor(
      new Float32Array(h * d * n).map((_, i) => xT[i % (d * n)]),
      [h, d, n],
    ); // .T.repeat(h, 1, 1)
    const mhKeys = A.matmul(mhWk, stacked),
      mhValues = A.matmul(mhWv, stacked); // (h, d_k, n), (h, d_v, n)
    const keysP = transposeLast(mhKeys),
      valuesP = transposeLast(mhValues); // permute(0, 2, 1)
    const q2 = new Tensor(mhQuery2.data, [h, 1, dq]);
    const mh = A.scaledDotProductAttention(q2, keysP, valuesP, { returnIntermediates: true }); // output (h, 1, d_v)
    const mhContext = new Tensor(mh.output.data, [h, dv]);
    cards['E0.9'].show(
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
      cards['E0.9'].what({ h, dk, dv }),
    );
    const headRows = [...Array(h).keys()].map((i) => `head ${i + 1}`);
    headsPlot.replaceChildren(
      heatmap(slice2d(mh.weights, h, n), {
        rowLabels: headRows,
        colLabels: words,
        title: exampleOf(content, 'E0.9').plotTitle,
        detail: attentionDetail(mh, { rows: headRows, cols: words, scale: 1 / Math.sqrt(dk) }),
      }),
    );

    // E0.10: cross-attention against a second sequence of 8 random tokens.
    A.manualSeed(seed);
    const cWq = A.rand(dq, d),
      cWk = A.rand(dk, d),
      cWv = A.rand(dv, d);
    const cQuery2 = A.matmul(cWq, x2);
    const x2seq = A.rand(8, d);
    const cKeys = A.linear(x2seq, cWk),
      cValues = A.linear(x2seq, cWv);
    const cq = A.linear(x, cWq); // every query word of sequence 1
    const cross = A.scaledDotProductAttention(cq, cKeys, cValues, { returnIntermediates: true });
    const cOmega = A.matmul(cKeys, cQuery2);
    const cWeights = A.softmax(
      new Tensor(
        cOmega.data.map((w) => w / Math.sqrt(dk)),
        cOmega.shape,
      ),
      { dim: 0 },
    );
    const cContext = A.matmul(cWeights, cValues);
    cards['E0.10'].show(
      `keys.shape: ${torchSize(cKeys)}\nvalues.shape: ${torchSize(cValues)}\ncontext_vector_2.shape: ${torchSize(cContext)}\n${cContext}`,
      cards['E0.10'].what(),
    );
    const cols = [...Array(8).keys()].map((j) => `y${j}`);
    crossPlot.replaceChildren(
      heatmap(slice2d(cross.weights, n, 8), {
        rowLabels: words,
        colLabels: cols,
        title: exampleOf(content, 'E0.10').plotTitle,
        detail: attentionDetail(cross, { rows: words, cols, scale: 1 / Math.sqrt(dk) }),
      }),
    );
  }
  controls.addEventListener('input', update);
  update();
  return section;
}
