// Type declarations for attention-wasm (hand-written): the API's reference. Examples: README.md, docs/.
// `[Symbol.dispose]` and `using` need TypeScript's esnext.disposable lib (TypeScript 5.2+).
/// <reference lib="esnext.disposable" />

/**
 * Element type of a tensor: float32 data, a boolean mask stored as bytes (1 = true), or int32
 * indices (`topk`'s; what `embedding` takes as ids).
 */
export type DType = 'float32' | 'bool' | 'int32';

/** Anything with row-major `data` and a `shape` whose product is `data.length`. */
export interface TensorLike {
  data: Float32Array;
  shape: readonly number[];
}

/** A mask: `Uint8Array` data is boolean, `Float32Array` data is added to the scores. */
export interface MaskLike {
  data: Uint8Array | Float32Array;
  shape: readonly number[];
}

/**
 * The data of a float tensor (`Float32Array`), of a boolean mask (`Uint8Array`, 1 = true) or of
 * int32 indices (`Int32Array`).
 */
export type TensorData = Float32Array | Uint8Array | Int32Array;

/** A tensor of any element type: what the shape helpers (transpose, permute, select, narrow) take. */
export interface AnyTensorLike<D extends TensorData = TensorData> {
  data: D;
  shape: readonly number[];
}

/** Nested arrays of any depth: what `toArray()` gives when the rank is not known to the types. */
export type NestedArray<E> = E | NestedArray<E>[];
/** The same, read only: what `Tensor.fromArray` takes. */
export type ReadonlyNestedArray<E> = E | readonly ReadonlyNestedArray<E>[];

/**
 * Nested arrays by depth: `ArrayOfRank<number>[2]` is `number[][]`, `[0]` a number, and an unknown
 * depth (`[number]`) any `NestedArray`.
 */
export interface ArrayOfRank<E> {
  [rank: number]: NestedArray<E>;
  0: E;
  1: E[];
  2: E[][];
  3: E[][][];
  4: E[][][][];
}

/** The depth of nested arrays: `RankOf<number[][]>` is 2 (up to 4; deeper: `number`). */
export type RankOf<A> = A extends readonly (infer B)[]
  ? B extends readonly (infer C)[]
    ? C extends readonly (infer D)[]
      ? D extends readonly (infer E)[]
        ? E extends readonly unknown[]
          ? number
          : 4
        : 3
      : 2
    : 1
  : 0;

/** The element type `toArray()` gives: booleans for a mask, else numbers. */
export type ElementOf<D extends TensorData> = D extends Uint8Array ? boolean : number;

/**
 * A dense row-major tensor. Results are always fresh JS-owned typed arrays, never views of the
 * wasm heap (nor of an input): there is nothing to free. `D` is the type of `data`: `Tensor`
 * (the default, what most functions return) is a float tensor and can be passed wherever a
 * `TensorLike` is taken; `new Tensor(uint8Array, shape)` is a `Tensor<Uint8Array>`, a boolean
 * mask; `Tensor<Int32Array>` holds indices (`topk`'s, which `embedding` takes as ids). `R` is the
 * rank where the types know it (`Tensor.fromArray([[1, 2]])`, `A.rand(2, 3)`, a model's outputs),
 * else `number`; it types `toArray()`.
 */
export class Tensor<D extends TensorData = Float32Array, R extends number = number> {
  /**
   * @param data values in row-major order (`Uint8Array` for a boolean mask, `Int32Array` for indices)
   * @param shape defaults to `[data.length]`
   * @throws TypeError if `data` is not a Float32Array/Uint8Array/Int32Array; RangeError if the
   *   shape's product differs from `data.length` or a size is negative or fractional
   */
  constructor(data: D, shape?: readonly number[]);
  data: D;
  shape: number[];
  readonly dtype: D extends Uint8Array ? 'bool' : D extends Int32Array ? 'int32' : 'float32';
  readonly ndim: number;
  /** Number of elements. */
  readonly size: number;
  /** Wraps and checks any `{data, shape}` object. */
  static from<D extends TensorData>(value: { data: D; shape: readonly number[] }): Tensor<D>;
  /**
   * A float32 tensor from rectangular nested arrays of numbers, e.g. `Tensor.fromArray([[1, 2], [3, 4]])`
   * (shape `[2, 2]`); a number gives a 0-d tensor. What to pass where a tensor is expected and
   * you have JS arrays.
   * @throws TypeError for ragged arrays or elements that are not numbers
   */
  static fromArray<A extends ReadonlyNestedArray<number>>(nested: A): Tensor<Float32Array, RankOf<A>>;
  /**
   * The element at a full index, torch's `t[i, j, ...].item()`: one integer per dim (none for a
   * 0-d tensor), each in `[-size, size)` of its dim; **negative indices count from the end**
   * (`t.get(-1, 0)` is the last row's first element). A boolean for a mask.
   * @throws RangeError for a wrong number of indices or an index out of range (naming the dim
   *   and the shape); TypeError for an index that is not a number
   */
  get(...index: number[]): D extends Uint8Array ? boolean : number;
  /**
   * Nested arrays, torch's `t.tolist()`: `number[][]` for a matrix, a number for a 0-d tensor,
   * booleans for a mask; typed by rank where the types know it.
   */
  toArray(): ArrayOfRank<ElementOf<D>>[R];
  /**
   * As PyTorch prints it (`String(t)`, `console.log(`${t}`)`): `tensor([[ 0.3374, -0.1778, ...]])`,
   * any rank; see {@link formatTensor}.
   */
  toString(options?: FormatOptions): string;
}

export interface FormatOptions {
  /** Decimals (torch's default 4). */
  precision?: number;
  /** Characters per line before wrapping (torch's default 80). */
  lineWidth?: number;
  /** More elements than this are summarised with `...` (torch's default 1000). */
  threshold?: number;
  /** Items shown at each end of a summarised dim (torch's default 3). */
  edgeitems?: number;
}

/**
 * Formats a tensor as `print(t)` does in PyTorch (torch/_tensor_str.py): a common width, 4
 * decimals, lines wrapped at 80 characters, blank lines between the blocks of a 3-D or higher
 * tensor; `2.` style when every value is whole; scientific notation (`1.2346e-05`) when the
 * non-zero magnitudes span more than 1000x, pass 1e8 or go below 1e-4; more than 1000 elements
 * summarised with `...`; `True`/`False` for a mask; an int32 tensor with `dtype=torch.int32`;
 * an empty one as `tensor([])` (with `size=(...)` unless 1-D).
 */
export function formatTensor(t: Tensor<TensorData>, options?: FormatOptions): string;

export interface TopkOptions {
  /** The dimension to pick along; negative counts from the end. Default -1 (the last, as torch's None). */
  dim?: number;
  /** The k largest (default true) or the k smallest. */
  largest?: boolean;
  /**
   * Default true: in order, best first. false: ordered by index along `dim` instead (torch leaves
   * that order unspecified).
   */
  sorted?: boolean;
}

/** `topk`'s result, each of `input`'s shape with `dim` of size k. */
export interface TopkResult {
  values: Tensor;
  /** Positions along `dim` (int32; torch's are int64). Pass them to `embedding` as ids, or print them. */
  indices: Tensor<Int32Array>;
}

export interface CosineSimilarityOptions {
  /** The dimension of the broadcast shape to compare along; negative counts from the end. Default 1 (torch's). */
  dim?: number;
  /** Each norm is clamped to at least eps (default 1e-8; must be >= 0): a zero vector gives 0. */
  eps?: number;
}

export interface SoftmaxOptions {
  /** The dimension to normalise over; negative counts from the end. Default -1. */
  dim?: number;
}

export interface LayerNormOptions {
  /** Elementwise scale, shape `normalizedShape`; default none (1). */
  weight?: TensorLike | null;
  /** Elementwise shift, shape `normalizedShape`; default none (0). */
  bias?: TensorLike | null;
  /** Added to the variance before the square root; default `1e-5`, must be >= 0. */
  eps?: number;
}

export interface GeluOptions {
  /** `'none'` (default): exact, `x * 0.5 * (1 + erf(x / sqrt(2)))`; `'tanh'`: the tanh approximation. */
  approximate?: 'none' | 'tanh';
}

export interface ScaledDotProductAttentionOptions {
  /**
   * Broadcastable to (N..., L, S). `Uint8Array` data: boolean, **1 = takes part** (0 becomes
   * -inf before the softmax), as torch's SDPA. `Float32Array` data: added to the scores.
   */
  attnMask?: MaskLike | null;
  /** Must be 0: attention-wasm is an inference library. */
  dropoutP?: number;
  /** Upper-left aligned causal mask `tril(ones(L, S))`, as torch. Not together with attnMask. */
  isCausal?: boolean;
  /** Multiplies Q K^T; default `1 / sqrt(E)`. `1` gives the plain dot product. */
  scale?: number | null;
  /** Grouped-query attention: the key heads and the value heads (dim -3) each divide the query heads Hq, as torch. */
  enableGqa?: boolean;
  /** Also return `weights` (N..., Hq, L, S). */
  returnWeights?: boolean;
  /** Also return every step: `scores` (Q K^T), `scaled`, `masked`, `weights`. */
  returnIntermediates?: boolean;
}

/**
 * What `scaledDotProductAttention` returns: `output`, `weights` with `returnWeights`, and every
 * step with `returnIntermediates`. The call's result type says which are there when the option
 * is written `true` (`{ returnWeights: true }`).
 */
export interface ScaledDotProductAttentionResult {
  /** (N..., Hq, L, Ev) */
  output: Tensor;
  /** (N..., Hq, L, S): softmax weights; rows with nothing to attend to are 0. */
  weights?: Tensor;
  /** (N..., Hq, L, S): Q K^T */
  scores?: Tensor;
  /** (N..., Hq, L, S): scale * Q K^T */
  scaled?: Tensor;
  /** (N..., Hq, L, S): scaled plus the mask (-inf where excluded) */
  masked?: Tensor;
}

/** The result with `returnWeights: true`: the weights are there. */
export type ScaledDotProductAttentionWithWeights = ScaledDotProductAttentionResult & { weights: Tensor };

/** The result with `returnIntermediates: true`: every step is there. */
export type ScaledDotProductAttentionWithIntermediates = Required<ScaledDotProductAttentionResult>;

