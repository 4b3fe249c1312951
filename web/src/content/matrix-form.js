// Document 002, "Self Attention" (the matrix form): the words around its one example. The
// numbers: sections/matrix-form.js.
export default {
  number: '002',
  title: 'Self Attention (the matrix form)',
  intro: `Document 002 writes attention as matrix products and tracks the shapes. The document has
    no numbers; the page fills X and the W's with N(0, 1) values (torch.manual_seed) and follows
    every step.`,
  sizes: { N: 5, d_model: 8, d_k: 4, d_v: 6 },
  examples: [
    {
      id: 'E2.1',
      title: 'Attention(Q, K, V) = softmax(QKᵀ / √d_k) V',
      code: `Q = X @ W_Q;  K = X @ W_K;  V = X @ W_V
S = Q @ K.T
A = torch.softmax(S / d_k**0.5, dim=-1)
Output = A @ V`,
      what: ({ N, dm, dv }) => `N = ${N} tokens of dimension ${dm} become ${N} outputs of dimension
        d_v = ${dv}; each output row is a convex combination of the rows of V.`,
      plotTitle: 'A = softmax(QKᵀ/√d_k)',
    },
  ],
};
