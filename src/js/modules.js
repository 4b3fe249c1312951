// torch.nn-style modules over the library's ops: MultiheadAttention, TransformerEncoderLayer and
// the Linear / LayerNorm parts they are made of. Parameters are JS-owned Tensors (settable,
// shape-checked when set and again when used); there is nothing to free. The classes are bound
// to one library instance (its heap and generator): `new A.MultiheadAttention({...})`.
import { Tensor } from './tensor.js';
import { loadSafetensors } from './safetensors.js';
import { unwrap, toTensor, floatArg, maskArg, optionsArg, boolOption, numberOption, integerArg, describe, shapeString } from './validate.js';

const sameShape = (a, b) => a.length === b.length && a.every((d, i) => d === b[i]);

/** Uniform(-bound, bound) float32 values drawn as torch's `uniform_` does: rand * (to - from) + from. */
function uniform(lib, shape, bound) {
  const from = Math.fround(-bound), to = Math.fround(bound), range = Math.fround(to - from);
  const x = lib.rand(shape).data;
  for (let i = 0; i < x.length; i++) x[i] = Math.fround(Math.fround(x[i] * range) + from);
  return new Tensor(x, shape);
}
const filled = (shape, value) => new Tensor(new Float32Array(shape.reduce((a, b) => a * b, 1)).fill(value), shape);

function positiveInteger(value, where) {
  integerArg(value, where);
  if (value < 1) throw new RangeError(`${where} must be a positive integer, got ${value}`);
  return value;
}

/**
 * Base of the modules: named parameters (torch's names for the state dict, camelCase properties
 * for JS) and child modules.
 */
class Module {
  #params = new Map(); // torch name -> {prop, shape, nullable}
  #children = new Map(); // torch name -> Module

  /**
   * Declares a parameter: `this[prop]` gets/sets it, checked against `shape` (a function, so
   * that it can depend on other settings). `nullable`: may be null (bias=False).
   */
  _param(prop, torchName, shape, value, nullable = false) {
    let current = null;
    Object.defineProperty(this, prop, {
      enumerable: true,
      get: () => current,
      set: (v) => {
        if ((v === null || v === undefined) && nullable) {
          current = null;
          return;
        }
        const cls = this._label ?? this.constructor.name; // e.g. "MultiheadAttention.outProj"
        floatArg(v, `${cls}: ${prop}`);
        const want = shape();
        if (!sameShape(v.shape, want)) {
          throw new Error(`${cls}: ${prop} (${torchName}) must have shape ${shapeString(want)}, got ${shapeString(v.shape)}`);
        }
        current = Tensor.from(v);
      },
    });
    this.#params.set(torchName, { prop, shape, nullable });
    this[prop] = value;
  }

  /** Declares a child module (torch name, e.g. "out_proj"); `label` names it in messages. */
  _child(torchName, module, label) {
    module._label = `${this._label ?? this.constructor.name}.${label}`;
    this.#children.set(torchName, module);
    return module;
  }