/** Options of `new A.MultiheadAttention({...})` (torch.nn.MultiheadAttention's arguments). */
export interface MultiheadAttentionOptions {
  /** E: the model dimension (query features and output features). */
  embedDim: number;
  /** H: number of heads; must divide `embedDim` (each head has `embedDim / numHeads` features). */
  numHeads: number;
  /** Adds `inProjBias` (3E) and `outProjBias` (E). Default true. */
  bias?: boolean;
  /** Key features; default `embedDim`. If kdim or vdim differs from embedDim the in projection is
   * three separate weights (`qProjWeight`, `kProjWeight`, `vProjWeight`) instead of `inProjWeight`. */
  kdim?: number;
  /** Value features; default `embedDim`. */
  vdim?: number;
  /** Inputs and output are (N, L, E) instead of torch's default (L, N, E). Default false. */
  batchFirst?: boolean;
  /** Kept for torch compatibility (a probability) and never applied: modules run in eval mode. */
  dropout?: number;
}

export interface MultiheadAttentionForwardOptions {
  /**
   * (N, S), or (S) for unbatched input. Boolean (`Uint8Array`): **true = ignore this key** (torch's
   * MHA polarity, the opposite of SDPA's attnMask). `Float32Array`: added to the scores.
   */
  keyPaddingMask?: MaskLike | null;
  /**
   * (L, S), or (N * numHeads, L, S) (unbatched: (numHeads, L, S)). Boolean: **true = not allowed**
   * (torch's MHA polarity). `Float32Array`: added to the scores. Added to keyPaddingMask when both
   * are given.
   */
  attnMask?: MaskLike | null;
  /** Also return the attention weights. Default true. */
  needWeights?: boolean;
  /** Weights averaged over heads (N, L, S) (default true), else per head (N, numHeads, L, S). */
  averageAttnWeights?: boolean;
  /**
   * Applies the upper-left causal mask tril(ones(L, S)) (together with attnMask if one is given).
   * torch treats is_causal as a hint and requires attnMask; here it may stand alone.
   */
  isCausal?: boolean;
}

export interface MultiheadAttentionResult {
  /** Shaped as the query: (L, N, E), (N, L, E) with batchFirst, or (L, E) unbatched. */
  output: Tensor;
  /**
   * (N, L, S) averaged or (N, numHeads, L, S); unbatched (L, S) / (numHeads, L, S); null when
   * needWeights is false (the call's type says which when the option is written as a literal). A query row with nothing to attend to (fully masked) has weights 0 and
   * attention output 0 (so its output row is outProjBias); torch's need_weights path gives NaN there.
   */
  weights: Tensor | null;
}

/** Options of `module.loadStateDict(tensors, options)`. */
export interface LoadStateDictOptions {
  /** Every parameter must be given and every name known (torch's strict). Default true. */
  strict?: boolean;
}

/** Parameters by torch name, as given to / returned by loadStateDict / stateDict. */
export type StateDict<T = TensorLike> = Map<string, T> | Record<string, T>;

/**
 * Shared by the modules: torch-named parameters. `P` is what a parameter may be: a Tensor, or in
 * the modules holding {@link Linear} layers also the int8 {@link QuantizedTensor} a Linear's
 * weight may be replaced by.
 */
export interface Module<P extends Tensor | QuantizedTensor = Tensor> {
  /**
   * `[torchName, tensor]` pairs, e.g. `['out_proj.weight', t]`; absent (null) biases are skipped.
   * @param prefix put before every name (default none)
   */
  namedParameters(prefix?: string): [string, P][];
  /** `state_dict()`: torch name -> Tensor (held by reference, not copied). */
  stateDict(): Record<string, P>;
  /**
   * `load_state_dict()`: sets parameters by torch name (e.g. `in_proj_weight`, `out_proj.bias`),
   * each a copy of the tensor given (as torch's `param.copy_`); an int8 weight is assigned as it is.
   * @throws Error naming the parameter and both shapes on a size mismatch, or the missing /
   *   unexpected keys when strict; nothing is changed then.
   */
  loadStateDict(
    tensors: StateDict<TensorLike | P | SafetensorsTensor>,
    options?: LoadStateDictOptions,
  ): { missingKeys: string[]; unexpectedKeys: string[] };
}

/**
 * torch.nn.Linear: `y = x W^T + b`, weight (out, in) initialised U(-1/sqrt(in), 1/sqrt(in)) as torch.
 * Its weight may be replaced by an int8 one: `linear.weight = A.quantize(linear.weight)`; forward
 * (and the MultiheadAttention / TransformerEncoderLayer holding it: `outProj`, `linear1`,
 * `linear2`) then runs the int8 layer ({@link AttentionWasm.quantize}).
 */
export interface Linear extends Module<Tensor | QuantizedTensor> {
  readonly inFeatures: number;
  readonly outFeatures: number;
  /**
   * (outFeatures, inFeatures), float32 or int8 ({@link QuantizedTensor} of this instance); setting
   * checks the shape (Error naming both shapes).
   */
  weight: Tensor | QuantizedTensor;
  /** (outFeatures) or null. */
  bias: Tensor | null;
  forward(input: TensorLike): Tensor;
}

/**
 * torch.nn.MultiheadAttention (inference). Parameters are JS-owned Tensors with torch's layout,
 * settable (the shape is checked when set and again when used). Initialised as torch does, from
 * this instance's generator and in torch's draw order: out_proj as a Linear, then xavier_uniform_
 * for the in projection, zeros for the biases.
 */
export interface MultiheadAttention extends Module<Tensor | QuantizedTensor> {
  readonly embedDim: number;
  readonly numHeads: number;
  /** embedDim / numHeads */
  readonly headDim: number;
  readonly kdim: number;
  readonly vdim: number;
  /** torch's `_qkv_same_embed_dim`: kdim and vdim are embedDim (one inProjWeight, else q/k/vProjWeight) */
  readonly sameEmbedDim: boolean;
  readonly batchFirst: boolean;
  readonly dropout: number;
  /** (3E, E): rows [Wq; Wk; Wv]. Only when kdim == vdim == embedDim (otherwise undefined). */
  inProjWeight?: Tensor;
  /** (E, E), only when kdim or vdim differs from embedDim. */
  qProjWeight?: Tensor;
  /** (E, kdim), only when kdim or vdim differs from embedDim. */
  kProjWeight?: Tensor;
  /** (E, vdim), only when kdim or vdim differs from embedDim. */
  vProjWeight?: Tensor;
  /** (3E) or null (bias: false). */
  inProjBias: Tensor | null;
  /** The output projection (torch's `out_proj`). */
  readonly outProj: Linear;
  /** (E, E): `outProj.weight` (which may be int8: {@link Linear}). */
  outProjWeight: Tensor | QuantizedTensor;
  /** (E) or null: `outProj.bias`. */
  outProjBias: Tensor | null;
  /**
   * query (L, N, E), key (S, N, kdim), value (S, N, vdim) — (N, L, E) ... with batchFirst, or
   * unbatched (L, E), (S, kdim), (S, vdim).
   * @throws Error naming the argument and shapes when they do not fit; TypeError for a wrong dtype.
   */
  forward(
    query: TensorLike,
    key: TensorLike,
    value: TensorLike,
    options: MultiheadAttentionForwardOptions & { needWeights: false },
  ): MultiheadAttentionResult & { weights: null };
  forward(
    query: TensorLike,
    key: TensorLike,
    value: TensorLike,
    options?: MultiheadAttentionForwardOptions & { needWeights?: true },
  ): MultiheadAttentionResult & { weights: Tensor };
  forward(
    query: TensorLike,
    key: TensorLike,
    value: TensorLike,
    options?: MultiheadAttentionForwardOptions,
  ): MultiheadAttentionResult;
}

/** Options of `new A.LayerNorm({...})` (torch.nn.LayerNorm's arguments). */
export interface LayerNormModuleOptions {
  /** The last dims normalised over: a size, or a list of them (`[2, 3]`: the last two). */
  normalizedShape: number | readonly number[];
  /** >= 0 (default 1e-5), as torch takes it */
  eps?: number;
  /** A weight (initially 1) and a bias (initially 0) of normalizedShape; without, neither. Default true. */
  elementwiseAffine?: boolean;
  /** The bias, with elementwiseAffine. Default true. */
  bias?: boolean;
}

/**
 * torch.nn.LayerNorm over the last dims, `normalizedShape` (weight 1, bias 0 initially; none
 * without elementwiseAffine: `LayerNorm<false>`).
 */
export interface LayerNorm<Affine extends boolean = true> extends Module {
  /** torch's `normalized_shape`, as a list (a size given alone is a list of one) */
  readonly normalizedShape: readonly number[];
  /** Read-only: a TransformerEncoderLayer normalises with its layerNormEps. */
  readonly eps: number;
  readonly elementwiseAffine: Affine;
  /** (normalizedShape); null without elementwiseAffine */
  weight: Affine extends true ? Tensor : null;
  /** (normalizedShape) or null */
  bias: Tensor | null;
  /** (..., normalizedShape) -> the same shape: {@link AttentionWasm.layerNorm} with this module's parameters and eps. */
  forward(input: TensorLike): Tensor;
}

/** Options of `new A.TransformerEncoderLayer({...})` (torch.nn.TransformerEncoderLayer's arguments). */
export interface TransformerEncoderLayerOptions {
  /** E: the model dimension. */
  dModel: number;
  /** Number of attention heads; must divide dModel. */
  nhead: number;
  /** Hidden size of the feed-forward block. Default 2048 (as torch). */
  dimFeedforward?: number;
  /** Kept for torch compatibility (default 0.1) and never applied: modules run in eval mode. */
  dropout?: number;
  /** Feed-forward activation: 'relu' (default) or 'gelu' (exact, erf form). */
  activation?: 'relu' | 'gelu';
  /** LayerNorm epsilon. Default 1e-5. */
  layerNormEps?: number;
  /** src is (N, L, E) instead of (L, N, E). Default false. */
  batchFirst?: boolean;
  /** Pre-norm `x + SA(norm1(x))`, `x + FF(norm2(x))` instead of post-norm. Default false. */
  normFirst?: boolean;
  /** Biases in the attention, linear and norm layers. Default true. */
  bias?: boolean;
}

