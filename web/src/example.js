// One worked example on the page: the document's snippet, the live result and a "what happened"
// line. The result text is produced at run time by the library; tests read it from .result.
// retitle / recode let a card's heading and snippet follow its controls.
export function exampleCard({ id, title, code }) {
  const el = document.createElement('article');
  el.className = 'example';
  el.dataset.example = id;
  el.id = id.replace('.', '-');
  const h = document.createElement('h3');
  h.textContent = `${id} — ${title}`;
  const pre = document.createElement('pre');
  pre.className = 'code';
  pre.textContent = code;
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
    retitle(title) { h.textContent = `${id} — ${title}`; },
    recode(text) { pre.textContent = text; },
    show(text, explanation) {
      result.textContent = text;
      if (explanation !== undefined) what.textContent = explanation;
    },
  };
}
