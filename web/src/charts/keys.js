// The keys every chart answers, in one place: a chart is one tab stop, and inside it the arrow
// keys move a cursor (Shift: ten cells), Home / End go to the row's first / last cell and
// PageUp / PageDown ten rows up / down.

export const KEYS_HINT = 'arrow keys move (Shift: 10 cells), Home/End, PageUp/PageDown';

/** The cell a key moves to in an (n, m) grid from (i, j), or null for a key that does not move. */
export function gridMove(e, i, j, n, m) {
  const step = e.shiftKey ? 10 : 1;
  const to = {
    ArrowLeft: [i, j - step],
    ArrowRight: [i, j + step],
    ArrowUp: [i - step, j],
    ArrowDown: [i + step, j],
    Home: [i, 0],
    End: [i, m - 1],
    PageUp: [i - 10, j],
    PageDown: [i + 10, j],
  }[e.key];
  if (!to) return null;
  return [Math.max(0, Math.min(n - 1, to[0])), Math.max(0, Math.min(m - 1, to[1]))];
}