export interface TransformerEncoderLayerForwardOptions {
  /** (L, L) or (N * nhead, L, L); boolean **true = not allowed** (torch's MHA polarity), float added. */
  srcMask?: MaskLike | null;
  /** (N, L), or (L) unbatched; boolean **true = ignore this position**, float added. */
  srcKeyPaddingMask?: MaskLike | null;
  /** Upper-left causal self-attention (with srcMask if given; torch needs srcMask, here it may stand alone). */
  isCausal?: boolean;
}

/**
 * torch.nn.TransformerEncoderLayer (eval mode): post-norm `x = norm1(x + SA(x)); x = norm2(x + FF(x))`
 * or, with normFirst, pre-norm; `FF(x) = linear2(activation(linear1(x)))`. Parameters by torch name
 * in stateDict/loadStateDict (`self_attn.in_proj_weight`, `linear1.weight`, `norm1.bias`, ...);
 * initialised as torch, in torch's draw order (self_attn, linear1, linear2).
 */
export interface TransformerEncoderLayer extends Module<Tensor | QuantizedTensor> {
  readonly dModel: number;
  readonly nhead: number;
  readonly dimFeedforward: number;
  readonly activation: 'relu' | 'gelu';
  readonly layerNormEps: number;
  readonly batchFirst: boolean;
  readonly normFirst: boolean;
  readonly dropout: number;
  /** torch's `self_attn` */
  readonly selfAttn: MultiheadAttention;
  /** (dimFeedforward, dModel) */
  readonly linear1: Linear;
  /** (dModel, dimFeedforward) */
  readonly linear2: Linear;
  readonly norm1: LayerNorm;
  readonly norm2: LayerNorm;
  /**
   * src (L, N, E), (N, L, E) with batchFirst, or (L, E) -> a Tensor of the same shape. A fully
   * masked row attends to nothing (attention output 0) instead of giving NaN.
   */
  forward(src: TensorLike, options?: TransformerEncoderLayerForwardOptions): Tensor;
}

/**
 * The library bound to one instance of the wasm module (its own heap and random generator).
 * Instances come from `init()`; the class is exported for `instanceof`.
 */
export class AttentionWasm {
  private constructor();
  /** `torch.nn.TransformerEncoderLayer`: `new A.TransformerEncoderLayer({ dModel, nhead })`. */
  readonly TransformerEncoderLayer: new (options: TransformerEncoderLayerOptions) => TransformerEncoderLayer;
  /** `torch.nn.LayerNorm`: `new A.LayerNorm({ normalizedShape, eps, elementwiseAffine, bias })`. */
  readonly LayerNorm: {
    new (options: LayerNormModuleOptions & { elementwiseAffine: false }): LayerNorm<false>;
    new (options: LayerNormModuleOptions & { elementwiseAffine?: true }): LayerNorm;
    new (options: LayerNormModuleOptions): LayerNorm<boolean>;
  };
  /** `torch.nn.MultiheadAttention`: `new A.MultiheadAttention({ embedDim, numHeads })`. */
  readonly MultiheadAttention: new (options: MultiheadAttentionOptions) => MultiheadAttention;
  /**
   * Reads a safetensors file (`safetensors.torch.save_file` output) into name -> Tensor, e.g. for
   * `module.loadStateDict(A.loadSafetensors(bytes))`. The same as the package's `loadSafetensors`.
   * @throws TypeError for a dtype other than the float and integer ones read (naming the tensor
   *   and dtype) or non-byte input; RangeError for an integer beyond int32; Error for a file that
   *   breaks the format (see {@link loadSafetensors}).
   */
  readonly loadSafetensors: (bytes: Uint8Array | ArrayBuffer) => Map<string, SafetensorsTensor>;
  /** `torch.nn.Linear`: `new A.Linear({ inFeatures, outFeatures, bias })`. */
  readonly Linear: new (options: { inFeatures: number; outFeatures: number; bias?: boolean }) => Linear;
  /**
   * Diagnostics: `heapBytes` is the size of this instance's wasm memory (it never shrinks),
   * `allocatedBytes` what malloc holds now (back to its level after every call: results are
   * JS-owned copies, there is nothing to free).
   */
  memoryStats(): { heapBytes: number; allocatedBytes: number };
  /**
   * What this module was built for: `simd` the instruction set init() chose
   * ({@link InitOptions.simd}: `'relaxed'` with fused multiply-add, or `'simd128'`),
   * `floatLanes` the floats per SIMD vector, `threaded` whether it is the threaded (pthread)
   * build ({@link AttentionWasm.threads} is how many threads the ops use).
   */
  buildInfo(): {
    simd: 'relaxed' | 'simd128';
    floatLanes: number;
    threaded: boolean;
    emscripten: string;
    /** How the int8 products run here (see docs/performance.md). */
    int8Product: 'relaxed-dot' | 'relaxed-i16-dot' | 'simd128-dot';
    /**
     * `i32x4.relaxed_dot_i8x16_i7x16_add(127, -1)` on this engine, e.g. 129540 (AVX-VNNI), 65534
     * (pmaddubsw; 131068 where Node 20's baseline compiler runs it), -508 (ARM sdot); 0 in the
     * SIMD128 build.
     */
    relaxedDotLowering: number;
  };
  /** Threads the ops use: 1 with the single-thread build (see {@link InitOptions.threads}). */
  readonly threads: number;
  /**
   * Ends the threaded build's worker threads (a no-op for the single-thread build); the instance
   * keeps working on one thread. Not needed for Node to exit: the workers do not keep it alive.
   * A threaded instance dropped without it has its threads ended once it is garbage-collected;
   * either way its wasm memory is then freed with it.
   */
  dispose(): void;
  /** The same as `dispose()` (where the runtime has `Symbol.dispose`): `using A = await init(...)`. */
  [Symbol.dispose](): void;
  /** The size of this instance's wasm memory in bytes. */
  heapBytes(): number;
  /**
   * Loads a Hugging Face model folder: `config.json` (model_type `distilbert` or `bert`: a
   * {@link PretrainedModel}; `gpt2`, `llama` or `qwen2`: a {@link CausalLM}, with
   * `generation_config.json` when present), `model.safetensors` (F32, F16 or BF16; the base model's
   * tensors with or without the checkpoint's prefix; a causal LM's final norm and LM head, other
   * heads not read), and `tokenizer.json` and/or `vocab.txt` (+ `tokenizer_config.json`). The
   * weights are read once, in chunks, into this instance's wasm memory as float32 and stay there
   * until `model.dispose()`. TypeScript: `loadPretrained<CausalLM>(dir)` for a causal LM; `kind`
   * tells the two apart at run time, on `loadPretrained<PretrainedModel | CausalLM>(dir)`.
   * @param source Node: a folder path. Browsers: a `FileList` (a file picker, a dropped folder),
   *   `File[]`, or `{ 'config.json': Blob | ArrayBuffer | Uint8Array, ... }`.
   * @throws Error naming the file and the tensor or config field for a file that is missing, not
   *   valid, or does not fit the config, and for a tokenizer.json pattern that is refused (as
   *   {@link loadTokenizer} says); RangeError for absurd config sizes (before allocating);
   *   TypeError for wrong argument types and tensors of a dtype other than F32, F16, BF16.
   */
  loadPretrained<M extends PretrainedModel | CausalLM = PretrainedModel>(
    source: ModelSource,
    options?: LoadPretrainedOptions,
  ): Promise<M>;
  /** `torch.manual_seed(seed)`: reseeds this instance's generator (integer in [0, 2^53)). */
  manualSeed(seed: number): void;
  /** `torch.rand(*size)`: uniform [0, 1) float32, bit-exact with torch's CPU generator. */
  rand<const S extends number[]>(...size: S): Tensor<Float32Array, S['length']>;
  rand<const S extends readonly number[]>(size: S): Tensor<Float32Array, S['length']>;
  /**
   * `torch.randn(*size)`: standard normal float32 by torch's CPU algorithm: equal to torch's portable
   * CPU build bit for bit, except within 2 ulp in the last block of 16 when the size is not a
   * multiple of 16 (docs/api.md, Random numbers).
   */
  randn<const S extends number[]>(...size: S): Tensor<Float32Array, S['length']>;
  randn<const S extends readonly number[]>(size: S): Tensor<Float32Array, S['length']>;
  /** `torch.matmul(input, other)` with broadcasting of batch dims; 1-D operands as torch. */
  matmul(input: TensorLike, other: TensorLike): Tensor;
  /**
   * `torch.nn.functional.linear`: input (..., in) W^T (out, in) + bias (out); as torch, a 1-D
   * weight (in) gives (...) (with no bias: torch's addmm refuses one for most inputs) and a bias
   * [] is added to every output. With an int8 weight
   * ({@link quantize}), the int8 layer: each row of the input quantized to 7 bits (its own scale
   * and zero point), the products summed exactly in int32, then scaled back to float32 and the
   * bias added; the result is byte-identical in every engine for one build (and between the
   * relaxed-SIMD and SIMD128 builds).
   * @throws Error if the int8 weight was disposed or belongs to another instance
   */
  linear(input: TensorLike, weight: TensorLike | QuantizedTensor, bias?: TensorLike | null): Tensor;
  /**
   * The int8 ("q8") form of a linear layer's weight (out, in): one float32 scale per row (output
   * channel), `scale = max |w| / 127` (or, where it is larger, a quad's `sum |w| / 256`: four
   * values of a row that the int8 kernel adds in int16, docs/performance.md), and the values
   * `round(w / scale)` in [-127, 127], kept in
   * this instance's wasm memory, packed for the int8 kernels, until `dispose()`. Accepted by
   * {@link linear} and as a {@link Linear}'s weight. About a quarter of the float32 weight's memory;
   * the int8 layer's result differs from float32 by the quantization of the weight and of each
   * input row (7 bits): a cosine of ~0.9999 on random data, less with outlier activations.
   * Non-finite values: a NaN or an infinity in a weight row makes that output channel NaN for
   * every input row, and in an input row makes that row's outputs NaN (float32 would give +-inf
   * where an infinity meets finite values). The epilogue's scale product limits the range: an
   * input row's and a weight row's largest magnitudes multiplying to more than ~5e42 overflow
   * (inf, or NaN where the quantized sum is 0), below ~2e-34 lose precision.
   * A weight that is already a QuantizedTensor of this instance is returned as it is (as torch's
   * `tensor.to(dtype)` returns the tensor itself), so `linear.weight = A.quantize(linear.weight)`
   * may run twice.
   * @param options `dtype`: `'q8'` (the default and only one)
   * @throws TypeError for a weight that is not a float32 tensor or a dtype that is not a string;
   *   RangeError for another dtype or more than 131072 inputs; Error for a weight that is not 2-D,
   *   or a QuantizedTensor disposed or of another instance
   */
  quantize(weight: TensorLike | QuantizedTensor, options?: { dtype?: 'q8' }): QuantizedTensor;
  /** `torch.softmax(input, dim)`; a slice that is all -inf gives zeros. */
  softmax(input: TensorLike, options?: SoftmaxOptions): Tensor;
  /** `torch.nn.functional.embedding(input, weight)`: rows of weight picked by ids. */
  embedding(
    ids: readonly number[] | Int32Array | { data: Int32Array; shape: readonly number[] },
    weight: TensorLike,
  ): Tensor;
  /**
   * `torch.nn.functional.scaled_dot_product_attention(query, key, value, ...)`.
   * query (N..., Hq, L, E), key (N..., Hk, S, E), value (N..., Hv, S, Ev) -> output (N..., Hq, L, Ev)
   * (Hk and Hv: Hq, or with enableGqa each a divisor of it).
   */
  scaledDotProductAttention(
    query: TensorLike,
    key: TensorLike,
    value: TensorLike,
    options: ScaledDotProductAttentionOptions & { returnIntermediates: true },
  ): ScaledDotProductAttentionWithIntermediates;
  scaledDotProductAttention(
    query: TensorLike,
    key: TensorLike,
    value: TensorLike,
    options: ScaledDotProductAttentionOptions & { returnWeights: true },
  ): ScaledDotProductAttentionWithWeights;
  scaledDotProductAttention(
    query: TensorLike,
    key: TensorLike,
    value: TensorLike,
    options?: ScaledDotProductAttentionOptions,
  ): ScaledDotProductAttentionResult;
  /**
   * Sinusoidal positional encoding ("Attention Is All You Need"), shape `[maxLength, dModel]`:
   * `PE[pos, 2i] = sin(pos / 10000^(2i/dModel))`, `PE[pos, 2i+1] = cos(pos / 10000^(2i/dModel))`.
   * For an odd `dModel` the last cos column is dropped, so the last column is
   * `sin(pos / 10000^((dModel-1)/dModel))`. Computed in float64, rounded to float32.
   * @param maxLength the longest sequence to encode: one row per position 0 ... maxLength-1
   *   (document 004's `max_length`; like a tokenizer's `maxLength`, a length in tokens, not a
   *   model's {@link PretrainedModel.maxPositions})
   * @throws RangeError if a size is negative or too large
   */
  positionalEncoding(maxLength: number, dModel: number): Tensor<Float32Array, 2>;
  /**
   * `torch.nn.functional.layer_norm(input, normalized_shape, weight, bias, eps)`: normalises over
   * the trailing dims `normalizedShape` (biased variance):
   * `out = (x - mean) / sqrt(var + eps) * weight + bias`.
   * @param normalizedShape the trailing dims of `input` (an integer means `[n]`)
   * @throws Error if `input` does not end with `normalizedShape` or weight/bias have another shape
   */
  layerNorm(input: TensorLike, normalizedShape: number | readonly number[], options?: LayerNormOptions): Tensor;
  /** `torch.relu(input)`: `max(x, 0)`; NaN stays NaN. */
  relu(input: TensorLike): Tensor;
  /**
   * `torch.nn.functional.gelu(input, approximate)`. Special values follow the formula: NaN and
   * -inf give NaN (as torch), +inf gives +inf.
   */
  gelu(input: TensorLike, options?: GeluOptions): Tensor;
  /** `torch.add(input, other)`: elementwise sum, shapes broadcast as torch; a number is a 0-d tensor. */
  add(input: TensorLike | number, other: TensorLike | number): Tensor;
  /** `torch.mul(input, other)`: elementwise product, shapes broadcast as torch; a number is a 0-d tensor. */
  mul(input: TensorLike | number, other: TensorLike | number): Tensor;
  /**
   * `torch.transpose(input, dim0, dim1)`: dims dim0 and dim1 swapped (`t.T` of a matrix is
   * `A.transpose(t, 0, 1)`; the last two dims `A.transpose(t, -2, -1)`). Negative dims count from
   * the end; a 0-d tensor takes -1 or 0. Any element type; the result is a copy (torch returns a view).
   * @throws RangeError for a dim out of range, naming it and the shape; TypeError for a non-integer dim
   */
  transpose<D extends TensorData>(input: AnyTensorLike<D>, dim0: number, dim1: number): Tensor<D>;
  /**
   * `torch.permute(input, dims)`: result dim i is input's dim `dims[i]`, e.g. `A.permute(t, [0, 2, 1])`.
   * `dims` names every dim once (negative ones count from the end). A copy.
   * @throws RangeError when dims has the wrong length, repeats a dim or holds one out of range
   */
  permute<D extends TensorData>(input: AnyTensorLike<D>, dims: readonly number[]): Tensor<D>;
  /**
   * `torch.select(input, dim, index)` (`t[:, index]` for dim 1): the slice at `index` of `dim`, which
   * the result drops: one head's `[L, L]` weights of `[1, heads, L, L]` are
   * `A.select(A.select(w, 0, 0), 0, h)`. A negative index counts from the end. A copy.
   * @throws RangeError for a 0-d input, a dim or an index out of range (naming the size and shape)
   */
  select<D extends TensorData>(input: AnyTensorLike<D>, dim: number, index: number): Tensor<D>;
  /**
   * `torch.narrow(input, dim, start, length)` (`t[:, start:start + length]` for dim 1): `length`
   * elements of `dim` from `start` (negative: from the end; `start` may equal the size when
   * `length` is 0). A copy.
   * @throws RangeError for a 0-d input, a negative length, a start out of [-size, size], or a
   *   slice past the end
   */
  narrow<D extends TensorData>(input: AnyTensorLike<D>, dim: number, start: number, length: number): Tensor<D>;
  /**
   * `torch.topk(input, k, dim, largest, sorted)`: the k largest (or smallest) values along `dim`
   * and their positions. NaN counts as larger than every number (as torch). Equal values come by
   * ascending position: torch leaves the order of ties unspecified ("not guaranteed to be stable"),
   * and this is one order torch may give. A 0-d input is its own top value, index 0 (k 0 or 1).
   * @throws RangeError for k outside [0, size of dim] or a dim out of range; TypeError for wrong types
   */
  topk(input: TensorLike, k: number, options?: TopkOptions): TopkResult;
  /**
   * `torch.nn.functional.cosine_similarity(x1, x2, dim, eps)`: x1 and x2 broadcast as torch, then
   * along `dim` of that shape `sum (x1 / max(|x1|, eps)) * (x2 / max(|x2|, eps))`, torch's current
   * formula (a zero vector gives 0); the result drops `dim`. `dim` defaults to 1, as torch's: for
   * two vectors pass `{ dim: -1 }` (or 0); for one vector against the rows of a matrix, `dim: -1`
   * broadcasts it over the rows.
   * @throws Error for shapes that do not broadcast; RangeError for a dim out of range or a negative eps
   */
  cosineSimilarity(x1: TensorLike, x2: TensorLike, options?: CosineSimilarityOptions): Tensor;
}

