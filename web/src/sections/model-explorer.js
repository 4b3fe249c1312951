// The model explorer of the reader's loaded model (after E4.6): every layer x head attention
// pattern for one of E4.6's sentences as small heat maps (the model view), the selected head
// large with its tokens on both axes (attention-views.js), and one token's hidden state through
// the layers (its norm, and its cosine to the token's learned embedding). It draws what E4.6's
// one request to the worker returned (job 'e46' in encoder-jobs.js: one forward per sentence);
// choosing the other sentence or a token computes nothing. With a masked-LM head, the fill-mask
// card's sentence is a third choice, showing the rows of its [MASK] tokens (where [MASK] looks).
// The words are in content/embeddings-and-heads.js.
import content from '../content/embeddings-and-heads.js';
import { prose } from '../example.js';
import { attentionViews } from '../attention-views.js';
import { linePlot } from '../charts/line-plot.js';
import { timed } from '../timing.js';

const TEXT = content.explorer;

/**
 * The attention source (attention-views.js) of one sentence of E4.6's result: every token's
 * row; or of the fill-mask sentence (s.masks): the rows of its [MASK] tokens only, (layers,
 * heads, masks, L) taken from the full (layers, heads, L, L).
 */
function sourceOf(s) {
  const { layers, heads, attentions } = s.explorer,
    L = s.tokens.length;
  if (!s.masks) return { layers, heads, tokens: s.tokens, queries: s.tokens.map((_, i) => i), weights: attentions };
  const M = s.masks.length;
  const weights = new Float32Array(layers * heads * M * L);
  for (let lh = 0; lh < layers * heads; lh++)
    s.masks.forEach((q, m) =>
      weights.set(attentions.subarray((lh * L + q) * L, (lh * L + q + 1) * L), (lh * M + m) * L),
    );
  return { layers, heads, tokens: s.tokens, queries: s.masks, weights };
}

/** The two line plots of token i's hidden state through the layers. */
function hiddenPlots(s, i) {
  const { tokens } = s,
    { layers, norms, cosLearned } = s.explorer,
    L = tokens.length;
  const xLabels = ['emb', ...Array.from({ length: layers }, (_, l) => `${l + 1}`)];
  const across = (values) => Array.from({ length: layers + 1 }, (_, l) => values[l * L + i]);
  const where = (l) => (l === 0 ? 'after the embeddings' : `after layer ${l}`);
  return [
    linePlot(across(norms), {
      xLabels,
      title: `'${tokens[i]}' (token ${i}): ${TEXT.norm}`,
      yLabel: '‖h‖',
      detail: (l) => `'${tokens[i]}' ${where(l)}: ‖h‖ = ${norms[l * L + i].toFixed(4)}`,
      name: `norm-token${i}`,
    }),
    linePlot(across(cosLearned), {
      xLabels,
      title: `'${tokens[i]}' (token ${i}): ${TEXT.cosine}`,
      yLabel: 'cosine',
      domain: [-1, 1],
      detail: (l) => `'${tokens[i]}' ${where(l)}: cos(h, learned embedding) = ${cosLearned[l * L + i].toFixed(4)}`,
      name: `cosine-token${i}`,
    }),
  ];
}

/**
 * Builds the explorer after `after`; returns { show(sentences), clear() }. Its parts are drawn in
 * tasks of their own after E4.6's lines (the token list, the views, then the plots; the head view and the model
 * view's maps after them: attention-views.js), none long at 512 tokens.
 */
export function modelExplorer(after) {
  const el = document.createElement('article');
  el.className = 'example explorer';
  el.id = TEXT.id;
  el.innerHTML = `<h3></h3><p class="what intro"></p><p class="empty"></p>
    <div class="controls" hidden>
      <label>sentence <select name="sentence"><option value="0">sentence 1</option><option value="1">sentence 2</option></select></label>
      <label>token <select name="token"></select></label>
    </div>
    <div class="views"></div><div class="hiddenplots"></div>`;
  el.querySelector('h3').textContent = TEXT.title;
  const maskOption = new Option(content.fillMask.sentenceOption, 'mask');
  maskOption.hidden = maskOption.disabled = true;
  el.querySelector('.intro').textContent = prose(TEXT.intro);
  const empty = el.querySelector('.empty');
  empty.textContent = TEXT.empty;
  const controls = el.querySelector('.controls');
  const sentenceSelect = controls.querySelector('[name=sentence]'),
    tokenSelect = controls.querySelector('[name=token]');
  sentenceSelect.append(maskOption);
  const hiddenView = el.querySelector('.hiddenplots');
  const views = attentionViews();
  el.querySelector('.views').replaceWith(views.el);
  after.after(el);

  let sentences = null,
    masked = null, // the fill-mask card's sentence ({ tokens, masks, explorer })
    pending = 0;
  const current = () => (sentenceSelect.value === 'mask' ? masked : sentences[Number(sentenceSelect.value)]);
  /** Runs fn in a task of its own (replacing one not yet run): the page answers in between. */
  const later = (fn) => {
    clearTimeout(pending);
    pending = setTimeout(fn, 0);
  };

  function drawHidden() {
    hiddenView.replaceChildren(...timed('hidden-state plots', () => hiddenPlots(current(), Number(tokenSelect.value))));
  }

  /** The chosen sentence: its views, and the token chosen before (else the word's). */
  function draw() {
    const s = current(),
      L = s.tokens.length;
    empty.hidden = true;
    controls.hidden = false;
    const keep = Number(tokenSelect.value);
    tokenSelect.replaceChildren(...s.tokens.map((t, i) => new Option(`${i}: ${t}`, String(i))));
    const first = s.masks ? s.masks[0] : Math.max(0, s.index);
    tokenSelect.value = String(tokenSelect.dataset.chosen === 'true' && keep < L ? keep : first);
    // the views in a task of their own: at 512 tokens, building the token list's options and the
    // model view in one task took 30-60 ms on a busy 2-core machine
    later(() => {
      views.show(sourceOf(s));
      later(drawHidden);
    });
  }

  sentenceSelect.addEventListener('change', () => {
    tokenSelect.dataset.chosen = 'false';
    timed('explorer', draw);
  });
  tokenSelect.addEventListener('change', () => {
    tokenSelect.dataset.chosen = 'true';
    drawHidden();
  });
  return {
    /** E4.6's sentences as the worker returned them ({ tokens, index, explorer }). */
    show(results) {
      sentences = results;
      later(() => timed('explorer', draw));
    },
    /** The fill-mask card's result ({ tokens, masks, explorer }): the '[MASK] sentence' choice. */
    showMasked(result) {
      masked = result;
      maskOption.hidden = maskOption.disabled = false;
      if (sentences && sentenceSelect.value === 'mask') later(() => timed('explorer', draw));
    },
    /** No model: no explorer; or a message (what went wrong). */
    clear(message = TEXT.empty) {
      clearTimeout(pending);
      sentences = null;
      masked = null;
      maskOption.hidden = maskOption.disabled = true;
      if (sentenceSelect.value === 'mask') sentenceSelect.value = '0';
      empty.hidden = false;
      empty.textContent = message;
      controls.hidden = true;
      views.clear();
      hiddenView.replaceChildren();
    },
  };
}
