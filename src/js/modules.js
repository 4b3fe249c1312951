// torch.nn-style modules over the library's ops: MultiheadAttention, TransformerEncoderLayer and
// the Linear / LayerNorm parts they are made of. Parameters are JS-owned Tensors (settable,
// shape-checked when set and again when used); there is nothing to free. The classes are bound
// to one library instance (its heap and generator): `new A.MultiheadAttention({...})`.
import { Tensor } from './tensor.js';
import { loadSafetensors } from './safetensors.js';
import { QuantizedTensor } from './quantized.js';
import {
  call,
  tensorArgs,
  floatArg,
  maskArg,
  optionsArg,
  boolOption,
  numberOption,
  positiveIntegerOption,
  describe,
  shapeString,
} from './validate.js';

const sameShape = (a, b) => a.length === b.length && a.every((d, i) => d === b[i]);

// The parameters a binding takes, by state-dict name, in its order (src/bindings/modules_bindings.cpp).
const MHA_PARAMETERS = [
  'in_proj_weight',
  'q_proj_weight',
  'k_proj_weight',
  'v_proj_weight',
  'in_proj_bias',
  'out_proj.weight',
  'out_proj.bias',
];
const ENCODER_PARAMETERS = [
  ...MHA_PARAMETERS.map((name) => `self_attn.${name}`),
  'linear1.weight',
  'linear1.bias',
  'linear2.weight',
  'linear2.bias',
  'norm1.weight',
  'norm1.bias',
  'norm2.weight',
  'norm2.bias',
];

/** Uniform(-bound, bound) float32 values drawn as torch's `uniform_` does: rand * (to - from) + from. */
function uniform(lib, shape, bound) {
  const from = Math.fround(-bound),
    to = Math.fround(bound),
    range = Math.fround(to - from);
  const x = lib.rand(shape).data;
  for (let i = 0; i < x.length; i++) x[i] = Math.fround(Math.fround(x[i] * range) + from);
  return new Tensor(x, shape);
}
const filled = (shape, value) => new Tensor(new Float32Array(shape.reduce((a, b) => a * b, 1)).fill(value), shape);

/**
 * A parameter's new value, checked: a float32 tensor of shape `want` (kept if it is a Tensor, else
 * wrapped), or, where `quantizedFor` is a library instance, one of its int8 weights of that shape.
 * `where` names it in type errors, `label` (with its torch name) in shape errors.
 */
function parameterValue(v, where, label, want, quantizedFor) {
  if (quantizedFor && v instanceof QuantizedTensor) {
    v.handleFor(quantizedFor, where); // not disposed, same instance
    if (!sameShape(v.shape, want))
      throw new Error(`${label} must have shape ${shapeString(want)}, got ${shapeString(v.shape)} (int8)`);
    return v;
  }
  const arg = floatArg(v, where);
  if (!sameShape(arg.shape, want))
    throw new Error(`${label} must have shape ${shapeString(want)}, got ${shapeString(arg.shape)}`);
  return v instanceof Tensor ? v : new Tensor(arg.data, arg.shape); // checked again when used
}

/** A module's dropout probability: kept for torch compatibility, never applied (modules run in eval mode). */
function dropoutOption(value, where, fallback) {
  const p = numberOption(value, where) ?? fallback;
  if (p < 0 || p > 1) throw new RangeError(`${where} must be a probability in [0, 1], got ${p}`);
  return p;
}

/**
 * Base of the modules: named parameters (torch's names for the state dict, camelCase properties
 * for JS) and child modules.
 */
class Module {
  #params = new Map(); // torch name -> {prop, shape, nullable}
  #children = new Map(); // torch name -> Module
  #parent = null;
  #nameInParent = '';

  /** How messages name the module: its class, or its path from the module holding it ("TransformerEncoderLayer.selfAttn.outProj"). */
  get _label() {
    return this.#parent ? `${this.#parent._label}.${this.#nameInParent}` : this.constructor.name;
  }

