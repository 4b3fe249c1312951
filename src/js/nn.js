// The layers around attention (document 001 E1.5, document 004 E4.1): positional encoding, layer norm,
// activations and elementwise arithmetic with broadcasting. Mixed into AttentionWasm.prototype
// by index.js; what each does: index.d.ts.
import {
  call,
  tensorArgs,
  floatArg,
  optionalFloatArg,
  optionsArg,
  numberOption,
  integerArg,
  shapeArg,
  describe,
} from './validate.js';

/** A number becomes a 0-d tensor (torch.add(x, 2)); anything else must be a float tensor. */
function operandArg(value, where) {
  return floatArg(typeof value === 'number' ? { data: Float32Array.of(value), shape: [] } : value, where);
}

export const nnMethods = {
  positionalEncoding(maxLength, dModel) {
    for (const [name, value] of [
      ['maxLength', maxLength],
      ['dModel', dModel],
    ]) {
      integerArg(value, `positionalEncoding: ${name}`);
      if (value < 0) throw new RangeError(`positionalEncoding: ${name} must be a non-negative integer, got ${value}`);
    }
    return call(this, '_positionalEncoding', maxLength, dModel);
  },

  layerNorm(input, normalizedShape, options) {
    const fn = 'layerNorm';
    const x = floatArg(input, `${fn}: input`);
    const shape = typeof normalizedShape === 'number' ? [normalizedShape] : normalizedShape;
    if (!Array.isArray(shape)) {
      throw new TypeError(
        `${fn}: normalizedShape must be an integer or an array of integers, got ${describe(normalizedShape)}`,
      );
    }
    const dims = shapeArg(shape, `${fn}: normalizedShape`);
    const o = optionsArg(options, ['weight', 'bias', 'eps'], fn);
    const weight = optionalFloatArg(o.weight, `${fn}: weight`),
      bias = optionalFloatArg(o.bias, `${fn}: bias`);
    const eps = numberOption(o.eps, `${fn}: eps`) ?? 1e-5;
    if (eps < 0) throw new RangeError(`${fn}: eps must be non-negative, got ${eps}`);
    return call(this, '_layerNorm', tensorArgs(x, weight, bias), dims, eps);
  },

  relu(input) {
    return call(this, '_relu', tensorArgs(floatArg(input, 'relu: input')));
  },

  gelu(input, options) {
    const x = floatArg(input, 'gelu: input');
    const { approximate = 'none' } = optionsArg(options, ['approximate'], 'gelu');
    if (typeof approximate !== 'string') {
      throw new TypeError(`gelu: approximate must be 'none' or 'tanh', got ${describe(approximate)}`);
    }
    if (approximate !== 'none' && approximate !== 'tanh') {
      throw new RangeError(`gelu: approximate must be 'none' or 'tanh', got '${approximate}'`);
    }
    return call(this, '_gelu', tensorArgs(x), approximate);
  },

  add(input, other) {
    return call(this, '_add', tensorArgs(operandArg(input, 'add: input'), operandArg(other, 'add: other')));
  },

  mul(input, other) {
    return call(this, '_mul', tensorArgs(operandArg(input, 'mul: input'), operandArg(other, 'mul: other')));
  },
};
