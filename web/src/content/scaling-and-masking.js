// Document 001, "Self-Attention Mechanism": the words around each example (title, the
// document's Python, the explanation). The numbers: sections/scaling-and-masking.js.
export default {
  number: '001',
  title: 'Self-Attention Mechanism',
  intro: 'Document 001 explains the batch shapes, why scores are divided by √d, and masking.',
  words: ['Life', 'is', 'short', 'eat', 'dessert', 'first'],
  logits: [0.1, 0.4, -0.9, 0.02, 0.35, -0.62],
  examples: [
    {
      id: 'E1.1',
      title: 'a batch: B = 6 sentences, T = 8 words, C = 32, head size d = 16',
      code: `X: (B, T, C) = (6, 8, 32);  W^K, W^Q, W^V: (C, d) = (32, 16)
K = X @ W^K;  Q = X @ W^Q;  V = X @ W^V
scores = Q @ K^T
weights = softmax(scores / sqrt(d), dim=-1)
output = weights @ V`,
      what: `The document gives shapes only; the page completes the computation with
        torch.manual_seed(0), X and the W's ~ N(0, 1). The heat map shows sentence 0's 8×8 weights.`,
      plotTitle: 'sentence 0: softmax(Q Kᵀ / √16)',
    },
    {
      id: 'E1.2',
      title: 'softmax of logits and of logits × 100',
      code: `logits = torch.tensor([0.1,0.4,-0.9, 0.02, 0.35, -0.62])
print(torch.softmax(logits, dim=0).numpy().round(2)) # diffused
print(torch.softmax(logits*100, dim=0).numpy().round(2)) # One-hot-encoding`,
      what: ({ factor, max }) => `Softmax of the logits is spread out; × 100 makes it almost one-hot (a
        temperature of 0.01). The third line uses the slider (× ${factor}, max weight ${max.toFixed(2)}).`,
    },
    {
      id: 'E1.3',
      title: 'scaling by √d keeps the softmax from saturating',
      code: `q = torch.randn(d); K = torch.randn(8, d)
softmax(K @ q)            # unscaled: saturates as d grows
softmax(K @ q / sqrt(d))  # scaled`,
      what: ({ d, rawMax, scaledMax }) => `q·k has a standard deviation of about √d = ${Math.sqrt(d).toFixed(1)}, so
        without scaling the softmax turns one-hot as d grows (max ${rawMax.toFixed(2)}); dividing by √d
        keeps it spread (max ${scaledMax.toFixed(2)}).`,
    },
    {
      id: 'E1.4',
      title: 'look-ahead (causal) and padding masks',
      code: `scores = Q @ K.T / sqrt(d)
scores[future] = -inf      # look-ahead mask
scores[:, padding] = -inf  # padding mask
weights = softmax(scores, dim=-1)`,
      what: ({ causal, pad }) => `q = k = v = the 6 word vectors (seed 123, N(0, 1)).
        ${causal ? 'Each word sees only itself and earlier words: the upper triangle is 0.' : ''}
        ${pad ? `The last ${pad} key column(s) are padding and get weight 0.` : ''}
        Masked scores become −∞ before the softmax (hatched cells).`,
      plotTitle: 'attention weights (rows: queries, columns: keys)',
    },
    {
      id: 'E1.5',
      title: 'what follows attention: residual, LayerNorm, ReLU/GELU, feed-forward',
      code: `h = layer_norm(x + attention(x))
ffn = linear(gelu(linear(h, W1)), W2)
y = layer_norm(h + ffn)`,
      what: `Residual connection, LayerNorm (each row to mean 0, variance 1), a GELU feed-forward
        network (16 -> 64 -> 16), and again residual + LayerNorm; weights ~ N(0, 1), seed 123.`,
    },
  ],
};
