// Document 004, "Self-Attention Explained with Code": its toy inputs and the words around each
// example (title, the document's Python, the explanation), E4.6 and the model explorer included.
// The numbers: sections/embeddings-and-heads.js (E4.1-E4.5), sections/contextual-embeddings.js
// (E4.6) and sections/model-explorer.js.

// E4.6's two sentences and the word followed (s1, s2 and 'bank' in the document)
const E46 = {
  sentences: [
    'Write a poem about a man fishing on a river bank.',
    'Write a poem about a man withdrawing money from a bank.',
  ],
  word: 'bank',
  vocabulary: 'distilbert-base-uncased',
};

export default {
  number: '004',
  title: 'Self-Attention Explained with Code',
  intro: `Document 004: positional encoding, the "bank" picture, parameter-free self-attention,
    Q/K/V and multi-head attention, and DistilBERT's learned and contextual embeddings of "bank" —
    with your own copy of the model, and an explorer of its attention.`,
  // the toy 2-D embeddings of the document's plot (E4.3)
  toy: {
    words: ['money', 'deposit', 'withdraw', 'nature', 'river', 'water'],
    xs: [0.5, 1.5, 2.5, 6.0, 7.5, 8.0],
    ys: [3.0, 1.2, 0.5, 8.0, 7.5, 5.5],
    bank: [4.5, 4.5],
  },
  // E4.5's sentence (random vectors stand for its words)
  sentence: 'write a poem about a man fishing on a river bank'.split(' '),
  e46: E46,
  examples: [
    {
      id: 'E4.1',
      title: 'sinusoidal positional encoding (d_model = 3, max_length = 5, rounding = 2)',
      code: `PE = PositionalEncoder(d_model=3, max_length=5, rounding=2)
input = np.round(np.random.rand(5, 3), 2)
output = PE.encode(input)
print(f'Embeddings without positional encoding:\\n\\n{input}\\n')
print(f'Positional encoding:\\n\\n{output-input}\\n')
print(f'Embeddings with positional encoding:\\n\\n{output}')`,
      what: `A.positionalEncoding computes the matrix: row pos holds sin/cos of pos / 10000^(2i/3);
        d_model = 3 is odd, so the 4th (cosine) column is dropped. The document's random input is
        unseeded: the page draws its own (torch.rand with this seed), so only the positional
        encoding matches the document.`,
    },
    {
      id: 'E4.2',
      title: 'the positional-encoding matrix as a heat map',
      code: `PE = PositionalEncoder(d_model=400, max_length=100, rounding=4)
positional_encoding = PE.generate_positional_encoding()
plt.matshow(positional_encoding, cmap='coolwarm'); plt.colorbar()`,
      what: `Low dimensions oscillate quickly along the positions, high ones slowly: the curving blue
        (negative) bands from the left edge are what the model learns to read position from.`,
    },
    {
      id: 'E4.3',
      title: 'the 2-D "bank" picture: bank moves towards its context',
      code: `xs = [0.5, 1.5, 2.5, 6.0, 7.5, 8.0]
ys = [3.0, 1.2, 0.5, 8.0, 7.5, 5.5]
words = ['money', 'deposit', 'withdraw', 'nature', 'river', 'water']
bank = [4.5, 4.5]   # before attention`,
      what: ({ nearest }) => `Computed by attention over the six toy words and bank itself (the
        document draws its second picture by hand). Bank moves towards the words it is most similar
        to — here ${nearest}.`,
    },
    {
      id: 'E4.4',
      title: 'parameter-free self-attention: S_bank = x_bank · Xᵀ, softmax, weighted sum',
      code: `S_bank = x_bank @ X.T / np.sqrt(d_model)
W_bank = softmax(S_bank)
y_bank = W_bank @ X
Y = softmax(X @ X.T / np.sqrt(d_model)) @ X   # every token at once`,
      what: ({ scaled }) => `Dot products of bank with every token${scaled ? ', divided by √2' : ''},
        a softmax, and the weighted sum of the token vectors. Y does the same for every token at
        once (its last row is y_bank).`,
    },
    {
      id: 'E4.5',
      title: 'Q, K, V with learned weights; multi-head attention (d_k = d_model / h)',
      code: `Q, K, V = X @ W_Q, X @ W_K, X @ W_V          # (L, 512)
split into h heads of d_k = 512 / h           # (h, L, d_k)
heads = softmax(Q_h K_h^T / sqrt(d_k)) V_h
Y = concat(heads) @ W_O                       # (L, 512)`,
      what: ({ seed, heads, words }) => `The ${words} words (random N(0, 1) vectors, seed ${seed};
        weights N(0, 1/512)) go through ${heads} head(s) of size ${512 / heads}; each head has its
        own attention pattern (below); a linear layer mixes the concatenated heads back to 512
        dimensions.`,
    },
    {
      // the snippet follows the sentence and word controls (the document's s1, s2 and 'bank') and
      // the word's token index in each sentence, once the tokenizer has found it
      id: 'E4.6',
      title: 'DistilBERT: learned vs contextual embeddings of "bank"',
      code: ({
        sentences: [s1, s2] = E46.sentences,
        word = E46.word,
        indices: [i1 = 'i', i2 = 'i'] = [],
      } = {}) => `tokenizer = AutoTokenizer.from_pretrained('distilbert-base-uncased')
model = AutoModel.from_pretrained('distilbert-base-uncased')
le_bank = extract_le(${pyQuote(word)}, tokenizer, model)[1]
s1 = ${pyQuote(s1)}
s2 = ${pyQuote(s2)}
s1_te_bank = extract_te(s1, tokenizer, model)[${i1}]
s2_te_bank = extract_te(s2, tokenizer, model)[${i2}]
print(f'Learned embedding:                  {le_bank[:5]}')
print(f'Transformer embedding (sentence 1): {s1_te_bank[:5]}')
print(f'Transformer embedding (sentence 2): {s2_te_bank[:5]}')
token_ids = tokenizer(s1, return_tensors='pt')['input_ids'][0]
learned_embeddings = model.embeddings.word_embeddings(token_ids)
transformer_embeddings = model(**tokenizer(s1, return_tensors='pt')).last_hidden_state
tokens = tokenizer.convert_ids_to_tokens(token_ids)`,
      // without files: what the tokens are, and what the weights would add
      what: ({ loaded, word, id, vocabulary = E46.vocabulary }) =>
        loaded
          ? `Computed in this page's Web Worker from your files: extract_le('${word}')[1] is row
          ${id} of the word-embedding table (the same vector in any sentence);
          extract_te(s)[i] is token i of the last hidden state after the embeddings and every
          layer of self-attention, so the same word gets a different vector in each sentence.`
          : `Without any files the page can only tokenize: the ${vocabulary} vocabulary (shipped
          with the library) splits each sentence into WordPiece tokens and ids, with [CLS] in front
          and [SEP] at the end, exactly what the model would receive. The weights would add the
          rest: each id selects a row of the 30,522 × 768 word-embedding table (the learned
          embedding, identical for "bank" in both sentences); DistilBERT then adds position
          embeddings and runs six layers of 12-head self-attention and feed-forward networks, so
          that "bank" ends up with a different transformer embedding next to "river" than next to
          "money". Load your copy of the model below to compute the document's lines.`,
    },
  ],
  // the E4.6 loader and outputs (sections/contextual-embeddings.js)
  loader: {
    heading: 'Your copy of distilbert-base-uncased',
    instructions: `Choose the model's folder (or its files) or drop it here: config.json,
      model.safetensors and tokenizer.json or vocab.txt (the folder Hugging Face's
      save_pretrained or the hub download gives; other files are ignored).`,
    privacy: `The files never leave your machine: the page reads them in its own Web Worker, and
      its Content-Security-Policy forbids sending anything to another site.`,
  },
  outputs: {
    lines: (word) => `------------------- Embedding vectors for "${word}" -------------------`,
    cosines: (word, dim) => `cosine similarity of the three "${word}" vectors (all ${dim} dimensions):`,
    learned: 'learned_embeddings',
    hidden: 'transformer_embeddings',
  },
  // the fill-mask card of E4.6 (sections/fill-mask.js), shown when the folder has the masked-LM head
  fillMask: {
    heading: 'Fill the mask',
    sentence: 'Write a poem about a man fishing on a river [MASK].',
    intro: `The hub's distilbert-base-uncased folder keeps the head it was trained with: the
      masked-language-model head (vocab_transform, GELU, vocab_layer_norm, and a projection onto
      the 30,522 word embeddings). Given a sentence with [MASK], it scores every token of the
      vocabulary for that place, from the contextual embedding at [MASK]: the five most likely,
      with their probabilities (softmax over the vocabulary), as transformers' fill-mask
      pipeline gives them. The model explorer below shows where [MASK] looks in every layer and
      head ("[MASK] sentence").`,
    needsHead: (architecture) =>
      `This folder's model has no masked-LM head (config.json's architectures[0] is
      ${architecture ?? 'not given'}): filling [MASK] needs DistilBertForMaskedLM's
      vocab_transform, vocab_layer_norm and vocab_projector.bias (or BertForMaskedLM's
      cls.predictions), which the hub's distilbert-base-uncased folder has.`,
    noMask: (mask) => `Put ${mask} where a word should be predicted.`,
    columns: ['token', 'probability'],
    sentenceOption: '[MASK] sentence',
  },
  explorer: {
    id: 'explorer',
    title: 'Model explorer: the attention of every layer and head',
    intro: `Every layer × head attention pattern of the loaded model for one sentence (rows:
      queries, columns: keys; each row sums to 1). Choose a head in the model view (click, or
      focus it and use the arrow keys) to see it large with its tokens. Below, one token's hidden
      state through the layers: its length and how far it has turned from its learned embedding.`,
    empty: 'Load a model in E4.6 above to explore its attention.',
    norm: 'norm of the hidden state ‖h‖',
    cosine: 'cosine to its learned embedding',
  },
};

/** A Python string literal of the text (single quotes, as the document writes them). */
function pyQuote(text = '') {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
