// The generation explorer: the reader's own GPT-2 or Llama-architecture folder (loaded in the
// Web Worker, as E4.6's DistilBERT: the files never leave the machine), a prompt, and a
// generation streamed token by token (job 'generate' in generation-jobs.js: each step arrives as
// the job's progress) with a Stop button. For the current step the next-token distribution: the
// top candidates with their probabilities, the ones top-k / top-p cut hatched, the token drawn
// outlined (charts/bar-chart.js). Choosing a generated token (a click, or the arrow keys in the
// token list, one tab stop: token-list.js) shows its attention over every earlier token for
// every layer x head and one head large (attention-views.js, an attention source of one query
// row), and that step's distribution. The words are in content/generation.js.
import TEXT from '../content/generation.js';
import { prose } from '../example.js';
import { loaderPanel, onFiles, MB } from '../loader.js';
import { run, onRestart } from '../worker-client.js';
import { attentionViews } from '../attention-views.js';
import { barChart } from '../charts/bar-chart.js';
import { float32Number } from '../charts/export.js';
import { tokenList } from '../token-list.js';
import { intValue, MAX_SEED } from '../controls.js';
import { timed } from '../timing.js';

// the page tests' hook: ?stepdelay=ms slows each step down in the worker (to stop one midway)
const STEP_DELAY = Number(new URLSearchParams(globalThis.location?.search ?? '').get('stepdelay')) || 0;
const STREAM_DRAW_MS = 250; // while tokens stream in, the views follow the newest at most this often

/** The decoding controls as lm.generate's options (greedy: no sampling options at all). */
function optionsOf(controls, maxPositions) {
  const number = (name, lo, hi, fallback) => {
    const v = Number(controls.querySelector(`[name=${name}]`).value);
    return Number.isFinite(v) && controls.querySelector(`[name=${name}]`).value !== ''
      ? Math.max(lo, Math.min(hi, v))
      : fallback;
  };
  const maxNewTokens = intValue(controls, 'maxNewTokens', 1, Math.max(1, maxPositions ?? 1024));
  if (controls.querySelector('[name=decoding]:checked').value === 'greedy') return { maxNewTokens, doSample: false };
  return {
    maxNewTokens,
    doSample: true,
    temperature: number('temperature', 0.01, 100, 1),
    topK: intValue(controls, 'topK', 0, 1e9),
    topP: number('topP', 0.001, 1, 1),
    seed: intValue(controls, 'seed', 0, MAX_SEED),
  };
}

/** The options in words: "greedy", "sampled at temperature 0.7, top-k 5, top-p 0.9, seed 1". */
function describeOptions(o) {
  if (!o.doSample) return 'greedy';
  const parts = [`temperature ${o.temperature}`];
  if (o.topK > 0) parts.push(`top-k ${o.topK}`);
  if (o.topP < 1) parts.push(`top-p ${o.topP}`);
  return `sampled at ${parts.join(', ')}, seed ${o.seed}`;
}

/** The drawn token's probability among the step's candidates ("p = 0.3121", or beyond them). */
function drawnProbability(step) {
  const c = step.candidates.find((x) => x.id === step.id);
  return c ? `p = ${c.probability.toFixed(4)}` : `outside the top ${step.candidates.length}`;
}

/** A probability in JSON: a float32 with the fewest digits that read back to it, a float64 as it is. */
const jsonProbability = (p) => (Math.fround(p) === p ? float32Number(p) : p);

/** What the rule between the kept candidates and the others says. */
function cutNote(o) {
  if (!o.doSample) return 'greedy takes the most probable';
  const by = [o.topK > 0 && `top-k ${o.topK}`, o.topP < 1 && `top-p ${o.topP}`].filter(Boolean);
  return `cut by ${by.join(' and ') || 'the sampler'}`;
}

/** The bar chart of one step's candidates; `options` as the generation ran. */
function distributionChart(step, options) {
  const cs = step.candidates;
  const kept = cs.map((c) => c.kept);
  const lastKept = kept.lastIndexOf(true);
  const cutShown = kept.includes(false);
  return barChart(
    cs.map((c) => c.probability),
    {
      labels: cs.map((c) => c.token),
      title: `step ${step.index + 1}: ${TEXT.distribution} at position ${step.position} (${describeOptions(options)}; top ${cs.length})`,
      muted: (i) => !kept[i],
      marked: (i) => cs[i].id === step.id,
      cut: cutShown ? { after: lastKept, note: cutNote(options) } : null,
      detail: (i) =>
        `'${cs[i].token}' (id ${cs[i].id}): p = ${cs[i].probability.toFixed(4)}` +
        `${kept[i] ? '' : ', cut'}${cs[i].id === step.id ? ', drawn' : ''}`,
      json: () => ({
        step: step.index,
        position: step.position,
        id: step.id,
        token: step.token,
        options,
        candidates: cs.map((c) => ({
          id: c.id,
          token: c.token,
          probability: jsonProbability(c.probability),
          kept: c.kept,
        })),
      }),
      name: `distribution-step${step.index}`,
    },
  );
}

