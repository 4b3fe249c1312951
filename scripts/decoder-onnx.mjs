// The decoder benchmark's peer: GPT2LMHeadModel as an ONNX decoder graph with past key/values,
// the interface transformers.js and Optimum's exports use, written with the same weights that
// attention-wasm loads from the folder, for onnxruntime-web:
//   inputs   input_ids int64 (batch, seq), attention_mask int64 (batch, past + seq),
//            position_ids int64 (batch, seq), past_key_values.N.key / .value float
//            (batch, n_head, past, head_dim) (past = 0 for the prompt)
//   outputs  logits (batch, seq, vocab), present.N.key / .value (batch, n_head, past + seq, head_dim)
// It follows transformers' modeling_gpt2.py (GPT2Model / GPT2Block / GPT2Attention, as
// tests/js/reference/causal.mjs does), in one of two forms:
//   'plain'  ONNX operators only, as a torch export writes it: LayerNormalization, MatMul + Add,
//            Split, Reshape / Transpose into heads, Concat with the past, MatMul / Softmax / MatMul
//            with the causal mask (a slice of a (n_positions, n_positions) table, aligned
//            bottom-right by the past length) plus the padding mask, gelu_new spelled out with
//            Tanh; onnxruntime's own graph optimizer fuses what it recognises (LayerNorm,
//            Gelu / FastGelu, MatMul + Add) at graphOptimizationLevel 'all'.
//   'fused'  onnxruntime's contrib operators (com.microsoft), what its transformer optimizer
//            makes of GPT-2 for the CPU: MultiHeadAttention with unidirectional=1, past_key /
//            past_value in and present_key / present_value out, the c_attn bias and the
//            key_padding_mask taken by the op (q, k, v as three MatMuls on c_attn's column
//            blocks, so no Split copies); SkipLayerNormalization for every residual add +
//            LayerNorm (with the c_proj biases folded in); FastGelu with the c_fc bias.
// lm_head is tied to wte: MatMul with wte^T (one more initializer, as torch's export folds it).
// With `quantized: true`, either form as transformers.js's q8 files are made of it: onnxruntime's
// quantize_dynamic with MatMulConstBOnly over the graph (every MatMul with a constant weight:
// c_attn (or its q, k, v blocks), c_proj, c_fc, the MLP's c_proj and lm_head) rewritten into
// DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul, int8 weights per tensor
// (scripts/encoder-onnx.mjs's quantizedMatMul, which the encoder's q8 graph uses); the embeddings'
// Gathers, LayerNorm, attention and GELU stay float32.
import { FLOAT, INT64, attrFloat, attrInt, attrInts, initializer, model, node, valueInfo } from './onnx.mjs';
import { quantizedMatMul } from './encoder-onnx.mjs';

const MASKED = -1e9; // an additive mask value: exp() of it is 0, and two of them do not overflow

/** (rows, cols) row-major -> (cols, rows). */
function transposed(data, rows, cols) {
  const out = new Float32Array(rows * cols);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) out[j * rows + i] = data[i * cols + j];
  return out;
}

/** Columns [from, to) of a (rows, cols) row-major matrix. */
function columns(data, rows, cols, from, to) {
  const out = new Float32Array(rows * (to - from));
  for (let i = 0; i < rows; i++) out.set(data.subarray(i * cols + from, i * cols + to), i * (to - from));
  return out;
}

/**
 * ONNX model bytes for a GPT-2 decoder with past key/values.
 * @param {{config: object, tensors: Map<string, {data: Float32Array, shape: number[]}>,
 *   form?: 'fused' | 'plain', quantized?: boolean}} args config: config.json (model_type 'gpt2'); tensors: the
 *   checkpoint's tensors by name, with or without 'transformer.' (Conv1D weights (in, out)).
 */