export interface InitOptions {
  /**
   * Which SIMD build (default `'auto'`): the relaxed-SIMD one (fused multiply-add) where the
   * engine runs it (Chrome/Edge 114+, Firefox 153 ESR, Node 22+, Node 20 with --experimental-wasm-relaxed-simd),
   * else the SIMD128 one. `'relaxed'` or `'simd128'` forces one; `'relaxed'` rejects with an
   * Error where the engine cannot run it.
   */
  simd?: 'auto' | 'relaxed' | 'simd128';
  /**
   * Threads for scaledDotProductAttention, matmul and linear (default `false`: one). `'auto'` =
   * the machine's logical cores, or a number in [1, 64]. More than one loads the threaded build
   * where shared memory is available (Node; a cross-origin-isolated page), else the single-thread
   * one. Results are byte-identical whatever the count. In browsers the threaded build is reached
   * only through `attention-wasm/threads` (its init); `attention-wasm`'s init rejects more than
   * one thread where shared memory is available.
   */
  threads?: 'auto' | number | false;
  /**
   * The .wasm bytes (Node's export reads them from beside the package's files). They must be those
   * of the build that `simd` and `threads` select: dist/attention_wasm[_relaxed][_mt].wasm.
   */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /**
   * Where to find the .wasm in a browser: `(path, prefix) => url`, asked with the chosen build's
   * own file name (e.g. `attention_wasm_relaxed.wasm`) and the script's folder; without it the
   * .wasm is fetched from beside the script (a bundle's: copy dist/*.wasm there).
   */
  locateFile?: (path: string, prefix: string) => string;
}

/**
 * Reads safetensors bytes (8-byte little-endian header length, JSON header
 * `{name: {dtype, shape, data_offsets}}`, data) into a Map name -> Tensor (file order; data in
 * fresh arrays). F32, F16 and BF16 as Float32Array (widened exactly); BOOL as Uint8Array (a mask);
 * the integer dtypes as Int32Array (a value beyond int32: RangeError); other dtypes throw a
 * TypeError naming the tensor. The file is validated as the format's reference implementation does
 * (huggingface/safetensors, tensor.rs).
 * @throws Error naming the rule and the tensor: a truncated file, a header length past the end or
 *   over 100,000,000 bytes, header JSON that is not UTF-8 or not of the format's schema, an
 *   unknown dtype, data_offsets that leave holes, overlap or run past the data, dtype x shape
 *   that is not the tensor's byte length, bytes after the last tensor.
 */
export function loadSafetensors(bytes: Uint8Array | ArrayBuffer): Map<string, SafetensorsTensor>;

/**
 * A tensor {@link loadSafetensors} reads: float32 (F32, F16, BF16), a boolean mask (BOOL), or the
 * values of an integer dtype. `loadStateDict` takes the map; a parameter given integer data
 * is a TypeError naming it.
 */
export type SafetensorsTensor = Tensor | Tensor<Uint8Array> | Tensor<Int32Array>;

