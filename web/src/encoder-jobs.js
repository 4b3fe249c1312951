// E4.6 and the model explorer, in the Web Worker (worker.js). The reader's model folder arrives
// as File objects posted from the page; A.loadPretrained reads them here, chunk by chunk, and the
// model stays in this worker's wasm memory until another folder replaces it. Without any files
// the tokens come from the vocabulary shipped with the library. Each job returns plain data.
import { loadTokenizer } from 'attention-wasm';

let model = null; // the PretrainedModel of the reader's files
let shipped = null; // Promise<TextTokenizer> of the shipped vocabulary, made on first use

function current() {
  if (!model) throw new Error('no model is loaded: choose or drop the model folder first');
  return model;
}

/** A library message for the page, which truncates nothing: the hint to pass { truncation: true } becomes "shorten it". */
export const forThePage = (message) => message.replace(/ \(pass \{ truncation: true \}[^)]*\)/, ': shorten it');

/**
 * tokenizer.encode(text), its error prefixed with what the text is ("sentence 2: ..."). A text
 * with no tokens (empty, or only spaces: the special tokens alone) is refused here: the page's
 * examples look for a word in it, or continue it.
 */
export function encode(tokenizer, text, what) {
  let enc;
  try {
    enc = tokenizer.encode(text);
  } catch (e) {
    throw new Error(`${what}: ${forThePage(e.message)}`);
  }
  if (enc.inputIds.length === tokenizer.specialTokenCount)
    throw new Error(
      `${what}: the text has no tokens (${text.length ? 'only spaces or characters the tokenizer drops' : 'an empty string'})`,
    );
  return enc;
}

/** Row i of a tensor whose last dimension is the model's width: (..., L, D) -> (D). */
const rowOf = (t, i) => {
  const D = t.shape.at(-1);
  return t.data.slice(i * D, (i + 1) * D);
};

const dot = (a, b) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};
/** ‖a‖ in float64. */
const norm = (a) => Math.sqrt(dot(a, a));
/** cos(a, b) = a·b / (‖a‖ ‖b‖) in float64 (0 for a zero vector). */
const cosine = (a, b) => dot(a, b) / (norm(a) * norm(b) || 1);

/**
 * model.forward, counted in the worker's self.computed.forward (the page tests check that an
 * edit of E4.6 runs one forward per sentence).
 */
function forward(m, enc, options) {
  const computed = globalThis.computed;
  if (computed) computed.forward = (computed.forward ?? 0) + 1;
  return m.forward(enc, options);
}

/**
 * What the model explorer shows of one forward (outputAttentions, outputHiddenStates): every
 * layer's attention (layers, heads, L, L) flattened, and per hidden state l (0: the embeddings'
 * output) and token i: ‖h_l[i]‖ and cos(h_l[i], learned embedding of token i), flattened
 * (layers + 1, L). `embeddings`: the learned embeddings of the tokens (L, D).
 */
function explored(m, out, embeddings) {
  const L = embeddings.shape[0],
    D = m.hiddenSize,
    H = m.numHeads,
    layers = m.numLayers;
  const attentions = new Float32Array(layers * H * L * L);
  out.attentions.forEach((t, l) => attentions.set(t.data, l * H * L * L)); // each (1, H, L, L)
  const norms = new Float64Array((layers + 1) * L),
    cosLearned = new Float64Array((layers + 1) * L);
  out.hiddenStates.forEach((h, l) => {
    // each (1, L, D)
    for (let i = 0; i < L; i++) {
      const hi = h.data.subarray(i * D, (i + 1) * D);
      norms[l * L + i] = norm(hi);
      cosLearned[l * L + i] = cosine(hi, embeddings.data.subarray(i * D, (i + 1) * D));
    }
  });
  return { layers, heads: H, attentions, norms, cosLearned };
}

