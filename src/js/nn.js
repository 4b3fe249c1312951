// The layers around attention (seed 001 E1.5, seed 004 E4.1): positional encoding, layer norm,
// activations and elementwise arithmetic with broadcasting. Mixed into AttentionWasm.prototype
// by index.js; each method checks types here and lets the C++ API check sizes and shapes.
import {
  unwrap, toTensor, floatArg, optionsArg, numberOption, integerArg, checkShape, describe,
} from './validate.js';

/** A number becomes a 0-d tensor (torch.add(x, 2)); anything else must be a float tensor. */
function operandArg(value, where) {
  if (typeof value === 'number') return { data: Float32Array.of(value), shape: [] };
  return floatArg(value, where);
}

export const nnMethods = {
  /**
   * Sinusoidal positional encoding [maxLength, dModel]: PE[pos, 2i] = sin(pos / 10000^(2i/dModel)),
   * PE[pos, 2i+1] = cos(...); an odd dModel drops the last cos column.
   */
  positionalEncoding(maxLength, dModel) {
    for (const [name, value] of [['maxLength', maxLength], ['dModel', dModel]]) {
      integerArg(value, `positionalEncoding: ${name}`);
      if (value < 0 || !Number.isSafeInteger(value)) {
        throw new RangeError(`positionalEncoding: ${name} must be a non-negative integer, got ${value}`);
      }
    }
    return toTensor(unwrap(this.raw._positionalEncoding(maxLength, dModel)));
  },

  /** torch.nn.functional.layer_norm(input, normalized_shape, weight, bias, eps) */
  layerNorm(input, normalizedShape, options) {
    const fn = 'layerNorm';
    floatArg(input, `${fn}: input`);
    const shape = typeof normalizedShape === 'number' ? [normalizedShape] : normalizedShape;
    if (!Array.isArray(shape)) {
      throw new TypeError(`${fn}: normalizedShape must be an integer or an array of integers, got ${describe(normalizedShape)}`);
    }
    checkShape(shape, `${fn}: normalizedShape`);
    const o = optionsArg(options, ['weight', 'bias', 'eps'], fn);
    const weight = o.weight === undefined || o.weight === null ? null : floatArg(o.weight, `${fn}: weight`);
    const bias = o.bias === undefined || o.bias === null ? null : floatArg(o.bias, `${fn}: bias`);
    const eps = numberOption(o.eps, `${fn}: eps`) ?? 1e-5;
    if (eps < 0) throw new RangeError(`${fn}: eps must be non-negative, got ${eps}`);
    return toTensor(unwrap(this.raw._layerNorm(input, [...shape], weight, bias, eps)));
  },

  /** torch.relu(input): max(x, 0); NaN stays NaN. */
  relu(input) {
    floatArg(input, 'relu: input');
    return toTensor(unwrap(this.raw._relu(input)));
  },

  /** torch.nn.functional.gelu(input, approximate): 'none' (exact, erf; default) or 'tanh'. */
  gelu(input, options) {
    floatArg(input, 'gelu: input');
    const { approximate = 'none' } = optionsArg(options, ['approximate'], 'gelu');
    if (typeof approximate !== 'string') {
      throw new TypeError(`gelu: approximate must be 'none' or 'tanh', got ${describe(approximate)}`);
    }
    if (approximate !== 'none' && approximate !== 'tanh') {
      throw new RangeError(`gelu: approximate must be 'none' or 'tanh', got '${approximate}'`);
    }
    return toTensor(unwrap(this.raw._gelu(input, approximate)));
  },

  /** torch.add(input, other): elementwise sum with torch broadcasting; other may be a number. */
  add(input, other) {
    const a = operandArg(input, 'add: input');
    const b = operandArg(other, 'add: other');
    return toTensor(unwrap(this.raw._add(a, b)));
  },

  /** torch.mul(input, other): elementwise product with torch broadcasting; other may be a number. */
  mul(input, other) {
    const a = operandArg(input, 'mul: input');
    const b = operandArg(other, 'mul: other');
    return toTensor(unwrap(this.raw._mul(a, b)));
  },
};