/** A file of a model folder as browsers give it (a `File` or `Blob`). */
export interface ModelFileBlob {
  readonly size: number;
  slice(start?: number, end?: number): { arrayBuffer(): Promise<ArrayBuffer> };
}
/** A `File`: a Blob with a name (and, from a dropped folder, its path in the folder). */
export interface ModelFile extends ModelFileBlob {
  readonly name: string;
  readonly webkitRelativePath?: string;
}
/** A browser `FileList`. */
export interface ModelFileList extends ArrayLike<ModelFile> {
  item(index: number): ModelFile | null;
}
/** A `URL` (of a folder: `file:`), as {@link ModelSource} takes it in Node. */
export interface FileUrl {
  readonly href: string;
  readonly protocol: string;
  readonly pathname: string;
}
/**
 * A Hugging Face model folder: a path or a `file:` URL (Node), a `FileList`, `File[]`, or an
 * object of files by name (`config.json`, `model.safetensors`, `tokenizer.json`, `vocab.txt`, ...).
 */
export type ModelSource =
  string | FileUrl | ModelFileList | readonly ModelFile[] | Record<string, ModelFileBlob | ArrayBuffer | Uint8Array>;

export interface LoadPretrainedOptions {
  /**
   * Called after each chunk of model.safetensors: `loaded` bytes of `total` (its header and the
   * tensors the model uses; heads that are not read are not counted). The last call has
   * `loaded === total`. An exception thrown here stops the load.
   */
  onProgress?: (progress: { loaded: number; total: number }) => void;
  /** As {@link LoadTokenizerOptions.trustPatterns}: run tokenizer.json's patterns unchecked. */
  trustPatterns?: boolean;
  /**
   * `'fp32'` (default): every weight float32. `'q8'`: each linear layer's weight (q, k, v, the
   * attention's output, the MLP's two, BERT's pooler, and the task head's dense layers: a
   * classifier, a masked-LM or LM head, tied ones reading the int8 word embeddings) quantized to int8 per output channel
   * (symmetric, one scale per row) as its bytes stream in — the float32 weight never exists in
   * full — and run by the int8 layer of {@link AttentionWasm.linear} (each input row to 7 bits,
   * exact int32 sums, a float32 epilogue); the word embeddings kept as int8 rows with a scale per
   * token, read back as float32. The embedding sums, norms, softmax and the attention products
   * compute in float32. About a quarter of the memory of `'fp32'` (DistilBERT-base: 0.26x); the
   * last hidden state within a per-token cosine of ~0.9994 of float32 on random weights at
   * BERT-base's scale, possibly less with real checkpoints' outlier activations.
   */
  dtype?: 'fp32' | 'q8';
  /**
   * The task head to load: `'auto'` (default) the one config.json's `architectures[0]` names
   * (`DistilBertForMaskedLM`, `BertForSequenceClassification`, ...; none for `...Model` and for
   * architectures without a supported head); a {@link TaskHead} to ask for one (an Error naming
   * its tensors when the file lacks them); `'none'` for the base model alone (transformers'
   * `AutoModel`), whatever the file holds.
   */
  head?: 'auto' | 'none' | TaskHead;
}

/**
 * The task heads of the BERT family, as transformers' classes name them:
 * `...ForMaskedLM` (and `BertForPreTraining`'s masked-LM half), `...ForSequenceClassification`,
 * `...ForTokenClassification`, `...ForQuestionAnswering`.
 */
export type TaskHead = 'masked-lm' | 'sequence-classification' | 'token-classification' | 'question-answering';

export interface LoadTokenizerOptions {
  /** The most tokens a text may have; default the model's (tokenizer_config.json, config.json). */
  maxLength?: number;
  /**
   * Run this folder's tokenizer.json patterns unchecked, at your own risk: a pattern that
   * backtracks exponentially then holds the calling thread for ever on some texts. Default
   * false: each pattern must be a literal, one of the real tokenizers' patterns the package has
   * checked, or pass the ReDoS analysis, which the Node entry point always has and a browser
   * bundle gets with `import 'attention-wasm/tokenizer-check'` (250 KB gzip); without it an
   * unknown pattern is an Error that says so (docs/security.md).
   */
  trustPatterns?: boolean;
}

/** Token ids of one text. */
export type TokenIds = readonly number[] | Int32Array;

/**
 * One text or pair, tokenized: the fields of {@link EncodedBatch} for one row (`model.forward`
 * takes either as it is); `tokenTypeIds` when the model takes them (BERT; DistilBERT does not);
 * `offsets` and `sequenceIds` with `returnOffsets`.
 */
export interface EncodedText {
  /** The token ids, special tokens included (transformers' `input_ids`). */
  inputIds: number[];
  tokens: string[];
  attentionMask: number[];
  /** 0 for [CLS] A [SEP], 1 for B [SEP] (the template's type ids). */
  tokenTypeIds?: number[];
  /**
   * `[start, end)` of each token in its own text (UTF-16 indices, as `slice` takes them):
   * transformers' `return_offsets_mapping`; `[0, 0]` for special tokens.
   */
  offsets?: [number, number][];
  /** 0 or 1: the text each token came from; null for special tokens (transformers' `sequence_ids()`). */
  sequenceIds?: (0 | 1 | null)[];
  /**
   * With `returnOffsets`: the index, in its own text, of the word each token belongs to
   * (transformers' `word_ids()`: the pieces of a word share it; punctuation and added tokens are
   * words of their own); null for special tokens.
   */
  wordIds?: (number | null)[];
  /**
   * With `returnOverflowingTokens`: the further windows over the truncated text (each an
   * encoding like this one, without `overflowing`), each starting `stride` tokens before the end
   * of the one before; empty when nothing was cut. `model.forward(encoding)` runs the first
   * window; each further window is forwarded on its own (`model.forward(window)`).
   */
  overflowing?: EncodedText[];
}

/** Several texts (or pairs) padded to the longest: padding gets the pad id, mask 0, token type 0. */
export interface EncodedBatch {
  inputIds: number[][];
  attentionMask: number[][];
  tokenTypeIds?: number[][];
  /** With `returnOffsets`; padding gets `[0, 0]`. */
  offsets?: [number, number][][];
  /** With `returnOffsets`; padding gets null. */
  sequenceIds?: (0 | 1 | null)[][];
  /** With `returnOffsets`; padding gets null. */
  wordIds?: (number | null)[][];
  tokens: string[][];
}

/** Hugging Face's truncation strategies; `true` is `'longest_first'`. */
export type TruncationStrategy = boolean | 'longest_first' | 'only_first' | 'only_second';

export interface EncodeOptions {
  /** A second text: `[CLS] text [SEP] textPair [SEP]`, as `tokenizer(text, text_pair)`. */
  textPair?: string;
  /**
   * What to do when the tokens (special ones included) exceed `maxLength`: false (default) is a
   * RangeError; true or 'longest_first' cuts the longer text first (both to half when both are
   * long), 'only_first' / 'only_second' cut that text alone (a RangeError if it is too short to
   * cut enough), as Hugging Face's tokenizers truncate.
   */
  truncation?: TruncationStrategy;
  /** The most tokens, special ones included; default the tokenizer's `maxLength`. */
  maxLength?: number;
  /** Also return `offsets`, `sequenceIds` and `wordIds` (WordPiece tokenizers, the BERT family). */
  returnOffsets?: boolean;
  /**
   * Keep what truncation cuts as further windows in `overflowing` (transformers'
   * `return_overflowing_tokens`; the question-answering pipeline's windows over a long
   * context). With a `textPair`, truncation must be `'only_first'` or `'only_second'`.
   */
  returnOverflowingTokens?: boolean;
  /**
   * With `returnOverflowingTokens`: how many tokens of the truncated text each window repeats
   * from the one before (default 0); less than what a window keeps of it, else a RangeError.
   */
  stride?: number;
}

export interface EncodeBatchOptions extends Omit<EncodeOptions, 'textPair' | 'returnOverflowingTokens' | 'stride'> {
  /** The second text of each row (or give rows as `[text, textPair]`). */
  textPairs?: readonly string[];
}

/**
 * Text -> token ids with Hugging Face's tokenizers (`@huggingface/tokenizers`). A folder's
 * tokenizer.json is checked before it is built: a regular expression that can backtrack
 * exponentially is refused (docs/security.md).
 */
export class TextTokenizer {
  private constructor();
  /** The most tokens a text may have, special tokens included (the model's maximum length). */
  maxLength: number;
  /**
   * The most characters `encode` takes (a text and its pair together): the bound on one call's
   * work, checked before normalisation. Default 1,000,000; 1,000,000 x 1,024 / ways for a
   * tokenizer whose patterns have more than 1,024 ways through the text from one position
   * (docs/security.md). Settable.
   */
  maxInputChars: number;
  /** The id padding uses in encodeBatch. */
  readonly padId: number;
  /** The special tokens around one text ([CLS] and [SEP]: 2). */
  readonly specialTokenCount: number;
  /** The special tokens around a pair ([CLS] A [SEP] B [SEP]: 3). */
  readonly pairSpecialTokenCount: number;
  /** Whether encode() returns tokenTypeIds. */
  readonly returnsTokenTypeIds: boolean;
  readonly vocabSize: number;
  /**
   * `tokenizer(text, text_pair)`: the ids with the special tokens, the tokens, the attention mask.
   * An empty text gives the post-processor's special tokens alone (BERT `[CLS] [SEP]`, Llama `<s>`,
   * GPT-2 none; WordPiece also drops a text of spaces), as transformers; an empty `textPair` is no
   * pair (transformers' single call: `tokenizer('a', '')` is `[CLS] a [SEP]`), unlike in encodeBatch.
   * @throws RangeError for a text longer than maxInputChars, or longer than maxLength without
   *   `truncation`; TypeError for a non-string or an unknown option
   */
  encode(text: string, options?: EncodeOptions): EncodedText;
  /** `tokenizer(texts, text_pairs, padding=True)`: rows of texts or of `[text, textPair]`. */
  encodeBatch(texts: readonly (string | readonly [string, string])[], options?: EncodeBatchOptions): EncodedBatch;
  /**
   * `tokenizer.decode(ids, skip_special_tokens)`: [] is ''; an id with no token (a model's output
   * rows past the vocabulary) is left out, as the fast tokenizers' decode does.
   * @throws RangeError for an id that is not an integer in [0, 2^32); TypeError for a non-array, a
   *   non-number id or an unknown option
   */
  decode(ids: TokenIds, options?: { skipSpecialTokens?: boolean }): string;
  tokenToId(token: string): number | undefined;
  idToToken(id: number): string | undefined;
  /** The mask token (`[MASK]`, or tokenizer_config.json's `mask_token`), null if the vocabulary has none. */
  readonly maskToken: string | null;
  /** The id of the unknown token (`[UNK]`), null if the model has none. */
  readonly unkId: number | null;
  /** Tokens joined as the decoder writes them (`['fish', '##ing']` -> `'fishing'`): `convert_tokens_to_string`. */
  convertTokensToString(tokens: readonly string[]): string;
}

