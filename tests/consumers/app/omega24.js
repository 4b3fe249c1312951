// The consumer apps' program: document 000's omega_24 with the library `A`
// (an init() result) and its Tensor class. torch.manual_seed(123); the sentence [0, 4, 5, 2, 1, 3]
// embedded with randn(6, 16); torch.manual_seed(123) again; W_query, W_key = rand(24, 16);
// omega_24 = query_2 . keys[4], printed as torch prints it ("tensor(...)").
export function omega24(A, Tensor) {
  A.manualSeed(123);
  const x = A.embedding([0, 4, 5, 2, 1, 3], A.randn(6, 16));
  A.manualSeed(123);
  const Wq = A.rand(24, 16),
    Wk = A.rand(24, 16);
  const queries = A.linear(x, Wq),
    keys = A.linear(x, Wk); // x W^T: one row per token
  const query2 = new Tensor(queries.data.slice(24, 48), [24]); // the second token's query
  return String(A.matmul(query2, new Tensor(keys.data.slice(4 * 24, 5 * 24), [24])));
}