export const encoderJobs = {
  /**
   * E4.6 without any files: the tokens and ids of each text with the shipped vocabulary, and
   * where the word's first token is in each (tokenizer(word).input_ids[1]; -1 if absent).
   */
  async tokens(A, { texts, word, vocabulary }) {
    shipped ??= loadTokenizer(vocabulary);
    const tokenizer = await shipped;
    const w = encode(tokenizer, word, 'word');
    return {
      word: { token: w.tokens[1], id: w.inputIds[1], pieces: w.tokens.slice(1, -1) },
      sentences: texts.map((text, n) => {
        const { tokens, inputIds: ids } = encode(tokenizer, text, `sentence ${n + 1}`);
        return { tokens, ids, index: ids.indexOf(w.inputIds[1]) };
      }),
    };
  },

  /**
   * Loads the reader's folder (File objects). The model loaded before is disposed first, so
   * that two copies of the weights never share the heap; a failed load leaves none.
   * progress({loaded, total}) in bytes of model.safetensors.
   */
  async load(A, { files }, { progress }) {
    model?.dispose();
    model = null;
    const t0 = performance.now();
    const loaded = await A.loadPretrained(files, { onProgress: progress });
    if (loaded.kind === 'causal-lm') {
      loaded.dispose();
      throw new Error(
        `loadPretrained: the folder holds a ${loaded.config.modelType} causal language model; E4.6 needs an encoder (DistilBERT, BERT): the generation explorer takes this folder`,
      );
    }
    if (!loaded.hasTokenizer) {
      loaded.dispose();
      throw new Error(
        'loadPretrained: the folder has neither tokenizer.json nor vocab.txt: E4.6 needs the tokenizer to turn the sentences into ids',
      );
    }
    model = loaded;
    return {
      ms: performance.now() - t0,
      modelType: model.modelType,
      layers: model.numLayers,
      heads: model.numHeads,
      hiddenSize: model.hiddenSize,
      maxPositions: model.maxPositions,
      vocabSize: model.config.vocab_size,
      residentBytes: model.residentBytes,
      ignoredTensors: model.ignoredTensors.length,
      threads: A.threads,
      head: model.head,
      architecture: model.config.architectures?.[0] ?? null,
      maskToken: model.hasTokenizer ? model.tokenizer.maskToken : null,
    };
  },

  /**
   * E4.6's fill-mask card (the folder's masked-LM head): model.fillMask(text, { topK: 5 }), and
   * from a forward with the attentions the explorer's numbers for the sentence, whose [MASK]
   * rows the explorer shows (explored). predictions: one list of 5 per mask, in text order.
   */
  fillMask(A, { text }) {
    const m = current();
    let filled;
    try {
      filled = m.fillMask(text, { topK: 5 });
    } catch (e) {
      throw new Error(forThePage(e.message));
    }
    const enc = m.tokenizer.encode(text);
    const maskId = m.tokenizer.tokenToId(m.tokenizer.maskToken);
    const masks = enc.inputIds.flatMap((id, i) => (id === maskId ? [i] : []));
    const out = m.forward(enc, { outputAttentions: true, outputHiddenStates: true });
    return {
      tokens: enc.tokens,
      ids: enc.inputIds,
      masks,
      predictions: masks.length === 1 ? [filled] : filled,
      explorer: explored(m, out, m.wordEmbeddings(enc.inputIds)),
    };
  },

  /**
   * Document 004's E4.6, as its Python: extract_le(word)[1] (the learned embedding of the word's
   * first token), extract_te(s)[i] for each sentence at the word's first token i (the last
   * hidden state), the cosines between those vectors, and the prints of learned_embeddings and
   * last_hidden_state for sentence 1. The same forward gives the model explorer its numbers
   * (explored): one forward per sentence per request.
   */
  e46(A, { texts, word }) {
    const m = current();
    const w = encode(m.tokenizer, word, 'word');
    const learned = rowOf(m.wordEmbeddings(w.inputIds), 1);
    const wordId = w.inputIds[1];
    let prints = null;
    const sentences = texts.map((text, n) => {
      const enc = encode(m.tokenizer, text, `sentence ${n + 1}`);
      const out = forward(m, enc, { outputAttentions: true, outputHiddenStates: true });
      const hidden = out.lastHiddenState; // (1, L, D)
      const embeddings = m.wordEmbeddings(enc.inputIds); // (L, D)
      if (n === 0) prints = { learned: String(embeddings), hidden: String(hidden) };
      const index = enc.inputIds.indexOf(wordId);
      const contextual = index >= 0 ? rowOf(hidden, index) : null;
      return {
        tokens: enc.tokens,
        ids: enc.inputIds,
        index,
        contextual,
        cosLearned: contextual && cosine(learned, contextual),
        explorer: explored(m, out, embeddings),
      };
    });
    const [c1, c2] = sentences.map((s) => s.contextual);
    return {
      word: { token: w.tokens[1], id: wordId, pieces: w.tokens.slice(1, -1) },
      learned,
      sentences,
      prints,
      cosContextual: c1 && c2 ? cosine(c1, c2) : null,
    };
  },
};