/**
 * A tokenizer without model weights: `'bert-base-uncased'` or `'distilbert-base-uncased'` (the
 * vocabulary shipped in the package; maxLength 512), or a model folder as
 * {@link AttentionWasm.loadPretrained} takes it.
 *
 * The regular expressions of a folder's tokenizer.json are checked before the tokenizer is built
 * (a backtracking one could hold the thread for ever): each must be a literal, one of the real
 * tokenizers' patterns the package ships as checked (Llama 3's, Qwen2's and 102 more from the
 * hub), or pass the ReDoS analysis. The analysis is in the Node entry point; in a browser bundle
 * it is an opt-in, `import 'attention-wasm/tokenizer-check'` (250 KB gzip), and without it any
 * other pattern is refused with an Error naming the file, the JSON path, the pattern and both
 * ways out (that import, or `{ trustPatterns: true }`).
 * @throws Error naming the file, the JSON path and the pattern for a pattern that can take
 *   exponential time, or that is unknown with no analysis loaded
 */
export function loadTokenizer(source: ModelSource, options?: LoadTokenizerOptions): Promise<TextTokenizer>;

/** The keys of O that Options does not have, typed never: a misspelt option of a generic method is an error. */
export type NoOtherKeys<O, Options> = { [K in Exclude<keyof O, keyof Options>]: never };

/**
 * A padded batch (rows of one length) or one text's ids: `tokenizer.encode(text)`'s and
 * `tokenizer.encodeBatch(texts)`'s results are ForwardInputs as they are.
 */
export interface ForwardInput {
  /** One text's token ids, or rows of them (a batch padded to one length) */
  inputIds: TokenIds | readonly TokenIds[];
  /** 1 = token, 0 = padding; default all 1 */
  attentionMask?: TokenIds | readonly TokenIds[] | null;
  /** BERT only: 0 for the first text, 1 for the second; default all 0 */
  tokenTypeIds?: TokenIds | readonly TokenIds[] | null;
  /** `tokenizer.encode`'s (one text) or `encodeBatch`'s (one row per text) other fields: ignored here */
  tokens?: readonly string[] | readonly (readonly string[])[];
  offsets?: readonly (readonly [number, number])[] | readonly (readonly (readonly [number, number])[])[];
  sequenceIds?: readonly (0 | 1 | null)[] | readonly (readonly (0 | 1 | null)[])[];
}

export interface ForwardOptions {
  /** Also return the embeddings output and every layer's output (transformers' output_hidden_states). */
  outputHiddenStates?: boolean;
  /** Also return every layer's attention weights (transformers' output_attentions). */
  outputAttentions?: boolean;
  /**
   * Also return the task head's logits, as the `...For<Task>` model does (an Error when the
   * model was loaded without a head): `logits`, or for question answering `startLogits` and
   * `endLogits`.
   */
  outputLogits?: boolean;
}

export interface EncoderOutput {
  /** [N, L, hiddenSize] */
  lastHiddenState: Tensor<Float32Array, 3>;
  /** n_layers + 1 of [N, L, hiddenSize], the embeddings output first; with outputHiddenStates */
  hiddenStates?: Tensor<Float32Array, 3>[];
  /** n_layers of [N, heads, L, L]; with outputAttentions */
  attentions?: Tensor<Float32Array, 4>[];
  /** [N, hiddenSize]: tanh(dense(h[:, 0])), for BERT checkpoints with a pooler */
  poolerOutput?: Tensor<Float32Array, 2>;
  /**
   * With outputLogits: the masked-LM head's [N, L, vocabSize], the token classifier's
   * [N, L, labels.length], the sequence classifier's [N, labels.length]
   */
  logits?: Tensor<Float32Array>;
  /** With outputLogits and the question-answering head: [N, L] each */
  startLogits?: Tensor<Float32Array, 2>;
  endLogits?: Tensor<Float32Array, 2>;
}

/** One prediction for a [MASK] (the fill-mask pipeline's `{score, token, token_str, sequence}`). */
export interface FillMaskPrediction {
  /** The probability of the token at the mask (softmax over the vocabulary). */
  score: number;
  /** The token's id (the pipeline's `token`). */
  id: number;
  /** The token, decoded (the pipeline's `token_str`). */
  token: string;
  /** The text with the token in place of the mask (special tokens left out when there is one mask). */
  sequence: string;
}

export interface FillMaskOptions {
  /** Predictions per mask, best first. Default 5. */
  topK?: number;
  /**
   * Cut a text longer than the model's maximum to its first tokens (the pipeline's
   * `tokenizer_kwargs={'truncation': True}`); a [MASK] cut off is not predicted. Default false: an Error.
   */
  truncation?: boolean;
}

/** A text pair for a classifier: `{ text, textPair }`, or `[text, textPair]` inside an array of inputs. */
export interface TextPairInput {
  text: string;
  textPair: string;
}

/** What {@link PretrainedModel.classify} takes: a text, a pair, or an array of texts and pairs. */
export type ClassifyInput = string | TextPairInput | readonly (string | TextPairInput | readonly [string, string])[];

export interface ClassifyOptions {
  /** Labels per input, best first; null: every label. Default 1. */
  topK?: number | null;
  /**
   * How logits become scores. Default as transformers' pipeline: `'none'` for problem_type
   * `regression`; `'sigmoid'` for `multi_label_classification` or a single label; `'softmax'`
   * otherwise.
   */
  functionToApply?: 'softmax' | 'sigmoid' | 'none';
  /** As {@link EncodeOptions.truncation}. Default false: a text or pair longer than the model's maximum is a RangeError. */
  truncation?: TruncationStrategy;
  /** Inputs per forward call (padded batch). Default 32. */
  batchSize?: number;
}

export interface ClassLabel {
  /** config.json's `id2label` (`LABEL_i` where it has none). */
  label: string;
  score: number;
}

export interface RerankOptions {
  /** How many passages to return, best first. Default all. */
  topK?: number;
  /** As {@link EncodeOptions.truncation}. Default true ('longest_first', as sentence-transformers' CrossEncoder). */
  truncation?: TruncationStrategy;
  /** Pairs per forward call. Default 32. */
  batchSize?: number;
}

export interface RankedPassage {
  /** The passage's index in `passages`. */
  index: number;
  /**
   * sentence-transformers' CrossEncoder score: the logit through the activation config.json names
   * (`sentence_transformers.activation_fn`, else `sbert_ce_default_activation_function`: Identity,
   * Sigmoid or Tanh; ms-marco-MiniLM's is Identity, the logit itself), else its sigmoid.
   */
  score: number;
  text: string;
}

/** transformers' `aggregation_strategy` of the token-classification pipeline. */
export type TagAggregation = 'none' | 'simple' | 'first' | 'average' | 'max';

export interface TagTokensOptions {
  /**
   * transformers' `aggregation_strategy`. `'none'` (default): one entry per token. `'simple'`:
   * consecutive tokens of one entity grouped (a B- tag starts a new one). `'first'`, `'average'`,
   * `'max'`: each word first takes one label, so a word is never split between entities (its
   * '##' pieces follow it), then the words are grouped as `'simple'` groups tokens; the word's
   * label and score are its first token's (`'first'`), the best of its tokens' mean scores
   * (`'average'`), or those of its token with the largest score (`'max'`). Another string is a
   * RangeError listing these.
   */
  aggregation?: TagAggregation;
  /** Labels left out of the result. Default `['O']`. */
  ignoreLabels?: readonly string[];
}

/** A token with its label (aggregation `'none'`). */
export interface TokenTag {
  /** The token's label (config.json's id2label). */
  entity: string;
  score: number;
  /** The token's position in the encoded text ([CLS] is 0). */
  index: number;
  /** The token (for [UNK], the text it stands for). */
  word: string;
  /** `[start, end)` of the token in the text (UTF-16 indices). */
  start: number;
  end: number;
}

/** An entity (aggregation `'simple'`, `'first'`, `'average'` or `'max'`). */
export interface EntityGroup {
  /** The label without its B-/I- prefix. */
  entityGroup: string;
  /** The mean of its tokens' scores (of its words' scores with a word-level aggregation). */
  score: number;
  /** Its tokens joined as the tokenizer writes them ('new', 'york', 'c', '##ity' -> 'new york city'). */
  word: string;
  /** `[start, end)` of the entity in the text (UTF-16 indices). */
  start: number;
  end: number;
}

export interface AnswerOptions {
  /** Return the topK best answers as an array (without it: the best answer, or null). */
  topK?: number;
  /** The longest answer in tokens. Default 15. */
  maxAnswerLength?: number;
  /** Tokens per window (question, context and special tokens). Default min(384, the model's maximum). */
  maxSeqLength?: number;
  /** Tokens of context each window repeats from the one before. Default min(maxSeqLength / 2, 128). */
  docStride?: number;
  /** Windows per forward call (a long context's memory is that of one batch). Default 4. */
  batchSize?: number;
}

export interface Answer {
  /** The answer: `context.slice(start, end)`, widened to whole words. */
  answer: string;
  /** start probability x end probability of its span (summed over the windows that found it). */
  score: number;
  start: number;
  end: number;
}

export interface EmbedOptions {
  /**
   * 'mean': the mask-weighted mean of the tokens, as sentence-transformers; 'cls': the first token.
   * Default: the folder's Pooling module's mode ({@link PretrainedModel.sentenceTransformers}),
   * else 'mean'.
   */
  pooling?: 'mean' | 'cls';
  /**
   * Divide by the L2 norm (sentence-transformers' Normalize). Default: whether the folder's
   * modules.json lists Normalize (false without one).
   */
  normalize?: boolean;
  /**
   * See {@link EncodeOptions.truncation}. Default false; in a sentence-transformers folder true,
   * at its max_seq_length ({@link PretrainedModel.sentenceTransformers}).
   */
  truncation?: boolean;
  /** Texts per forward call. Default 32. */
  batchSize?: number;
}

