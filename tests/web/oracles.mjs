// The documents' printed outputs (from /work/shared/seeds), used as test oracles. These strings
// live only in tests: a test fails if any of them appears in the page's sources (web/). E4.6's
// numbers are tests/js/e46.mjs's DOCUMENT, shared with the Node test.
import { DOCUMENT, printedRows } from '../js/e46.mjs';
export const E0 = {
  'E0.1': "{'Life': 0, 'dessert': 1, 'eat': 2, 'first': 3, 'is': 4, 'short': 5}",
  'E0.2': 'tensor([0, 4, 5, 2, 1, 3])',
  'E0.3.first': [0.3374, -0.1778, -0.3035, -0.588, 0.3486, 0.6603, -0.2196, -0.3792],
  'E0.3.last': [
    0.8768, 1.6221, -1.4779, 1.1331, -1.2203, 1.3139, 1.0533, 0.1388, 2.2473, -0.8036, -0.2808, 0.7697, -0.6596,
    -0.7979, 0.1838, 0.2293,
  ],
  'E0.6.omega_24': 11.1466,
  'E0.6.omega_2': [8.5808, -7.6597, 3.2558, 1.0395, 11.1466, -0.48],
  'E0.7': [0.2912, 0.0106, 0.0982, 0.0625, 0.4917, 0.0458],
  'E0.8': [
    -1.5993, 0.0156, 1.267, 0.0032, -0.646, -1.1407, -0.4908, -1.4632, 0.4747, 1.1926, 0.4506, -0.711, 0.0602, 0.7125,
    -0.1628, -2.0184, 0.3838, -2.1188, -0.8136, -1.5694, 0.7934, -0.2911, -1.364, -0.2366, -0.9564, -0.5265, 0.0624,
    1.7084,
  ],
  'E0.9.shapes': [
    'torch.Size([3, 24])',
    'torch.Size([3, 16, 6])',
    'multihead_keys.shape: torch.Size([3, 24, 6])',
    'multihead_values.shape: torch.Size([3, 28, 6])',
    'multihead_keys.shape: torch.Size([3, 6, 24])',
    'multihead_values.shape: torch.Size([3, 6, 28])',
  ],
  'E0.10.shapes': ['keys.shape: torch.Size([8, 24])', 'values.shape: torch.Size([8, 28])'],
};
export const E1 = {
  'E1.1.shapes': {
    K: '(6, 8, 16)',
    Q: '(6, 8, 16)',
    V: '(6, 8, 16)',
    scores: '(6, 8, 8)',
    weights: '(6, 8, 8)',
    output: '(6, 8, 16)',
  },
  'E1.2.diffused': '[0.18 0.25 0.07 0.17 0.24 0.09]',
  'E1.2.onehot': '[0.   0.99 0.   0.   0.01 0.  ]',
};
export const E3 = {
  keys: '[[0, 1, 1], [4, 4, 0], [2, 3, 1]]',
  values: '[[1, 2, 3], [2, 8, 0], [2, 6, 3]]',
  queries: '[[1, 0, 2], [2, 2, 2], [2, 1, 3]]',
  scores1: '[2, 4, 4]',
  softmax1: '[0.0, 0.5, 0.5]',
  weighted: ['[0.0, 0.0, 0.0]', '[1.0, 4.0, 0.0]', '[1.0, 3.0, 1.5]'],
  output1: '[2.0, 7.0, 1.5]',
};
export const E4 = {
  pe: '[[ 0.    1.    0.  ]\n [ 0.84  0.54  0.  ]\n [ 0.91 -0.42  0.  ]\n [ 0.14 -0.99  0.01]\n [-0.76 -0.65  0.01]]',
  peValues: [0, 1, 0, 0.84, 0.54, 0, 0.91, -0.42, 0, 0.14, -0.99, 0.01, -0.76, -0.65, 0.01],
  // E4.6's token list as the notebook prints it (document 004, section 4.8)
  tokens: "['[CLS]', 'write', 'a', 'poem', 'about', 'a', 'man', 'fishing', 'on', 'a',\n 'river', 'bank', '.', '[SEP]']",
};

/** E4.6's printed tensors: their rows of numbers (the corners). */
const cornerRows = [DOCUMENT.learnedEmbeddings, DOCUMENT.lastHiddenState].flatMap((t) =>
  printedRows(t)
    .filter((r) => r[0] !== '...')
    .map((r) => r.filter((x) => x !== '...').map(Number)),
);

/** Runs of numbers from the oracles that must never be typed into the page's sources. */
export const forbiddenRuns = [
  E0['E0.3.first'],
  E0['E0.3.last'],
  E0['E0.6.omega_2'],
  E0['E0.7'],
  E0['E0.8'],
  [0.18, 0.25, 0.07, 0.17, 0.24, 0.09],
  [0, 0.99, 0, 0, 0.01, 0],
  [0, 1, 1, 4, 4, 0, 2, 3, 1],
  [1, 2, 3, 2, 8, 0, 2, 6, 3],
  [1, 0, 2, 2, 2, 2, 2, 1, 3],
  [2, 7, 1.5],
  [1, 3, 1.5],
  [0.84, 0.54],
  [0.91, -0.42],
  [0.14, -0.99],
  [-0.76, -0.65],
  DOCUMENT.leBank,
  DOCUMENT.s1Bank,
  DOCUMENT.s2Bank,
  ...cornerRows,
];
export const forbiddenStrings = [
  E3.scores1,
  E3.keys,
  '11.1466',
  '0.2912',
  '-1.5993',
  '0.3374',
  E1['E1.2.diffused'],
  E1['E1.2.onehot'],
  E3.output1,
  E3.softmax1,
  E4.tokens,
  "'fishing', 'on', 'a'",
];
