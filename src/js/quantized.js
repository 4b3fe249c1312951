// Int8 ("q8") weights: A.quantize(weight) and the QuantizedTensor it returns, which A.linear and
// A.Linear accept in place of a float32 weight. Mixed into AttentionWasm.prototype by index.js;
// what each does: index.d.ts.
//
// A QuantizedTensor's int8 values live in its library instance's wasm memory, packed once for the
// kernel (src/ops/quantized_linear.hpp): a call copies nothing of the weight, as the model's int8
// layers do not. They stay there until dispose() (or, as a fallback, until the object is
// garbage-collected).
import { call, tensorArgs, floatArg, optionsArg, describe } from './validate.js';

// Frees a weight when its object is garbage-collected without dispose().
const finalizer =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry(({ raw, handle }) => raw._quantizedDispose(handle))
    : null;

/** The dtypes quantize() makes. */
export const QUANTIZED_DTYPES = Object.freeze(['q8']);

// Passed by quantize() alone: a QuantizedTensor made with `new` could alias another's handle.
const MADE_BY_QUANTIZE = Symbol('A.quantize');

export class QuantizedTensor {
  #lib;
  #handle;
  #shape;
  #residentBytes;
  #disposed = false;

  /** @private made by A.quantize */
  constructor(lib, { handle, shape, residentBytes }, made) {
    if (made !== MADE_BY_QUANTIZE) {
      throw new TypeError('QuantizedTensor: made by A.quantize(weight), not by new (its values live in wasm memory)');
    }
    this.#lib = lib;
    this.#handle = handle;
    this.#shape = shape;
    this.#residentBytes = residentBytes;
    finalizer?.register(this, { raw: lib.raw, handle }, this);
  }

  /** 'q8': int8 values, one float32 scale per row (output channel). */
  get dtype() {
    return 'q8';
  }

  /** [outFeatures, inFeatures] */
  get shape() {
    return [...this.#shape];
  }

  get ndim() {
    return 2;
  }

  get size() {
    return this.#shape[0] * this.#shape[1];
  }

  /** Bytes of wasm memory it holds (int8 values, scales, sums). */
  get residentBytes() {
    return this.#disposed ? 0 : this.#residentBytes;
  }

  get disposed() {
    return this.#disposed;
  }

  /** The float32 weight the int8 layer computes with: scale[j] * q[j, p]. */
  dequantize() {
    return call(this.#lib, '_quantizedDequantize', this.handleFor(this.#lib, 'dequantize'));
  }

  /** Frees its wasm memory; idempotent. Using it afterwards throws. */
  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    finalizer?.unregister(this);
    this.#lib.raw._quantizedDispose(this.#handle);
  }

  /**
   * @private The handle for a call of library instance `lib`; `where` names the argument.
   * Throws if it was disposed or belongs to another instance (another wasm heap).
   */
  handleFor(lib, where) {
    if (this.#disposed) throw new Error(`${where}: the quantized weight ${shapeText(this.#shape)} has been disposed`);
    if (lib !== this.#lib) {
      throw new Error(
        `${where}: the quantized weight ${shapeText(this.#shape)} belongs to another instance of the library ` +
          '(each init() has its own memory): quantize the weight with this one',
      );
    }
    return this.#handle;
  }

  toString() {
    return `QuantizedTensor(${shapeText(this.#shape)}, dtype='q8'${this.#disposed ? ', disposed' : ''})`;
  }
}
if (typeof Symbol.dispose === 'symbol') QuantizedTensor.prototype[Symbol.dispose] = QuantizedTensor.prototype.dispose;

const shapeText = (shape) => `[${shape.join(', ')}]`;

export const quantizedMethods = {
  quantize(weight, options) {
    const fn = 'quantize';
    const { dtype = 'q8' } = optionsArg(options, ['dtype'], fn);
    if (typeof dtype !== 'string') throw new TypeError(`${fn}: dtype must be 'q8', got ${describe(dtype)}`);
    if (!QUANTIZED_DTYPES.includes(dtype)) throw new RangeError(`${fn}: dtype must be 'q8', got '${dtype}'`);
    // already int8 (of this instance): itself, as torch's tensor.to(dtype) returns the tensor
    if (weight instanceof QuantizedTensor) {
      weight.handleFor(this, `${fn}: weight`); // throws if disposed or of another instance
      return weight;
    }
    const w = floatArg(weight, `${fn}: weight`);
    if (w.shape.length !== 2) {
      throw new Error(`${fn}: weight must be 2-D (out_features, in_features), got ${shapeText(w.shape)}`);
    }
    return new QuantizedTensor(this, call(this, '_quantize', tensorArgs(w)), MADE_BY_QUANTIZE);
  },
};