/**
 * A pretrained encoder (transformers' DistilBertModel / BertModel, eval mode) whose weights live
 * in its instance's wasm memory until `dispose()` (`model[Symbol.dispose]` too, where the runtime
 * has it). Results are JS-owned Tensors.
 */
export class PretrainedModel {
  private constructor();
  readonly kind: 'encoder';
  /** The parsed config.json. */
  readonly config: Record<string, unknown>;
  /**
   * The folder's tokenizer (tokenizer.json or vocab.txt), as `AutoTokenizer.from_pretrained(dir)`.
   * @throws Error when the folder had neither file, naming the files it needs (see `hasTokenizer`)
   */
  readonly tokenizer: TextTokenizer;
  /** Whether the folder had a tokenizer: if not, reading `tokenizer` throws, and `embed` too. */
  readonly hasTokenizer: boolean;
  readonly modelType: 'distilbert' | 'bert';
  readonly numLayers: number;
  readonly numHeads: number;
  readonly hiddenSize: number;
  /**
   * The most tokens one sequence may have: config.json's max_position_embeddings (the rows of
   * the position embeddings). The folder's tokenizer caps its `maxLength` at it.
   */
  readonly maxPositions: number;
  readonly hasPooler: boolean;
  /** The form of the linear layers' weights ({@link LoadPretrainedOptions.dtype}). */
  readonly dtype: 'fp32' | 'q8';
  /** Bytes of wasm memory the weights hold (float32, and int8 for a q8 model's linear layers). */
  readonly residentBytes: number;
  /** Tensors of the file the model does not use (heads it did not load, buffers). */
  readonly ignoredTensors: string[];
  /** The task head loaded (see {@link LoadPretrainedOptions.head}), or null: the base model only. */
  readonly head: TaskHead | null;
  /** The classifier's labels in index order (config.json's id2label), null without a classification head. */
  readonly labels: string[] | null;
  /**
   * A sentence-transformers folder's settings, which embed follows as `encode` does:
   * sentence_bert_config.json's max_seq_length (at most maxPositions; texts are cut to it) and
   * do_lower_case; whether modules.json lists a Normalize module; the Pooling module's mode from
   * its folder's config.json (e.g. 1_Pooling/config.json; null when modules.json lists no Pooling
   * module or that file was not given: embed then needs `pooling`; 'mean' without modules.json,
   * as sentence-transformers builds it); and, in `unsupported`, the modules and pooling modes that
   * embed does not compute (a Dense module, max pooling, several modes at once, ...), for which
   * embed throws rather than return other numbers than `encode`. null in a folder without those files.
   */
  readonly sentenceTransformers: {
    maxSeqLength: number;
    normalize: boolean;
    doLowerCase: boolean;
    pooling: 'mean' | 'cls' | null;
    unsupported: string[];
  } | null;
  /** config.json's vocab_size: the masked-LM head's outputs. */
  readonly vocabSize: number;
  readonly disposed: boolean;
  /**
   * `model(input_ids, attention_mask, token_type_ids, output_hidden_states, output_attentions)`.
   * `input`: one text's ids, or `tokenizer.encode(text)` / `tokenizer.encodeBatch(texts)` as they
   * are (a batch padded to one length).
   * @throws RangeError for ids out of the vocabulary, a sequence longer than maxPositions, rows of
   *   different lengths, an empty input; TypeError for token type ids given to DistilBERT, and
   *   for a string (tokenize it first: `model.forward(model.tokenizer.encode(text))`)
   */
  forward<O extends ForwardOptions = {}>(
    input: TokenIds | readonly TokenIds[] | ForwardInput,
    options?: O & NoOtherKeys<O, ForwardOptions>,
  ): EncoderOutput &
    (O extends { outputHiddenStates: true } ? { hiddenStates: Tensor<Float32Array, 3>[] } : unknown) &
    (O extends { outputAttentions: true } ? { attentions: Tensor<Float32Array, 4>[] } : unknown);
  /** `model.embeddings.word_embeddings(ids)`: the learned input embeddings, [ids.length, hiddenSize]. */
  wordEmbeddings(ids: TokenIds): Tensor<Float32Array, 2>;
  /**
   * Sentence embeddings, [texts.length, hiddenSize], as sentence-transformers' `encode`: each text
   * tokenized (the folder's tokenizer), run in batches, pooled over its tokens. One string is one
   * text: `embed('a text')` is `[1, hiddenSize]`.
   * @throws Error when the folder had no tokenizer, or its sentence-transformers modules are ones
   *   embed does not compute (`sentenceTransformers.unsupported`) or its Pooling module's config
   *   was not given and `pooling` is not either; RangeError for a text longer than the model's
   *   maximum without `truncation` (an empty text embeds `[CLS] [SEP]`, as sentence-transformers)
   */
  embed(texts: string | readonly string[], options?: EmbedOptions): Tensor<Float32Array, 2>;
  /**
   * transformers' fill-mask pipeline: the topK tokens most likely at the text's `[MASK]`, with
   * their probabilities. Several masks give one list per mask, in text order.
   * @throws Error without the masked-LM head, or when the text has no mask token; RangeError for
   *   a text longer than the model's maximum
   */
  fillMask(text: string, options?: FillMaskOptions): FillMaskPrediction[] | FillMaskPrediction[][];
  /**
   * transformers' text-classification pipeline: the topK labels of a text or a pair (NLI,
   * paraphrase), best first; an array of inputs gives one list per input (padded batches).
   * @throws Error without the sequence-classification head; RangeError for a text or pair longer
   *   than the maximum without `truncation`
   */
  classify(input: string | TextPairInput, options?: ClassifyOptions): ClassLabel[];
  classify(
    input: readonly (string | TextPairInput | readonly [string, string])[],
    options?: ClassifyOptions,
  ): ClassLabel[][];
  classify(input: ClassifyInput, options?: ClassifyOptions): ClassLabel[] | ClassLabel[][];
  /**
   * A cross-encoder (a sequence classifier with one label, such as ms-marco-MiniLM) scores each
   * (query, passage) pair: the passages best first.
   * @throws Error without the sequence-classification head or with more than one label
   */
  rerank(query: string, passages: readonly string[], options?: RerankOptions): RankedPassage[];
  /**
   * transformers' token-classification pipeline (named entities, parts of speech): each token's
   * label with character offsets, or with another `aggregation` the entities. The text is cut
   * to the model's maximum length.
   * @throws Error without the token-classification head; RangeError for an unknown aggregation
   */
  tagTokens(text: string, options?: TagTokensOptions & { aggregation?: 'none' }): TokenTag[];
  tagTokens(text: string, options: TagTokensOptions & { aggregation: Exclude<TagAggregation, 'none'> }): EntityGroup[];
  tagTokens(text: string, options?: TagTokensOptions): TokenTag[] | EntityGroup[];
  /**
   * transformers' question-answering pipeline: the span of `context` that answers `question`,
   * widened to whole words, with its character offsets; a long context is read in overlapping
   * windows, `batchSize` (default 4) per padded batch.
   * @throws Error without the question-answering head; RangeError for an empty question or
   *   context (the pipeline's "cannot be empty"; a context of spaces has no answer: null or []),
   *   or when the question leaves no more than docStride tokens of context in a window
   */
  answer(question: string, context: string, options?: AnswerOptions & { topK?: undefined }): Answer | null;
  answer(question: string, context: string, options: AnswerOptions & { topK: number }): Answer[];
  answer(question: string, context: string, options?: AnswerOptions): Answer | Answer[] | null;
  /** Frees the weights; later calls throw. Idempotent. */
  dispose(): void;
  /** The same as `dispose()`: `using model = await A.loadPretrained(dir)` frees the weights at the block's end. */
  [Symbol.dispose](): void;
}

/** The sizes of a causal LM as its config.json gives them (transformers' defaults filled in). */
export interface CausalLMConfig {
  modelType: 'gpt2' | 'llama' | 'qwen2';
  numLayers: number;
  numHeads: number;
  /** Key/value heads (grouped-query attention); numHeads when the config has none. */
  numKvHeads: number;
  headDim: number;
  hiddenSize: number;
  intermediateSize: number;
  vocabSize: number;
  /** config.json's n_positions / max_position_embeddings: the most tokens one sequence may have. */
  maxPositions: number;
  /** The LM head is the word embeddings. */
  tieWordEmbeddings: boolean;
}

export interface CausalForwardInput {
  /** The token ids (one of inputIds and ids is needed: the same field under two names) */
  inputIds?: TokenIds | readonly TokenIds[];
  ids?: TokenIds | readonly TokenIds[];
  /**
   * 1 = token, 0 = padding (left padding for a batch); covers the new tokens, or (transformers'
   * form, with a cache) the cached and the new ones. Default all 1.
   */
  attentionMask?: TokenIds | readonly TokenIds[] | null;
  /** Default: from the attention mask, cumsum(mask) - 1 (1 at padding), as generate computes them. */
  positionIds?: TokenIds | readonly TokenIds[] | null;
  /** `tokenizer.encode`'s (one text) or `encodeBatch`'s (one row per text) other fields: ignored here */
  tokens?: readonly string[] | readonly (readonly string[])[];
  offsets?: readonly (readonly [number, number])[] | readonly (readonly (readonly [number, number])[])[];
  sequenceIds?: readonly (0 | 1 | null)[] | readonly (readonly (0 | 1 | null)[])[];
  wordIds?: readonly (number | null)[] | readonly (readonly (number | null)[])[];
  overflowing?: readonly EncodedText[];
}

export interface CausalForwardOptions {
  /** Also return the embeddings output and every layer's output (transformers' output_hidden_states). */
  outputHiddenStates?: boolean;
  /** Also return every layer's attention weights (transformers' output_attentions). */
  outputAttentions?: boolean;
  /** A cache of this model: the new tokens attend to its tokens and are appended to it. */
  cache?: KvCache | null;
}

export interface CausalLMOutput {
  /** [N, L, vocabSize] */
  logits: Tensor;
  /** numLayers of [N, numHeads, L, S], S = cached + L tokens; with outputAttentions */
  attentions?: Tensor[];
  /** numLayers + 1 of [N, L, hiddenSize]: the embeddings first, the last after the final norm; with outputHiddenStates */
  hiddenStates?: Tensor[];
}

