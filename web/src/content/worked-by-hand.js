// Document 003, "Illustrated self-attention": its inputs and weights (editable on the page), and
// the words around each example. The numbers: sections/worked-by-hand.js.
export default {
  number: '003',
  title: 'Illustrated self-attention',
  intro: `Document 003 works through three inputs of dimension 4 with 4×3 weights, using the plain
    dot product (no 1/√d_k). Edit any matrix: every step is recomputed.`,
  // the document's inputs, as editable text: [name, label, rows, columns, value]
  matrices: [
    ['inputs', 'Inputs (3×4)', 3, 4, '[[1, 0, 1, 0],\n [0, 2, 0, 2],\n [1, 1, 1, 1]]'],
    ['wkey', 'Weights for key (4×3)', 4, 3, '[[0, 0, 1],\n [1, 1, 0],\n [0, 1, 0],\n [1, 1, 0]]'],
    ['wquery', 'Weights for query (4×3)', 4, 3, '[[1, 0, 1],\n [1, 0, 0],\n [0, 0, 1],\n [0, 1, 1]]'],
    ['wvalue', 'Weights for value (4×3)', 4, 3, '[[0, 2, 0],\n [0, 3, 0],\n [1, 0, 3],\n [1, 1, 0]]'],
  ],
  labels: ['input 1', 'input 2', 'input 3'],
  examples: [
    {
      id: 'E3.1',
      title: 'inputs and weights',
      code: `x = torch.tensor(inputs, dtype=torch.float32)
w_key, w_query, w_value = ...  # 4 x 3 each`,
      what: 'Three inputs of dimension 4; each weight matrix maps 4 dimensions to 3.',
    },
    {
      id: 'E3.2',
      title: 'keys, values and queries',
      code: `keys = x @ w_key
values = x @ w_value
querys = x @ w_query`,
      what: 'Each input row times each weight matrix: row i of keys is input i @ w_key.',
    },
    {
      id: 'E3.3',
      title: 'attention scores for input 1 and their softmax',
      code: `attn_scores = querys @ keys.T
attn_scores_softmax = softmax(attn_scores, dim=-1)
# input 1: the softmax of its three scores`,
      what: `Query 1 dotted with every key (no √d_k scaling here), then softmax. The document says it
        rounds to one decimal, but its weights are rounded to the nearest 0.5 (the first weight is
        really ≈ 0.06).`,
    },
    {
      id: 'E3.4',
      title: 'weighted values and their sum: output 1',
      code: `weighted_values = values[:, None] * attn_scores_softmax.T[:, :, None]
outputs = weighted_values.sum(dim=0)`,
      what: `Each value scaled by its weight, then summed. With the document's rounded weights the sum
        is the document's vector; the exact weights give a slightly different one.`,
    },
    {
      id: 'E3.5',
      title: 'outputs 2 and 3 ("left to the reader")',
      code: '# steps 4-7 for input 2 and input 3',
      what: `The document leaves these to the reader; the page completes them: query 2 and query 3
        against all keys, softmax, weighted sum of the values.`,
      plotTitle: 'softmax(querys @ keys.T) — rows: queries',
    },
  ],
};
