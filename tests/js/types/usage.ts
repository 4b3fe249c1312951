// Type-checked only (tests/js/types.test.mjs runs `tsc --noEmit --strict` on it, never node):
// every public function and class of 'attention-wasm' with its options, resolved through the
// package's own `exports` / `types`. The `@ts-expect-error` lines must stay errors: if the
// declarations decayed to `any`, tsc would report them as unused and the test would fail.
import {
  init,
  Tensor,
  QuantizedTensor,
  formatTensor,
  loadSafetensors,
  type SafetensorsTensor,
  AttentionWasm,
  type TensorLike,
  type MaskLike,
  type DType,
  type FormatOptions,
  type ScaledDotProductAttentionOptions,
  type ScaledDotProductAttentionResult,
  type MultiheadAttention,
  type MultiheadAttentionResult,
  type TransformerEncoderLayer,
  type Linear,
  type LayerNorm,
  type StateDict,
  type InitOptions,
  loadTokenizer,
  PretrainedModel,
  TextTokenizer,
  type EncodedText,
  type EncodedBatch,
  type EncoderOutput,
  type ModelSource,
  type LoadPretrainedOptions,
  type LoadTokenizerOptions,
  type EmbedOptions,
  type ForwardInput,
  type TopkOptions,
  type TopkResult,
  type CosineSimilarityOptions,
  type NestedArray,
  CausalLM,
  KvCache,
  type GenerationStep,
  type GenerationResult,
  type GenerateOptions,
  type CausalLMOutput,
  type Answer,
  type AnswerOptions,
  type ClassifyInput,
  type ClassLabel,
} from 'attention-wasm';
import { init as initThreaded, Tensor as ThreadsTensor } from 'attention-wasm/threads';
import 'attention-wasm/tokenizer-check';
import { enableTokenizerCheck, catastrophicBacktracking } from 'attention-wasm/tokenizer-check';

const options: InitOptions = { wasmBinary: new Uint8Array(8), locateFile: (path, prefix) => prefix + path };
const A: AttentionWasm = await init(options);
await init();
// the SIMD build (init's simd) and the threaded build's entry point
const R: AttentionWasm = await initThreaded({ threads: 'auto', simd: 'relaxed' });
const simdUsed: 'relaxed' | 'simd128' = R.buildInfo().simd;
const threaded: boolean = R.buildInfo().threaded;
const threadCount: number = R.threads;
// @ts-expect-error buildInfo() says `threaded` (a boolean); A.threads is the count
R.buildInfo().threads;
// @ts-expect-error one spelling of the relaxed build: 'relaxed'
const oldSimd: 'relaxed-simd' | 'simd128' = R.buildInfo().simd;
const sameTensor: typeof Tensor = ThreadsTensor;
await init({ simd: 'simd128' });
// @ts-expect-error not a build
await init({ simd: 'fma' });
const isLibrary: boolean = A instanceof AttentionWasm;

// Tensor
const t = new Tensor(Float32Array.from([1, 2, 3, 4, 5, 6]), [2, 3]);
const v = new Tensor(new Float32Array(3));
const f32: Float32Array = t.data; // a float tensor's data is a Float32Array
const mask = new Tensor(Uint8Array.from([1, 0, 1, 1]), [2, 2]);
const maskData: Uint8Array = mask.data;
const shape: number[] = t.shape;
const dtype: DType = mask.dtype;
const counts: number[] = [t.ndim, t.size, t.get(1, -1), v.get(0)];
const nested = Tensor.fromArray([
  [1, 2],
  [3, 4],
]);
const fromLike: Tensor = Tensor.from({ data: new Float32Array(2), shape: [2] });
const maskFrom = Tensor.from({ data: new Uint8Array(2), shape: [1, 2] });
const asArray: number[][] = nested.toArray(); // typed by rank where the types know it
const scalar: number = Tensor.fromArray(3).toArray();
const cube: number[][][] = Tensor.fromArray([[[1], [2]]]).toArray();
const anyRank: NestedArray<number> = t.toArray(); // a constructed tensor's rank is not known
const maskValues: NestedArray<boolean> = mask.toArray();
const randRank: number[][] = A.rand(2, 3).toArray();
const randnRank: number[] = A.randn([4]).toArray();
// @ts-expect-error: a matrix's toArray() is number[][], not number[]
const wrongRank: number[] = nested.toArray();
// @ts-expect-error: a mask's elements are booleans
const maskNumbers: NestedArray<number> = mask.toArray();
const fmt: FormatOptions = { precision: 2, lineWidth: 60 };
const printed: string[] = [
  t.toString(),
  t.toString(fmt),
  String(t),
  formatTensor(t),
  formatTensor(t, { precision: 6 }),
];
const like: TensorLike = t;
const maskLike: MaskLike = mask;
const floatMask: MaskLike = t;

