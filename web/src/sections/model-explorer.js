// The model explorer of the reader's loaded model (after E4.6): every layer x head attention
// pattern for one sentence as small heat maps (the model view), the selected head large with its
// tokens on both axes, and one token's hidden state through the layers (its norm, and its cosine
// to the token's learned embedding). The numbers come from the worker's 'explore' job
// (encoder-jobs.js); the words from content/embeddings-and-heads.js.
import content from '../content/embeddings-and-heads.js';
import { prose } from '../example.js';
import { run } from '../worker-client.js';
import { heatmap, heatmapGrid, linePlot } from '../plot.js';
import { slice2d } from '../detail.js';

const TEXT = content.explorer;

/** The strongest weight of one (L, L) map: "bank → river 0.6312". */
function strongest(data, offset, L, tokens) {
  let best = offset;
  for (let k = offset; k < offset + L * L; k++) if (data[k] > data[best]) best = k;
  const i = Math.floor((best - offset) / L),
    j = (best - offset) % L;
  return `strongest weight ${tokens[i]} → ${tokens[j]} ${data[best].toFixed(4)}`;
}

/** Builds the explorer after `after`; returns { show(texts, wordIndices), clear() }. */
export function modelExplorer(after) {
  const el = document.createElement('article');
  el.className = 'example explorer';
  el.id = TEXT.id;
  el.innerHTML = `<h3></h3><p class="what intro"></p><p class="empty"></p>
    <div class="controls" hidden>
      <label>sentence <select name="sentence"><option value="0">sentence 1</option><option value="1">sentence 2</option></select></label>
      <label>token <select name="token"></select></label>
    </div>
    <div class="modelview"></div><div class="head"></div><div class="hiddenplots"></div>`;
  el.querySelector('h3').textContent = TEXT.title;
  el.querySelector('.intro').textContent = prose(TEXT.intro);
  const empty = el.querySelector('.empty');
  empty.textContent = TEXT.empty;
  const controls = el.querySelector('.controls');
  const sentenceSelect = controls.querySelector('[name=sentence]'),
    tokenSelect = controls.querySelector('[name=token]');
  const [modelView, headView, hiddenView] = ['.modelview', '.head', '.hiddenplots'].map((s) => el.querySelector(s));
  after.after(el);

  let texts = null,
    wordIndices = [],
    data = null,
    selected = [0, 0];

  function drawHead(layer, head) {
    selected = [layer, head];
    const { tokens, attentions, heads } = data,
      L = tokens.length;
    headView.replaceChildren(
      heatmap(slice2d({ data: attentions }, L, L, (layer * heads + head) * L * L), {
        rowLabels: tokens,
        colLabels: tokens,
        cell: Math.max(12, Math.min(34, Math.floor(520 / L))),
        title: `layer ${layer + 1}, head ${head + 1}: attention weights (rows: queries, columns: keys)`,
      }),
    );
    headView.firstChild.classList.add('selectedhead');
  }

  function drawHidden() {
    const i = Number(tokenSelect.value),
      { tokens, layers, norms, cosLearned } = data,
      L = tokens.length;
    const xLabels = ['emb', ...Array.from({ length: layers }, (_, l) => `${l + 1}`)];
    const across = (values) => Array.from({ length: layers + 1 }, (_, l) => values[l * L + i]);
    const where = (l) => (l === 0 ? 'after the embeddings' : `after layer ${l}`);
    hiddenView.replaceChildren(
      linePlot(across(norms), {
        xLabels,
        title: `'${tokens[i]}' (token ${i}): ${TEXT.norm}`,
        yLabel: '‖h‖',
        detail: (l) => `'${tokens[i]}' ${where(l)}: ‖h‖ = ${norms[l * L + i].toFixed(4)}`,
      }),
      linePlot(across(cosLearned), {
        xLabels,
        title: `'${tokens[i]}' (token ${i}): ${TEXT.cosine}`,
        yLabel: 'cosine',
        domain: [-1, 1],
        detail: (l) => `'${tokens[i]}' ${where(l)}: cos(h, learned embedding) = ${cosLearned[l * L + i].toFixed(4)}`,
      }),
    );
  }

  function draw(r) {
    data = r;
    const L = r.tokens.length;
    empty.hidden = true;
    controls.hidden = false;
    const keep = Number(tokenSelect.value);
    tokenSelect.replaceChildren(...r.tokens.map((t, i) => new Option(`${i}: ${t}`, String(i))));
    const wordIndex = wordIndices[Number(sentenceSelect.value)];
    tokenSelect.value = String(
      tokenSelect.dataset.chosen === 'true' && keep < L ? keep : wordIndex >= 0 ? wordIndex : 0,
    );
    const rowLabels = Array.from({ length: r.layers }, (_, l) => `layer ${l + 1}`);
    const colTicks = Array.from({ length: r.heads }, (_, h) => `${h + 1}`);
    const grid = heatmapGrid(r.attentions, {
      rows: r.layers,
      cols: r.heads,
      n: L,
      rowLabels,
      colLabels: colTicks.map((h) => `head ${h}`),
      colTicks,
      title: `model view: ${r.layers} layers × ${r.heads} heads, ${L} tokens`,
      describe: (i, j) => strongest(r.attentions, (i * r.heads + j) * L * L, L, r.tokens),
      onSelect: drawHead,
    });
    modelView.replaceChildren(grid);
    const [layer, head] = selected[0] < r.layers && selected[1] < r.heads ? selected : [0, 0];
    grid.select(layer, head);
    drawHidden();
  }

  async function refresh() {
    if (!texts) return;
    try {
      const r = await run('explore', { text: texts[Number(sentenceSelect.value)] }, { key: 'explore' });
      if (r) draw(r);
    } catch (e) {
      empty.hidden = false;
      empty.textContent = e.message;
    }
  }

  sentenceSelect.addEventListener('change', () => {
    tokenSelect.dataset.chosen = 'false';
    refresh();
  });
  tokenSelect.addEventListener('change', () => {
    tokenSelect.dataset.chosen = 'true';
    drawHidden();
  });
  return {
    show(sentences, indices) {
      texts = sentences;
      wordIndices = indices;
      return refresh();
    },
    clear() {
      texts = null;
      data = null;
      empty.hidden = false;
      empty.textContent = TEXT.empty;
      controls.hidden = true;
      for (const v of [modelView, headView, hiddenView]) v.replaceChildren();
    },
  };
}
