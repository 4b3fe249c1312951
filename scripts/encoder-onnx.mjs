// The encoder benchmark's peer: a DistilBERT encoder as an ONNX graph (opset 17), written with
// the same weights that attention-wasm runs, for onnxruntime-web (the engine under
// transformers.js). The graph computes transformers' modeling_distilbert.py (DistilBertModel,
// eager attention) step by step (a Mul by 1/sqrt(Dh) for its division, the mask added as
// (1 - mask) * min for its masked_fill; onnxruntime fuses the linears into Gemm, the residual
// LayerNorms into SkipLayerNormalization, GELU, and the scaled q k^T into FusedMatMul; its
// attention fusion, which wants other reshapes, measured no faster: docs/performance.md):
//   x = LayerNorm(word_embeddings[ids] + position_embeddings[0:L])            eps from config
//   per layer:  q, k, v = x Wq^T + bq, ...;  heads (1, H, L, Dh);  q = q / sqrt(Dh)
//               a = softmax(q k^T + (1 - mask) * finfo(float32).min) v;  o = a Wo^T + bo
//               x = LayerNorm(o + x);   x = LayerNorm(lin2(gelu(lin1(x))) + x)
// Inputs: input_ids int64 (1, L), attention_mask float (1, L) (1 = token, 0 = padding).
// Output: last_hidden_state (1, L, dim).
//
// With `quantized: true`, the graph that onnxruntime's quantize_dynamic writes for it (the q8 ONNX
// models transformers.js runs by default; quantize_dynamic in
// onnxruntime/python/tools/quantization/quantize.py, MatMulInteger in operators/matmul.py, with
// MatMulConstBOnly as transformers.js's scripts/quantize.py sets it): every MatMul with a constant
// weight becomes
//   x_q, x_scale, x_zp = DynamicQuantizeLinear(x)           uint8, per tensor (asymmetric)
//   y = Cast(MatMulInteger(x_q, W_q, x_zp, W_zp), FLOAT) * (x_scale * W_scale)
// then the bias Add as before. W_q is int8, symmetric (zero point 0), per tensor by default
// (per_channel=False), or per output channel with `perChannel: true`: scale = max|W| / 127,
// W_q = round(W / scale) (numpy's round half to even); with `reduceRange: true` (reduce_range)
// 7 bits: scale = max|W| / 64, W_q in [-64, 64] (get_qmin_qmax_for_qType). transformers.js's
// scripts/convert.py quantizes a DistilBERT with per_channel and reduce_range (every model type
// but those in NO_PER_CHANNEL_REDUCE_RANGE_MODELS: GPT-2, Llama, Qwen2... are per tensor, 8 bits):
// TRANSFORMERS_JS_Q8. The attention products, softmax, LayerNorm and GELU stay float32.
import { FLOAT, INT64, attrFloat, attrInt, attrInts, initializer, model, node, valueInfo } from './onnx.mjs';