/** Builds the section into root. */
export function generationExplorer(root) {
  const section = document.createElement('section');
  section.className = 'document generation';
  section.dataset.document = 'generation';
  section.id = TEXT.id;
  section.innerHTML = `<h2></h2><p class="intro"></p>
    <div class="controls gencontrols">
      <label class="prompt">prompt <textarea name="prompt" rows="2" maxlength="2000"></textarea></label>
      <fieldset class="decoding"><legend>decoding</legend>
        <label><input type="radio" name="decoding" value="greedy" checked> <span></span></label>
        <label><input type="radio" name="decoding" value="sample"> <span></span></label>
      </fieldset>
      <label>temperature <input type="number" name="temperature" min="0.01" max="100" step="0.05" value="1"></label>
      <label>top-k <input type="number" name="topK" min="0" step="1" value="0"></label>
      <label>top-p <input type="number" name="topP" min="0.001" max="1" step="0.05" value="1"></label>
      <label>seed <input type="number" name="seed" min="0" step="1" value="0"></label>
      <label>max new tokens <input type="number" name="maxNewTokens" min="1" step="1" value="20"></label>
      <div class="buttons"><button type="button" name="generate" disabled>Generate</button>
        <button type="button" name="stop" disabled>Stop</button></div>
    </div>
    <p class="genstatus" role="status"></p>
    <p class="error generror" role="alert"></p>
    <pre class="output generated" data-out="text"></pre>
    <div class="tokenlist"></div>
    <p class="empty"></p>
    <div class="distribution"></div>
    <div class="views"></div>`;
  section.querySelector('h2').textContent = TEXT.title;
  section.querySelector('.intro').textContent = prose(TEXT.intro);
  const panel = loaderPanel(TEXT.loader);
  section.querySelector('.intro').after(panel.el);
  const [greedyLabel, sampleLabel] = section.querySelectorAll('.decoding span');
  greedyLabel.textContent = TEXT.decoding.greedy;
  sampleLabel.textContent = TEXT.decoding.sample;
  const controls = section.querySelector('.gencontrols');
  const input = (name) => controls.querySelector(`[name=${name}]`);
  input('prompt').value = TEXT.prompt;
  const generateButton = input('generate'),
    stopButton = input('stop');
  const status = section.querySelector('.genstatus'),
    error = section.querySelector('.generror');
  const textOut = section.querySelector('.generated');
  const tokens = tokenList({
    label: TEXT.tokensLabel,
    hint: 'Choose a generated token to see its attention.',
    onChoose: (k, how) => {
      follow = k === gen.steps.length - 1; // choosing the newest follows the stream again
      select(k, how);
    },
  });
  section.querySelector('.tokenlist').replaceWith(tokens.el);
  const empty = section.querySelector('.empty');
  empty.textContent = TEXT.empty;
  const distribution = section.querySelector('.distribution');
  const views = attentionViews();
  section.querySelector('.views').replaceWith(views.el);
  root.append(section);

  let model = null; // what the worker says about the loaded model
  let gen = null; // { prompt: {ids, tokens}, steps, options, running }
  let follow = true; // the selection follows the newest token while they stream in
  let pendingDraw = 0;

  const sampling = () => controls.querySelector('[name=decoding]:checked').value === 'sample';
  function syncControls() {
    for (const name of ['temperature', 'topK', 'topP', 'seed']) input(name).disabled = !sampling();
    generateButton.disabled = !model;
    stopButton.disabled = !gen?.running;
    section.dataset.state = gen?.running ? 'generating' : model ? 'ready' : 'empty';
  }
  controls.addEventListener('change', syncControls);

  function clearOutputs() {
    clearTimeout(pendingDraw);
    pendingDraw = 0;
    gen = null;
    textOut.textContent = '';
    tokens.clear();
    distribution.replaceChildren();
    views.clear();
    empty.hidden = false;
    delete section.dataset.selected;
    delete section.dataset.drawn;
    section.dataset.steps = '0';
  }

  /** The attention source of step k: its token's row over every token up to it. */
  const sourceOf = (k) => {
    const s = gen.steps[k];
    return {
      layers: model.layers,
      heads: model.heads,
      tokens: [...gen.prompt.tokens, ...gen.steps.slice(0, k + 1).map((x) => x.token)],
      queries: [s.position],
      weights: s.weights,
    };
  };

  /** Draws step k: its distribution and its attention. */
  function draw(k) {
    pendingDraw = 0;
    if (!gen || !gen.steps[k]) return;
    const s = gen.steps[k];
    empty.hidden = true;
    distribution.replaceChildren(timed('distribution', () => distributionChart(s, gen.options)));
    timed('generation views', () => views.show(sourceOf(k)));
    section.dataset.drawn = String(k);
  }

  /**
   * Chooses step k in the token list (its read-out) and draws it (`now`, or soon when streaming);
   * `scroll`: brings the token into view (a key moved the choice).
   */
  function select(k, { now = true, scroll = false } = {}) {
    const s = gen.steps[k];
    tokens.choose(
      k,
      `token ${k + 1} of ${gen.steps.length}: '${s.token}' (id ${s.id}) at position ${s.position}, drawn with ${drawnProbability(s)}`,
      { scroll },
    );
    section.dataset.selected = String(k);
    if (now) {
      clearTimeout(pendingDraw);
      draw(k);
    } else pendingDraw ||= setTimeout(() => draw(tokens.chosen), STREAM_DRAW_MS);
  }

  /** A step arrived: its token in the text and the list; the views follow it unless a token is chosen. */
  function addStep(s) {
    gen.steps.push(s);
    textOut.append(s.text);
    tokens.add(s.token);
    section.dataset.steps = String(gen.steps.length);
    if (follow) select(gen.steps.length - 1, { now: false });
  }

  async function generate() {
    if (gen?.running) await run('stop', {}, { key: 'stop' });
    clearOutputs();
    error.textContent = '';
    const prompt = input('prompt').value;
    const options = optionsOf(controls, model.maxPositions);
    gen = { prompt: null, steps: [], options, running: true };
    const mine = gen;
    follow = true;
    syncControls();
    status.textContent = `Generating (${describeOptions(options)})…`;
    const t0 = performance.now();
    const onProgress = (p) => {
      if (gen !== mine) return;
      if (p.prompt) {
        mine.prompt = p.prompt;
        textOut.textContent = prompt;
        tokens.setPrompt(p.prompt.tokens);
      } else if (p.step) addStep(p.step);
    };
    try {
      const r = await run('generate', { prompt, options, stepDelay: STEP_DELAY }, { key: 'generate', onProgress });
      if (gen !== mine) return;
      const n = mine.steps.length,
        s = ((performance.now() - t0) / 1000).toFixed(2);
      status.textContent =
        r?.ended === 'stopped'
          ? `Stopped after ${n} token${n === 1 ? '' : 's'} (${s} s).`
          : `Generated ${n} token${n === 1 ? '' : 's'} (${describeOptions(options)}) in ${s} s.`;
      section.dataset.ended = r?.ended ?? 'replaced';
    } catch (e) {
      if (gen !== mine) return;
      status.textContent = mine.steps.length ? `Stopped after ${mine.steps.length} tokens by an error.` : '';
      error.textContent = `Could not generate: ${e.message}`;
      section.dataset.ended = 'error';
    }
    mine.running = false;
    syncControls();
    if (mine.steps.length) select(tokens.chosen >= 0 ? tokens.chosen : mine.steps.length - 1);
  }
  generateButton.addEventListener('click', generate);
  input('prompt').addEventListener('keydown', (e) => {
    // Ctrl+Enter (Cmd+Enter) in the prompt: Generate
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && !generateButton.disabled) {
      e.preventDefault();
      generate();
    }
  });
  stopButton.addEventListener('click', () => run('stop', {}, { key: 'stop' }));

  async function load(files) {
    panel.start(files);
    model = null;
    clearOutputs();
    status.textContent = '';
    error.textContent = '';
    syncControls();
    try {
      const info = await run('lmLoad', { files }, { key: 'lmLoad', onProgress: panel.onProgress });
      if (!info) return;
      model = info;
      const weights = info.residentBytes ? `${MB(info.residentBytes)} MB of weights ` : '';
      panel.status.textContent =
        `Loaded ${info.modelType}: ${info.layers} layers, ${info.heads} heads (${info.kvHeads} key/value), ` +
        `dimension ${info.hiddenSize}, vocabulary ${info.vocabSize}, context ${info.maxPositions}; ` +
        `${weights}read in ${(info.ms / 1000).toFixed(2)} s (${info.threads} thread${info.threads > 1 ? 's' : ''}).`;
      panel.el.dataset.state = 'loaded';
    } catch (e) {
      panel.failed(`Could not load the model: ${e.message}`);
    }
    syncControls();
  }

  // the watchdog restarted the worker: the model it held is gone
  onRestart((message) => {
    if (!model) return;
    model = null;
    if (gen) gen.running = false;
    panel.failed(`${message}; the model it held is gone: load the folder again.`);
    syncControls();
  });
  onFiles(panel.el, load);
  syncControls();
  return section;
}
