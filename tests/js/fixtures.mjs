// The tiny Hugging Face model folders of scripts/make-fixtures.mjs, written into build/fixtures/
// on first use (deterministic; never committed), with the weights as drawn for the float64
// reference (tests/js/reference/encoder.mjs).
import { FIXTURES, fixture, writeFixture } from '../../scripts/make-fixtures.mjs';

export { FIXTURES };

/** { dir, files: {name: Uint8Array}, config, weights: Map, spec } */
export async function loadFixture(name) {
  const dir = await writeFixture(name);
  return { dir, ...(await fixture(name)) };
}

/** The two sentences of document 004, E4.6. */
export const S1 = 'Write a poem about a man fishing on a river bank.';
export const S2 = 'Write a poem about a man withdrawing money from a bank.';
