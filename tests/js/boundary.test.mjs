// The boundary trusts nothing: for every public function that takes a tensor (the table in
// boundary_cases.mjs) and every tensor argument and module parameter, an adversary that answers
// differently each time it is read, a Proxy posing as a typed array, or a typed array with a
// fake `length` must give either a clear Error (naming the function and the argument; the
// module working afterwards) or exactly the result of the caller's consistent tensor: never
// an output element from outside the caller's data, such as what an earlier call left in the
// wasm heap (each call is preceded by calls that leave a sentinel value there).
//
// AW_DIST=/path/to/dist runs it against another build (e.g. a previous one).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { boundaryCases } from './boundary_cases.mjs';
import { canary } from './cases.mjs';
import { rng, numel } from './reference/index.mjs';

const { init, Tensor } = process.env.AW_DIST
  ? await import(pathToFileURL(`${process.env.AW_DIST}/node.js`).href)
  : await import('attention-wasm');
if (process.env.AW_DIST) console.log(`# boundary tests against the build in AW_DIST=${process.env.AW_DIST}`);
const A = await init();

const random = rng(12345);

/** A consistent tensor for a spec: {data, shape}. */
function tensor({ shape, kind, rows }) {
  const n = numel(shape);
  if (kind === 'bool') return { data: Uint8Array.from({ length: n }, () => (random() < 0.5 ? 1 : 0)), shape };
  if (kind === 'ids') return { data: Int32Array.from({ length: n }, () => Math.floor(random() * rows)), shape };
  return { data: Float32Array.from({ length: n }, () => random() * 2 - 1), shape };
}

/** The first `reads` reads give `first`, the later ones `then`. */
function changing(reads, first, then) {
  let count = 0;
  return () => (++count <= reads ? first : then);
}

/** A Tensor of (data, shape), or a plain object for data a Tensor does not hold (Int32Array ids). */
const asTensor = (data, shape) => (data instanceof Int32Array ? { data, shape } : new Tensor(data, shape));

// Adversaries made from a consistent tensor {data, shape}; each stands for the caller's tensor.
// `module: true`: also usable as a module parameter (a Tensor, so that the module keeps it as is
// and reads it again when it is used).
const shortData = (t) => new t.data.constructor(1).fill(t.data[0]);
const biggerShape = (t) => [t.shape[0] * 2, ...t.shape.slice(1)];
const adversaries = {
  // a typed array of 1 element whose own `length` property claims the whole tensor
  'fake length': (t) => {
    const data = shortData(t);
    Object.defineProperty(data, 'length', { value: t.data.length });
    return asTensor(data, t.shape);
  },
  // a Proxy of the data (instanceof says typed array) whose `length` is true once, then 1
  'Proxy data': (t) => {
    const length = changing(1, t.data.length, 1);
    const data = new Proxy(t.data, { get: (target, key) => (key === 'length' ? length() : Reflect.get(target, key)) });
    return { data, shape: t.shape };
  },
  // `data` / `shape` getters that give the tensor for the first k reads, then something else
  ...Object.fromEntries(
    [1, 2, 3, 4].flatMap((k) => [
      [`data getter (${k})`, (t) => defineGetters(t, { data: changing(k, t.data, shortData(t)) })],
      [`shape getter (${k})`, (t) => defineGetters(t, { shape: changing(k, t.shape, biggerShape(t)) })],
    ]),
  ),
  // a Proxy of the shape whose first dim is doubled after its first read
  'Proxy shape': (t) => {
    const first = changing(1, t.shape[0], t.shape[0] * 2);
    const shape = new Proxy([...t.shape], { get: (target, key) => (key === '0' ? first() : Reflect.get(target, key)) });
    return defineGetters(t, { shape: () => shape });
  },
};

/** A Tensor of t whose `data` / `shape` are the given getters. */
function defineGetters(t, getters) {
  const out = asTensor(t.data, t.shape);
  for (const [key, get] of Object.entries(getters)) Object.defineProperty(out, key, { get, configurable: true });
  return out;
}

/** Leaves a sentinel value in memory the heap hands out next: freed buffers of several sizes. */
function poisonHeap() {
  for (const n of [4096, 256, 64, 16, 4]) A.relu({ data: new Float32Array(n).fill(7777), shape: [n] });
}

const setParam = (module, path, value) => {
  const keys = path.split('.');
  const owner = keys.slice(0, -1).reduce((m, k) => m[k], module);
  owner[keys.at(-1)] = value;
};

/** Runs an entry with consistent tensors, except `swap` ({where: 'tensors' | 'params', name, value}). */
function runEntry(entry, base, swap) {
  const module = entry.make?.(A);
  for (const [path, value] of Object.entries(base.params)) {
    setParam(module, path, swap?.where === 'params' && swap.name === path ? swap.value : value);
  }
  const tensors = { ...base.tensors };
  if (swap?.where === 'tensors') tensors[swap.name] = swap.value;
  poisonHeap();
  return entry.run(A, tensors, module);
}

const bytes = (t) => Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);

for (const [fn, entry] of Object.entries(boundaryCases)) {
  test(`${fn}: getters, Proxies and fake lengths give a clear Error or the caller's result`, () => {
    const base = {
      tensors: Object.fromEntries(Object.entries(entry.tensors).map(([k, spec]) => [k, tensor(spec)])),
      params: Object.fromEntries(Object.entries(entry.params ?? {}).map(([k, spec]) => [k, tensor(spec)])),
    };
    const want = runEntry(entry, base);
    const prefix = new RegExp(`^(${entry.prefix ?? fn.replace('.', '\\.')})`);
    const failures = [];
    const slots = [
      ...Object.keys(base.tensors).map((name) => ['tensors', name]),
      ...Object.keys(base.params).map((name) => ['params', name]),
    ];
    for (const [where, name] of slots) {
      for (const [kind, make] of Object.entries(adversaries)) {
        const t = base[where][name];
        const before = bytes(t);
        const label = `${name} = ${kind}`;
        let got, error;
        try {
          got = runEntry(entry, base, { where, name, value: make(t) });
        } catch (e) {
          error = e;
        }
        if (error) {
          const argName = name.split('.').at(-1);
          if (!(error instanceof Error) || !prefix.test(error.message)) {
            failures.push(`${label}: unclear error ${error?.constructor?.name}: ${error?.message}`);
          } else if (!error.message.includes(argName) && !/parameter|data|shape/.test(error.message)) {
            failures.push(`${label}: the error does not name the argument: ${error.message}`);
          }
          if (!canary(A)) failures.push(`${label}: the module computes wrongly afterwards`);
        } else if (
          !(got.data instanceof Float32Array) ||
          JSON.stringify(got.shape) !== JSON.stringify(want.shape) ||
          !bytes(got).equals(bytes(want))
        ) {
          const differ = got.data ? Array.from(got.data).filter((x, i) => !Object.is(x, want.data[i])) : [];
          failures.push(
            `${label}: no error, and ${differ.length} of ${got.data?.length} output elements (shape ` +
              `${JSON.stringify(got.shape)}) differ from the result of the caller's data (shape ${JSON.stringify(want.shape)}), ` +
              `e.g. ${differ
                .slice(0, 3)
                .map((x) => x.toPrecision(5))
                .join(', ')}`,
          );
        }
        if (!bytes(t).equals(before)) failures.push(`${label}: the caller's array was written to`);
      }
    }
    assert.deepEqual(failures, [], `${fn}:\n  ${failures.join('\n  ')}`);
  });
}