/** Round half to even (numpy.round). */
function roundHalfEven(x) {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** The q8 form transformers.js's convert.py gives a DistilBERT (per_channel, reduce_range). */
export const TRANSFORMERS_JS_Q8 = { perChannel: true, reduceRange: true };

/**
 * A MatMul's constant B = W (in, out), row-major, as quantize_dynamic stores it: int8 values and
 * the scales (one, or one per column = output channel), symmetric, max|w| / 127 (/ 64 with
 * reduceRange).
 */
function quantizedWeight(data, K, N, perChannel, reduceRange = false) {
  const qmax = reduceRange ? 64 : 127;
  const absMax = new Float32Array(perChannel ? N : 1);
  for (let i = 0; i < K; i++)
    for (let j = 0; j < N; j++) {
      const c = perChannel ? j : 0;
      absMax[c] = Math.max(absMax[c], Math.abs(data[i * N + j]));
    }
  const scales = absMax.map((m) => (m === 0 ? 1 : m / qmax));
  const q = new Int8Array(K * N);
  for (let i = 0; i < K; i++)
    for (let j = 0; j < N; j++) {
      const v = roundHalfEven(data[i * N + j] / scales[perChannel ? j : 0]);
      q[i * N + j] = Math.max(-qmax, Math.min(qmax, v));
    }
  return { q, scales };
}

/**
 * quantize_dynamic's MatMulInteger form of y = x W for a constant W (in, out) = (K, N), row-major,
 * emitted into a graph under construction: `init(name, dims, data)` adds an initializer, `emit(type,
 * inputs, outputs, attrs)` a node. `name` names W's initializers, `out` the float32 product
 * (before any bias). Shared by the decoder graph (scripts/decoder-onnx.mjs).
 */
export function quantizedMatMul({ init, emit }, x, name, data, K, N, out, perChannel = false, reduceRange = false) {
  const { q, scales } = quantizedWeight(data, K, N, perChannel, reduceRange);
  const channels = perChannel ? [N] : [];
  init(`${name}_quantized`, [K, N], q);
  init(`${name}_scale`, channels, scales);
  init(`${name}_zero_point`, channels, new Int8Array(perChannel ? N : 1));
  emit('DynamicQuantizeLinear', [x], [`${out}.x_q`, `${out}.x_scale`, `${out}.x_zp`]);
  emit('MatMulInteger', [`${out}.x_q`, `${name}_quantized`, `${out}.x_zp`, `${name}_zero_point`], [`${out}.int`]);
  emit('Mul', [`${out}.x_scale`, `${name}_scale`], [`${out}.scales`]);
  emit('Cast', [`${out}.int`], [`${out}.cast`], [attrInt('to', FLOAT)]);
  emit('Mul', [`${out}.cast`, `${out}.scales`], [out]);
  return out;
}

const FLOAT32_MIN = -3.4028234663852886e38; // torch.finfo(torch.float32).min

/** (rows, cols) row-major -> (cols, rows): nn.Linear's (out, in) weight as MatMul's (in, out). */
function transposed(data, rows, cols) {
  const out = new Float32Array(rows * cols);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) out[j * rows + i] = data[i * cols + j];
  return out;
}

/**
 * ONNX model bytes for a DistilBERT encoder.
 * @param {{ config: object, tensors: Map<string, {data: Float32Array, shape: number[]}>, seqLength: number }} args
 *   config: the model's config.json (model_type 'distilbert': dim, n_layers, n_heads, hidden_dim,
 *   activation 'gelu' | 'relu'); tensors: the checkpoint's tensors by name, with or without the
 *   'distilbert.' prefix.
 */
