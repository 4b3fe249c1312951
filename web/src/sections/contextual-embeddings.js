// E4.6 of document 004: DistilBERT's learned and contextual embeddings of "bank". Without any
// files the page tokenizes the two sentences with the vocabulary shipped with the library; with
// the reader's copy of the model (chosen or dropped here, read in the Web Worker: the files never
// leave the machine) it prints the document's lines, computed live, and what the document only
// implies (cosines, any sentences). The model explorer (model-explorer.js) follows the card and
// draws from the same request: one forward per sentence per edit. A folder with the masked-LM
// head also gets the fill-mask card (fill-mask.js), whose sentence the explorer shows too.
// The words are in content/embeddings-and-heads.js; every number comes from the worker.
import content from '../content/embeddings-and-heads.js';
import { exampleOf } from '../example.js';
import { loaderPanel, onFiles, MB } from '../loader.js';
import { run, onRestart } from '../worker-client.js';
import { pyRoundedList, pyStrList, torchInts } from '../format.js';
import { modelExplorer } from './model-explorer.js';
import { fillMaskCard } from './fill-mask.js';
import { timed } from '../timing.js';

const example = exampleOf(content, 'E4.6');
const { e46: E46, loader: LOADER, outputs: OUTPUTS } = content;

/** tokens and token_ids of each sentence, printed as the document prints them. */
function tokensText(sentences) {
  return sentences
    .map((s, n) => `tokens (s${n + 1}):\n${pyStrList(s.tokens)}\ntoken_ids (s${n + 1}):\n${torchInts(s.ids)}`)
    .join('\n\n');
}

/** The document's print block: the learned embedding and the two contextual ones, first 5 values, rounded to 2. */
function linesText(r, word) {
  const contextual = (s, n) =>
    s.contextual ? pyRoundedList(s.contextual.slice(0, 5), 2) : `(sentence ${n + 1} has no '${r.word.token}' token)`;
  return [
    OUTPUTS.lines(word),
    '',
    `Learned embedding:                  ${pyRoundedList(r.learned.slice(0, 5), 2)}`,
    `Transformer embedding (sentence 1): ${contextual(r.sentences[0], 0)}`,
    `Transformer embedding (sentence 2): ${contextual(r.sentences[1], 1)}`,
  ].join('\n');
}

/** The cosines between the three vectors of the word. */
function cosinesText(r, word, dim) {
  const f = (c) => (c === null ? '—' : c.toFixed(4));
  return [
    OUTPUTS.cosines(word, dim),
    `learned · sentence 1:     ${f(r.sentences[0].cosLearned)}`,
    `learned · sentence 2:     ${f(r.sentences[1].cosLearned)}`,
    `sentence 1 · sentence 2:  ${f(r.cosContextual)}`,
  ].join('\n');
}