  /** [torchName, Tensor] pairs, children prefixed ("out_proj.weight"); null parameters skipped. */
  namedParameters(prefix = '') {
    const out = [];
    for (const [name, { prop }] of this.#params) if (this[prop] !== null) out.push([prefix + name, this[prop]]);
    for (const [name, child] of this.#children) out.push(...child.namedParameters(`${prefix}${name}.`));
    return out;
  }

  /** `module.state_dict()`: an object torch name -> Tensor (held by reference). */
  stateDict() {
    return Object.fromEntries(this.namedParameters());
  }

  /**
   * `module.load_state_dict(tensors, strict)`: sets parameters by torch name. `tensors` is a Map
   * or an object (e.g. from loadSafetensors). With `strict` (default) every parameter must be
   * given and every name known. A shape mismatch throws an Error naming the parameter and both
   * shapes; on any error nothing is changed.
   */
  loadStateDict(tensors, options) {
    const cls = this.constructor.name;
    const { strict = true } = optionsArg(options, ['strict'], `${cls}.loadStateDict`);
    boolOption(strict, `${cls}.loadStateDict: strict`);
    if (tensors === null || typeof tensors !== 'object') {
      throw new TypeError(`${cls}.loadStateDict: tensors must be a Map or an object of name -> Tensor, got ${describe(tensors)}`);
    }
    const entries = tensors instanceof Map ? [...tensors] : Object.entries(tensors);
    const slots = new Map(this.#slots(''));
    const unexpected = entries.filter(([name]) => !slots.has(name)).map(([name]) => name);
    const given = new Set(entries.map(([name]) => name));
    const missing = [...slots.keys()].filter((name) => !given.has(name) && slots.get(name).owner[slots.get(name).prop] !== null);
    if (strict && (unexpected.length || missing.length)) {
      throw new Error(`${cls}.loadStateDict: ` +
        (missing.length ? `missing key(s) ${missing.map((n) => `"${n}"`).join(', ')}` : '') +
        (missing.length && unexpected.length ? '; ' : '') +
        (unexpected.length ? `unexpected key(s) ${unexpected.map((n) => `"${n}"`).join(', ')}` : ''));
    }
    // Check everything first, then assign: an error leaves the module unchanged.
    const updates = [];
    for (const [name, value] of entries) {
      const slot = slots.get(name);
      if (!slot) continue;
      floatArg(value, `${cls}.loadStateDict: ${name}`);
      const want = slot.shape();
      if (!sameShape(value.shape, want)) {
        throw new Error(`${cls}.loadStateDict: size mismatch for ${name}: copying a param with shape ` +
          `${shapeString(value.shape)}, the shape in the current model is ${shapeString(want)}`);
      }
      updates.push([slot, value]);
    }
    for (const [slot, value] of updates) slot.owner[slot.prop] = value;
    return { missingKeys: missing, unexpectedKeys: unexpected };
  }

  /**
   * Checks every parameter again before use (a Tensor's data or shape may have been changed in
   * place since it was set): TypeError / RangeError / Error naming the parameter.
   */
  _checkParameters(fn) {
    for (const [name, { owner, prop, shape }] of this.#slots('')) {
      const value = owner[prop];
      if (value === null) continue;
      floatArg(value, `${fn}: parameter ${name}`);
      const want = shape();
      if (!sameShape(value.shape, want)) {
        throw new Error(`${fn}: parameter ${name} must have shape ${shapeString(want)}, got ${shapeString(value.shape)}`);
      }
    }
  }

  /** [torchName, {owner, prop, shape}] for every declared parameter, recursively. */
  #slots(prefix) {
    const out = [];
    for (const [name, { prop, shape }] of this.#params) out.push([prefix + name, { owner: this, prop, shape }]);
    for (const [name, child] of this.#children) out.push(...child.#slots(`${prefix}${name}.`));
    return out;
  }
}

/** Builds the module classes bound to one library instance `lib`. */
export function moduleClasses(lib) {
  /** torch.nn.Linear(inFeatures, outFeatures, bias): y = x W^T + b. */
  class Linear extends Module {
    constructor({ inFeatures, outFeatures, bias = true } = {}) {
      super();
      positiveInteger(inFeatures, 'Linear: inFeatures');
      positiveInteger(outFeatures, 'Linear: outFeatures');
      boolOption(bias, 'Linear: bias');
      this.inFeatures = inFeatures;
      this.outFeatures = outFeatures;
      // torch: kaiming_uniform_(a=sqrt(5)) = U(-1/sqrt(in), 1/sqrt(in)) for the weight, same bound for the bias.
      const bound = 1 / Math.sqrt(inFeatures);
      this._param('weight', 'weight', () => [outFeatures, inFeatures], uniform(lib, [outFeatures, inFeatures], bound));
      this._param('bias', 'bias', () => [outFeatures], bias ? uniform(lib, [outFeatures], bound) : null, true);
    }

    forward(input) {
      return lib.linear(input, this.weight, this.bias);
    }
  }

  /** torch.nn.LayerNorm(normalizedShape = [features], eps): weight 1, bias 0. */
  class LayerNorm extends Module {
    constructor({ features, eps = 1e-5, bias = true } = {}) {
      super();
      positiveInteger(features, 'LayerNorm: features');
      this.features = features;
      this.eps = numberOption(eps, 'LayerNorm: eps');
      this._param('weight', 'weight', () => [features], filled([features], 1));
      this._param('bias', 'bias', () => [features], bias ? filled([features], 0) : null, true);
    }

    forward(input) {
      if (typeof lib.layerNorm !== 'function') {
        throw new Error('LayerNorm.forward: this build has no layerNorm op');
      }
      return lib.layerNorm(input, [this.features], { weight: this.weight, bias: this.bias, eps: this.eps });
    }
  }

  /**
   * torch.nn.MultiheadAttention(embed_dim, num_heads, dropout=0, bias, add_bias_kv=False,
   * add_zero_attn=False, kdim, vdim, batch_first), inference only. See index.d.ts.
   */
  class MultiheadAttention extends Module {
    constructor(options) {
      super();
      const fn = 'MultiheadAttention';
      const o = optionsArg(options, ['embedDim', 'numHeads', 'bias', 'kdim', 'vdim', 'batchFirst', 'dropout'], fn);
      if (options === undefined || options === null) throw new TypeError(`${fn}: options {embedDim, numHeads} are required`);
      const embedDim = positiveInteger(o.embedDim, `${fn}: embedDim`);
      const numHeads = positiveInteger(o.numHeads, `${fn}: numHeads`);
      if (embedDim % numHeads !== 0) {
        throw new RangeError(`${fn}: embedDim ${embedDim} must be divisible by numHeads ${numHeads}`);
      }
      const kdim = o.kdim === undefined || o.kdim === null ? embedDim : positiveInteger(o.kdim, `${fn}: kdim`);
      const vdim = o.vdim === undefined || o.vdim === null ? embedDim : positiveInteger(o.vdim, `${fn}: vdim`);
      const bias = boolOption(o.bias, `${fn}: bias`, true);
      const dropout = numberOption(o.dropout, `${fn}: dropout`);
      if (dropout !== undefined && dropout !== 0) {
        throw new RangeError(`${fn}: dropout must be 0 (attention-wasm is an inference library), got ${dropout}`);
      }
      this.embedDim = embedDim;
      this.numHeads = numHeads;
      this.headDim = embedDim / numHeads;
      this.kdim = kdim;
      this.vdim = vdim;
      this.batchFirst = boolOption(o.batchFirst, `${fn}: batchFirst`);
      this.sameEmbedDim = kdim === embedDim && vdim === embedDim;
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

    /** out_proj.weight (E, E) */
    get outProjWeight() { return this.outProj.weight; }
    set outProjWeight(v) { this.outProj.weight = v; }
    /** out_proj.bias (E) or null */
    get outProjBias() { return this.outProj.bias; }
    set outProjBias(v) { this.outProj.bias = v; }

    /**
     * forward(query, key, value, {keyPaddingMask, attnMask, needWeights, averageAttnWeights,
     * isCausal}) -> {output, weights} (weights null when needWeights is false).
     */
    forward(query, key, value, options) {
      const fn = 'MultiheadAttention.forward';
      floatArg(query, `${fn}: query`);
      floatArg(key, `${fn}: key`);
      floatArg(value, `${fn}: value`);
      const o = optionsArg(options, ['keyPaddingMask', 'attnMask', 'needWeights', 'averageAttnWeights', 'isCausal'], fn);
      const kpm = o.keyPaddingMask === undefined || o.keyPaddingMask === null ? null : maskArg(o.keyPaddingMask, `${fn}: keyPaddingMask`);
      const am = o.attnMask === undefined || o.attnMask === null ? null : maskArg(o.attnMask, `${fn}: attnMask`);
      this._checkParameters(fn);
      const params = this.sameEmbedDim
        ? { inProjWeight: this.inProjWeight }
        : { qProjWeight: this.qProjWeight, kProjWeight: this.kProjWeight, vProjWeight: this.vProjWeight };
      Object.assign(params, { inProjBias: this.inProjBias, outProjWeight: this.outProj.weight, outProjBias: this.outProj.bias });
      const raw = unwrap(lib.raw._multiheadAttentionForward(query, key, value, params, {
        numHeads: this.numHeads,
        batchFirst: this.batchFirst,
        keyPaddingMask: kpm,
        kpmIsBool: kpm !== null && kpm.data instanceof Uint8Array,
        attnMask: am,
        amIsBool: am !== null && am.data instanceof Uint8Array,
        isCausal: boolOption(o.isCausal, `${fn}: isCausal`),
        needWeights: boolOption(o.needWeights, `${fn}: needWeights`, true),
        averageAttnWeights: boolOption(o.averageAttnWeights, `${fn}: averageAttnWeights`, true),
      }));
      return { output: toTensor(raw.output), weights: raw.weights ? toTensor(raw.weights) : null };
    }
  }

  return { Linear, LayerNorm, MultiheadAttention };
}

/** Adds the module classes (and loadSafetensors) to a library instance (called by the AttentionWasm constructor). */
export function installModules(lib) {
  for (const [name, cls] of Object.entries(moduleClasses(lib))) {
    Object.defineProperty(lib, name, { value: cls, enumerable: false, writable: false });
  }
  Object.defineProperty(lib, 'loadSafetensors', { value: loadSafetensors, enumerable: false, writable: false });
}
