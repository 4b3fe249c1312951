// The same kind of app with onnxruntime-web's default import, for scripts/bundle-sizes.mjs (a
// size comparison; not a test): one InferenceSession of a MatMul graph (1 x 24) x (24 x 1).
import * as ort from 'onnxruntime-web';

// A minimal ONNX model in protobuf (onnx.proto3 field numbers): ir_version 8, opset 17,
// graph { node MatMul(a, b) -> y; inputs a [1, 24], b [24, 1]; output y [1, 1] }.
const varint = (n) => {
  const out = [];
  do {
    out.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    n >>>= 7;
  } while (n);
  return out;
};
const bytes = (field, data) => [(field << 3) | 2, ...varint(data.length), ...data];
const str = (field, s) => bytes(field, [...new TextEncoder().encode(s)]);
const int = (field, n) => [field << 3, ...varint(n)];
const valueInfo = (field, name, dims) =>
  bytes(field, [
    ...str(1, name),
    ...bytes(
      2,
      bytes(1, [
        ...int(1, 1),
        ...bytes(
          2,
          dims.flatMap((d) => bytes(1, int(1, d))),
        ),
      ]),
    ),
  ]);
const graph = [
  ...bytes(1, [...str(1, 'a'), ...str(1, 'b'), ...str(2, 'y'), ...str(4, 'MatMul')]),
  ...str(2, 'g'),
  ...valueInfo(11, 'a', [1, 24]),
  ...valueInfo(11, 'b', [24, 1]),
  ...valueInfo(12, 'y', [1, 1]),
];
const model = new Uint8Array([...int(1, 8), ...bytes(7, graph), ...bytes(8, [...str(1, ''), ...int(2, 17)])]);

const session = await ort.InferenceSession.create(model);
const a = Float32Array.from({ length: 24 }, (_, i) => i / 24),
  b = Float32Array.from({ length: 24 }, (_, i) => 1 - i / 24);
const { y } = await session.run({ a: new ort.Tensor('float32', a, [1, 24]), b: new ort.Tensor('float32', b, [24, 1]) });
document.querySelector('#result').textContent = JSON.stringify({ y: y.data[0] });
