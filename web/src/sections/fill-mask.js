// E4.6's fill-mask card: when the reader's folder has the masked-LM head (the hub's
// distilbert-base-uncased does), an editable sentence with [MASK], the five tokens the model
// puts there with their probabilities (model.fillMask in the worker: job 'fillMask' in
// encoder-jobs.js), and the sentence in the model explorer, which shows the [MASK] rows of its
// attention. Without the head, what it needs. The words are in content/embeddings-and-heads.js.
import content from '../content/embeddings-and-heads.js';
import { prose } from '../example.js';
import { run } from '../worker-client.js';
import { timed } from '../timing.js';

const TEXT = content.fillMask;

/** One table of predictions: token, probability (4 decimals and a bar), best first. */
function predictionsTable(predictions, caption) {
  const table = document.createElement('table');
  table.className = 'predictions';
  table.innerHTML = `<caption></caption><thead><tr><th scope="col"></th><th scope="col"></th></tr></thead><tbody></tbody>`;
  table.querySelector('caption').textContent = caption;
  table.querySelectorAll('th').forEach((th, i) => (th.textContent = TEXT.columns[i]));
  const body = table.querySelector('tbody');
  for (const p of predictions) {
    const row = body.insertRow();
    row.dataset.id = String(p.id);
    row.dataset.score = String(p.score); // every digit, for the tests
    row.insertCell().textContent = p.token;
    const cell = row.insertCell();
    const bar = document.createElement('span');
    bar.className = 'bar';
    bar.style.width = `${(100 * p.score).toFixed(1)}%`;
    const value = document.createElement('span');
    value.className = 'value';
    value.textContent = p.score.toFixed(4);
    cell.append(bar, value);
  }
  return table;
}

/**
 * Builds the card after `after`; returns { enable(info), disable(info?), clear() }. onResult(r)
 * receives each result (the explorer shows its [MASK] rows).
 */
export function fillMaskCard(after, { onResult }) {
  const el = document.createElement('section');
  el.className = 'fillmask';
  el.hidden = true;
  el.innerHTML = `<h4></h4><p class="intro"></p>
    <label>sentence <input type="text" name="masked" maxlength="4000"></label>
    <p class="error" role="alert"></p>
    <div class="tables" aria-live="polite"></div>
    <p class="needs"></p>`;
  el.querySelector('h4').textContent = TEXT.heading;
  const intro = el.querySelector('.intro');
  intro.textContent = prose(TEXT.intro);
  const input = el.querySelector('[name=masked]'),
    error = el.querySelector('.error'),
    tables = el.querySelector('.tables'),
    needs = el.querySelector('.needs');
  input.value = TEXT.sentence;
  after.after(el);
  let enabled = false,
    mask = '[MASK]';

  async function update() {
    if (!enabled) return;
    const text = input.value;
    if (!text.includes(mask)) {
      error.textContent = TEXT.noMask(mask);
      return;
    }
    let r;
    try {
      r = await run('fillMask', { text }, { key: 'fillMask' });
    } catch (e) {
      error.textContent = e.message;
      return;
    }
    if (!r || !enabled) return; // replaced by a newer request, or the model is gone
    timed('fill-mask', () => {
      error.textContent = '';
      tables.replaceChildren(
        ...r.predictions.map((predictions, m) =>
          predictionsTable(
            predictions,
            r.masks.length === 1
              ? `${mask} (token ${r.masks[m]})`
              : `${mask} ${m + 1} of ${r.masks.length} (token ${r.masks[m]})`,
          ),
        ),
      );
      el.dataset.state = 'shown';
    });
    onResult(r);
  }
  input.addEventListener('input', update);

  return {
    /** The loaded model has the masked-LM head: show the card and fill the sentence's mask. */
    enable(info) {
      enabled = true;
      mask = info.maskToken ?? '[MASK]';
      el.hidden = false;
      for (const part of [intro, input.parentElement, error, tables]) part.hidden = false;
      needs.hidden = true;
      delete el.dataset.state;
      return update();
    },
    /** A model without the head (info: what the worker said), or none (no info): say what it needs, or hide. */
    disable(info) {
      enabled = false;
      tables.replaceChildren();
      error.textContent = '';
      delete el.dataset.state;
      el.hidden = !info;
      for (const part of [intro, input.parentElement, error, tables]) part.hidden = true;
      needs.hidden = !info;
      if (info) needs.textContent = prose(TEXT.needsHead(info.architecture));
    },
  };
}
