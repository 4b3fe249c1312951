// The read-out line under a chart: a polite aria-live paragraph saying what the keyboard's cursor
// or the pointer is on. Each chart makes its own, or several share one (E4.5's heads).

/** { el, say(text) }: `hint` is the text shown until something is read out. */
export function readout(hint) {
  const el = document.createElement('p');
  el.className = 'hover';
  el.setAttribute('aria-live', 'polite');
  el.textContent = hint;
  return {
    el,
    say(text) {
      el.textContent = text;
    },
  };
}
