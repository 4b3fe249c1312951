// The generation explorer's jobs, in the Web Worker (worker.js): the reader's GPT-2 or Llama
// folder (File objects posted from the page) loaded with A.loadPretrained, and lm.generate run on
// a prompt, each step sent to the page as it comes (the job's progress messages) with the new
// token's attention over every earlier token (every layer and head) and the step's top
// candidates. The causal model is held apart from E4.6's encoder (encoder-jobs.js): both can be
// loaded at once. Job 'stop' aborts the running generation through its AbortSignal; generate
// waits a task between steps so that the stop request is read.
import { encode } from './encoder-jobs.js';

const CANDIDATES = 12; // the top candidates of each step's distribution the page shows

let lm = null; // the causal LM of the reader's files
let running = null; // the AbortController of the generation in progress

function current() {
  if (!lm) throw new Error('no language model is loaded: choose or drop a GPT-2 or Llama folder first');
  return lm;
}

/** A task's turn: the worker reads its messages (a stop) between two steps. */
const nextTask = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * (layers, heads, position + 1) as one Float32Array: the step's attention, layer by layer
 * ([heads, position + 1] each: the new token's row over every earlier token and itself).
 */
function attentionsOf(step, heads) {
  const layers = step.attentions,
    size = heads * (step.position + 1);
  const out = new Float32Array(layers.length * size);
  layers.forEach((t, l) => {
    if (t.data.length !== size)
      throw new Error(
        `lm.generate: step ${step.index}'s attentions[${l}] has shape [${t.shape}]; the explorer draws [heads, position + 1] = [${heads}, ${step.position + 1}]`,
      );
    out.set(t.data, l * size);
  });
  return out;
}

/** tokenizer.encode(text)'s ids and tokens, its error prefixed with "prompt: ". */
function encoded(tokenizer, text) {
  const enc = encode(tokenizer, text, 'prompt');
  return { ids: Array.from(enc.inputIds), tokens: enc.tokens };
}

export const generationJobs = {
  /**
   * Loads the reader's folder as a causal LM; the one loaded before is disposed first (and its
   * generation stopped). progress({loaded, total}) in bytes of model.safetensors.
   */
  async lmLoad(A, { files }, { progress }) {
    running?.abort();
    lm?.dispose();
    lm = null;
    const t0 = performance.now();
    const loaded = await A.loadPretrained(files, { onProgress: progress });
    if (loaded.kind !== 'causal-lm') {
      const type = loaded.config?.modelType ?? loaded.modelType;
      loaded.dispose();
      throw new Error(
        `loadPretrained: the folder holds a ${type} encoder; the generation explorer needs a causal language model (GPT-2 or Llama): E4.6 takes this folder`,
      );
    }
    if (!loaded.hasTokenizer) {
      loaded.dispose();
      throw new Error('loadPretrained: the folder has no tokenizer.json: the prompt cannot be turned into ids');
    }
    lm = loaded;
    const c = lm.config;
    return {
      ms: performance.now() - t0,
      modelType: c.modelType,
      layers: c.numLayers,
      heads: c.numHeads,
      kvHeads: c.numKvHeads,
      hiddenSize: c.hiddenSize,
      vocabSize: c.vocabSize,
      maxPositions: c.maxPositions,
      residentBytes: lm.residentBytes ?? null,
      threads: A.threads,
    };
  },

  /**
   * lm.generate(prompt, options) with the new token's attentions and the top candidates of
   * each step, each step sent as progress { index, position, id, token, text, weights (layers,
   * heads, position + 1), candidates }. Resolves with the prompt's tokens and why it ended
   * ('stopped': the page's Stop; else 'done': EOS, maxNewTokens or the context's end). The
   * prompt's tokens (the labels of the first positions) are tokenizer.encode(prompt)'s, which
   * must be the positions lm.generate gave it.
   * stepDelay (ms): the page tests' hook to slow the steps down (to stop one midway).
   */
  async generate(A, { prompt, options, stepDelay = 0 }, { progress }) {
    const model = current();
    running?.abort();
    const controller = new AbortController();
    running = controller;
    const { ids, tokens } = encoded(model.tokenizer, prompt);
    const room = model.config.maxPositions - ids.length;
    if (room < 1)
      throw new Error(
        `prompt: ${ids.length} tokens leave no room in the model's context of ${model.config.maxPositions} positions`,
      );
    const maxNewTokens = Math.min(options.maxNewTokens, room);
    progress({ prompt: { ids, tokens }, maxNewTokens });
    let count = 0;
    try {
      for await (const step of model.generate(prompt, {
        ...options,
        maxNewTokens,
        outputAttentions: true,
        candidates: CANDIDATES,
        signal: controller.signal,
      })) {
        const { index, position, id, token, text, candidates } = step;
        if (position - index !== ids.length)
          throw new Error(
            `lm.generate put the prompt in ${position - index} positions, tokenizer.encode in ${ids.length} tokens: the explorer cannot label them`,
          );
        progress({
          step: { index, position, id, token, text, candidates, weights: attentionsOf(step, model.config.numHeads) },
        });
        count++;
        await nextTask(stepDelay);
        if (controller.signal.aborted) break;
      }
    } catch (e) {
      if (!controller.signal.aborted) throw e; // an abort ends the stream, whichever way the library says it
    } finally {
      if (running === controller) running = null;
    }
    return { prompt: { ids, tokens }, count, ended: controller.signal.aborted ? 'stopped' : 'done' };
  },

  /** Stops the generation in progress (its AbortSignal); says whether one was running. */
  stop() {
    const was = Boolean(running);
    running?.abort();
    return { stopped: was };
  },
};