// random numbers and memory
A.manualSeed(123);
const r1: Tensor = A.rand(2, 3),
  r2: Tensor = A.rand([2, 3]),
  r3: Tensor = A.randn(4),
  r4: Tensor = A.randn([4, 4]);
const { heapBytes, allocatedBytes } = A.memoryStats();
const heap: number = A.heapBytes() + heapBytes + allocatedBytes;

// ops: results feed straight back in
const mm: Tensor = A.matmul(A.matmul(t, A.rand(3, 2)), r2);
const lin: Tensor = A.linear(r1, A.rand(5, 3));
A.linear(r1, A.rand(5, 3), A.rand(5));
A.linear(r1, A.rand(5, 3), null);
const sm: Tensor = A.softmax(lin, { dim: 0 });
A.softmax(lin);
const emb: Tensor[] = [
  A.embedding([0, 1, 1], r4),
  A.embedding(Int32Array.of(2, 3), r4),
  A.embedding({ data: Int32Array.of(0, 1), shape: [1, 2] }, r4),
];
const sdpaOptions: ScaledDotProductAttentionOptions = {
  attnMask: mask,
  dropoutP: 0,
  isCausal: false,
  scale: null,
  enableGqa: false,
  returnWeights: true,
  returnIntermediates: true,
};
const q = A.randn(2, 4, 8),
  k = A.randn(2, 6, 8),
  val = A.randn(2, 6, 5);
const r: ScaledDotProductAttentionResult = A.scaledDotProductAttention(q, k, val, sdpaOptions);
const sdpaOut: Tensor = r.output;
const maybe: (Tensor | undefined)[] = [r.weights, r.scores, r.scaled, r.masked];
// the result's type follows returnWeights / returnIntermediates
const withWeights: Tensor = A.scaledDotProductAttention(q, k, val, { returnWeights: true }).weights;
const steps = A.scaledDotProductAttention(q, k, val, { returnIntermediates: true, isCausal: true });
const allSteps: Tensor[] = [steps.output, steps.scores, steps.scaled, steps.masked, steps.weights];
// @ts-expect-error: without returnWeights the weights may be absent
const noWeights: Tensor = A.scaledDotProductAttention(q, k, val).weights;
// @ts-expect-error: returnWeights false: no weights
const falseWeights: Tensor = A.scaledDotProductAttention(q, k, val, { returnWeights: false }).weights;
// @ts-expect-error: a misspelt option is still an error with returnWeights
A.scaledDotProductAttention(q, k, val, { returnWeights: true, isCasual: true });
A.scaledDotProductAttention(q, k, val, { attnMask: { data: new Float32Array(24), shape: [4, 6] }, scale: 1 });
A.scaledDotProductAttention(q, k, val, { isCausal: true });
A.scaledDotProductAttention(q, k, val);
const pe: Tensor = A.positionalEncoding(100, 64);
const ln: Tensor[] = [
  A.layerNorm(pe, 64),
  A.layerNorm(pe, [64], { weight: A.rand(64), bias: null, eps: 1e-6 }),
  A.layerNorm(pe, [100, 64], {}),
];
const acts: Tensor[] = [
  A.relu(pe),
  A.gelu(pe),
  A.gelu(pe, { approximate: 'tanh' }),
  A.gelu(pe, { approximate: 'none' }),
];
const arith: Tensor[] = [A.add(pe, pe), A.add(pe, 1), A.add(2, pe), A.mul(pe, 0.5), A.mul(pe, A.rand(64))];

