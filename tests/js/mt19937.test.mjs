// src/js/mt19937.js, the generator a seeded lm.generate owns: its uniforms equal the library's
// C++ generator's (src/random/torch_generator.cpp, torch's CPU generator) after A.manualSeed(seed),
// A.rand(n), bit for bit, for seeds below and above 2^32 (only the low 32 bits seed MT19937) up
// to 2^53 - 1, over more than one regeneration of the 624-word state.
import test from 'node:test';
import assert from 'node:assert/strict';
import { library } from './helpers.mjs';
import { MT19937 } from '../../src/js/mt19937.js';

const SEEDS = [0, 1, 42, 5489, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 7, 2 ** 40 + 3, 2 ** 53 - 1];

test('MT19937: uniform() equals A.manualSeed(seed); A.rand(n), seeds up to 2^53 - 1', async () => {
  const A = await library();
  const n = 1500; // 1500 draws: the state regenerated three times
  for (const seed of SEEDS) {
    A.manualSeed(seed);
    const want = Array.from(A.rand(n).data);
    const g = new MT19937(seed);
    const got = Array.from({ length: n }, () => g.uniform());
    assert.deepEqual(got, want, `seed ${seed}`);
  }
  // seeds equal modulo 2^32 give one stream (torch's init_genrand(seed & 0xffffffff))
  const a = new MT19937(7),
    b = new MT19937(2 ** 32 + 7);
  for (let i = 0; i < 10; i++) assert.equal(a.nextUint32(), b.nextUint32());
});

test("MT19937: nextUint32 is std::mt19937's (the 10000th output of the default seed 5489 is 4123659995)", () => {
  // C++11 [rand.predef]: the 10000th invocation of a default-constructed mt19937 gives 4123659995
  const g = new MT19937(5489);
  let x;
  for (let i = 0; i < 10000; i++) x = g.nextUint32();
  assert.equal(x, 4123659995);
});

test('MT19937: a seed outside [0, 2^53) is a RangeError, one not a number a TypeError', () => {
  const message = /^MT19937: seed must be an integer in \[0, 2\^53\), got /;
  for (const seed of [-1, 0.5, 2 ** 53, NaN, Infinity])
    assert.throws(() => new MT19937(seed), { name: 'RangeError', message });
  for (const seed of ['1', null, undefined, 1n]) assert.throws(() => new MT19937(seed), { name: 'TypeError', message });
});
