// The words of the generation explorer (sections/generation-explorer.js): a reader's own GPT-2 or
// Llama-architecture folder, a prompt, and the attention of every token it generates.
export default {
  id: 'generation',
  title: 'Generation explorer: the attention of every generated token',
  intro: `Load a causal language model of your own (a GPT-2 or Llama-architecture folder, such as
    SmolLM-135M), write a prompt and let it generate. Each new token is chosen from the model's
    next-token distribution, shown for the current step: its top candidates and their
    probabilities, with the ones that top-k and top-p cut away hatched. Choose any generated
    token (click it, or focus the tokens and use the arrow keys) to see its attention over every
    earlier token, for every layer × head and one head large.`,
  loader: {
    heading: 'Your GPT-2 or Llama folder',
    instructions: `Choose the model's folder (or its files) or drop it here: config.json,
      model.safetensors and tokenizer.json (the folder Hugging Face's save_pretrained or the hub
      download gives; other files are ignored).`,
    privacy: `The files never leave your machine: the page reads them in its own Web Worker, and
      its Content-Security-Policy forbids sending anything to another site.`,
  },
  prompt: 'The river bank was quiet, and',
  empty: 'Load a model above, then generate, to see the attention of its tokens.',
  decoding: {
    greedy: 'greedy (the most probable token)',
    sample: 'sample (temperature, top-k, top-p, seed)',
  },
  distribution: 'the next-token distribution',
  tokensLabel: 'Generated tokens: choose one to see its attention (arrow keys, Home/End)',
};