// modules
const linear: Linear = new A.Linear({ inFeatures: 3, outFeatures: 2, bias: false });
new A.Linear({ inFeatures: 3, outFeatures: 2 });
const y: Tensor = linear.forward(r1);
const w: Tensor | QuantizedTensor = linear.weight;
// int8 weights: A.quantize, accepted by linear and as a Linear's weight
const wq: QuantizedTensor = A.quantize(A.rand(2, 3), { dtype: 'q8' });
const q8Facts: [string, number[], number, boolean] = [wq.dtype, wq.shape, wq.residentBytes, wq.disposed];
const yq: Tensor = A.linear(r1, wq, A.rand(2));
if (!(linear.weight instanceof QuantizedTensor)) linear.weight.data.fill(0);
linear.weight = wq;
linear.weight = A.quantize(linear.weight); // already int8: itself
const back: Tensor = wq.dequantize();
const wqText: string = wq.toString();
wq.dispose();
{
  using scopedWeight = A.quantize(A.rand(2, 3)); // [Symbol.dispose] frees it at the block's end
  A.linear(r1, scopedWeight);
}
const int8Info: [string, number] = [A.buildInfo().int8Product, A.buildInfo().relaxedDotLowering];
const b: Tensor | null = linear.bias;
const sizes: number[] = [linear.inFeatures, linear.outFeatures];
const norm: LayerNorm = new A.LayerNorm({ normalizedShape: 8, eps: 1e-6, bias: true });
const normShape: readonly number[] = norm.normalizedShape;
const plainNorm = new A.LayerNorm({ normalizedShape: [2, 4], elementwiseAffine: false });
const noWeight: null = plainNorm.weight;
const affine: boolean = normShape.length > 0;
const maybeWeight: Tensor | null = new A.LayerNorm({ normalizedShape: 8, elementwiseAffine: affine }).weight;
// @ts-expect-error: with elementwiseAffine unknown the weight may be null
const surelyWeight: Tensor = new A.LayerNorm({ normalizedShape: 8, elementwiseAffine: affine }).weight;
// @ts-expect-error: torch's name is normalizedShape
new A.LayerNorm({ features: 8 });
const normParams: (Tensor | null)[] = [norm.weight, norm.bias, null];
const normSizes: number[] = [...norm.normalizedShape, norm.eps];

const mha: MultiheadAttention = new A.MultiheadAttention({
  embedDim: 8,
  numHeads: 2,
  bias: true,
  kdim: 4,
  vdim: 6,
  batchFirst: true,
  dropout: 0,
});
new A.MultiheadAttention({ embedDim: 8, numHeads: 2 });
const mhaOut: MultiheadAttentionResult = mha.forward(A.randn(1, 3, 8), A.randn(1, 5, 4), A.randn(1, 5, 6), {
  keyPaddingMask: new Tensor(new Uint8Array(5), [1, 5]),
  attnMask: { data: new Float32Array(15), shape: [3, 5] },
  needWeights: true,
  averageAttnWeights: false,
  isCausal: false,
});
mha.forward(q, q, q);
const mhaWeights: Tensor | null = mhaOut.weights;
const defaultWeights: Tensor = mha.forward(q, q, q, { isCausal: true }).weights; // needWeights defaults to true
const noMhaWeights: null = mha.forward(q, q, q, { needWeights: false }).weights;
declare const ask: boolean;
const maybeMhaWeights: Tensor | null = mha.forward(q, q, q, { needWeights: ask }).weights;
// @ts-expect-error: needWeights false gives null weights
const absentWeights: Tensor = mha.forward(q, q, q, { needWeights: false }).weights;
// @ts-expect-error: with needWeights unknown, the weights may be null
const unsureWeights: Tensor = mha.forward(q, q, q, { needWeights: ask }).weights;
const mhaParams: (Tensor | QuantizedTensor | null | undefined)[] = [
  mha.inProjWeight,
  mha.qProjWeight,
  mha.kProjWeight,
  mha.vProjWeight,
  mha.inProjBias,
  mha.outProjWeight,
  mha.outProjBias,
  mha.outProj.weight,
];
mha.outProjWeight = A.rand(8, 8);
mha.inProjBias = null;
const mhaSizes: (number | boolean)[] = [
  mha.embedDim,
  mha.numHeads,
  mha.headDim,
  mha.kdim,
  mha.vdim,
  mha.sameEmbedDim,
  mha.batchFirst,
  mha.dropout,
];

