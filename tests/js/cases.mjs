// The table of public functions the reliability tests drive (fuzz.test.mjs, memory.test.mjs).
// One entry per function:
//   valid(r)   -> { label, run(A) -> Tensor | {output, ...}, want?: reference, check?(result) }
//   invalid(r) -> { label, run(A), type: TypeError | RangeError | Error, message: RegExp }
//   small(A)   -> one cheap valid call (the memory test repeats it)
//   weight     -> optional share of the fuzzed valid calls (default 1)
// To cover a new function, add an entry here: the fuzz, error and memory tests pick it up.
// The task helpers' entries (model.fillMask, ...: models loaded once) are in task_cases.mjs, the
// causal LM's (lm.forward, lm.createCache and the cache, lm.generate) in causal_cases.mjs. A valid
// call's run may return a promise (lm.generate), and small() too: the consumers await them.
// An invalid call may list the caller's typed arrays in `args` ({data}): they must be unchanged.
import * as ref from './reference/index.mjs';
import { taskCases } from './task_cases.mjs';
import { causalCases } from './causal_cases.mjs';
import { MT19937 } from '../../src/js/mt19937.js';

/** A shape that broadcasts to `target`: some leading dims dropped, some dims set to 1. */
function broadcastable(r, target) {
  const drop = r.int(0, target.length);
  return target.slice(drop).map((d) => (r.chance(0.3) ? 1 : d));
}

const t = (data, shape) => ({ data: Float32Array.from(data), shape });

// Values that are not tensors, each with the type it must raise.
const notTensors = [
  [null, TypeError],
  [undefined, TypeError],
  [3, TypeError],
  ['x', TypeError],
  [[1, 2], TypeError],
  [{ data: [1, 2], shape: [2] }, TypeError], // Array data
  [{ data: new Float64Array(2), shape: [2] }, TypeError], // wrong typed array
  [{ data: new Int32Array(2), shape: [2] }, TypeError],
  [{ data: new Float32Array(2), shape: '2' }, TypeError], // shape not an array
  [{ data: new Float32Array(2), shape: ['2'] }, TypeError], // a string for a size
  [{ data: new Float32Array(2), shape: [3] }, RangeError], // product != data.length
  [{ data: new Float32Array(2), shape: [-2] }, RangeError], // negative
  [{ data: new Float32Array(2), shape: [2.5] }, RangeError], // fractional
  [{ data: new Float32Array(0), shape: [0, 2 ** 40] }, RangeError], // a dim no int64 path should see
  [{ data: new Float32Array(2), shape: [NaN] }, RangeError],
];

/** An invalid call replacing argument `i` of a valid call by a value that is not a tensor. */
function badTensorArg(r, fn, argNames, validArgs, call, optional = []) {
  const i = r.int(0, argNames.length - 1);
  // an optional argument may be null/undefined: pick from the rest for it
  const choices = optional.includes(argNames[i]) ? notTensors.filter(([v]) => v != null) : notTensors;
  const [bad, type] = r.pick(choices);
  const args = [...validArgs];
  args[i] = bad;
  return {
    label: `${fn}(${argNames[i]} = bad)`,
    run: (A) => call(A, ...args),
    type,
    message: new RegExp(`^${fn}: ${argNames[i]}\\b`),
  };
}

/** add and mul: torch broadcasting in either order, or a plain number as the other operand. */
function binaryCase(fn, op) {
  return {
    valid(r) {
      const target = Array.from({ length: r.int(0, 3) }, () => r.dim());
      const a = r.tensor(r.chance(0.5) ? target : broadcastable(r, target), 10);
      // the other operand: a tensor broadcasting against the first, or a plain number
      const b = r.chance(0.2)
        ? r.pick([2, -0.5, 0, 1e3])
        : r.tensor(r.chance(0.5) ? target : broadcastable(r, target), 10);
      const swap = typeof b !== 'number' && r.chance(0.5);
      const [x, y] = swap ? [b, a] : [a, b];
      const yt = typeof y === 'number' ? { data: [y], shape: [] } : y;
      return {
        label: `${fn} ${JSON.stringify(x.shape)} ${typeof y === 'number' ? y : JSON.stringify(y.shape)}`,
        args: [x, y].filter((v) => typeof v !== 'number'),
        run: (A) => A[fn](x, y),
        want: () => ref.binary(x, yt, op),
      };
    },
    invalid(r) {
      const x = r.tensor([2, 3]);
      switch (r.int(0, 1)) {
        case 0: {
          // a number is a valid operand (a 0-d tensor): every other non-tensor is not
          const [bad, type] = r.pick(notTensors.filter(([v]) => typeof v !== 'number'));
          const i = r.int(0, 1),
            args = [x, r.tensor([3])];
          args[i] = bad;
          const name = ['input', 'other'][i];
          return {
            label: `${fn}(${name} = bad)`,
            run: (A) => A[fn](...args),
            type,
            message: new RegExp(`^${fn}: ${name}\\b`),
          };
        }
        default:
          return {
            label: `${fn} broadcast`,
            run: (A) => A[fn](x, r.tensor([r.pick([2, 4])])),
            type: Error,
            message: new RegExp(
              `^${fn}: input \\[2, 3\\] and other \\[\\d\\]: shapes \\[2, 3\\] and \\[\\d\\] are not broadcastable`,
            ),
          };
      }
    },
    small: (A) => A[fn](t([1, 2, 3, 4], [2, 2]), t([10, 20], [2])),
  };
}

/** A tensor of `shape` in one of the three kinds of data the shape helpers take. */
function anyTensor(r, shape, kind = r.pick(['float32', 'float32', 'bool', 'int32'])) {
  const n = ref.numel(shape);
  if (kind === 'bool') return { data: Uint8Array.from({ length: n }, () => (r.chance(0.5) ? 1 : 0)), shape };
  if (kind === 'int32') return { data: Int32Array.from({ length: n }, () => r.int(-(2 ** 31), 2 ** 31 - 1)), shape };
  const x = r.tensor(shape, 10);
  // values whose bits a copy must keep
  for (let i = 0; i < n; i++) if (r.chance(0.05)) x.data[i] = r.pick([NaN, -0, Infinity, -Infinity]);
  return x;
}

const randomShape = (r, minRank = 0, maxRank = 4) => Array.from({ length: r.int(minRank, maxRank) }, () => r.dim());
/** A dim of a tensor of this rank, negative half the time (a 0-d tensor takes -1 or 0). */
const randomDim = (r, rank) => (rank === 0 ? r.pick([0, -1]) : r.int(0, rank - 1) - (r.chance(0.5) ? rank : 0));
const json = JSON.stringify;

/** Why `got` ({data, shape}) is not exactly `want` (same shape, kind and elements, NaN and -0 too), or null. */
function notSame(got, want, what = '') {
  if (json(got.shape) !== json(want.shape)) return `${what}shape ${json(got.shape)}, want ${json(want.shape)}`;
  if (got.data.constructor !== want.data.constructor)
    return `${what}${got.data.constructor.name} data, want ${want.data.constructor.name}`;
  const i = Array.from(want.data).findIndex((w, i) => !Object.is(got.data[i], w));
  return i < 0 ? null : `${what}[${i}] ${got.data[i]}, want ${want.data[i]}`;
}

/** A shape helper's invalid call: a bad input tensor, or bad values of its other arguments. */
function shapeHelperInvalid(r, fn, validInput, call, otherCases) {
  if (r.chance(0.4)) {
    // any of the three kinds of data is valid: only the rest of notTensors
    const [bad, type] = r.pick(
      notTensors.filter(([v]) => !(typeof v?.data === 'object' && v.data instanceof Int32Array)),
    );
    return { label: `${fn}(input = bad)`, run: (A) => call(A, bad), type, message: new RegExp(`^${fn}: input\\b`) };
  }
  const [label, run, type, message] = r.pick(otherCases);
  return { label: `${fn} ${label}`, run: (A) => run(A, validInput), type, message };
}