  /**
   * Declares a parameter: `this[prop]` gets/sets it, checked against `shape` (a function, so
   * that it can depend on other settings). `nullable`: may be null (bias=False). `quantizedFor`:
   * the library instance whose int8 weights (A.quantize) it also accepts (Linear's weight).
   */
  _param(prop, torchName, shape, value, nullable = false, quantizedFor = null) {
    let current = null;
    Object.defineProperty(this, prop, {
      enumerable: true,
      get: () => current,
      set: (v) => {
        if ((v === null || v === undefined) && nullable) {
          current = null;
          return;
        }
        const cls = this._label; // e.g. "MultiheadAttention.outProj"
        const label = prop === torchName ? `${cls}: ${prop}` : `${cls}: ${prop} (${torchName})`;
        current = parameterValue(v, `${cls}: ${prop}`, label, shape(), quantizedFor);
      },
    });
    this.#params.set(torchName, { prop, shape, nullable, quantizedFor });
    this[prop] = value;
  }

  /** Declares a child module (torch name, e.g. "out_proj"); `label` names it in messages. */
  _child(torchName, module, label) {
    module.#parent = this;
    module.#nameInParent = label;
    this.#children.set(torchName, module);
    return module;
  }

  // The public methods (namedParameters, stateDict, loadStateDict) are described in index.d.ts.
  namedParameters(prefix = '') {
    const out = [];
    for (const [name, { prop }] of this.#params) if (this[prop] !== null) out.push([prefix + name, this[prop]]);
    for (const [name, child] of this.#children) out.push(...child.namedParameters(`${prefix}${name}.`));
    return out;
  }

  stateDict() {
    return Object.fromEntries(this.namedParameters());
  }

  loadStateDict(tensors, options) {
    const cls = this.constructor.name;
    const { strict = true } = optionsArg(options, ['strict'], `${cls}.loadStateDict`);
    boolOption(strict, `${cls}.loadStateDict: strict`);
    if (tensors === null || typeof tensors !== 'object') {
      throw new TypeError(
        `${cls}.loadStateDict: tensors must be a Map or an object of name -> Tensor, got ${describe(tensors)}`,
      );
    }
    const entries = tensors instanceof Map ? [...tensors] : Object.entries(tensors);
    // the parameters the module has: an absent one (a bias of bias: false, LayerNorm's weight
    // without elementwiseAffine) is no key, as torch's _load_from_state_dict skips None
    const slots = new Map([...this.#slots('')].filter(([, slot]) => slot.owner[slot.prop] !== null));
    const unexpected = entries.filter(([name]) => !slots.has(name)).map(([name]) => name);
    const given = new Set(entries.map(([name]) => name));
    const missing = [...slots.keys()].filter((name) => !given.has(name));
    if (strict && (unexpected.length || missing.length)) {
      throw new Error(
        `${cls}.loadStateDict: ` +
          (missing.length ? `missing key(s) ${missing.map((n) => `"${n}"`).join(', ')}` : '') +
          (missing.length && unexpected.length ? '; ' : '') +
          (unexpected.length ? `unexpected key(s) ${unexpected.map((n) => `"${n}"`).join(', ')}` : ''),
      );
    }
    // Check everything first, then assign: an error leaves the module unchanged.
    const updates = [];
    for (const [name, value] of entries) {
      const slot = slots.get(name);
      if (!slot) continue;
      const where = `${cls}.loadStateDict: ${name}`;
      const quantized = slot.quantizedFor && value instanceof QuantizedTensor;
      const arg = quantized ? null : floatArg(value, where);
      const got = quantized ? value.shape : arg.shape;
      const want = slot.shape();
      if (!sameShape(got, want)) {
        throw new Error(
          `${cls}.loadStateDict: size mismatch for ${name}: copying a param with shape ` +
            `${shapeString(got)}, the shape in the current model is ${shapeString(want)}`,
        );
      }
      if (quantized) value.handleFor(slot.quantizedFor, where);
      // copied, as torch's param.copy_(input_param): the module's parameter is its own (an int8
      // weight is a handle to memory of its own, assigned as it is)
      updates.push([slot, quantized ? value : new Tensor(new Float32Array(arg.data), arg.shape)]);
    }
    for (const [slot, value] of updates) slot.owner[slot.prop] = value;
    return { missingKeys: missing, unexpectedKeys: unexpected };
  }

  /**
   * The parameters for a binding, `names` (state-dict names) in its order, each read once and
   * checked again (a Tensor's data or shape may have been changed in place since it was set):
   * TypeError / RangeError / Error naming the parameter; null for an absent one, and for an int8
   * one (A.quantize), whose handle is then in `q8` (a Float64Array: NaN for the others).
   */
  _parameterArgs(fn, names) {
    const slots = new Map(this.#slots(''));
    const q8 = new Float64Array(names.length).fill(NaN);
    const tensors = names.map((name, i) => {
      const { owner, prop, shape, quantizedFor } = slots.get(name) ?? {};
      const value = owner?.[prop] ?? null;
      if (value === null) return null;
      if (quantizedFor && value instanceof QuantizedTensor) {
        q8[i] = value.handleFor(quantizedFor, `${fn}: parameter ${name}`);
        return null;
      }
      const arg = floatArg(value, `${fn}: parameter ${name}`);
      const want = shape();
      if (!sameShape(arg.shape, want)) {
        throw new Error(`${fn}: parameter ${name} must have shape ${shapeString(want)}, got ${shapeString(arg.shape)}`);
      }
      return arg;
    });
    return { tensors, q8 };
  }

  /** [torchName, {owner, prop, shape}] for every declared parameter, recursively. */
  #slots(prefix) {
    const out = [];
    for (const [name, { prop, shape, quantizedFor }] of this.#params)
      out.push([prefix + name, { owner: this, prop, shape, quantizedFor }]);
    for (const [name, child] of this.#children) out.push(...child.#slots(`${prefix}${name}.`));
    return out;
  }
}

/** Sets a module's settings as read-only properties: its structure, fixed at construction. */
function settings(module, values) {
  for (const [name, value] of Object.entries(values))
    Object.defineProperty(module, name, { value, enumerable: true, writable: false, configurable: false });
}

/** LayerNorm's normalizedShape: a size, or a list of them (the last dims), frozen; at most 2^29 floats. */
function normalizedShapeOption(value, where) {
  const dims = typeof value === 'number' ? [value] : Array.isArray(value) ? [...value] : []; // read once
  if (dims.length === 0)
    throw new TypeError(`${where} must be a positive integer or a non-empty array of them, got ${describe(value)}`);
  dims.forEach((d, i) => positiveIntegerOption(d, Array.isArray(value) ? `${where}[${i}]` : where));
  if (dims.reduce((a, b) => a * b, 1) > 2 ** 29)
    throw new RangeError(`${where} ${shapeString(dims)}: a weight of more than 2^29 floats`);
  return Object.freeze(dims);
}

/** A weight of rows x cols floats, within the 2^29 floats a tensor may have: a RangeError naming the options. */
function checkWeightSize(rows, cols, where) {
  if (rows * cols > 2 ** 29) throw new RangeError(`${where}: a weight [${rows}, ${cols}] of more than 2^29 floats`);
}

/** Builds the module classes bound to one library instance `lib`. */
export function moduleClasses(lib) {
  // The classes and their options: index.d.ts.
  class Linear extends Module {
    constructor(options) {
      super();
      const fn = 'Linear';
      if (options === undefined || options === null)
        throw new TypeError(`${fn}: options {inFeatures, outFeatures} are required`);
      const o = optionsArg(options, ['inFeatures', 'outFeatures', 'bias'], fn);
      const inFeatures = positiveIntegerOption(o.inFeatures, `${fn}: inFeatures`);
      const outFeatures = positiveIntegerOption(o.outFeatures, `${fn}: outFeatures`);
      const bias = boolOption(o.bias, `${fn}: bias`, true);
      checkWeightSize(outFeatures, inFeatures, `${fn}: outFeatures ${outFeatures} and inFeatures ${inFeatures}`);
      settings(this, { inFeatures, outFeatures });
      // torch: kaiming_uniform_(a=sqrt(5)) = U(-1/sqrt(in), 1/sqrt(in)) for the weight, same bound for the bias.
      const bound = 1 / Math.sqrt(inFeatures);
      // the weight may be set to an int8 one (A.quantize): forward then runs the int8 layer
      this._param(
        'weight',
        'weight',
        () => [outFeatures, inFeatures],
        uniform(lib, [outFeatures, inFeatures], bound),
        false,
        lib,
      );
      this._param('bias', 'bias', () => [outFeatures], bias ? uniform(lib, [outFeatures], bound) : null, true);
    }

    forward(input) {
      return lib.linear(input, this.weight, this.bias);
    }
  }

  // torch.nn.LayerNorm(normalized_shape, eps, elementwise_affine, bias): weight 1 and bias 0 of
  // normalized_shape (none without elementwise_affine); inside a TransformerEncoderLayer its
  // parameters are read by the layer's C++ forward.
  class LayerNorm extends Module {
    constructor(options) {
      super();
      const fn = 'LayerNorm';
      if (options === undefined || options === null)
        throw new TypeError(`${fn}: options {normalizedShape} are required`);
      const o = optionsArg(options, ['normalizedShape', 'eps', 'elementwiseAffine', 'bias'], fn);
      const normalizedShape = normalizedShapeOption(o.normalizedShape, `${fn}: normalizedShape`);
      const eps = numberOption(o.eps, `${fn}: eps`) ?? 1e-5;
      if (eps < 0) throw new RangeError(`${fn}: eps must be non-negative, got ${eps}`); // 0 as torch takes it
      const affine = boolOption(o.elementwiseAffine, `${fn}: elementwiseAffine`, true);
      const bias = boolOption(o.bias, `${fn}: bias`, true);
      // read-only: TransformerEncoderLayer's forward normalises with its layerNormEps
      settings(this, { normalizedShape, eps, elementwiseAffine: affine });
      const shape = () => [...normalizedShape];
      this._param('weight', 'weight', shape, affine ? filled(shape(), 1) : null, !affine);
      this._param('bias', 'bias', shape, affine && bias ? filled(shape(), 0) : null, true);
    }

    forward(input) {
      return lib.layerNorm(input, this.normalizedShape, {
        weight: this.weight ?? undefined,
        bias: this.bias ?? undefined,
        eps: this.eps,
      });
    }
  }

  class MultiheadAttention extends Module {
    constructor(options) {
      super();
      const fn = 'MultiheadAttention';
      const o = optionsArg(options, ['embedDim', 'numHeads', 'bias', 'kdim', 'vdim', 'batchFirst', 'dropout'], fn);
      if (options === undefined || options === null)
        throw new TypeError(`${fn}: options {embedDim, numHeads} are required`);
      const embedDim = positiveIntegerOption(o.embedDim, `${fn}: embedDim`);
      const numHeads = positiveIntegerOption(o.numHeads, `${fn}: numHeads`);
      if (embedDim % numHeads !== 0) {
        throw new RangeError(`${fn}: embedDim ${embedDim} must be divisible by numHeads ${numHeads}`);
      }
      const kdim = o.kdim === undefined || o.kdim === null ? embedDim : positiveIntegerOption(o.kdim, `${fn}: kdim`);
      const vdim = o.vdim === undefined || o.vdim === null ? embedDim : positiveIntegerOption(o.vdim, `${fn}: vdim`);
      const bias = boolOption(o.bias, `${fn}: bias`, true);
      // in_proj_weight [3E, E], or q, k and v's own [E, E], [E, kdim], [E, vdim]
      if (kdim === embedDim && vdim === embedDim)
        checkWeightSize(3 * embedDim, embedDim, `${fn}: embedDim ${embedDim}`);
      else
        for (const [name, d] of [
          ['embedDim', embedDim],
          ['kdim', kdim],
          ['vdim', vdim],
        ])
          checkWeightSize(embedDim, d, `${fn}: embedDim ${embedDim} and ${name} ${d}`);
      settings(this, {
        dropout: dropoutOption(o.dropout, `${fn}: dropout`, 0),
        embedDim,
        numHeads,
        headDim: embedDim / numHeads,
        kdim,
        vdim,
        batchFirst: boolOption(o.batchFirst, `${fn}: batchFirst`),
        sameEmbedDim: kdim === embedDim && vdim === embedDim,
      });
      const E = embedDim;
      // torch's draw order: out_proj (a Linear) initialises first, then _reset_parameters():
      // xavier_uniform_ on the in projection, zeros for both biases.
      this.outProj = this._child('out_proj', new Linear({ inFeatures: E, outFeatures: E, bias }), 'outProj');
      if (bias) this.outProj.bias = filled([E], 0);
      const xavier = (rows, cols) => uniform(lib, [rows, cols], Math.sqrt(3) * Math.sqrt(2 / (rows + cols)));
      if (this.sameEmbedDim) {
        this._param('inProjWeight', 'in_proj_weight', () => [3 * E, E], xavier(3 * E, E));
      } else {
        this._param('qProjWeight', 'q_proj_weight', () => [E, E], xavier(E, E));
        this._param('kProjWeight', 'k_proj_weight', () => [E, kdim], xavier(E, kdim));
        this._param('vProjWeight', 'v_proj_weight', () => [E, vdim], xavier(E, vdim));
      }
      this._param('inProjBias', 'in_proj_bias', () => [3 * E], bias ? filled([3 * E], 0) : null, true);
    }

    // out_proj.weight and out_proj.bias under the names the in projection's parameters have
    get outProjWeight() {
      return this.outProj.weight;
    }
    set outProjWeight(v) {
      this.outProj.weight = v;
    }
    get outProjBias() {
      return this.outProj.bias;
    }
    set outProjBias(v) {
      this.outProj.bias = v;
    }

    forward(query, key, value, options) {
      const fn = 'MultiheadAttention.forward';
      const q = floatArg(query, `${fn}: query`),
        k = floatArg(key, `${fn}: key`),
        v = floatArg(value, `${fn}: value`);
      const o = optionsArg(
        options,
        ['keyPaddingMask', 'attnMask', 'needWeights', 'averageAttnWeights', 'isCausal'],
        fn,
      );
      const params = this._parameterArgs(fn, MHA_PARAMETERS);
      const masks = [maskArg(o.keyPaddingMask, `${fn}: keyPaddingMask`), maskArg(o.attnMask, `${fn}: attnMask`)];
      return call(
        lib,
        '_multiheadAttentionForward',
        tensorArgs(q, k, v, ...params.tensors, ...masks),
        params.q8,
        this.numHeads,
        this.batchFirst,
        boolOption(o.isCausal, `${fn}: isCausal`),
        boolOption(o.needWeights, `${fn}: needWeights`, true),
        boolOption(o.averageAttnWeights, `${fn}: averageAttnWeights`, true),
      );
    }
  }

  class TransformerEncoderLayer extends Module {
    constructor(options) {
      super();
      const fn = 'TransformerEncoderLayer';
      if (options === undefined || options === null) throw new TypeError(`${fn}: options {dModel, nhead} are required`);
      const o = optionsArg(
        options,
        [
          'dModel',
          'nhead',
          'dimFeedforward',
          'dropout',
          'activation',
          'layerNormEps',
          'batchFirst',
          'normFirst',
          'bias',
        ],
        fn,
      );
      const dModel = positiveIntegerOption(o.dModel, `${fn}: dModel`);
      const nhead = positiveIntegerOption(o.nhead, `${fn}: nhead`);
      if (dModel % nhead !== 0) throw new RangeError(`${fn}: dModel ${dModel} must be divisible by nhead ${nhead}`);
      const dimFeedforward = positiveIntegerOption(o.dimFeedforward ?? 2048, `${fn}: dimFeedforward`);
      const dropout = dropoutOption(o.dropout, `${fn}: dropout`, 0.1);
      const activation = o.activation ?? 'relu';
      if (activation !== 'relu' && activation !== 'gelu') {
        throw new TypeError(
          `${fn}: activation must be 'relu' or 'gelu', got ${typeof activation === 'string' ? `'${activation}'` : describe(activation)}`,
        );
      }
      const eps = numberOption(o.layerNormEps, `${fn}: layerNormEps`) ?? 1e-5;
      if (eps < 0) throw new RangeError(`${fn}: layerNormEps must be non-negative, got ${eps}`);
      const bias = boolOption(o.bias, `${fn}: bias`, true);
      checkWeightSize(3 * dModel, dModel, `${fn}: dModel ${dModel}`); // self_attn.in_proj_weight
      checkWeightSize(dimFeedforward, dModel, `${fn}: dimFeedforward ${dimFeedforward} and dModel ${dModel}`);
      settings(this, {
        dropout,
        dModel,
        nhead,
        dimFeedforward,
        activation,
        layerNormEps: eps,
        batchFirst: boolOption(o.batchFirst, `${fn}: batchFirst`),
        normFirst: boolOption(o.normFirst, `${fn}: normFirst`),
      });
      // torch's construction (and draw) order: self_attn, linear1, linear2, norm1, norm2.
      this.selfAttn = this._child(
        'self_attn',
        new MultiheadAttention({ embedDim: dModel, numHeads: nhead, bias, batchFirst: this.batchFirst }),
        'selfAttn',
      );
      this.linear1 = this._child(
        'linear1',
        new Linear({ inFeatures: dModel, outFeatures: dimFeedforward, bias }),
        'linear1',
      );
      this.linear2 = this._child(
        'linear2',
        new Linear({ inFeatures: dimFeedforward, outFeatures: dModel, bias }),
        'linear2',
      );
      this.norm1 = this._child('norm1', new LayerNorm({ normalizedShape: dModel, eps, bias }), 'norm1');
      this.norm2 = this._child('norm2', new LayerNorm({ normalizedShape: dModel, eps, bias }), 'norm2');
    }

    forward(src, options) {
      const fn = 'TransformerEncoderLayer.forward';
      const x = floatArg(src, `${fn}: src`);
      const o = optionsArg(options, ['srcMask', 'srcKeyPaddingMask', 'isCausal'], fn);
      const params = this._parameterArgs(fn, ENCODER_PARAMETERS);
      const masks = [maskArg(o.srcKeyPaddingMask, `${fn}: srcKeyPaddingMask`), maskArg(o.srcMask, `${fn}: srcMask`)];
      return call(
        lib,
        '_transformerEncoderLayerForward',
        tensorArgs(x, ...params.tensors, ...masks),
        params.q8,
        this.nhead,
        this.batchFirst,
        boolOption(o.isCausal, `${fn}: isCausal`),
        this.normFirst,
        this.activation,
        this.layerNormEps,
      );
    }
  }

  return { Linear, LayerNorm, MultiheadAttention, TransformerEncoderLayer };
}

/**
 * Adds the module classes, bound to this instance (its heap and generator), and loadSafetensors
 * to a library instance as properties (called by the AttentionWasm constructor).
 */
export function installModules(lib) {
  for (const [name, cls] of Object.entries(moduleClasses(lib))) {
    Object.defineProperty(lib, name, { value: cls, enumerable: false, writable: false });
  }
  Object.defineProperty(lib, 'loadSafetensors', { value: loadSafetensors, enumerable: false, writable: false });
}