const layer: TransformerEncoderLayer = new A.TransformerEncoderLayer({
  dModel: 8,
  nhead: 2,
  dimFeedforward: 16,
  dropout: 0.1,
  activation: 'gelu',
  layerNormEps: 1e-5,
  batchFirst: false,
  normFirst: true,
  bias: true,
});
new A.TransformerEncoderLayer({ dModel: 8, nhead: 2 });
const src = A.randn(3, 1, 8);
const encoded: Tensor = layer.forward(src, {
  srcMask: new Tensor(new Uint8Array(9), [3, 3]),
  srcKeyPaddingMask: null,
  isCausal: true,
});
layer.forward(src);
const parts = [
  layer.selfAttn.forward(src, src, src).output,
  layer.linear1.weight,
  layer.linear2.forward(A.rand(16)),
  layer.norm1.weight,
  layer.norm2.bias,
];
const layerSettings: (number | string | boolean)[] = [
  layer.dModel,
  layer.nhead,
  layer.dimFeedforward,
  layer.activation,
  layer.layerNormEps,
  layer.batchFirst,
  layer.normFirst,
  layer.dropout,
];

// state dicts and safetensors
// a module holding Linear layers may hold an int8 weight; LayerNorm's parameters are Tensors
layer.linear1.weight = A.quantize(layer.linear1.weight);
const named: [string, Tensor | QuantizedTensor][] = layer.namedParameters();
const state: Record<string, Tensor | QuantizedTensor> = layer.stateDict();
const normState: Record<string, Tensor> = norm.stateDict();
// @ts-expect-error: a state dict of a module with Linear layers may hold a QuantizedTensor
const notOnlyTensors: Record<string, Tensor> = layer.stateDict();
// @ts-expect-error: LayerNorm has no int8 parameter
norm.loadStateDict({ weight: A.quantize(A.rand(8, 8)) });
const { missingKeys, unexpectedKeys } = layer.loadStateDict(state, { strict: false });
const fromMap: StateDict = new Map<string, TensorLike>([['weight', A.rand(2, 3)]]);
linear.loadStateDict(fromMap);
const loaded: Map<string, SafetensorsTensor> = loadSafetensors(new Uint8Array(16));
mha.loadStateDict(A.loadSafetensors(new ArrayBuffer(16)));
linear.loadStateDict(loaded);
const positionIds = loaded.get('embeddings.position_ids'); // an I64 buffer: its values
const firstPosition: number | undefined = positionIds?.data instanceof Int32Array ? positionIds.data[0] : undefined;
// @ts-expect-error: a tensor of the file may hold integers, not only floats
const onlyFloats: Map<string, Tensor> = loadSafetensors(new Uint8Array(16));

// tensor helpers: any element type in, the same out; topk's indices are int32
const tT: Tensor = A.transpose(t, 0, 1);
const maskT: Tensor<Uint8Array> = A.transpose(mask, -2, -1);
const permuted: Tensor = A.permute(A.rand(3, 24, 6), [0, 2, 1]);
const row: Tensor = A.select(t, 0, -1);
const cols: Tensor = A.narrow(t, 1, 1, 2);
const topkOptions: TopkOptions = { dim: -1, largest: false, sorted: true };
const top: TopkResult = A.topk(t, 2, topkOptions);
const topIds: Tensor<Int32Array> = A.topk(t, 1).indices;
const topIdsDtype: 'int32' = topIds.dtype;
const picks: Int32Array = A.select(top.indices, 0, 0).data;
const embeddedTop: Tensor = A.embedding(topIds, A.rand(3, 4)); // indices are ids
const cosOptions: CosineSimilarityOptions = { dim: -1, eps: 1e-6 };
const similarity: Tensor = A.cosineSimilarity(t, v, cosOptions);
const isTrue: boolean = mask.get(0, 1); // a mask's element is a boolean
const helperResults = [tT, maskT, permuted, row, cols, top.values, picks, embeddedTop, similarity, topIdsDtype, isTrue];
// @ts-expect-error: permute takes the dims as one array
A.permute(t, 1, 0);
// @ts-expect-error: topk's option is `largest`
A.topk(t, 1, { descending: true });
// @ts-expect-error: topk takes a float tensor
A.topk(mask, 1);
// @ts-expect-error: topk's indices are int32, not float
const floatIds: Tensor = A.topk(t, 1).indices;
// @ts-expect-error: cosineSimilarity's epsilon option is `eps`
A.cosineSimilarity(t, t, { epsilon: 1e-8 });
// @ts-expect-error: a float tensor's element is a number
const notBool: boolean = t.get(0, 0);

