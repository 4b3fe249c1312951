// Type declarations for attention-wasm (hand-written; see README.md for examples).

/** Element type of a tensor: float32 data, or a boolean mask stored as bytes (1 = true). */
export type DType = 'float32' | 'bool';

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
 * A dense row-major tensor. Results are always fresh JS-owned `Float32Array`s, never views of
 * the wasm heap: there is nothing to free.
 */
export class Tensor {
  /**
   * @param data values in row-major order (`Uint8Array` for a boolean mask)
   * @param shape defaults to `[data.length]`
   * @throws TypeError if `data` is not a Float32Array/Uint8Array; RangeError if the shape's
   *   product differs from `data.length` or a size is negative or fractional
   */
  constructor(data: Float32Array | Uint8Array, shape?: readonly number[]);
  data: Float32Array | Uint8Array;
  shape: number[];
  readonly dtype: DType;
  readonly ndim: number;
  /** Number of elements. */
  readonly size: number;
  /** Wraps and checks any `{data, shape}` object. */
  static from(value: TensorLike | MaskLike): Tensor;
  /** A float32 tensor from rectangular nested arrays, e.g. `Tensor.fromArray([[1, 2], [3, 4]])`. */
  static fromArray(nested: number | number[] | number[][] | number[][][] | number[][][][]): Tensor;
  /** The element at a full index (negative indices count from the end). */
  get(...index: number[]): number;
  /** Nested arrays (a number for a 0-d tensor). */
  toArray(): unknown;
  /** As PyTorch prints it: `tensor([[ 0.3374, -0.1778, ...]])`. */
  toString(options?: FormatOptions): string;
}

export interface FormatOptions {
  /** Decimals (torch's default 4). */
  precision?: number;
  /** Characters per line before wrapping (torch's default 80). */
  lineWidth?: number;
}

/** Formats a tensor as `print(t)` does in PyTorch. */
export function formatTensor(t: Tensor, options?: FormatOptions): string;

export interface SoftmaxOptions {
  /** The dimension to normalise over; negative counts from the end. Default -1. */
  dim?: number;
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
  /** Grouped-query attention: key/value heads H divide the query heads Hq (dim -3). */
  enableGqa?: boolean;
  /** Also return `weights` (N..., Hq, L, S). */
  returnWeights?: boolean;
  /** Also return every step: `scores` (Q K^T), `scaled`, `masked`, `weights`. */
  returnIntermediates?: boolean;
}

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

/** The library bound to one instance of the wasm module (its own heap and random generator). */
export interface AttentionWasm {
  /**
   * Diagnostics: `heapBytes` is the size of this instance's wasm memory (it never shrinks),
   * `allocatedBytes` what malloc holds now (back to its level after every call: results are
   * JS-owned copies, there is nothing to free).
   */
  memoryStats(): { heapBytes: number; allocatedBytes: number };
  /** The size of this instance's wasm memory in bytes. */
  heapBytes(): number;
  /** `torch.manual_seed(seed)`: reseeds this instance's generator (integer in [0, 2^53)). */
  manualSeed(seed: number): void;
  /** `torch.rand(*size)`: uniform [0, 1) float32, bit-compatible with torch's CPU generator. */
  rand(...size: number[]): Tensor;
  rand(size: readonly number[]): Tensor;
  /** `torch.randn(*size)`: standard normal float32, bit-compatible with torch's CPU generator. */
  randn(...size: number[]): Tensor;
  randn(size: readonly number[]): Tensor;
  /** `torch.matmul(input, other)` with broadcasting of batch dims; 1-D operands as torch. */
  matmul(input: TensorLike, other: TensorLike): Tensor;
  /** `torch.nn.functional.linear`: input (..., in) W^T (out, in) + bias (out). */
  linear(input: TensorLike, weight: TensorLike, bias?: TensorLike | null): Tensor;
  /** `torch.softmax(input, dim)`; a slice that is all -inf gives zeros. */
  softmax(input: TensorLike, options?: SoftmaxOptions): Tensor;
  /** `torch.nn.functional.embedding(input, weight)`: rows of weight picked by ids. */
  embedding(ids: readonly number[] | Int32Array | { data: Int32Array; shape: readonly number[] }, weight: TensorLike): Tensor;
  /**
   * `torch.nn.functional.scaled_dot_product_attention(query, key, value, ...)`.
   * query (N..., Hq, L, E), key (N..., H, S, E), value (N..., H, S, Ev) -> output (N..., Hq, L, Ev).
   */
  scaledDotProductAttention(
    query: TensorLike,
    key: TensorLike,
    value: TensorLike,
    options?: ScaledDotProductAttentionOptions,
  ): ScaledDotProductAttentionResult;
}

export interface InitOptions {
  /** The .wasm bytes (Node's export reads them from beside the package's files). */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Where to find the .wasm in a browser: `(path, prefix) => url`. */
  locateFile?: (path: string, prefix: string) => string;
}

/** Loads a new instance of the wasm module (Node >= 20 and browsers). */
export function init(options?: InitOptions): Promise<AttentionWasm>;
