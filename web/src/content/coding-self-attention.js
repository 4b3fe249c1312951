// Document 000, "Understanding and coding self-attention": the words the page shows around each
// example (title, the document's Python, the line saying what happened). The numbers are
// computed in sections/coding-self-attention.js; a function here receives what it needs of them.
export default {
  number: '000',
  title: 'Understanding and coding self-attention',
  intro: `Document 000 builds scaled dot-product attention step by step in PyTorch. Edit the
    sentence or the seed: every step below is recomputed.`,
  defaults: { sentence: 'Life is short, eat dessert first', seed: 123, dk: 24, dv: 28, heads: 3 },
  examples: [
    {
      id: 'E0.1',
      title: 'vocabulary',
      code: `sentence = 'Life is short, eat dessert first'
dc = {s:i for i,s in enumerate(sorted(sentence.replace(',', '').split()))}
print(dc)`,
      what: ({ vocab }) => `${vocab} distinct words, sorted case-sensitively (capitals first), numbered from 0.`,
    },
    {
      id: 'E0.2',
      title: 'sentence as integers',
      code: `sentence_int = torch.tensor([dc[s] for s in sentence.replace(',', '').split()])
print(sentence_int)`,
      what: 'Each word replaced by its index in the vocabulary.',
    },
    {
      id: 'E0.3',
      title: 'embedding',
      code: `torch.manual_seed(123)
embed = torch.nn.Embedding(6, 16)
embedded_sentence = embed(sentence_int).detach()
print(embedded_sentence)
print(embedded_sentence.shape)`,
      what: ({ seed, vocab }) =>
        `torch.manual_seed(${seed}) then a ${vocab}×16 embedding table drawn with torch's normal generator; row i is the vector of word i.`,
      tooShort: '(type a sentence of at least two words)',
    },
    {
      id: 'E0.4',
      title: 'weight matrices and the projections of x_2',
      code: `torch.manual_seed(123)
d_q, d_k, d_v = 24, 24, 28
W_query = torch.nn.Parameter(torch.rand(d_q, d))
W_key = torch.nn.Parameter(torch.rand(d_k, d))
W_value = torch.nn.Parameter(torch.rand(d_v, d))
x_2 = embedded_sentence[1]
query_2 = W_query.matmul(x_2)
key_2 = W_key.matmul(x_2)
value_2 = W_value.matmul(x_2)
print(query_2.shape)
print(key_2.shape)
print(value_2.shape)`,
      what: ({ dk, dv }) =>
        `Three uniform [0, 1) weight matrices; the 2nd word projected to a query, a key (${dk} values) and a value (${dv}).`,
    },
    {
      id: 'E0.5',
      title: 'all keys and values',
      code: `keys = W_key.matmul(embedded_sentence.T).T
values = W_value.matmul(embedded_sentence.T).T
print("keys.shape:", keys.shape)
print("values.shape:", values.shape)`,
      what: 'W x for every word at once: one key and one value per word.',
    },
    {
      id: 'E0.6',
      title: 'unnormalised attention weights ω',
      code: `omega_24 = query_2.dot(keys[4])
print(omega_24)
omega_2 = query_2.matmul(keys.T)
print(omega_2)`,
      what: 'Dot products of query 2 with every key: how well each word matches word 2.',
      noFifthWord: '(omega_24 reads keys[4], the fifth word: type a sentence of at least five words for it)',
    },
    {
      id: 'E0.7',
      title: 'scaled softmax',
      code: `attention_weights_2 = F.softmax(omega_2 / d_k**0.5, dim=0)
print(attention_weights_2)`,
      what: ({ dk }) => `ω divided by √d_k = √${dk} ≈ ${Math.sqrt(dk).toFixed(4)}, then softmax: the weights sum to 1.`,
      plotTitle: 'softmax(ω / √d_k) for every query word (row 2 is attention_weights_2)',
    },
    {
      id: 'E0.8',
      title: 'context vector z(2)',
      code: `context_vector_2 = attention_weights_2.matmul(values)
print(context_vector_2.shape)
print(context_vector_2)`,
      what: ({ words, dv }) =>
        `The attention-weighted sum of the ${words} value vectors: ${dv} numbers, the context of word 2.`,
    },
    {
      // the heading and the snippet follow the heads control (the document's h = 3)
      id: 'E0.9',
      title: (h = 3) => `multi-head attention, h = ${h}`,
      code: (h = 3) => `h = ${h}
multihead_W_query = torch.nn.Parameter(torch.rand(h, d_q, d))
multihead_W_key = torch.nn.Parameter(torch.rand(h, d_k, d))
multihead_W_value = torch.nn.Parameter(torch.rand(h, d_v, d))
multihead_query_2 = multihead_W_query.matmul(x_2)
print(multihead_query_2.shape)
stacked_inputs = embedded_sentence.T.repeat(${h}, 1, 1)
print(stacked_inputs.shape)
multihead_keys = torch.bmm(multihead_W_key, stacked_inputs)
multihead_values = torch.bmm(multihead_W_value, stacked_inputs)
print("multihead_keys.shape:", multihead_keys.shape)
print("multihead_values.shape:", multihead_values.shape)
multihead_keys = multihead_keys.permute(0, 2, 1)
multihead_values = multihead_values.permute(0, 2, 1)
print("multihead_keys.shape:", multihead_keys.shape)
print("multihead_values.shape:", multihead_values.shape)
# then: scaled softmax per head -> an h x d_v context vector for x_2`,
      what: ({ h, dk, dv }) =>
        `The document stops at the shapes; the page completes it: each of the ${h} heads takes softmax(q·k / √${dk}) over its own keys and sums its own values, giving ${h} context vectors of ${dv} values for word 2.`,
      plotTitle: 'attention weights of word 2, per head',
    },
    {
      id: 'E0.10',
      title: 'cross-attention with a second sequence of 8 tokens',
      code: `torch.manual_seed(123)
W_query = torch.rand(d_q, d)
W_key = torch.rand(d_k, d)
W_value = torch.rand(d_v, d)
x_2 = embedded_sentence[1]
query_2 = W_query.matmul(x_2)
embedded_sentence_2 = torch.rand(8, 16) # 2nd input sequence
keys = W_key.matmul(embedded_sentence_2.T).T
values = W_value.matmul(embedded_sentence_2.T).T
print("keys.shape:", keys.shape)
print("values.shape:", values.shape)`,
      what: `Queries from the sentence, keys and values from a second sequence of 8 random tokens: the
        context of word 2 now mixes the 8 values of the other sequence (the document prints the
        shapes; the page completes the context vector).`,
      plotTitle: 'cross-attention weights: sentence words (rows) × second sequence (columns)',
    },
  ],
};
