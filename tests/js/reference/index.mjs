// The float64 references of the JS tests, in one place: shapes and broadcasting (tensor.mjs),
// the functions (ops.mjs), the modules (modules.mjs), the pretrained encoders (encoder.mjs), the
// int8 linear layer byte for byte (quantized.mjs), the one seeded generator (random.mjs), the one
// tolerance rule (tolerance.mjs), the tensor helpers (helpers.mjs), the causal language models,
// GPT-2 and Llama, with their cache and greedy decoding (causal.mjs), and the encoders' task heads
// with transformers' pipelines over them (heads.mjs).
export * from './tensor.mjs';
export * from './ops.mjs';
export * from './modules.mjs';
export * from './encoder.mjs';
export * from './quantized.mjs';
export * from './random.mjs';
export * from './tolerance.mjs';
export * from './helpers.mjs';
export * from './causal.mjs';
export * from './heads.mjs';