export function buildEncoderOnnx({
  config,
  tensors,
  seqLength: L,
  quantized = false,
  perChannel = false,
  reduceRange = false,
}) {
  if (config.model_type !== 'distilbert')
    throw new Error(`buildEncoderOnnx: model_type ${config.model_type} is not supported (distilbert only)`);
  const { dim: D, n_layers: layers, n_heads: H, activation = 'gelu' } = config;
  const Dh = D / H,
    eps = 1e-12;
  const weight = (name) => {
    const t = tensors.get(name) ?? tensors.get(`distilbert.${name}`);
    if (!t) throw new Error(`buildEncoderOnnx: missing tensor ${name}`);
    return t;
  };
  const nodes = [],
    inits = [];
  const init = (name, dims, data) => {
    inits.push(initializer(name, dims, data));
    return name;
  };
  const op = (type, inputs, output, attrs) => {
    nodes.push(node(type, inputs, [output], attrs));
    return output;
  };
  const scalar = (name, v) => init(name, [], Float32Array.of(v));
  const shape = (name, dims) => init(name, [dims.length], BigInt64Array.from(dims.map(BigInt)));

  // y = x W^T + b for the nn.Linear named `name` (weight (out, in))
  const linear = (x, name, out) => {
    const w = weight(`${name}.weight`),
      [rows, cols] = w.shape;
    init(`${name}.bias`, [rows], weight(`${name}.bias`).data);
    if (!quantized) {
      init(`${name}.weight.T`, [cols, rows], transposed(w.data, rows, cols));
      return op('Add', [op('MatMul', [x, `${name}.weight.T`], `${out}.xw`), `${name}.bias`], out);
    }
    // quantize_dynamic's MatMulInteger form
    const emit = (type, ins, outs, attrs) => nodes.push(node(type, ins, outs, attrs));
    const xw = quantizedMatMul(
      { init, emit },
      x,
      `${name}.weight`,
      transposed(w.data, rows, cols),
      cols,
      rows,
      `${out}.xw`,
      perChannel,
      reduceRange,
    );
    return op('Add', [xw, `${name}.bias`], out);
  };
  const layerNorm = (x, name, out) => {
    init(`${name}.weight`, [D], weight(`${name}.weight`).data);
    init(`${name}.bias`, [D], weight(`${name}.bias`).data);
    return op('LayerNormalization', [x, `${name}.weight`, `${name}.bias`], out, [
      attrInt('axis', -1),
      attrFloat('epsilon', eps),
    ]);
  };

  // embeddings
  const words = weight('embeddings.word_embeddings.weight'),
    positions = weight('embeddings.position_embeddings.weight');
  init('word_embeddings', words.shape, words.data);
  init('position_embeddings', positions.shape, positions.data);
  init(
    'position_ids',
    [1, L],
    BigInt64Array.from({ length: L }, (_, i) => BigInt(i)),
  );
  op('Gather', ['word_embeddings', 'input_ids'], 'words', [attrInt('axis', 0)]);
  op('Gather', ['position_embeddings', 'position_ids'], 'positions', [attrInt('axis', 0)]);
  let x = layerNorm(op('Add', ['words', 'positions'], 'embedded'), 'embeddings.LayerNorm', 'x0');

  // additive key mask (1, 1, 1, L): 0 for tokens, finfo.min for padding
  scalar('one', 1);
  scalar('float_min', FLOAT32_MIN);
  shape('mask_shape', [1, 1, 1, L]);
  op(
    'Reshape',
    [op('Mul', [op('Sub', ['one', 'attention_mask'], 'pad'), 'float_min'], 'pad_scores'), 'mask_shape'],
    'mask',
  );

  scalar('inv_sqrt_dh', 1 / Math.sqrt(Dh));
  scalar('half', 0.5);
  scalar('sqrt2', Math.SQRT2);
  shape('heads_shape', [1, L, H, Dh]);
  shape('merged_shape', [1, L, D]);
  for (let i = 0; i < layers; i++) {
    const p = `transformer.layer.${i}`,
      t = `l${i}`;
    const heads = (name, perm) =>
      op(
        'Transpose',
        [op('Reshape', [linear(x, `${p}.attention.${name}`, `${t}.${name}`), 'heads_shape'], `${t}.${name}.split`)],
        `${t}.${name}.heads`,
        [attrInts('perm', perm)],
      );
    const q = op('Mul', [heads('q_lin', [0, 2, 1, 3]), 'inv_sqrt_dh'], `${t}.q_scaled`); // (1, H, L, Dh)
    const kT = heads('k_lin', [0, 2, 3, 1]); // (1, H, Dh, L)
    const v = heads('v_lin', [0, 2, 1, 3]); // (1, H, L, Dh)
    const scores = op('Add', [op('MatMul', [q, kT], `${t}.qk`), 'mask'], `${t}.scores`);
    const context = op('MatMul', [op('Softmax', [scores], `${t}.weights`, [attrInt('axis', -1)]), v], `${t}.context`);
    const merged = op(
      'Reshape',
      [op('Transpose', [context], `${t}.context.t`, [attrInts('perm', [0, 2, 1, 3])]), 'merged_shape'],
      `${t}.merged`,
    );
    const sa = layerNorm(
      op('Add', [linear(merged, `${p}.attention.out_lin`, `${t}.attn_out`), x], `${t}.sa_sum`),
      `${p}.sa_layer_norm`,
      `${t}.sa`,
    );
    const h = linear(sa, `${p}.ffn.lin1`, `${t}.h`);
    const act =
      activation === 'relu'
        ? op('Relu', [h], `${t}.act`)
        : // gelu(h) = 0.5 h (1 + erf(h / sqrt(2)))
          op(
            'Mul',
            [
              op(
                'Mul',
                [h, op('Add', [op('Erf', [op('Div', [h, 'sqrt2'], `${t}.hs`)], `${t}.erf`), 'one'], `${t}.erf1`)],
                `${t}.hg`,
              ),
              'half',
            ],
            `${t}.act`,
          );
    x = layerNorm(
      op('Add', [linear(act, `${p}.ffn.lin2`, `${t}.ffn`), sa], `${t}.ffn_sum`),
      `${p}.output_layer_norm`,
      `${t}.out`,
    );
  }
  op('Identity', [x], 'last_hidden_state');

  return model('distilbert', [
    ...nodes,
    ...inits,
    valueInfo(11, 'input_ids', [1, L], INT64),
    valueInfo(11, 'attention_mask', [1, L], FLOAT),
    valueInfo(12, 'last_hidden_state', [1, L, D], FLOAT),
  ]);
}