// wrong names and types must not type-check
// @ts-expect-error: softmax has `dim`, not `dims`
A.softmax(t, { dims: 0 });
// @ts-expect-error: `isCasual` is misspelt
A.scaledDotProductAttention(q, k, val, { isCasual: true });
// @ts-expect-error: scale is a number
A.scaledDotProductAttention(q, k, val, { scale: '1' });
// Pretrained encoders and tokenizers
const progress: LoadPretrainedOptions = { onProgress: ({ loaded, total }) => void (loaded / total) };
const folder: ModelSource = '/models/distilbert-base-uncased';
const model = await A.loadPretrained<PretrainedModel>(folder, progress);
await A.loadPretrained({ 'config.json': new Uint8Array(2), 'model.safetensors': new ArrayBuffer(8) });
declare const picked: {
  length: number;
  [i: number]: { name: string; size: number; slice(a?: number, b?: number): { arrayBuffer(): Promise<ArrayBuffer> } };
  item(i: number): null;
};
await A.loadPretrained(picked);
const tokenizer: TextTokenizer = await loadTokenizer('bert-base-uncased', { maxLength: 128 });
// tokenizer.json patterns: the analysis as an opt-in, or the caller's own risk
enableTokenizerCheck();
const why: string | null = catastrophicBacktracking(/(a+)+$/u);
const tokenizerOptions: LoadTokenizerOptions = { maxLength: 128, trustPatterns: true };
await loadTokenizer(folder, tokenizerOptions);
await A.loadPretrained(folder, { onProgress: () => {}, trustPatterns: true });
const q8Model: PretrainedModel = await A.loadPretrained(folder, { dtype: 'q8' });
const q8ModelDtype: 'fp32' | 'q8' = q8Model.dtype;
// @ts-expect-error: dtype is 'fp32' or 'q8'
await A.loadPretrained(folder, { dtype: 'int4' });
// @ts-expect-error: trustPatterns is a boolean
await loadTokenizer(folder, { trustPatterns: 'yes' });
// @ts-expect-error: the analysis takes a RegExp
catastrophicBacktracking('(a+)+$');
const enc: EncodedText = tokenizer.encode('Write a poem about a man fishing on a river bank.', { truncation: true });
const batch: EncodedBatch = tokenizer.encodeBatch(['a river bank', 'bank']);
const maybeTypes: number[] | undefined = enc.tokenTypeIds;
const out: EncoderOutput = model.forward(enc.inputIds);
const all = model.forward(
  { inputIds: batch.inputIds, attentionMask: batch.attentionMask },
  { outputHiddenStates: true, outputAttentions: true },
);
const hidden: Tensor[] = all.hiddenStates; // present when asked for
const attentions: Tensor[] = all.attentions;
const viaEncode = model.forward(enc);
const viaBatch = model.forward(tokenizer.encodeBatch(['a river bank', 'bank'])); // encodeBatch's result as it is
const oneShape: ForwardInput[] = [enc, batch, tokenizer.encode('a', { textPair: 'b', returnOffsets: true })];
// @ts-expect-error: encode's ids are inputIds, as encodeBatch's
tokenizer.encode('bank').ids;
// @ts-expect-error: a ForwardInput needs inputIds
model.forward({ attentionMask: [1, 1] });
const ranked: number[][][] = viaBatch.lastHiddenState.toArray();
const heads: number[][][][] = all.attentions[0].toArray();
const ownTokenizer: TextTokenizer = model.tokenizer; // throws (with the files it needs) when the folder had none
const hasTokenizer: boolean = model.hasTokenizer;
const one: number[][] = model.embed('one text').toArray(); // one string is one text: [1, hiddenSize]
// @ts-expect-error: a string is not token ids (tokenize it first)
model.forward('a text');
// @ts-expect-error: a misspelt option beside a valid one is still an error (the runtime's TypeError)
model.forward([101, 102], { outputHiddenStates: true, outputLogit: true });
const rowsOut: number[][][] = model
  .forward([
    [101, 102],
    [101, 102],
  ])
  .lastHiddenState.toArray(); // rows of ids, a batch
