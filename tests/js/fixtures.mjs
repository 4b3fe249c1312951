// The tiny Hugging Face model folders of scripts/make-fixtures.mjs, written into build/fixtures/
// on first use (deterministic; never committed), with the weights as drawn for the float64
// references (tests/js/reference/encoder.mjs, causal.mjs).
import { FIXTURES, fixture, writeFixture } from '../../scripts/make-fixtures.mjs';

export { FIXTURES };
/** The encoder fixtures (distilbert-*, bert-*) and the causal LMs' (gpt2-*, llama-*), by name. */
export const ENCODER_FIXTURES = Object.keys(FIXTURES).filter((n) => ['distilbert', 'bert'].includes(FIXTURES[n].arch));
export const CAUSAL_FIXTURES = Object.keys(FIXTURES).filter((n) => ['gpt2', 'llama'].includes(FIXTURES[n].arch));

/** { dir, files: {name: Uint8Array}, config, weights: Map, spec } */
export async function loadFixture(name) {
  const dir = await writeFixture(name);
  return { dir, ...(await fixture(name)) };
}

/** The two sentences of document 004, E4.6. */
export const S1 = 'Write a poem about a man fishing on a river bank.';
export const S2 = 'Write a poem about a man withdrawing money from a bank.';
