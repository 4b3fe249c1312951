// The page's building blocks: a section per document and a card per worked example, made from
// the words in content/ (title, the document's snippet, the explanation). A card shows the
// document's snippet, the live result and a "what happened" line; the result text is produced at
// run time by the library, and tests read it from .result. Each card is the target of a stable
// anchor, its example id (#E0.7).

/** Text written across lines in a template literal, as one line (HTML would collapse it anyway). */
export const prose = (text) => text.replace(/\s+/g, ' ').trim();

/** A title or snippet that may depend on a control (a function of it) or not. */
export const textOf = (value, ...args) => (typeof value === 'function' ? value(...args) : value);

/** One example's card. `example`: { id, title, code } from content/. */
function exampleCard(example) {
  const { id } = example;
  const el = document.createElement('article');
  el.className = 'example';
  el.dataset.example = id;
  el.id = id;
  const h = document.createElement('h3');
  h.textContent = `${id} — ${textOf(example.title)}`;
  const pre = document.createElement('pre');
  pre.className = 'code';
  pre.textContent = textOf(example.code);
  const controls = document.createElement('div');
  controls.className = 'controls';
  const result = document.createElement('pre');
  result.className = 'result';
  result.setAttribute('aria-live', 'polite');
  const what = document.createElement('p');
  what.className = 'what';
  el.append(h, pre, controls, result, what);
  return {
    el,
    controls,
    retitle(title) {
      h.textContent = `${id} — ${title}`;
    },
    recode(text) {
      pre.textContent = text;
    },
    /** The example's explanation (content/: a string, or a function of the computed `values`). */
    what: (values) => textOf(example.what, values),
    /** Shows the result and, unless undefined, the explanation. */
    show(text, explanation) {
      result.textContent = text;
      if (explanation !== undefined) what.textContent = prose(explanation);
    },
  };
}

/**
 * A document's section: its heading, its introduction, then `before` (e.g. controls shared by
 * every example), then a card per example. Returns { section, cards } with cards by id.
 */
export function documentSection(content, root, { before = [] } = {}) {
  const section = document.createElement('section');
  section.className = 'document';
  section.dataset.document = content.number;
  section.id = `document-${content.number}`;
  const h2 = document.createElement('h2');
  h2.textContent = content.title;
  const intro = document.createElement('p');
  intro.textContent = prose(content.intro);
  section.append(h2, intro, ...before);
  const cards = {};
  for (const example of content.examples) {
    cards[example.id] = exampleCard(example);
    section.append(cards[example.id].el);
  }
  root.append(section);
  return { section, cards };
}

/** An example's content by id. */
export const exampleOf = (content, id) => content.examples.find((e) => e.id === id);