export function buildGpt2DecoderOnnx({ config, tensors, form = 'fused', quantized = false }) {
  if (config.model_type !== 'gpt2')
    throw new Error(`buildGpt2DecoderOnnx: model_type ${config.model_type} is not supported (gpt2 only)`);
  if (!['fused', 'plain'].includes(form)) throw new Error(`buildGpt2DecoderOnnx: form ${form}`);
  const D = config.n_embd,
    H = config.n_head,
    Dh = D / H,
    F = config.n_inner ?? 4 * D,
    P = config.n_positions,
    V = config.vocab_size,
    layers = config.n_layer,
    eps = config.layer_norm_epsilon ?? 1e-5;
  if ((config.activation_function ?? 'gelu_new') !== 'gelu_new')
    throw new Error(`buildGpt2DecoderOnnx: activation_function ${config.activation_function}`);
  const weight = (name) => {
    const t = tensors.get(name) ?? tensors.get(`transformer.${name}`);
    if (!t) throw new Error(`buildGpt2DecoderOnnx: missing tensor ${name}`);
    return t;
  };
  const nodes = [],
    inits = [];
  const init = (name, dims, data) => {
    inits.push(initializer(name, dims, data));
    return name;
  };
  const op = (type, inputs, output, attrs = [], domain = '') => {
    nodes.push(node(type, inputs, [output], attrs, domain));
    return output;
  };
  const scalar = (name, v) => init(name, [], Float32Array.of(v));
  const ints = (name, values) => init(name, [values.length], BigInt64Array.from(values.map(BigInt)));
  const param = (name) => {
    const t = weight(name);
    return init(name, t.shape, t.data);
  };
  // y = x W for a constant W (K, N) named `name`: MatMul, or quantize_dynamic's form of it
  const emit = (type, ins, outs, attrs = []) => nodes.push(node(type, ins, outs, attrs));
  const matmul = (input, name, data, K, N, out) =>
    quantized
      ? quantizedMatMul({ init, emit }, input, name, data, K, N, out)
      : op('MatMul', [input, init(name, [K, N], data)], out);
  const matmulParam = (input, name, out) => {
    const t = weight(name);
    return matmul(input, name, t.data, t.shape[0], t.shape[1], out);
  };

  // embeddings: wte[input_ids] + wpe[position_ids]
  init('wte', [V, D], weight('wte.weight').data);
  init('wpe', [P, D], weight('wpe.weight').data);
  let x = op(
    'Add',
    [
      op('Gather', ['wte', 'input_ids'], 'tokens', [attrInt('axis', 0)]),
      op('Gather', ['wpe', 'position_ids'], 'positions', [attrInt('axis', 0)]),
    ],
    'x0',
  );

  const inputs = [
    valueInfo(11, 'input_ids', ['batch', 'seq'], INT64),
    valueInfo(11, 'attention_mask', ['batch', 'total'], INT64),
    valueInfo(11, 'position_ids', ['batch', 'seq'], INT64),
  ];
  const outputs = [valueInfo(12, 'logits', ['batch', 'seq', V])];
  for (let i = 0; i < layers; i++) {
    for (const part of ['key', 'value']) {
      inputs.push(valueInfo(11, `past_key_values.${i}.${part}`, ['batch', H, 'past', Dh]));
      outputs.push(valueInfo(12, `present.${i}.${part}`, ['batch', H, 'total', Dh]));
    }
  }

  // y = x W + b for the Conv1D named `name` (weight (in, out))
  const conv1d = (input, name, out) =>
    op('Add', [matmulParam(input, `${name}.weight`, `${out}.xw`), param(`${name}.bias`)], out);
  const layerNorm = (input, name, out) =>
    op('LayerNormalization', [input, param(`${name}.weight`), param(`${name}.bias`)], out, [
      attrInt('axis', -1),
      attrFloat('epsilon', eps),
    ]);
  // gelu_new(h) = 0.5 h (1 + tanh(sqrt(2 / pi) (h + 0.044715 h^3)))
  const geluNew = (h, t) => {
    const cube = op('Mul', [op('Mul', [h, h], `${t}.h2`), h], `${t}.h3`);
    const inner = op('Mul', [op('Add', [h, op('Mul', [cube, 'gelu_k'], `${t}.kh3`)], `${t}.u`), 'gelu_c'], `${t}.cu`);
    return op(
      'Mul',
      [op('Mul', [h, 'half'], `${t}.hh`), op('Add', [op('Tanh', [inner], `${t}.tanh`), 'one'], `${t}.t1`)],
      `${t}.act`,
    );
  };

  if (form === 'plain') {
    scalar('half', 0.5);
    scalar('one', 1);
    scalar('gelu_c', Math.sqrt(2 / Math.PI));
    scalar('gelu_k', 0.044715);
    // masks: causal (seq, total) sliced from a table at rows past .. total, plus padding (batch, 1, 1, total)
    const table = new Float32Array(P * P);
    for (let i = 0; i < P; i++) for (let j = i + 1; j < P; j++) table[i * P + j] = MASKED;
    init('causal_table', [P, P], table);
    ints('dim1', [1]);
    ints('dim2', [2]);
    ints('zero', [0]);
    ints('axes01', [0, 1]);
    const past = op('Gather', [op('Shape', ['past_key_values.0.key'], 'past_shape'), 'dim2'], 'past_len');
    const seq = op('Gather', [op('Shape', ['input_ids'], 'ids_shape'), 'dim1'], 'seq_len');
    const total = op('Add', [past, seq], 'total_len');
    const causal = op(
      'Slice',
      [
        'causal_table',
        op('Concat', [past, 'zero'], 'mask_starts', [attrInt('axis', 0)]),
        op('Concat', [total, total], 'mask_ends', [attrInt('axis', 0)]),
        'axes01',
      ],
      'causal',
    );
    scalar('masked', MASKED);
    ints('axes12', [1, 2]);
    const padding = op(
      'Unsqueeze',
      [
        op(
          'Mul',
          [op('Sub', ['one', op('Cast', ['attention_mask'], 'mask_f', [attrInt('to', FLOAT)])], 'pad'), 'masked'],
          'pad_scores',
        ),
        'axes12',
      ],
      'padding',
    );
    const mask = op('Add', [causal, padding], 'mask'); // (batch, 1, seq, total)

    scalar('inv_sqrt_dh', 1 / Math.sqrt(Dh));
    ints('heads_shape', [0, 0, H, Dh]);
    ints('merged_shape', [0, 0, D]);
    ints('split3', [D, D, D]);
    for (let i = 0; i < layers; i++) {
      const p = `h.${i}`,
        t = `l${i}`;
      const a = layerNorm(x, `${p}.ln_1`, `${t}.ln1`);
      const qkv = conv1d(a, `${p}.attn.c_attn`, `${t}.qkv`);
      nodes.push(node('Split', [qkv, 'split3'], [`${t}.q`, `${t}.k`, `${t}.v`], [attrInt('axis', 2)]));
      const heads = (name) =>
        op('Transpose', [op('Reshape', [`${t}.${name}`, 'heads_shape'], `${t}.${name}.split`)], `${t}.${name}.heads`, [
          attrInts('perm', [0, 2, 1, 3]),
        ]);
      const k = op('Concat', [`past_key_values.${i}.key`, heads('k')], `present.${i}.key`, [attrInt('axis', 2)]);
      const v = op('Concat', [`past_key_values.${i}.value`, heads('v')], `present.${i}.value`, [attrInt('axis', 2)]);
      const scores = op(
        'Add',
        [
          op(
            'Mul',
            [
              op('MatMul', [heads('q'), op('Transpose', [k], `${t}.kT`, [attrInts('perm', [0, 1, 3, 2])])], `${t}.qk`),
              'inv_sqrt_dh',
            ],
            `${t}.qk_scaled`,
          ),
          mask,
        ],
        `${t}.scores`,
      );
      const context = op('MatMul', [op('Softmax', [scores], `${t}.weights`, [attrInt('axis', -1)]), v], `${t}.context`);
      const merged = op(
        'Reshape',
        [op('Transpose', [context], `${t}.context.t`, [attrInts('perm', [0, 2, 1, 3])]), 'merged_shape'],
        `${t}.merged`,
      );
      x = op('Add', [x, conv1d(merged, `${p}.attn.c_proj`, `${t}.attn_out`)], `${t}.res1`);
      const m = layerNorm(x, `${p}.ln_2`, `${t}.ln2`);
      const act = geluNew(conv1d(m, `${p}.mlp.c_fc`, `${t}.fc`), t);
      x = op('Add', [x, conv1d(act, `${p}.mlp.c_proj`, `${t}.mlp_out`)], `${t}.res2`);
    }
    x = layerNorm(x, 'ln_f', 'hidden');
  } else {
    const keyPadding = op('Cast', ['attention_mask'], 'key_padding_mask', [attrInt('to', 6)]); // int32 (batch, total)
    // SkipLayerNormalization: (LN(input + skip + bias), -, -, input + skip + bias)
    const skipNorm = (input, skip, bias, name, t) => {
      nodes.push(
        node(
          'SkipLayerNormalization',
          [input, skip, param(`${name}.weight`), param(`${name}.bias`), param(bias)],
          [`${t}.normed`, '', '', `${t}.sum`],
          [attrFloat('epsilon', eps)],
          'com.microsoft',
        ),
      );
      return [`${t}.normed`, `${t}.sum`];
    };
    let a = layerNorm(x, 'h.0.ln_1', 'l0.ln1');
    for (let i = 0; i < layers; i++) {
      const p = `h.${i}`,
        t = `l${i}`;
      // q, k, v: c_attn's column blocks (no bias: MultiHeadAttention adds c_attn.bias)
      const w = weight(`${p}.attn.c_attn.weight`).data;
      const [q, k, v] = ['q', 'k', 'v'].map((name, j) =>
        matmul(a, `${p}.attn.c_attn.${name}`, columns(w, D, 3 * D, j * D, (j + 1) * D), D, D, `${t}.${name}`),
      );
      nodes.push(
        node(
          'MultiHeadAttention',
          [
            q,
            k,
            v,
            param(`${p}.attn.c_attn.bias`),
            keyPadding,
            '',
            `past_key_values.${i}.key`,
            `past_key_values.${i}.value`,
          ],
          [`${t}.attn`, `present.${i}.key`, `present.${i}.value`],
          [attrInt('num_heads', H), attrInt('unidirectional', 1)],
          'com.microsoft',
        ),
      );
      const o = matmulParam(`${t}.attn`, `${p}.attn.c_proj.weight`, `${t}.attn_out`);
      const [m, h1] = skipNorm(o, x, `${p}.attn.c_proj.bias`, `${p}.ln_2`, `${t}.ln2`);
      const act = op(
        'FastGelu',
        [matmulParam(m, `${p}.mlp.c_fc.weight`, `${t}.fc`), param(`${p}.mlp.c_fc.bias`)],
        `${t}.act`,
        [],
        'com.microsoft',
      );
      const f = matmulParam(act, `${p}.mlp.c_proj.weight`, `${t}.mlp_out`);
      [a, x] = skipNorm(f, h1, `${p}.mlp.c_proj.bias`, i + 1 < layers ? `h.${i + 1}.ln_1` : 'ln_f', `${t}.next`);
    }
    x = a; // ln_f(last residual)
  }
  // lm_head = wte^T
  matmul(x, 'lm_head', transposed(weight('wte.weight').data, V, D), D, V, 'logits');

  return model('gpt2-decoder', [...nodes, ...inits, ...inputs, ...outputs], 17, { 'com.microsoft': 1 });
}