/** A key/value cache of one causal LM in wasm memory: `lm.createCache()`. */
export class KvCache {
  private constructor();
  /** Tokens held per sequence. */
  readonly length: number;
  /** Sequences held (0 before the first forward). */
  readonly batch: number;
  readonly residentBytes: number;
  /** Whether `dispose()` was called (a cache of a disposed model cannot be used either). */
  readonly disposed: boolean;
  /** Empties it (it can be used again). */
  clear(): void;
  /** Frees it. Idempotent. */
  dispose(): void;
  /** The same as `dispose()`. */
  [Symbol.dispose](): void;
}

export interface GenerateOptions {
  /** Tokens to generate at most. Default 20. The prompt + maxNewTokens must fit in maxPositions. */
  maxNewTokens?: number;
  /**
   * Sample (true) or take the largest logit (false: transformers' greedy decoding). Default:
   * generation_config.json's do_sample (config.json's in a folder without that file), else false.
   * The sampling options left out take that file's values too, else transformers' GenerationConfig
   * defaults.
   */
  doSample?: boolean;
  /** Sampling: the logits are divided by it. Default: generation_config.json's temperature, else 1. */
  temperature?: number;
  /**
   * Sample among the k most probable tokens, and every token tied with the k-th (transformers'
   * TopKLogitsWarper); 0: all. Default: generation_config.json's top_k, else 50.
   */
  topK?: number;
  /** Sample among the most probable tokens whose mass reaches topP. Default: generation_config.json's top_p, else 1 (all). */
  topP?: number;
  /**
   * transformers' repetition_penalty (> 0; 1: none): the logit of every token already in the
   * sequence, the prompt's included, divided by it where positive and multiplied where negative,
   * before the choice (greedy or sampled). Default: generation_config.json's repetition_penalty
   * (config.json's in a folder without that file), else 1. Other logits processors that a
   * folder's files set (num_beams, no_repeat_ngram_size, min_new_tokens, ...) are not applied:
   * the first generate() that would read one warns (console.warn) naming it.
   */
  repetitionPenalty?: number;
  /**
   * An integer in [0, 2^53): the generation draws from its own generator, the stream
   * `A.manualSeed(seed)` then `A.rand(1)` per step would give, so a seed gives the same tokens
   * whatever runs between its steps; the instance's generator is not used or moved.
   */
  seed?: number;
  /** Stops after the step whose text completes one of these strings. */
  stop?: string | readonly string[] | null;
  /** Each step carries the attention of its token in every layer. */
  outputAttentions?: boolean;
  /** Each step carries this many top candidates of its distribution. Default 0. */
  candidates?: number;
  /** An AbortSignal: aborting it ends the generation before the next step. */
  signal?: { readonly aborted: boolean } | null;
  /** Overrides the model's eosTokenId (null: no EOS). */
  eosTokenId?: number | readonly number[] | null;
}

export interface GenerationCandidate {
  id: number;
  token: string;
  /** softmax(logits / temperature) */
  probability: number;
  /** Inside the top-k / top-p cut (ties at the top-k cut kept; greedy: the first only). */
  kept: boolean;
}

export interface GenerationStep {
  /** 0-based index of the generated token */
  index: number;
  /** Its position in the whole sequence (prompt length + index). */
  position: number;
  id: number;
  /** The tokenizer's piece for it (for labels). */
  token: string;
  /** Newly decodable text: '' while a character's bytes are still arriving. */
  text: string;
  /**
   * With outputAttentions: per layer [numHeads, position + 1], the token's attention over every
   * earlier token and itself (the row `position` of a full forward's attentions over the final
   * sequence: `lm.forward(ids, { outputAttentions: true }).attentions[layer][0, :, position]`).
   */
  attentions?: Tensor<Float32Array, 2>[];
  /** With candidates: the step's top candidates, by probability (equal ones by id). */
  candidates?: GenerationCandidate[];
}

/** A step of a generation with `outputAttentions: true`: `attentions` is there. */
export type GenerationStepWithAttentions = GenerationStep & { attentions: Tensor<Float32Array, 2>[] };

export interface GenerationResult<S extends GenerationStep = GenerationStep> {
  /** The prompt's ids and the new ones. */
  ids: number[];
  newIds: number[];
  /** The new tokens' text (special tokens skipped). */
  text: string;
  steps: S[];
  /** 'eos' (the EOS step is the last step), 'length' (maxNewTokens), 'stop' (a stop string), 'abort' (the signal). */
  finishReason: 'eos' | 'length' | 'stop' | 'abort' | null;
}

/**
 * `lm.generate(...)`: iterate it once (`for await (const step of generation)`: each step as soon as
 * its token is chosen), or call `all()` instead (a second `all()` returns the same promise).
 * Iterating it after either, or `all()` after iterating, is a TypeError.
 */
export interface Generation<S extends GenerationStep = GenerationStep> extends AsyncIterable<S> {
  /** Runs it to the end: the whole result. */
  all(): Promise<GenerationResult<S>>;
  /** Why it ended, once it has. */
  readonly finishReason: GenerationResult['finishReason'];
}

/**
 * A causal language model (transformers' GPT2LMHeadModel / LlamaForCausalLM /
 * Qwen2ForCausalLM, eval mode) whose weights live in its instance's wasm memory until
 * `dispose()`.
 */
export class CausalLM {
  private constructor();
  readonly kind: 'causal-lm';
  readonly config: CausalLMConfig;
  readonly modelType: 'gpt2' | 'llama' | 'qwen2';
  /**
   * config.json and generation_config.json as parsed ({} without one). As transformers' generate,
   * lm.generate reads its defaults and token ids from generation_config.json alone when the folder
   * has one, else from config.json.
   */
  readonly configJson: Record<string, unknown>;
  readonly generationConfig: Record<string, unknown>;
  /**
   * The folder's tokenizer (tokenizer.json), as `AutoTokenizer.from_pretrained(dir)`.
   * @throws Error when the folder had none, naming the file it needs (see `hasTokenizer`), as an
   *   encoder's `tokenizer` does
   */
  readonly tokenizer: TextTokenizer;
  /** Whether the folder had a tokenizer: if not, reading `tokenizer` throws, and `generate` of a text too. */
  readonly hasTokenizer: boolean;
  /** generation_config.json's eos_token_id (config.json's in a folder without that file). */
  readonly eosTokenId: number | number[] | null;
  readonly bosTokenId: number | null;
  readonly padTokenId: number | null;
  /** The form of the linear layers' weights ({@link LoadPretrainedOptions.dtype}). */
  readonly dtype: 'fp32' | 'q8';
  readonly residentBytes: number;
  /** Tensors of the file the model does not use (GPT-2's attn.bias buffers, a tied lm_head). */
  readonly ignoredTensors: string[];
  readonly disposed: boolean;
  /**
   * `model(input_ids, attention_mask, position_ids, past_key_values, output_attentions,
   * output_hidden_states)`; positions from the mask (a left-padded row gives what it gives alone).
   * @throws RangeError for ids out of the vocabulary, cached + new tokens past maxPositions, a
   *   cache of another batch size, an attentionMask whose rows mix the two forms (new tokens,
   *   cached + new), logits of more than 2^29 elements (refused before any layer runs); Error for
   *   a cache of another model or disposed. A failed forward leaves the cache as it was.
   */
  forward<O extends CausalForwardOptions = {}>(
    input: TokenIds | readonly TokenIds[] | CausalForwardInput,
    options?: O & NoOtherKeys<O, CausalForwardOptions>,
  ): CausalLMOutput &
    (O extends { outputHiddenStates: true } ? { hiddenStates: Tensor[] } : unknown) &
    (O extends { outputAttentions: true } ? { attentions: Tensor[] } : unknown);
  createCache(): KvCache;
  /**
   * Generates after a prompt (text, tokenized as `tokenizer.encode` does, or one row of ids): an
   * async iterable of steps, one per new token, that ends at EOS (the EOS step included),
   * `maxNewTokens`, a `stop` string or an aborted `signal`. Greedy unless `doSample`.
   * @throws RangeError for a prompt with no tokens (GPT-2's `''`; Llama's `''` is `<s>`), a prompt over maxPositions (a string prompt's
   *   token count named) or prompt + maxNewTokens past it, an id out of the vocabulary, option
   *   values out of range (seed outside [0, 2^53)), and a generation_config.json sampling value
   *   that is not valid for an option left out; TypeError for an unknown option or one of the
   *   wrong type (`maxNewTokens: '5'`, `topK: null`); Error for a string prompt when the folder had
   *   no tokenizer, and after `dispose()` (a generation made before it rejects when run)
   */
  generate(
    prompt: string | TokenIds | readonly [TokenIds],
    options: GenerateOptions & { outputAttentions: true },
  ): Generation<GenerationStepWithAttentions>;
  generate(prompt: string | TokenIds | readonly [TokenIds], options?: GenerateOptions): Generation;
  /** Frees the weights and the model's caches; later calls throw. Idempotent. */
  dispose(): void;
  /** The same as `dispose()`: `using lm = await A.loadPretrained<CausalLM>(dir)`. */
  [Symbol.dispose](): void;
}

/**
 * An int8 ("q8") linear weight made by {@link AttentionWasm.quantize}: int8 values with one float32
 * scale per row, in its instance's wasm memory until `dispose()` (`[Symbol.dispose]` too, where
 * the runtime has it; a garbage-collected one is freed too, eventually).
 */
export class QuantizedTensor {
  private constructor();
  readonly dtype: 'q8';
  /** [outFeatures, inFeatures] */
  readonly shape: number[];
  readonly ndim: 2;
  readonly size: number;
  /** Bytes of wasm memory it holds (0 once disposed). */
  readonly residentBytes: number;
  readonly disposed: boolean;
  /** The float32 weight the int8 layer computes with: `scale[j] * q[j, p]`. */
  dequantize(): Tensor;
  /** `QuantizedTensor([768, 3072], dtype='q8')` (`, disposed` once it is). */
  toString(): string;
  /** Frees its memory; idempotent. Using it afterwards throws. */
  dispose(): void;
  /** The same as `dispose()` (where the runtime has `Symbol.dispose`): `using w = A.quantize(weight)`. */
  [Symbol.dispose](): void;
}

/** Loads a new instance of the wasm module (Node >= 20 and browsers). */
export function init(options?: InitOptions): Promise<AttentionWasm>;
