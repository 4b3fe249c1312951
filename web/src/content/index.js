// The five documents, in the page's order: what the table of contents lists.
import codingSelfAttention from './coding-self-attention.js';
import scalingAndMasking from './scaling-and-masking.js';
import matrixForm from './matrix-form.js';
import workedByHand from './worked-by-hand.js';
import embeddingsAndHeads from './embeddings-and-heads.js';
import generation from './generation.js';

export const documents = [codingSelfAttention, scalingAndMasking, matrixForm, workedByHand, embeddingsAndHeads];

/** Entries of the table of contents besides the examples: after a document's examples, or at the end. */
export const extraEntries = {
  [embeddingsAndHeads.number]: [{ id: embeddingsAndHeads.explorer.id, title: 'Model explorer' }],
  end: [
    { id: generation.id, title: 'Generation explorer' },
    { id: 'speed', title: 'Speed' },
  ],
};
