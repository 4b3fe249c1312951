// The same app for a CommonJS user: require('attention-wasm') (Node's require of an ES module).
const { init, Tensor } = require('attention-wasm');
const { omega24 } = require('./omega24.js');

init().then((A) =>
  console.log(JSON.stringify({ omega24: omega24(A, Tensor), simd: A.buildInfo().simd, threads: A.threads })),
);
