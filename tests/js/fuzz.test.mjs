// Seeded fuzz / property test over the table in cases.mjs:
//  - random valid calls (odd sizes, zero sizes, broadcasting, masks bool/float, causal, GQA,
//    Ev != E, unbatched, softmax dims) checked against the float64 references of reference/
//    (|got - want| <= 1e-5 * magnitude + 1e-6), and the caller's arrays byte-identical after;
//  - random invalid calls that must throw exactly the documented error type, with a message
//    naming the function and argument; after each, a canary computation must still be right.
// `npm test` runs a reduced count; `npm run fuzz` (AW_FUZZ=full) runs >= 10,000 valid and
// >= 2,000 invalid calls. AW_FUZZ_SEED picks another seed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { library, countFromEnv } from './helpers.mjs';
import { functions, canary, snapshot, sameBytes } from './cases.mjs';
import { compare, makeRandom } from './reference/index.mjs';

const full = process.env.AW_FUZZ === 'full';
const VALID = countFromEnv('AW_FUZZ_VALID', full ? 10000 : 2000);
const INVALID = countFromEnv('AW_FUZZ_INVALID', full ? 2000 : 500);
const SEED = countFromEnv('AW_FUZZ_SEED', 20240601, 0);
const A = await library();
const names = Object.keys(functions);
// calls per round: entries may ask for a larger share (`weight`, default 1)
const schedule = names.flatMap((n) => Array(functions[n].weight ?? 1).fill(n));

test(`fuzz: ${VALID} valid calls match the float64 reference (seed ${SEED})`, async () => {
  const r = makeRandom(SEED);
  const counts = Object.fromEntries(names.map((n) => [n, 0]));
  for (let i = 0; i < VALID; i++) {
    const name = schedule[i % schedule.length];
    const c = functions[name].valid(r);
    const args = c.args ?? [];
    const snap = snapshot(args);
    let out;
    try {
      out = c.run(A);
      if (typeof out?.then === 'function') out = await out; // lm.generate
    } catch (e) {
      assert.fail(`call ${i} ${c.label} threw ${e.constructor.name}: ${e.message}`);
    }
    assert.ok(sameBytes(args, snap), `call ${i} ${c.label}: an input array was modified`);
    const tensor = out.output ?? out;
    if (c.want) {
      const want = c.want();
      const wantTensor = want.output ?? want; // sdpa's reference answers {output, weights} as the library
      if (wantTensor.shape) assert.deepEqual(tensor.shape, wantTensor.shape, `call ${i} ${c.label}: shape`);
      const res = compare(tensor.data, wantTensor);
      assert.ok(res.ok, `call ${i} ${c.label}: ${res.why}`);
      if (out.weights) {
        const w = compare(out.weights.data, { data: want.weights.data, mag: null });
        assert.ok(w.ok, `call ${i} ${c.label}: weights ${w.why}`);
        assert.deepEqual(out.weights.shape, want.weights.shape);
      }
    }
    if (c.check) {
      const why = c.check(tensor, A);
      assert.equal(why, null, `call ${i} ${c.label}: ${why}`);
    }
    counts[name]++;
  }
  console.log(`fuzz: ${VALID} valid calls checked against float64 (seed ${SEED}):`, JSON.stringify(counts));
});

test(`fuzz: ${INVALID} invalid calls throw the documented type and leave the module working`, () => {
  const r = makeRandom(SEED + 1);
  const counts = {};
  for (let i = 0; i < INVALID; i++) {
    const name = names[i % names.length];
    const c = functions[name].invalid(r);
    const snap = snapshot(c.args ?? []);
    let error;
    try {
      c.run(A);
    } catch (e) {
      error = e;
    }
    assert.ok(error, `invalid call ${i} ${c.label} did not throw`);
    assert.equal(
      error.constructor,
      c.type,
      `invalid call ${i} ${c.label}: ${error.constructor.name} (${error.message}) instead of ${c.type.name}`,
    );
    assert.match(error.message, c.message, `invalid call ${i} ${c.label}`);
    assert.ok(sameBytes(c.args ?? [], snap), `invalid call ${i} ${c.label}: an input array was modified`);
    assert.ok(canary(A), `after invalid call ${i} ${c.label} the module computes wrongly`);
    counts[c.type.name] = (counts[c.type.name] ?? 0) + 1;
  }
  console.log(`fuzz: ${INVALID} invalid calls threw as documented:`, JSON.stringify(counts));
});