/** Builds E4.6 into its card; returns a promise settled when the first tokens are shown. */
export function contextualEmbeddings(card) {
  // up to DistilBERT's 512 positions of text (the model refuses longer ones, with a message)
  card.controls.innerHTML = `<label>sentence 1 <input type="text" name="s1" maxlength="4000"></label>
    <label>sentence 2 <input type="text" name="s2" maxlength="4000"></label>
    <label>word <input type="text" name="word" maxlength="40"></label>`;
  const input = (name) => card.controls.querySelector(`[name=${name}]`);
  const inputError = document.createElement('p'); // a sentence or word the tokenizer refuses
  inputError.className = 'error';
  inputError.setAttribute('role', 'alert');
  card.controls.after(inputError);
  [input('s1').value, input('s2').value] = E46.sentences;
  input('word').value = E46.word;

  const panel = loaderPanel(LOADER),
    loader = panel.el;
  const outputs = document.createElement('div');
  outputs.className = 'outputs';
  outputs.hidden = true;
  outputs.innerHTML = `<pre class="output lines" data-out="lines" aria-live="polite"></pre>
    <pre class="output" data-out="cosines"></pre>
    <h4 class="out"></h4><pre class="output" data-out="learned"></pre>
    <h4 class="out"></h4><pre class="output" data-out="hidden"></pre>`;
  const [learnedHeading, hiddenHeading] = outputs.querySelectorAll('h4');
  learnedHeading.textContent = OUTPUTS.learned;
  hiddenHeading.textContent = OUTPUTS.hidden;
  const out = (name) => outputs.querySelector(`[data-out=${name}]`);
  card.el.append(loader, outputs);
  const explorer = modelExplorer(card.el);
  const fill = fillMaskCard(outputs, { onResult: (r) => explorer.showMasked(r) });

  const { status } = panel;
  let model = null; // what the worker says about the loaded model
  let dropped = null; // performance.now() of the last drop, until its lines are shown

  const texts = () => [input('s1').value, input('s2').value];
  const recode = (r) =>
    card.recode(
      example.code({
        sentences: texts(),
        word: input('word').value,
        indices: r.sentences.map((s) => (s.index >= 0 ? s.index : '?')),
      }),
    );

  async function update() {
    const sentences = texts(),
      word = input('word').value;
    let r;
    try {
      // with a model: E4.6's lines and the explorer's numbers, from one forward per sentence
      r = model
        ? await run('e46', { texts: sentences, word }, { key: 'e46' })
        : await run('tokens', { texts: sentences, word, vocabulary: E46.vocabulary }, { key: 'e46' });
    } catch (e) {
      // refused (an empty or too long sentence, a word not in it): no result of the last inputs stays up
      inputError.textContent = e.message;
      card.show('');
      outputs.hidden = true;
      explorer.clear();
      return;
    }
    if (!r) return; // a newer request replaced this one
    timed('E4.6 result', () => show(r, word));
  }

  /** Draws a result of E4.6 (the tokens; with a model the lines, the prints and the explorer). */
  function show(r, word) {
    inputError.textContent = '';
    recode(r);
    card.show(tokensText(r.sentences), card.what({ loaded: Boolean(model), word: r.word.token, id: r.word.id }));
    if (!model) return;
    out('lines').textContent = linesText(r, word);
    out('cosines').textContent = cosinesText(r, word, model.hiddenSize);
    out('learned').textContent = r.prints.learned;
    out('hidden').textContent = r.prints.hidden;
    outputs.hidden = false;
    if (dropped !== null) {
      // the first lines after a load
      const ms = performance.now() - dropped;
      dropped = null;
      loader.dataset.state = 'loaded';
      out('lines').dataset.ms = ms.toFixed(0);
      status.textContent += ` From the drop to the lines below: ${(ms / 1000).toFixed(2)} s.`;
    }
    explorer.show(r.sentences);
  }

  // loader.dataset.state: 'loading', 'loaded' (after the first lines) or 'failed'
  async function load(files) {
    dropped = performance.now();
    panel.start(files);
    model = null;
    outputs.hidden = true;
    explorer.clear();
    fill.disable();
    try {
      const info = await run('load', { files }, { key: 'load', onProgress: panel.onProgress });
      if (!info) return;
      model = info;
      status.textContent =
        `Loaded ${info.modelType}: ${info.layers} layers, ${info.heads} heads, dimension ${info.hiddenSize}, ` +
        `vocabulary ${info.vocabSize}; ${MB(info.residentBytes)} MB of weights read in ${(info.ms / 1000).toFixed(2)} s ` +
        `(${info.threads} thread${info.threads > 1 ? 's' : ''}).`;
      if (info.head === 'masked-lm') fill.enable(info);
      else fill.disable(info);
    } catch (e) {
      dropped = null;
      panel.failed(`Could not load the model: ${e.message}`);
    }
    await update();
  }

  // the watchdog restarted the worker: the model it held is gone
  onRestart((message) => {
    if (!model) return;
    model = null;
    outputs.hidden = true;
    explorer.clear();
    fill.disable();
    panel.failed(`${message}; the model it held is gone: load the folder again.`);
    update();
  });
  onFiles(loader, load);
  card.controls.addEventListener('input', update);
  return update();
}
