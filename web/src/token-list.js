// The tokens of a generation: the prompt's (grey) and the generated ones, a listbox that is one
// tab stop (Left/Right, Shift for ten, Home/End, as the charts' keys.js; a click) with an
// aria-live read-out of the chosen token. It knows nothing of attention: onChoose(k, { byUser,
// scroll }) says which generated token is chosen, and the generation explorer draws it.
import { gridMove } from './charts/keys.js';
import { readout } from './charts/readout.js';

/**
 * Returns { el, setPrompt(tokens), add(token), choose(k, say), clear(), chosen, count };
 * `label` names the listbox for screen readers.
 */
export function tokenList({ label, hint, onChoose }) {
  const el = document.createElement('div');
  el.className = 'tokenlist';
  el.hidden = true;
  const prompt = document.createElement('span');
  prompt.className = 'prompttokens';
  const list = document.createElement('div');
  list.className = 'gentokens';
  list.setAttribute('role', 'listbox');
  list.setAttribute('aria-orientation', 'horizontal');
  list.setAttribute('aria-label', label);
  list.tabIndex = 0;
  const out = readout(hint);
  el.append(prompt, list, out.el);
  let chosen = -1;
  const count = () => list.children.length;

  list.addEventListener('click', (e) => {
    const option = e.target.closest('[role=option]');
    if (option) onChoose(Number(option.dataset.index), { byUser: true });
  });
  list.addEventListener('focus', () => {
    if (count() && chosen < 0) onChoose(count() - 1, { byUser: true });
  });
  list.addEventListener('keydown', (e) => {
    if (!count()) return;
    const to = gridMove(e, 0, Math.max(0, chosen), 1, count());
    if (!to) return;
    e.preventDefault();
    onChoose(to[1], { byUser: true, scroll: true });
  });

  return {
    el,
    get chosen() {
      return chosen;
    },
    get count() {
      return count();
    },
    setPrompt(tokens) {
      prompt.replaceChildren(...tokens.map((t) => Object.assign(document.createElement('span'), { textContent: t })));
    },
    /** The next generated token (its piece as the tokenizer names it). */
    add(token) {
      const option = document.createElement('span');
      option.setAttribute('role', 'option');
      option.id = `generated-token-${count()}`;
      option.dataset.index = String(count());
      option.setAttribute('aria-selected', 'false');
      option.textContent = token;
      list.append(option);
      el.hidden = false;
    },
    /** Marks token k chosen and reads out `say`; `scroll` brings it into view. */
    choose(k, say, { scroll = false } = {}) {
      list.querySelector('[aria-selected=true]')?.setAttribute('aria-selected', 'false');
      const option = list.children[k];
      option.setAttribute('aria-selected', 'true');
      list.setAttribute('aria-activedescendant', option.id);
      if (scroll) option.scrollIntoView({ block: 'nearest', inline: 'nearest' });
      chosen = k;
      out.say(say);
    },
    clear() {
      chosen = -1;
      prompt.replaceChildren();
      list.replaceChildren();
      list.removeAttribute('aria-activedescendant');
      out.say(hint);
      el.hidden = true;
    },
  };
}