export const functions = {
  matmul: {
    weight: 2,
    valid(r) {
      // batch broadcasting, 1-D operands, zero sizes
      const m = r.dim(),
        k = r.dim(),
        n = r.dim();
      const batch = r.chance(0.5) ? [] : Array.from({ length: r.int(1, 2) }, () => r.int(1, 3));
      let as = r.chance(0.15) ? [k] : [...broadcastable(r, batch), m, k];
      let bs = r.chance(0.15) ? [k] : [...broadcastable(r, batch), k, n];
      const a = r.tensor(as),
        b = r.tensor(bs);
      return {
        label: `matmul ${JSON.stringify(as)} x ${JSON.stringify(bs)}`,
        args: [a, b],
        run: (A) => A.matmul(a, b),
        want: () => ref.matmul(a, b),
      };
    },
    invalid(r) {
      const a = r.tensor([2, 3]),
        b = r.tensor([3, 4]);
      switch (r.int(0, 2)) {
        case 0:
          return badTensorArg(r, 'matmul', ['input', 'other'], [a, b], (A, x, y) => A.matmul(x, y));
        case 1: {
          const k = r.int(1, 9),
            k2 = k + r.int(1, 3);
          return {
            label: 'matmul inner dims',
            run: (A) => A.matmul(r.tensor([2, k]), r.tensor([k2, 3])),
            type: Error,
            message: /^matmul: input \[2, \d+\] and other \[\d+, 3\] cannot be multiplied/,
          };
        }
        default:
          return {
            label: 'matmul batch',
            run: (A) => A.matmul(r.tensor([2, 2, 3]), r.tensor([3, 3, 4])),
            type: Error,
            message: /^matmul: batch dims of input \[2, 2, 3\] and other \[3, 3, 4\]/,
          };
      }
    },
    small: (A) => A.matmul(t([1, 2, 3, 4, 5, 6], [2, 3]), t([1, 0, 0, 1, 1, 1], [3, 2])),
  },

  linear: {
    valid(r) {
      const k = r.dim(),
        n = r.dim();
      const lead = Array.from({ length: r.int(0, 2) }, () => r.dim());
      // torch's F.linear also takes a 1-D weight (in_features) and a bias []
      const vector = r.chance(0.2);
      const x = r.tensor([...lead, k]),
        w = r.tensor(vector ? [k] : [n, k]);
      const bias = !vector && r.chance(0.5) ? r.tensor(r.chance(0.3) ? [] : [n]) : undefined;
      return {
        label: `linear ${JSON.stringify(x.shape)} W ${JSON.stringify(w.shape)} bias ${!!bias}`,
        args: [x, w, bias].filter(Boolean),
        run: (A) => A.linear(x, w, bias),
        want: () => ref.linear(x, w, bias),
      };
    },
    invalid(r) {
      const x = r.tensor([2, 3]),
        w = r.tensor([4, 3]),
        b = r.tensor([4]);
      switch (r.int(0, 2)) {
        case 0:
          return badTensorArg(r, 'linear', ['input', 'weight', 'bias'], [x, w, b], (A, p, q, s) => A.linear(p, q, s), [
            'bias',
          ]);
        case 1:
          return {
            label: 'linear in_features',
            run: (A) => A.linear(x, r.tensor([4, 5])),
            type: Error,
            message: /^linear: input \[2, 3\], weight \[4, 5\]/,
          };
        default:
          return {
            label: 'linear bias',
            run: (A) => A.linear(x, w, r.tensor([5])),
            type: Error,
            message: /^linear: bias must have shape \[4\] or \[\], got input \[2, 3\], weight \[4, 3\], bias \[5\]/,
          };
      }
    },
    small: (A) => A.linear(t([1, 2, 3], [1, 3]), t([1, 1, 1, 0, 1, 0], [2, 3]), t([1, 2], [2])),
  },

  // A.quantize, and A.linear with its int8 weight (then disposed: nothing is left in the heap)
  quantize: {
    weight: 2,
    valid(r) {
      const k = r.dim(),
        n = r.dim();
      const lead = Array.from({ length: r.int(0, 2) }, () => r.dim());
      const x = r.tensor([...lead, k], r.pick([1, 10])),
        w = r.tensor([n, k], r.pick([0.05, 1]));
      if (x.data.length && r.chance(0.05)) x.data[r.int(0, x.data.length - 1)] = r.pick([NaN, Infinity]);
      const bias = r.chance(0.5) ? r.tensor([n]) : undefined;
      return {
        label: `linear ${JSON.stringify(x.shape)} W int8 ${JSON.stringify(w.shape)} bias ${!!bias}`,
        args: [x, w, bias].filter(Boolean),
        run: (A) => {
          const wq = A.quantize(w);
          try {
            return A.linear(x, wq, bias);
          } finally {
            wq.dispose();
          }
        },
        // byte for byte the int8 layer's definition (quantized_reference.mjs)
        check: (y) => {
          const want = ref.quantizedLinear(x, ref.quantizeWeight(w), bias);
          if (JSON.stringify(y.shape) !== JSON.stringify(want.shape)) return `shape ${y.shape} != ${want.shape}`;
          const i = ref.firstDifference(y.data, want.data);
          return i < 0 ? null : `element ${i}: ${y.data[i]} != ${want.data[i]} (the int8 layer's definition)`;
        },
      };
    },
    invalid(r) {
      const x = r.tensor([2, 3]),
        w = r.tensor([4, 3]);
      switch (r.int(0, 5)) {
        case 0:
          return badTensorArg(r, 'quantize', ['weight'], [w], (A, p) => A.quantize(p));
        case 1:
          return {
            label: 'quantize 1-D',
            run: (A) => A.quantize(r.tensor([r.pick([3, 4])])),
            type: Error,
            message: /^quantize: weight must be 2-D \(out_features, in_features\), got \[\d\]/,
          };
        case 2: {
          const [dtype, type] = r.pick([
            ['q4', RangeError],
            ['int8', RangeError],
            ['float32', RangeError],
            [8, TypeError],
            [null, TypeError],
          ]);
          return {
            label: `quantize dtype ${dtype}`,
            run: (A) => A.quantize(w, { dtype }),
            type,
            message: /^quantize: dtype must be 'q8', got /,
          };
        }
        case 3:
          return {
            label: 'linear int8 in_features',
            run: (A) => {
              const wq = A.quantize(r.tensor([4, 5]));
              try {
                return A.linear(x, wq);
              } finally {
                wq.dispose();
              }
            },
            type: Error,
            message: /^linear: input \[2, 3\], weight \[4, 5\] \(int8\): input's last dimension 3 must equal/,
          };
        case 4:
          return {
            label: 'linear int8 disposed',
            run: (A) => {
              const wq = A.quantize(w);
              wq.dispose();
              return A.linear(x, wq);
            },
            type: Error,
            message: /^linear: weight: the quantized weight \[4, 3\] has been disposed/,
          };
        default: {
          // a bias of the wrong shape (Error) or type (TypeError)
          const [bias, type] = r.pick([
            [r.tensor([5]), Error],
            [{ data: new Float64Array(4), shape: [4] }, TypeError],
          ]);
          return {
            label: 'linear int8 bias',
            run: (A) => {
              const wq = A.quantize(w);
              try {
                return A.linear(x, wq, bias);
              } finally {
                wq.dispose();
              }
            },
            type,
            message: /^linear: bias /,
          };
        }
      }
    },
    small: (A) => {
      const wq = A.quantize(t([1, 1, 1, 0, 1, 0], [2, 3]));
      try {
        return A.linear(t([1, 2, 3], [1, 3]), wq, t([1, 2], [2]));
      } finally {
        wq.dispose();
      }
    },
  },

  softmax: {
    weight: 2,
    valid(r) {
      const shape = Array.from({ length: r.int(0, 4) }, () => r.dim());
      const x = r.tensor(shape, r.pick([1, 10, 100]));
      // sprinkle -inf (and whole -inf slices for 1-D rows)
      if (x.data.length && r.chance(0.3))
        for (let i = 0; i < x.data.length; i++) if (r.chance(0.3)) x.data[i] = -Infinity;
      const rank = shape.length;
      const dim = rank === 0 ? r.pick([0, -1]) : r.int(-rank, rank - 1);
      return {
        label: `softmax ${JSON.stringify(shape)} dim ${dim}`,
        args: [x],
        run: (A) => A.softmax(x, { dim }),
        want: () => ref.softmax(x, dim),
      };
    },
    invalid(r) {
      const x = r.tensor([2, 3]);
      switch (r.int(0, 3)) {
        case 0:
          return badTensorArg(r, 'softmax', ['input'], [x], (A, p) => A.softmax(p));
        case 1:
          return {
            label: 'softmax dim range',
            run: (A) => A.softmax(x, { dim: r.pick([2, 3, -3, 100]) }),
            type: RangeError,
            message: /^softmax: dim for input \[2, 3\]: dim -?\d+ is out of range \[-2, 1\]/,
          };
        case 2:
          return {
            label: 'softmax dim type',
            run: (A) => A.softmax(x, { dim: r.pick(['1', null, [1]]) }),
            type: TypeError,
            message: /^softmax: dim must be an integer/,
          };
        default:
          return {
            label: 'softmax dim fraction',
            run: (A) => A.softmax(x, { dim: r.pick([0.5, NaN, Infinity, 1e300]) }),
            type: RangeError,
            message: /^softmax: dim must be an integer/,
          };
      }
    },
    small: (A) => A.softmax(t([1, 2, 3, 4], [2, 2])),
  },

  embedding: {
    valid(r) {
      const rows = r.int(1, 9),
        dim = r.dim();
      const ids = Array.from({ length: r.dim() }, () => r.int(0, rows - 1));
      const w = r.tensor([rows, dim]);
      const form = r.int(0, 1);
      const input = form === 0 ? ids : Int32Array.from(ids);
      return {
        label: `embedding ${ids.length} ids of ${JSON.stringify(w.shape)}`,
        args: [w],
        run: (A) => A.embedding(input, w),
        want: () => ref.embedding(ids, w),
      };
    },
    invalid(r) {
      const w = r.tensor([4, 3]);
      switch (r.int(0, 2)) {
        case 0:
          return {
            label: 'embedding id range',
            run: (A) => A.embedding([0, r.pick([4, 5, -1, 2 ** 32])], w),
            type: RangeError,
            message: /^embedding: (input: )?index -?\d+ \(input position 1\)/,
          };
        case 1:
          return {
            label: 'embedding ids type',
            run: (A) => A.embedding(r.pick([null, 'ab', new Float32Array(2), [0, '1']]), w),
            type: TypeError,
            message: /^embedding: input must/,
          };
        default: {
          const [bad, type] = r.pick(notTensors);
          return {
            label: 'embedding weight',
            run: (A) => A.embedding([0], bad),
            type,
            message: /^embedding: weight\b/,
          };
        }
      }
    },
    small: (A) => A.embedding([1, 0, 1], t([1, 2, 3, 4], [2, 2])),
  },

  rand: {
    valid(r) {
      const shape = Array.from({ length: r.int(0, 3) }, () => r.dim());
      const seed = r.int(0, 2 ** 31);
      return {
        label: `rand ${JSON.stringify(shape)}`,
        run: (A) => {
          A.manualSeed(seed);
          return A.rand(...shape);
        },
        check: (out, A) => {
          if (out.data.some((x) => !(x >= 0 && x < 1))) return 'a value outside [0, 1)';
          A.manualSeed(seed);
          const again = A.rand(shape); // the array form; same seed, same numbers
          return Buffer.compare(Buffer.from(again.data.buffer), Buffer.from(out.data.buffer)) === 0
            ? null
            : 'not reproducible';
        },
      };
    },
    invalid(r) {
      const [size, type] = r.pick([
        [-1, RangeError],
        [2.5, RangeError],
        ['3', TypeError],
        [2 ** 30, RangeError],
        [NaN, RangeError],
        [null, TypeError],
      ]);
      const shape = r.chance(0.5) ? [size] : [2, size];
      const fn = r.pick(['rand', 'randn']);
      return {
        label: `${fn}(${shape})`,
        run: (A) => A[fn](...shape),
        type,
        message: new RegExp(`^${fn}: size: shape \\[`),
      };
    },
    small: (A) => A.rand(3, 2),
  },

  randn: {
    valid(r) {
      const shape = Array.from({ length: r.int(0, 3) }, () => r.dim());
      return {
        label: `randn ${JSON.stringify(shape)}`,
        run: (A) => A.randn(shape),
        check: (out) => (out.data.every(Number.isFinite) ? null : 'not finite'),
      };
    },
    invalid(r) {
      const [size, type] = r.pick([
        [-3, RangeError],
        [1e10, RangeError],
        [{}, TypeError],
      ]);
      return { label: `randn(${size})`, run: (A) => A.randn(4, size), type, message: /^randn: size: shape \[4, / };
    },
    small: (A) => A.randn(2, 3),
  },

  manualSeed: {
    valid(r) {
      const seed = r.int(0, 2 ** 40);
      return {
        label: `manualSeed ${seed}`,
        run: (A) => {
          A.manualSeed(seed);
          return A.rand(2);
        },
        // torch's CPU generator: the same uniforms as the JS MT19937 (itself checked against
        // C++11's mt19937 in mt19937.test.mjs) seeded alike
        check: (out) => {
          const g = new MT19937(seed);
          const want = [g.uniform(), g.uniform()];
          return out.data.length === 2 && out.data[0] === want[0] && out.data[1] === want[1]
            ? null
            : `rand(2) after manualSeed(${seed}) gave ${Array.from(out.data)}, torch's generator ${want}`;
        },
      };
    },
    invalid(r) {
      const [seed, type] = r.pick([
        [-1, RangeError],
        [1.5, RangeError],
        ['1', TypeError],
        [2 ** 60, RangeError],
      ]);
      return { label: `manualSeed(${seed})`, run: (A) => A.manualSeed(seed), type, message: /^manualSeed: seed must/ };
    },
    small: (A) => A.manualSeed(7),
  },

  scaledDotProductAttention: {
    weight: 5,
    valid(r) {
      const L = r.dim(),
        S = r.dim(),
        E = r.dim(),
        Ev = r.chance(0.5) ? E : r.dim();
      const unbatched = r.chance(0.2);
      const gqa = !unbatched && r.chance(0.25);
      const H = r.int(1, 3),
        Hq = gqa ? H * r.int(1, 3) : H;
      const N = unbatched ? [] : r.chance(0.5) ? [r.int(1, 3)] : [];
      const qb = unbatched ? [] : [...N, Hq];
      let kvb = unbatched ? [] : [...N, H];
      // plain broadcasting of batch dims: key/value may drop N or have 1 heads
      if (!gqa && !unbatched && r.chance(0.3)) kvb = broadcastable(r, kvb);
      const q = r.tensor([...qb, L, E], r.pick([1, 1, 3]));
      const k = r.tensor([...kvb, S, E]);
      const v = r.tensor([...kvb, S, Ev]);
      const opts = {};
      if (gqa) opts.enableGqa = true;
      const batch = ref.broadcastShapes(qb, gqa ? [...kvb.slice(0, -1), Hq] : kvb);
      const maskKind = r.pick(['none', 'none', 'bool', 'float', 'causal']);
      if (maskKind === 'causal') opts.isCausal = true;
      if (maskKind === 'bool' || maskKind === 'float') {
        const shape = broadcastable(r, [...batch, L, S]);
        const n = ref.numel(shape);
        if (maskKind === 'bool') {
          opts.attnMask = { data: Uint8Array.from({ length: n }, () => (r.chance(0.7) ? 1 : 0)), shape };
        } else {
          const m = r.tensor(shape, 2);
          for (let i = 0; i < n; i++) if (r.chance(0.2)) m.data[i] = -Infinity;
          opts.attnMask = m;
        }
      }
      if (r.chance(0.2)) opts.scale = r.pick([1, 0.5, 2]);
      if (r.chance(0.2)) opts.returnWeights = true;
      return {
        label: `sdpa q ${JSON.stringify(q.shape)} k ${JSON.stringify(k.shape)} v ${JSON.stringify(v.shape)} ${maskKind}${opts.attnMask ? JSON.stringify(opts.attnMask.shape) : ''}${gqa ? ' gqa' : ''}`,
        args: [q, k, v, opts.attnMask].filter(Boolean),
        run: (A) => A.scaledDotProductAttention(q, k, v, opts),
        want: () => ref.sdpa(q, k, v, opts),
      };
    },
    invalid(r) {
      const fn = 'scaledDotProductAttention';
      const q = r.tensor([2, 3, 4]),
        k = r.tensor([2, 5, 4]),
        v = r.tensor([2, 5, 6]);
      switch (r.int(0, 7)) {
        case 0:
          return badTensorArg(r, fn, ['query', 'key', 'value'], [q, k, v], (A, a, b, c) =>
            A.scaledDotProductAttention(a, b, c),
          );
        case 1:
          return {
            label: 'sdpa E',
            run: (A) => A.scaledDotProductAttention(q, r.tensor([2, 5, 3]), v),
            type: Error,
            message:
              /^scaledDotProductAttention: key's last dimension must equal query's E = 4, got query \[2, 3, 4\], key \[2, 5, 3\], value \[2, 5, 6\]/,
          };
        case 2:
          return {
            label: 'sdpa S',
            run: (A) => A.scaledDotProductAttention(q, k, r.tensor([2, 4, 6])),
            type: Error,
            message: /^scaledDotProductAttention: value must have the same sequence length S = 5/,
          };
        case 3:
          return {
            label: 'sdpa mask broadcast',
            run: (A) => A.scaledDotProductAttention(q, k, v, { attnMask: r.tensor([3, r.pick([2, 4, 6])]) }),
            type: Error,
            message: /^scaledDotProductAttention: attnMask \[3, \d\] must broadcast to \(N\.\.\., L, S\) = \[2, 3, 5\]/,
          };
        case 4:
          return {
            label: 'sdpa mask + causal',
            run: (A) => A.scaledDotProductAttention(q, k, v, { attnMask: r.tensor([3, 5]), isCausal: true }),
            type: Error,
            message: /^scaledDotProductAttention: attnMask and isCausal cannot both be set/,
          };
        case 5:
          return {
            label: 'sdpa gqa',
            run: (A) =>
              A.scaledDotProductAttention(r.tensor([1, 3, 2, 4]), r.tensor([1, 2, 5, 4]), r.tensor([1, 2, 5, 4]), {
                enableGqa: true,
              }),
            type: Error,
            message:
              /^scaledDotProductAttention: with enableGqa the query heads \(3\) must be a multiple of the key heads \(2\) and of the value heads \(2\), got query \[1, 3, 2, 4\]/,
          };
        case 6: {
          const [opts, type, message] = r.pick([
            [{ dropoutP: 0.1 }, RangeError, /^scaledDotProductAttention: dropoutP must be 0/],
            [{ isCausal: 1 }, TypeError, /^scaledDotProductAttention: isCausal must be a boolean/],
            [{ scale: '2' }, TypeError, /^scaledDotProductAttention: scale must be a number/],
            [{ scale: NaN }, RangeError, /^scaledDotProductAttention: scale must not be NaN/],
            [{ mask: 1 }, TypeError, /^scaledDotProductAttention: unknown option 'mask'/],
            [
              { attnMask: { data: new Int8Array(15), shape: [3, 5] } },
              TypeError,
              /^scaledDotProductAttention: attnMask must have Uint8Array/,
            ],
            [
              { attnMask: { data: new Uint8Array(14), shape: [3, 5] } },
              RangeError,
              /^scaledDotProductAttention: attnMask has shape \[3, 5\] \(15 elements\) but its data has 14/,
            ],
          ]);
          return {
            label: `sdpa options ${Object.keys(opts)}`,
            run: (A) => A.scaledDotProductAttention(q, k, v, opts),
            type,
            message,
          };
        }
        default:
          // passes every input check, but the weights it asks for would be an (L, S) matrix beyond 2^29 elements
          return {
            label: 'sdpa L x S weights too large',
            run: (A) =>
              A.scaledDotProductAttention(r.tensor([65536, 1]), r.tensor([65536, 1]), r.tensor([65536, 1]), {
                returnWeights: true,
              }),
            type: RangeError,
            message: /^scaledDotProductAttention: weights: shape \[65536, 65536\] has more than 536870912 elements/,
          };
      }
    },
    small: (A) =>
      A.scaledDotProductAttention(t([1, 0, 0, 1], [2, 2]), t([1, 0, 0, 1, 1, 1], [3, 2]), t([1, 2, 3], [3, 1]), {
        isCausal: true,
      }),
  },

  layerNorm: {
    valid(r) {
      const k = r.int(1, 2);
      const norm = Array.from({ length: k }, () => r.dim());
      const lead = Array.from({ length: r.int(0, 2) }, () => r.dim());
      const x = r.tensor([...lead, ...norm], r.pick([1, 10]));
      const weight = r.chance(0.6) ? r.tensor(norm, 2) : undefined;
      const bias = r.chance(0.6) ? r.tensor(norm) : undefined;
      const eps = r.chance(0.3) ? r.pick([1e-6, 1e-3, 0.1]) : undefined;
      const opts = { weight, bias, ...(eps === undefined ? {} : { eps }) };
      const normalizedShape = k === 1 && r.chance(0.5) ? norm[0] : norm; // an integer or an array
      return {
        label: `layerNorm ${JSON.stringify(x.shape)} over ${JSON.stringify(norm)} weight ${!!weight} bias ${!!bias} eps ${eps}`,
        args: [x, weight, bias].filter(Boolean),
        run: (A) => A.layerNorm(x, normalizedShape, opts),
        want: () => ref.layerNorm(x, k, weight, bias, eps ?? 1e-5),
      };
    },
    invalid(r) {
      const x = r.tensor([2, 3]);
      switch (r.int(0, 4)) {
        case 0:
          return badTensorArg(r, 'layerNorm', ['input'], [x], (A, p) => A.layerNorm(p, [3]));
        case 1:
          return {
            label: 'layerNorm normalizedShape',
            run: (A) => A.layerNorm(x, [r.pick([2, 4, 5])]),
            type: Error,
            message:
              /^layerNorm: input must end with the dims of normalizedShape \(expected \[\*, \d\]\), got input \[2, 3\]/,
          };
        case 2:
          return {
            label: 'layerNorm weight shape',
            run: (A) => A.layerNorm(x, [3], { weight: r.tensor([r.pick([2, 4])]) }),
            type: Error,
            message: /^layerNorm: weight must have shape normalizedShape \[3\], got input \[2, 3\]/,
          };
        case 3: {
          const [opts, type, message] = r.pick([
            [{ eps: '1e-5' }, TypeError, /^layerNorm: eps must be a number/],
            [{ eps: -1 }, RangeError, /^layerNorm: eps must be non-negative/],
            [{ epsilon: 1 }, TypeError, /^layerNorm: unknown option 'epsilon'/],
            [{ bias: [1, 2, 3] }, TypeError, /^layerNorm: bias must have Float32Array data/],
          ]);
          return {
            label: `layerNorm options ${Object.keys(opts)}`,
            run: (A) => A.layerNorm(x, [3], opts),
            type,
            message,
          };
        }
        default:
          return {
            label: 'layerNorm normalizedShape type',
            run: (A) => A.layerNorm(x, r.pick(['3', null, { 0: 3 }])),
            type: TypeError,
            message: /^layerNorm: normalizedShape must be an integer or an array of integers/,
          };
      }
    },
    small: (A) => A.layerNorm(t([1, 2, 3, 4, 6, 8], [2, 3]), 3),
  },

  gelu: {
    valid(r) {
      const shape = Array.from({ length: r.int(0, 3) }, () => r.dim());
      const x = r.tensor(shape, r.pick([1, 4, 10]));
      const approximate = r.pick([undefined, 'none', 'tanh']);
      const f = approximate === 'tanh' ? ref.geluTanh : ref.gelu;
      return {
        label: `gelu ${JSON.stringify(shape)} approximate ${approximate}`,
        args: [x],
        run: (A) => (approximate === undefined ? A.gelu(x) : A.gelu(x, { approximate })),
        want: () => ref.map(x, f),
      };
    },
    invalid(r) {
      const x = r.tensor([2, 3]);
      switch (r.int(0, 2)) {
        case 0:
          return badTensorArg(r, 'gelu', ['input'], [x], (A, p) => A.gelu(p));
        case 1:
          return {
            label: 'gelu approximate value',
            run: (A) => A.gelu(x, { approximate: r.pick(['erf', 'fast', 'TANH']) }),
            type: RangeError,
            message: /^gelu: approximate must be 'none' or 'tanh', got '/,
          };
        default: {
          const [opts, type, message] = r.pick([
            [{ approximate: true }, TypeError, /^gelu: approximate must be 'none' or 'tanh', got boolean/],
            ['tanh', TypeError, /^gelu: options must be an object, got string/],
            [{ approx: 'tanh' }, TypeError, /^gelu: unknown option 'approx'/],
          ]);
          return { label: 'gelu options', run: (A) => A.gelu(x, opts), type, message };
        }
      }
    },
    small: (A) => A.gelu(t([-1, 0, 1, 2], [4]), { approximate: 'tanh' }),
  },

  relu: {
    valid(r) {
      const shape = Array.from({ length: r.int(0, 3) }, () => r.dim());
      const x = r.tensor(shape);
      if (x.data.length && r.chance(0.2)) x.data[r.int(0, x.data.length - 1)] = r.pick([NaN, -Infinity, Infinity, -0]);
      return {
        label: `relu ${JSON.stringify(shape)}`,
        args: [x],
        run: (A) => A.relu(x),
        want: () => ref.map(x, ref.relu),
      };
    },
    invalid(r) {
      return badTensorArg(r, 'relu', ['input'], [r.tensor([2, 3])], (A, p) => A.relu(p));
    },
    small: (A) => A.relu(t([-1, 0, 1, 2], [2, 2])),
  },

  add: binaryCase('add', (p, q) => p + q),

  mul: binaryCase('mul', (p, q) => p * q),

  positionalEncoding: {
    valid(r) {
      const maxLength = r.pick([r.dim(), r.dim(), r.int(0, 300)]),
        dModel = r.dim();
      return {
        label: `positionalEncoding(${maxLength}, ${dModel})`,
        run: (A) => A.positionalEncoding(maxLength, dModel),
        want: () => ({ data: ref.positionalEncoding(maxLength, dModel).flat(), shape: [maxLength, dModel] }),
      };
    },
    invalid(r) {
      const [args, type, message] = r.pick([
        [['5', 3], TypeError, /^positionalEncoding: maxLength must be an integer, got string/],
        [[5], TypeError, /^positionalEncoding: dModel must be an integer, got undefined/],
        [[5, 2.5], RangeError, /^positionalEncoding: dModel must be an integer, got 2\.5/],
        [[-1, 3], RangeError, /^positionalEncoding: maxLength must be a non-negative integer, got -1/],
        [[3, -2], RangeError, /^positionalEncoding: dModel must be a non-negative integer, got -2/],
        [[1e20, 3], RangeError, /^positionalEncoding: maxLength must be an integer in \(-2\^53, 2\^53\)/],
        [[1e6, 1e6], RangeError, /^positionalEncoding: result: shape \[1000000, 1000000\] has more than/],
      ]);
      return { label: `positionalEncoding(${args})`, run: (A) => A.positionalEncoding(...args), type, message };
    },
    small: (A) => A.positionalEncoding(5, 3),
  },

  transpose: {
    valid(r) {
      const x = anyTensor(r, randomShape(r));
      const rank = x.shape.length,
        dim0 = randomDim(r, rank),
        dim1 = randomDim(r, rank);
      return {
        label: `transpose ${json(x.shape)} ${x.data.constructor.name} ${dim0} ${dim1}`,
        args: [x],
        run: (A) => A.transpose(x, dim0, dim1),
        check: (out) => notSame(out, ref.transpose(x, dim0, dim1)),
      };
    },
    invalid(r) {
      const x = r.tensor([2, 3]);
      return shapeHelperInvalid(r, 'transpose', x, (A, bad) => A.transpose(bad, 0, 1), [
        [
          'dim0 range',
          (A, x) => A.transpose(x, r.pick([2, -3, 7]), 0),
          RangeError,
          /^transpose: dim0 -?\d+ is out of range \[-2, 1\] for input \[2, 3\]$/,
        ],
        [
          'dim1 range',
          (A, x) => A.transpose(x, 0, r.pick([2, -3])),
          RangeError,
          /^transpose: dim1 -?\d+ is out of range \[-2, 1\] for input \[2, 3\]$/,
        ],
        [
          'dim1 type',
          (A, x) => A.transpose(x, 0, r.pick(['1', null, undefined])),
          TypeError,
          /^transpose: dim1 must be an integer, got/,
        ],
        [
          'dim0 fraction',
          (A, x) => A.transpose(x, 0.5, 1),
          RangeError,
          /^transpose: dim0 must be an integer, got 0\.5$/,
        ],
      ]);
    },
    small: (A) => A.transpose(t([1, 2, 3, 4, 5, 6], [2, 3]), 0, -1),
  },

  permute: {
    valid(r) {
      const x = anyTensor(r, randomShape(r));
      const rank = x.shape.length;
      // a random permutation (Fisher-Yates), some dims negative
      const order = Array.from({ length: rank }, (_, i) => i);
      for (let i = rank - 1; i > 0; i--) {
        const j = r.int(0, i);
        [order[i], order[j]] = [order[j], order[i]];
      }
      const dims = order.map((d) => (r.chance(0.3) ? d - rank : d));
      return {
        label: `permute ${json(x.shape)} ${x.data.constructor.name} ${json(dims)}`,
        args: [x],
        run: (A) => A.permute(x, dims),
        check: (out) => notSame(out, ref.permute(x, dims)),
      };
    },
    invalid(r) {
      const x = r.tensor([2, 3, 4]);
      return shapeHelperInvalid(r, 'permute', x, (A, bad) => A.permute(bad, [0, 2, 1]), [
        [
          'dims count',
          (A, x) => A.permute(x, r.pick([[0, 1], [], [0, 1, 2, 3]])),
          RangeError,
          /^permute: dims has \d entries but input \[2, 3, 4\] has 3 dims/,
        ],
        [
          'dims repeated',
          (A, x) =>
            A.permute(
              x,
              r.pick([
                [0, 0, 1],
                [2, 1, -1],
              ]),
            ),
          RangeError,
          /^permute: dims \[.*\] names dim \d twice \(negative dims count from the end\); each dim of input \[2, 3, 4\] must appear once$/,
        ],
        [
          'dims range',
          (A, x) => A.permute(x, [0, 3, 1]),
          RangeError,
          /^permute: dims\[1\] 3 is out of range \[-3, 2\] for input \[2, 3, 4\]$/,
        ],
        [
          'dims type',
          (A, x) => A.permute(x, r.pick([0, '021', null])),
          TypeError,
          /^permute: dims must be an array of 3 dims \(a permutation\), got/,
        ],
        [
          'dims entry type',
          (A, x) => A.permute(x, [0, '2', 1]),
          TypeError,
          /^permute: dims\[1\] must be an integer, got string$/,
        ],
      ]);
    },
    small: (A) => A.permute(t([1, 2, 3, 4, 5, 6], [1, 2, 3]), [2, 0, 1]),
  },

  select: {
    valid(r) {
      const shape = randomShape(r, 1);
      const dim = randomDim(r, shape.length),
        d = dim < 0 ? dim + shape.length : dim;
      shape[d] ||= r.int(1, 4); // an index needs a non-empty dim
      const x = anyTensor(r, shape);
      const index = r.int(0, shape[d] - 1) - (r.chance(0.4) ? shape[d] : 0);
      return {
        label: `select ${json(shape)} ${x.data.constructor.name} dim ${dim} index ${index}`,
        args: [x],
        run: (A) => A.select(x, dim, index),
        check: (out) => notSame(out, ref.select(x, dim, index)),
      };
    },
    invalid(r) {
      const x = r.tensor([2, 3]);
      return shapeHelperInvalid(r, 'select', x, (A, bad) => A.select(bad, 0, 0), [
        [
          'index range',
          (A, x) => A.select(x, 1, r.pick([3, -4, 100])),
          RangeError,
          /^select: index -?\d+ is out of range \[-3, 2\] for dim 1 \(size 3\) of input \[2, 3\]$/,
        ],
        [
          'empty dim',
          (A) => A.select(t([], [2, 0]), 1, 0),
          RangeError,
          /^select: index 0 is out of range for dim 1 \(size 0\) of input \[2, 0\]$/,
        ],
        [
          'dim range',
          (A, x) => A.select(x, -3, 0),
          RangeError,
          /^select: dim -3 is out of range \[-2, 1\] for input \[2, 3\]$/,
        ],
        [
          '0-d',
          (A) => A.select(t([5], []), 0, 0),
          RangeError,
          /^select: input is 0-d \(shape \[\]\): it has no dim to select along/,
        ],
        [
          'index type',
          (A, x) => A.select(x, 0, r.pick(['1', 1n, [0]])),
          TypeError,
          /^select: index must be an integer, got/,
        ],
        ['index fraction', (A, x) => A.select(x, 0, 0.5), RangeError, /^select: index must be an integer, got 0\.5$/],
      ]);
    },
    small: (A) => A.select(t([1, 2, 3, 4, 5, 6], [2, 3]), 1, -1),
  },

  narrow: {
    valid(r) {
      const shape = randomShape(r, 1);
      const x = anyTensor(r, shape);
      const dim = randomDim(r, shape.length),
        size = shape[dim < 0 ? dim + shape.length : dim];
      const start = r.int(-size, size),
        first = start < 0 ? start + size : start;
      const length = r.int(0, size - first);
      return {
        label: `narrow ${json(shape)} ${x.data.constructor.name} dim ${dim} start ${start} length ${length}`,
        args: [x],
        run: (A) => A.narrow(x, dim, start, length),
        check: (out) => notSame(out, ref.narrow(x, dim, start, length)),
      };
    },
    invalid(r) {
      const x = r.tensor([2, 3]);
      return shapeHelperInvalid(r, 'narrow', x, (A, bad) => A.narrow(bad, 0, 0, 1), [
        [
          'start range',
          (A, x) => A.narrow(x, 1, r.pick([4, -4]), 0),
          RangeError,
          /^narrow: start -?4 is out of range \[-3, 3\] for dim 1 \(size 3\) of input \[2, 3\]$/,
        ],
        [
          'past the end',
          (A, x) => A.narrow(x, 1, 2, 2),
          RangeError,
          /^narrow: start 2 \+ length 2 runs past the end of dim 1 \(size 3\) of input \[2, 3\]$/,
        ],
        [
          'negative start past the end',
          (A, x) => A.narrow(x, -1, -1, 2),
          RangeError,
          /^narrow: start -1 \(2\) \+ length 2 runs past the end of dim 1 \(size 3\) of input \[2, 3\]$/,
        ],
        [
          'negative length',
          (A, x) => A.narrow(x, 0, 0, -1),
          RangeError,
          /^narrow: length must be non-negative, got -1$/,
        ],
        [
          '0-d',
          (A) => A.narrow(t([5], []), 0, 0, 1),
          RangeError,
          /^narrow: input is 0-d \(shape \[\]\): it has no dim to narrow along/,
        ],
        [
          'length type',
          (A, x) => A.narrow(x, 0, 0, r.pick(['1', undefined])),
          TypeError,
          /^narrow: length must be an integer, got/,
        ],
        [
          'dim range',
          (A, x) => A.narrow(x, 2, 0, 1),
          RangeError,
          /^narrow: dim 2 is out of range \[-2, 1\] for input \[2, 3\]$/,
        ],
      ]);
    },
    small: (A) => A.narrow(t([1, 2, 3, 4, 5, 6], [2, 3]), 1, 1, 2),
  },

  topk: {
    valid(r) {
      const shape = randomShape(r, 0, 3);
      const x = r.tensor(shape, 3);
      // ties (values from a small set, 0 and -0), NaN and infinities
      const ties = r.chance(0.5);
      for (let i = 0; i < x.data.length; i++) {
        if (ties) x.data[i] = r.int(-2, 2) * 0.5;
        if (r.chance(0.05)) x.data[i] = r.pick([NaN, -0, Infinity, -Infinity]);
      }
      const rank = shape.length,
        dim = r.chance(0.3) ? undefined : randomDim(r, rank);
      const size = rank === 0 ? 1 : shape[(dim ?? -1) < 0 ? (dim ?? -1) + rank : dim];
      const k = r.chance(0.3) ? r.int(0, Math.min(size, 3)) : r.int(0, size);
      const options = {};
      if (dim !== undefined) options.dim = dim;
      if (r.chance(0.5)) options.largest = r.chance(0.5);
      if (r.chance(0.4)) options.sorted = r.chance(0.7);
      return {
        label: `topk ${json(shape)} k ${k} ${json(options)}${ties ? ' ties' : ''}`,
        args: [x],
        run: (A) => A.topk(x, k, options),
        check: (out) => {
          const want = ref.topk(x, k, options);
          return (
            notSame(out.values, { data: Float32Array.from(want.values.data), shape: want.values.shape }, 'values ') ??
            notSame(out.indices, { data: Int32Array.from(want.indices.data), shape: want.indices.shape }, 'indices ')
          );
        },
      };
    },
    invalid(r) {
      const x = r.tensor([2, 3]);
      switch (r.int(0, 3)) {
        case 0:
          return badTensorArg(r, 'topk', ['input'], [x], (A, p) => A.topk(p, 1));
        case 1:
          return {
            label: 'topk k range',
            run: (A) => A.topk(x, r.pick([4, -1, 100])),
            type: RangeError,
            message: /^topk: k -?\d+ is out of range \[0, 3\] for dim 1 \(size 3\) of input \[2, 3\]$/,
          };
        case 2:
          return {
            label: 'topk k along dim 0',
            run: (A) => A.topk(x, 3, { dim: 0 }),
            type: RangeError,
            message: /^topk: k 3 is out of range \[0, 2\] for dim 0 \(size 2\) of input \[2, 3\]$/,
          };
        default: {
          const [args, type, message] = r.pick([
            [['2', {}], TypeError, /^topk: k must be an integer, got string$/],
            [[1.5, {}], RangeError, /^topk: k must be an integer, got 1\.5$/],
            [[1, { dim: 2 }], RangeError, /^topk: dim 2 is out of range \[-2, 1\] for input \[2, 3\]$/],
            [[1, { largest: 'no' }], TypeError, /^topk: largest must be a boolean, got string$/],
            [[1, { sorted: 1 }], TypeError, /^topk: sorted must be a boolean, got number$/],
            [
              [1, { descending: true }],
              TypeError,
              /^topk: unknown option 'descending' \(allowed: dim, largest, sorted\)$/,
            ],
            [
              [1, 3],
              TypeError,
              /^topk: options must be an object, got number: .*by name \(\{ dim, largest, sorted \}\)$/,
            ],
          ]);
          return { label: `topk ${json(args)}`, run: (A) => A.topk(x, ...args), type, message };
        }
      }
    },
    small: (A) => A.topk(t([1, 5, 3, 5, 2, 0], [2, 3]), 2),
  },

  cosineSimilarity: {
    valid(r) {
      const common = randomShape(r, 0, 3);
      const a = r.tensor(r.chance(0.6) ? common : broadcastable(r, common), r.pick([1, 1e-3, 100]));
      const b = r.tensor(r.chance(0.6) ? common : broadcastable(r, common));
      // zero vectors: a whole operand, or a few zeros where the vectors are short
      if (r.chance(0.15)) a.data.fill(0);
      else if (r.chance(0.2)) for (let i = 0; i < b.data.length; i++) if (r.chance(0.5)) b.data[i] = 0;
      const rank = ref.broadcastShapes(a.shape, b.shape).length;
      const options = {};
      if (rank < 2 || r.chance(0.5)) options.dim = randomDim(r, rank); // the default, 1, needs rank >= 2
      if (r.chance(0.3)) options.eps = r.pick([0.5, 1e-3, 1e-8, 0]);
      // eps 0 with a zero vector is 0 / 0 (NaN) in torch and here; compare() wants NaN then
      const [x1, x2] = r.chance(0.5) ? [a, b] : [b, a];
      return {
        label: `cosineSimilarity ${json(x1.shape)} ${json(x2.shape)} ${json(options)}`,
        args: [x1, x2],
        run: (A) => A.cosineSimilarity(x1, x2, options),
        want: () => ref.cosineSimilarity(x1, x2, options),
      };
    },
    invalid(r) {
      const x = r.tensor([2, 3]);
      switch (r.int(0, 3)) {
        case 0:
          return badTensorArg(r, 'cosineSimilarity', ['x1', 'x2'], [x, x], (A, p, q) => A.cosineSimilarity(p, q));
        case 1:
          return {
            label: 'cosineSimilarity broadcast',
            run: (A) => A.cosineSimilarity(x, r.tensor([r.pick([2, 4])])),
            type: Error,
            message: /^cosineSimilarity: x1 \[2, 3\] and x2 \[\d\]: shapes \[2, 3\] and \[\d\] are not broadcastable/,
          };
        case 2:
          return {
            label: 'cosineSimilarity vectors with the default dim',
            run: (A) => A.cosineSimilarity(r.tensor([4]), r.tensor([4])),
            type: RangeError,
            message:
              /^cosineSimilarity: dim 1 is out of range \[-1, 0\] for x1 \[4\] and x2 \[4\] \(broadcast to \[4\]\); dim defaults to 1: for two vectors give dim -1$/,
          };
        default: {
          const [options, type, message] = r.pick([
            [
              { dim: 2 },
              RangeError,
              /^cosineSimilarity: dim 2 is out of range \[-2, 1\] for x1 \[2, 3\] and x2 \[2, 3\]/,
            ],
            [{ dim: '1' }, TypeError, /^cosineSimilarity: dim must be an integer, got string$/],
            [
              { eps: -1 },
              RangeError,
              /^cosineSimilarity: eps must be non-negative, got -1 \(x1 \[2, 3\] and x2 \[2, 3\]\)$/,
            ],
            [{ eps: '1e-8' }, TypeError, /^cosineSimilarity: eps must be a number, got string$/],
            [{ eps: NaN }, RangeError, /^cosineSimilarity: eps must not be NaN$/],
            [{ axis: 1 }, TypeError, /^cosineSimilarity: unknown option 'axis' \(allowed: dim, eps\)$/],
          ]);
          return {
            label: `cosineSimilarity ${json(options)}`,
            run: (A) => A.cosineSimilarity(x, x, options),
            type,
            message,
          };
        }
      }
    },
    small: (A) => A.cosineSimilarity(t([1, 2, 3, 0, 0, 0], [2, 3]), t([2, 4, 6], [3])),
  },

  'MultiheadAttention.forward': {
    weight: 2,
    valid(r) {
      const H = r.int(1, 3),
        E = H * r.pick([1, 2, 3, 5, 7, 9]);
      const cross = r.chance(0.3);
      const kdim = cross ? r.pick([1, 3, 5, 8, 13]) : E,
        vdim = cross ? r.pick([1, 2, 7, 9, 17]) : E;
      const bias = r.chance(0.8),
        batchFirst = r.chance(0.5),
        unbatched = r.chance(0.2);
      const L = r.dim(),
        S = r.dim(),
        N = r.int(1, 3);
      const options = { embedDim: E, numHeads: H, bias, batchFirst };
      if (cross) Object.assign(options, { kdim, vdim });
      // parameters drawn here (not the module's xavier init, whose biases are zeros)
      const params = {};
      // kdim = vdim = embedDim (given or not): one packed in_proj_weight, as torch
      if (kdim === E && vdim === E) params.inProjWeight = r.tensor([3 * E, E], 1 / Math.sqrt(E));
      else {
        params.qProjWeight = r.tensor([E, E], 1 / Math.sqrt(E));
        params.kProjWeight = r.tensor([E, kdim], 1 / Math.sqrt(kdim));
        params.vProjWeight = r.tensor([E, vdim], 1 / Math.sqrt(vdim));
      }
      params.inProjBias = bias ? r.tensor([3 * E], 0.1) : null;
      params.outProjWeight = r.tensor([E, E], 1 / Math.sqrt(E));
      params.outProjBias = bias ? r.tensor([E], 0.1) : null;
      const shape3 = (len, F) => (unbatched ? [len, F] : batchFirst ? [N, len, F] : [len, N, F]);
      const q = r.tensor(shape3(L, E)),
        k = r.tensor(shape3(S, kdim)),
        v = r.tensor(shape3(S, vdim));
      const selfAttn = !cross && r.chance(0.3); // query = key = value: one array for all three
      const [key, value] = selfAttn && L === S ? [q, q] : [k, v];
      const Nb = unbatched ? 1 : N;
      const opts = {};
      if (r.chance(0.3)) opts.needWeights = r.chance(0.5);
      if (r.chance(0.3)) opts.averageAttnWeights = r.chance(0.5);
      const bool = (shape, p) => ({
        data: Uint8Array.from({ length: ref.numel(shape) }, () => (r.chance(p) ? 1 : 0)),
        shape,
      });
      if (r.chance(0.4)) {
        const shape = unbatched ? [S] : [N, S];
        opts.keyPaddingMask = r.chance(0.5) ? bool(shape, 0.3) : r.tensor(shape, 2);
      }
      const amKind = r.pick(['none', 'bool2', 'bool3', 'float2', 'float3', 'causal']);
      if (amKind === 'bool2') opts.attnMask = bool([L, S], 0.3);
      if (amKind === 'bool3') opts.attnMask = bool([Nb * H, L, S], 0.3);
      if (amKind === 'float2') opts.attnMask = r.tensor([L, S], 2);
      if (amKind === 'float3') opts.attnMask = r.tensor([Nb * H, L, S], 2);
      if (amKind === 'causal') opts.isCausal = true;
      const label =
        `MultiheadAttention E=${E} H=${H} kdim=${kdim} vdim=${vdim} bias=${bias} batchFirst=${batchFirst} ` +
        `q ${JSON.stringify(q.shape)} k ${JSON.stringify(key.shape)} ${amKind}${opts.keyPaddingMask ? ' kpm' : ''} ${JSON.stringify({ needWeights: opts.needWeights, averageAttnWeights: opts.averageAttnWeights })}`;
      return {
        label,
        args: [q, key, value, ...Object.values(params), opts.keyPaddingMask, opts.attnMask].filter(Boolean),
        run: (A) => {
          const m = new A.MultiheadAttention(options);
          for (const [name, value] of Object.entries(params)) {
            if (!(name in m)) throw new Error(`the module has no parameter ${name}`);
            m[name] = value;
          }
          const out = m.forward(q, key, value, opts);
          if (opts.needWeights === false && out.weights !== null)
            throw new Error('weights returned with needWeights false');
          return out;
        },
        want: () => ref.multiheadAttention(q, key, value, params, { numHeads: H, batchFirst, ...opts }),
      };
    },
    invalid(r) {
      const fn = 'MultiheadAttention.forward';
      const mha = (A) => new A.MultiheadAttention({ embedDim: 8, numHeads: 2 });
      const x = r.tensor([5, 3, 8]);
      const bool = (shape) => ({ data: new Uint8Array(ref.numel(shape)), shape });
      switch (r.int(0, 3)) {
        case 0:
          return badTensorArg(r, fn, ['query', 'key', 'value'], [x, x, x], (A, a, b, c) => mha(A).forward(a, b, c));
        case 1: {
          const [args, message] = r.pick([
            [
              [r.tensor([5, 3, 7]), x, x],
              /^MultiheadAttention\.forward: query's last dimension must be embedDim 8, got query \[5, 3, 7\], key \[5, 3, 8\], value \[5, 3, 8\]/,
            ],
            [
              [x, r.tensor([5, 2, 8]), r.tensor([5, 2, 8])],
              /^MultiheadAttention\.forward: .*same batch size N = 3 \(dim 1\), got query \[5, 3, 8\], key \[5, 2, 8\], value \[5, 2, 8\]/,
            ],
            [
              [x, r.tensor([4, 3, 8]), x],
              /^MultiheadAttention\.forward: key and value must have the same sequence length S = 4/,
            ],
            [
              [x, r.tensor([5, 8]), r.tensor([5, 8])],
              /^MultiheadAttention\.forward: .*all be batched \(3-D\) or all unbatched \(2-D\)/,
            ],
            [
              [r.tensor([1, 5, 3, 8]), x, x],
              /^MultiheadAttention\.forward: .*query must be \(L, E\) unbatched or \(L, N, E\)/,
            ],
            [[x, x, r.tensor([5, 3, 6])], /^MultiheadAttention\.forward: .*value's last dimension must be vdim 8/],
          ]);
          return {
            label: 'MultiheadAttention.forward shapes',
            run: (A) => mha(A).forward(...args),
            type: Error,
            message,
          };
        }
        case 2: {
          const [opts, message] = r.pick([
            [
              { keyPaddingMask: bool([5, 3]) },
              /^MultiheadAttention\.forward: keyPaddingMask must have shape \(N, S\) = \[3, 5\], got \[5, 3\]/,
            ],
            [
              { attnMask: bool([5, r.pick([4, 6])]) },
              /^MultiheadAttention\.forward: attnMask must have shape \(L, S\) = \[5, 5\] or \(N\*numHeads, L, S\) = \[6, 5, 5\], got \[5, \d\]/,
            ],
            [
              { attnMask: r.tensor([3, 5, 5]) },
              /^MultiheadAttention\.forward: attnMask must have shape .* got \[3, 5, 5\]/,
            ],
          ]);
          return {
            label: `MultiheadAttention.forward mask ${Object.keys(opts)}`,
            run: (A) => mha(A).forward(x, x, x, opts),
            type: Error,
            message,
          };
        }
        default: {
          const [opts, message] = r.pick([
            [
              { attnMask: { data: new Int32Array(25), shape: [5, 5] } },
              /^MultiheadAttention\.forward: attnMask must have Uint8Array \(boolean\) or Float32Array \(additive\) data, got Int32Array\(25\)/,
            ],
            [{ keyPaddingMask: [[true]] }, /^MultiheadAttention\.forward: keyPaddingMask must have Uint8Array/],
            [{ needWeights: 'no' }, /^MultiheadAttention\.forward: needWeights must be a boolean, got string/],
            [{ isCausal: 1 }, /^MultiheadAttention\.forward: isCausal must be a boolean/],
            [{ key_padding_mask: null }, /^MultiheadAttention\.forward: unknown option 'key_padding_mask'/],
          ]);
          return {
            label: `MultiheadAttention.forward options ${Object.keys(opts)}`,
            run: (A) => mha(A).forward(x, x, x, opts),
            type: TypeError,
            message,
          };
        }
      }
    },
    small: (A) => {
      const m = new A.MultiheadAttention({ embedDim: 4, numHeads: 2 });
      const x = t([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], [3, 4]);
      return m.forward(x, x, x, { isCausal: true });
    },
  },
  ...taskCases,
  ...causalCases,
};

/** A fixed computation with a known answer: proves the module still works after an error. */
export function canary(A) {
  const out = A.matmul(t([1, 2, 3, 4, 5, 6], [2, 3]), t([1, 0, 1, 0, 1, 1], [3, 2])).data;
  const sm = A.softmax(t([0, Math.log(3)], [2])).data;
  return (
    out.length === 4 &&
    out[0] === 6 &&
    out[1] === 3 &&
    out[2] === 15 &&
    out[3] === 6 &&
    Math.abs(sm[0] - 0.25) < 1e-7 &&
    Math.abs(sm[1] - 0.75) < 1e-7
  );
}

/** The bytes of every typed array in `args` (tensors' data), to prove they are never written. */
export function snapshot(args) {
  return args.map((a) => Buffer.from(new Uint8Array(a.data.buffer, a.data.byteOffset, a.data.byteLength)));
}
export function sameBytes(args, snap) {
  return args.every((a, i) =>
    Buffer.from(new Uint8Array(a.data.buffer, a.data.byteOffset, a.data.byteLength)).equals(snap[i]),
  );
}