// the task helpers with options held in a variable, and any of classify's inputs
const answerOptions: AnswerOptions = { maxAnswerLength: 10 };
const someAnswer: Answer | Answer[] | null = model.answer('who?', 'the cat', answerOptions);
const classifyInput: ClassifyInput = ['a text', { text: 'a', textPair: 'b' }];
const someLabels: ClassLabel[] | ClassLabel[][] = model.classify(classifyInput);
// token classification: 'none' gives tokens, every other aggregation entities
const tokenTags: { entity: string; index: number }[] = model.tagTokens('my name is wolfgang');
for (const aggregation of ['simple', 'first', 'average', 'max'] as const) {
  const entities: { entityGroup: string; start: number; end: number }[] = model.tagTokens('a text', { aggregation });
}
// @ts-expect-error: aggregation is transformers' aggregation_strategy ('mean' is not one)
model.tagTokens('a text', { aggregation: 'mean' });
{
  using scoped = await A.loadPretrained<PretrainedModel>(folder); // [Symbol.dispose] frees the weights at the block's end
  scoped.forward([101, 102]);
}
{
  using library = await init();
  library.manualSeed(1);
}
const disposeFn: () => void = model[Symbol.dispose];
const input: ForwardInput = { inputIds: [Int32Array.from([101, 102])] };
const last: Tensor = model.forward(input).lastHiddenState;
const pooled: Tensor | undefined = out.poolerOutput;
const le: Tensor = model.wordEmbeddings(enc.inputIds);
const embedOptions: EmbedOptions = { pooling: 'mean', normalize: true, batchSize: 8 };
const sentences: Tensor = model.embed(['a', 'b'], embedOptions);
// @ts-expect-error a model's maximum positions are `maxPositions`
model.maxLength;
const modelFacts = [
  model.modelType,
  model.hiddenSize,
  model.numLayers,
  model.numHeads,
  model.maxPositions,
  model.residentBytes,
  model.hasPooler,
  model.disposed,
  model.ignoredTensors,
  model.config,
  model.tokenizer?.maxLength,
  tokenizer.vocabSize,
  tokenizer.tokenToId('bank'),
  tokenizer.idToToken(2924),
  tokenizer.decode([101, 2924, 102], { skipSpecialTokens: true }),
];
const summarised: string = formatTensor(last, { threshold: 1000, edgeitems: 3 });
model.dispose();
// @ts-expect-error: hiddenStates may be absent unless outputHiddenStates is true
const notAsked: Tensor[] = model.forward(enc.inputIds).hiddenStates;
// @ts-expect-error: pooling is 'mean' | 'cls'
model.embed('x', { pooling: 'max' });
// @ts-expect-error: the option is outputAttentions
model.forward(enc.inputIds, { outputAttention: true });
// @ts-expect-error: a number is not a model folder
await A.loadPretrained(42);
// @ts-expect-error: models come from loadPretrained
new PretrainedModel();

// @ts-expect-error: a mask needs {data, shape}
A.scaledDotProductAttention(q, k, val, { attnMask: [[1, 0]] });
// @ts-expect-error: approximate is 'none' | 'tanh'
A.gelu(t, { approximate: 'fast' });
// @ts-expect-error: layerNorm's epsilon option is `eps`
A.layerNorm(t, 3, { epsilon: 1e-5 });
// @ts-expect-error: numHeads is required
new A.MultiheadAttention({ embedDim: 8 });
// @ts-expect-error: torch's snake_case names are camelCase here
new A.MultiheadAttention({ embed_dim: 8, num_heads: 2 });
// @ts-expect-error: `needWeight` is misspelt
mha.forward(q, q, q, { needWeight: false });
// @ts-expect-error: activation is 'relu' | 'gelu'
new A.TransformerEncoderLayer({ dModel: 8, nhead: 2, activation: 'tanh' });
// @ts-expect-error: a plain array is not a tensor
A.matmul([1, 2], t);
// @ts-expect-error: a boolean mask tensor is not a float operand
A.matmul(mask, t);
// @ts-expect-error: Tensor has no `dims`
const nope = t.dims;
// @ts-expect-error: Linear's option is `inFeatures`
new A.Linear({ in_features: 3, outFeatures: 2 });
// @ts-expect-error: instances come from init()
new AttentionWasm();
// @ts-expect-error: init's options are wasmBinary and locateFile
await init({ wasm: new Uint8Array(8) });

