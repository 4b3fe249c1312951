// The torch functions: random numbers, matrix products, softmax, embedding, scaled dot-product
// attention. Mixed into AttentionWasm.prototype by index.js; what each does: index.d.ts.
import {
  call,
  tensorArgs,
  floatArg,
  optionalFloatArg,
  maskArg,
  idsArg,
  optionsArg,
  boolOption,
  numberOption,
  integerArg,
  sizeArgs,
  describe,
  shapeString,
} from './validate.js';
import { QuantizedTensor } from './quantized.js';

/** embedding's ids: number[], Int32Array (1-D) or {data: Int32Array, shape}, read once. */
function embeddingIds(ids, weightShape) {
  const where = 'embedding: input';
  if (Array.isArray(ids)) {
    const values = Array.from(ids);
    if (!values.every((i) => typeof i === 'number')) {
      throw new TypeError(
        `${where} must hold integers, got [${values.slice(0, 8).map(describe).join(', ')}${values.length > 8 ? ', ...' : ''}]`,
      );
    }
    // Int32Array.from would wrap 2^32 to 0: a huge or fractional id is out of range, not another row.
    const bad = values.findIndex((i) => !Number.isInteger(i) || i < -(2 ** 31) || i >= 2 ** 31);
    if (bad >= 0)
      throw new RangeError(
        `${where}: index ${values[bad]} (input position ${bad}) is not a row index of weight ${shapeString(weightShape)}`,
      );
    return idsArg({ data: Int32Array.from(values), shape: [values.length] }, where);
  }
  if (ids instanceof Int32Array) return idsArg({ data: ids, shape: [ids.length] }, where);
  if (ids !== null && typeof ids === 'object') {
    const arg = { data: ids.data, shape: ids.shape };
    if (arg.data instanceof Int32Array) return idsArg(arg, where);
  }
  throw new TypeError(
    `${where} must be an array of integers, an Int32Array or {data: Int32Array, shape}, got ${describe(ids?.data ?? ids)}`,
  );
}

export const opsMethods = {
  manualSeed(seed) {
    integerArg(seed, 'manualSeed: seed');
    if (seed < 0 || seed > Number.MAX_SAFE_INTEGER) {
      throw new RangeError(`manualSeed: seed must be in [0, 2^53), got ${seed}`);
    }
    call(this, '_manualSeed', seed);
  },

  rand(...size) {
    return call(this, '_rand', sizeArgs(size, 'rand'));
  },

  randn(...size) {
    return call(this, '_randn', sizeArgs(size, 'randn'));
  },

  matmul(input, other) {
    return call(this, '_matmul', tensorArgs(floatArg(input, 'matmul: input'), floatArg(other, 'matmul: other')));
  },

  linear(input, weight, bias) {
    if (weight instanceof QuantizedTensor) {
      const handle = weight.handleFor(this, 'linear: weight');
      const args = tensorArgs(floatArg(input, 'linear: input'), optionalFloatArg(bias, 'linear: bias'));
      return call(this, '_quantizedLinear', args, handle);
    }
    const args = tensorArgs(
      floatArg(input, 'linear: input'),
      floatArg(weight, 'linear: weight'),
      optionalFloatArg(bias, 'linear: bias'),
    );
    return call(this, '_linear', args);
  },

  softmax(input, options) {
    const x = floatArg(input, 'softmax: input');
    const { dim = -1 } = optionsArg(options, ['dim'], 'softmax');
    integerArg(dim, 'softmax: dim');
    return call(this, '_softmax', tensorArgs(x), dim);
  },

  embedding(ids, weight) {
    // the weight first: its shape names the rows an id may pick
    const w = floatArg(weight, 'embedding: weight');
    return call(this, '_embedding', tensorArgs(embeddingIds(ids, w.shape), w));
  },

  scaledDotProductAttention(query, key, value, options) {
    const fn = 'scaledDotProductAttention';
    // one tensor passed as several of them is read once (the binding then copies it once)
    const q = floatArg(query, `${fn}: query`);
    const k = key === query ? q : floatArg(key, `${fn}: key`);
    const v = value === key ? k : value === query ? q : floatArg(value, `${fn}: value`);
    const o = optionsArg(
      options,
      ['attnMask', 'dropoutP', 'isCausal', 'scale', 'enableGqa', 'returnWeights', 'returnIntermediates'],
      fn,
    );
    const dropoutP = numberOption(o.dropoutP, `${fn}: dropoutP`);
    if (dropoutP !== undefined && dropoutP !== 0) {
      throw new RangeError(`${fn}: dropoutP must be 0 (attention-wasm is an inference library), got ${dropoutP}`);
    }
    const mask = maskArg(o.attnMask, `${fn}: attnMask`);
    // the options as plain arguments: each property the glue would read from an object costs a call
    return call(
      this,
      '_scaledDotProductAttention',
      tensorArgs(q, k, v, mask),
      boolOption(o.isCausal, `${fn}: isCausal`),
      numberOption(o.scale, `${fn}: scale`) ?? NaN /* 1/sqrt(E) */,
      boolOption(o.enableGqa, `${fn}: enableGqa`),
      boolOption(o.returnWeights, `${fn}: returnWeights`),
      boolOption(o.returnIntermediates, `${fn}: returnIntermediates`),
    );
  },
};
