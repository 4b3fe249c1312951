// Document 004, "Self-Attention Explained with Code": its toy inputs and the words around each
// example (title, the document's Python, the explanation), E4.6 and the model explorer included.
// The numbers: sections/embeddings-and-heads.js (E4.1-E4.5), sections/contextual-embeddings.js
// (E4.6) and sections/model-explorer.js.

export default {
  number: '004',
  title: 'Self-Attention Explained with Code',
  intro: `Document 004: positional encoding, the "bank" picture, parameter-free self-attention,
    Q/K/V and multi-head attention.`,
  // the toy 2-D embeddings of the document's plot (E4.3)
  toy: {
    words: ['money', 'deposit', 'withdraw', 'nature', 'river', 'water'],
    xs: [0.5, 1.5, 2.5, 6.0, 7.5, 8.0], ys: [3.0, 1.2, 0.5, 8.0, 7.5, 5.5], bank: [4.5, 4.5],
  },
  // E4.5's sentence (random vectors stand for its words)
  sentence: 'write a poem about a man fishing on a river bank'.split(' '),
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
      id: 'E4.6',
      title: 'DistilBERT: learned vs contextual embeddings of "bank"',
      code: `model = AutoModel.from_pretrained('distilbert-base-uncased')
extract_te('Write a poem about a man fishing on a river bank.', tokenizer, model)[11]`,
      result: '(not computed: needs the distilbert-base-uncased weights, which the page cannot download)',
      what: 'This example needs a user-supplied copy of the model weights (safetensors); it is out of scope for this page.',
    },
  ],
};