export const used = [
  oneShape,
  scalar,
  cube,
  anyRank,
  maskValues,
  randRank,
  randnRank,
  wrongRank,
  maskNumbers,
  withWeights,
  allSteps,
  noWeights,
  falseWeights,
  defaultWeights,
  noMhaWeights,
  maybeMhaWeights,
  absentWeights,
  unsureWeights,
  viaBatch,
  ranked,
  heads,
  ownTokenizer,
  hasTokenizer,
  one,
  disposeFn,
  f32,
  maskData,
  shape,
  dtype,
  counts,
  fromLike,
  maskFrom,
  asArray,
  printed,
  like,
  maskLike,
  floatMask,
  r3,
  heap,
  mm,
  sm,
  emb,
  sdpaOut,
  maybe,
  ln,
  acts,
  arith,
  y,
  w,
  b,
  sizes,
  normParams,
  normSizes,
  mhaWeights,
  mhaParams,
  mhaSizes,
  encoded,
  parts,
  layerSettings,
  named,
  missingKeys,
  unexpectedKeys,
  nope,
  isLibrary,
  layer.namedParameters('encoder.'),
  batch,
  maybeTypes,
  hidden,
  attentions,
  viaEncode,
  pooled,
  le,
  sentences,
  modelFacts,
  summarised,
  notAsked,
  helperResults,
  floatIds,
  notBool,
  q8Facts,
  q8ModelDtype,
  yq,
  back,
  int8Info,
];

// causal language models (issue 19): loadPretrained gives either kind; `kind` tells them apart
const loadedAny = await A.loadPretrained<PretrainedModel | CausalLM>(folder);
if (loadedAny.kind === 'causal-lm') loadedAny.createCache().dispose();
else loadedAny.embed('x');
const lm = await A.loadPretrained<CausalLM>(folder);
const lmCache: KvCache = lm.createCache();
const lmOut: CausalLMOutput = lm.forward({ inputIds: [[1, 2, 3]], attentionMask: [[0, 1, 1]] }, { cache: lmCache });
const lmLogits: Tensor = lmOut.logits;
const lmAttentions: Tensor[] = lm.forward([1, 2], { outputAttentions: true }).attentions;
const cachedLength: number = lmCache.length;
const cacheDisposed: boolean = lmCache.disposed;
// @ts-expect-error outputLogits is the encoders' option: a causal LM always returns its logits
lm.forward([1, 2], { outputLogits: true });
// @ts-expect-error: a misspelt option beside a valid one is still an error
lm.forward([1, 2], { outputAttentions: true, outputHiddenState: true });
const lmBatchOut: CausalLMOutput = lm.forward(lm.tokenizer.encodeBatch(['a', 'bb'])); // encodeBatch's result as it is
lm.generate([[1, 2, 3]], { stop: null, signal: null }); // a batch of one row; null: none
const lmIsCausal: boolean = lm instanceof CausalLM && lmCache instanceof KvCache;
lmCache.dispose();
const generateOptions: GenerateOptions = {
  maxNewTokens: 8,
  doSample: true,
  temperature: 0.7,
  topK: 40,
  topP: 0.9,
  seed: 1,
  stop: ['\n'],
  outputAttentions: true,
  candidates: 5,
  signal: { aborted: false }, // an AbortSignal
};
for await (const step of lm.generate('Once upon a time', generateOptions)) {
  const s: GenerationStep = step;
  const piece: string = s.text;
  const firstLayer: Tensor | undefined = s.attentions?.[0];
  const best: number | undefined = s.candidates?.[0].probability;
}
// with outputAttentions: true, every step has its attention ([numHeads, position + 1] per layer)
for await (const step of lm.generate('Once upon a time', { maxNewTokens: 4, outputAttentions: true })) {
  const lastLayer: Tensor<Float32Array, 2> = step.attentions[lm.config.numLayers - 1];
}
for await (const step of lm.generate([1, 2, 3])) {
  // @ts-expect-error: without outputAttentions a step may have no attentions
  step.attentions[0];
}
const withAttentions = await lm.generate([1, 2, 3], { outputAttentions: true }).all();
const stepRows: number = withAttentions.steps[0].attentions[0].shape[1];
const whole: GenerationResult = await lm.generate([1, 2, 3]).all();
const eos: number | number[] | null = lm.eosTokenId;
const lmSizes: number = lm.config.numKvHeads + lm.config.vocabSize;
const lmTokenizer: TextTokenizer = lm.tokenizer; // throws (naming tokenizer.json) when the folder had none
const lmHasTokenizer: boolean = lm.hasTokenizer;
// @ts-expect-error: generate takes text or ids
lm.generate({ text: 'x' });
// @ts-expect-error: an unknown option (maxTokens is maxNewTokens)
lm.generate('x', { maxTokens: 4, outputAttentions: true });
lm.dispose();
{
  using scoped = await A.loadPretrained<CausalLM>(folder);
  using scopedCache = scoped.createCache();
}
