// A horizontal bar chart on a canvas: one bar per item, its label on the left and its value on
// the right, the longest bar the largest value (the generation explorer's next-token distribution: the top candidates and their
// probabilities). Bars can be muted (drawn hatched: the candidates that top-k / top-p cut) and one
// item marked (outlined: the token drawn); a dashed rule with a note marks a cut between two bars.
// Laid out once per width as shapes (draw.js), painted on screen and written to the PNG and SVG
// exports alike. One tab stop: the arrow keys (Home/End) move a cursor bar and the read-out says
// it; the pointer does the same.
import { paint, sizedCanvas, textWidth, clip, titledPicture, followWidth, chartFigure } from './draw.js';
import { gridMove } from './keys.js';
import { readout } from './readout.js';
import { shapesExportBar, fileName } from './export.js';

const ROW = 22; // px per bar
const LABEL = 11;
const KEPT = '#1f77b4';

/**
 * values: numbers >= 0 (the bars' lengths are proportional to them). Options:
 *   labels       the items' names
 *   title        the caption (and the exported picture's title)
 *   muted(i)     bars drawn hatched (cut); marked(i): the bar outlined
 *   cut          { after, note }: a dashed rule below bar `after` with `note` beside it
 *   detail(i)    the read-out of bar i (default "label: value")
 *   json()       the JSON export; name: the exported files' name (default: from the title)
 *   width        px wanted (440); the chart narrows to its column
 * Returns the <figure>; figure.dataset.bars, .cursor; the canvas's data-rows says where bar i is
 * ("top rowHeight width").
 */
export function barChart(values, opts = {}) {
  const { labels = values.map((_, i) => String(i)), title = '', muted, marked, cut, detail, width = 440 } = opts;
  const n = values.length;
  const { fig, wrap, canvas } = chartFigure(
    'barchart',
    'bar chart',
    `${title || 'bar chart'}: ${n} bars; arrow keys, Home/End move along them`,
  );
  fig.dataset.bars = n;
  const out = readout('Hover a bar, or focus the chart (arrow keys), to read it.');
  const read = (i) => (detail ? detail(i) : `${labels[i]}: ${values[i].toFixed(4)}`);

  const peak = Math.max(...values, 0) || 1; // the longest bar is the largest value
  const labelRoom = Math.min(150, 12 + Math.max(0, ...labels.map((l) => textWidth(clip(l, 18), LABEL))));
  const valueRoom = 58;
  const cutRoom = cut ? 26 : 0; // the dashed rule, then its note under it, between two bars
  /** The layout for `w` px: where the bars are. */
  const geometry = (w) => ({ w, barMax: Math.max(40, w - labelRoom - valueRoom), h: n * ROW + cutRoom + 4 });
  let g = geometry(width);
  const top = (i) => 2 + i * ROW + (cut && i > cut.after ? cutRoom : 0);

  function shapes(at = null) {
    const s = [];
    for (let i = 0; i < n; i++) {
      const y = top(i),
        w = Math.max(1, (values[i] / peak) * g.barMax);
      s.push({ kind: 'text', x: labelRoom - 6, y: y + ROW / 2, text: clip(labels[i], 18), anchor: 'end', size: LABEL });
      if (muted?.(i)) s.push({ kind: 'hatch', x: labelRoom, y: y + 3, w, h: ROW - 6 });
      else s.push({ kind: 'rect', x: labelRoom, y: y + 3, w, h: ROW - 6, fill: KEPT });
      if (marked?.(i))
        s.push({ kind: 'rect', x: labelRoom - 2, y: y + 1, w: w + 4, h: ROW - 2, stroke: '#d62728', lineWidth: 2 });
      s.push({ kind: 'text', x: labelRoom + w + 6, y: y + ROW / 2, text: values[i].toFixed(4), size: LABEL });
      if (i === at)
        s.push({
          kind: 'rect',
          x: 1,
          y: y + 0.5,
          w: g.w - 2,
          h: ROW - 1,
          stroke: '#000',
          lineWidth: 1.5,
          dash: [3, 2],
        });
    }
    if (cut && cut.after >= -1 && cut.after < n - 1) {
      // in the gap: the rule 6 px under the bar above, the note 9 px under the rule, clear of both bars
      const y = top(cut.after + 1) - cutRoom + 6;
      s.push({ kind: 'line', x1: 4, y1: y, x2: g.w - 4, y2: y, stroke: '#d62728', lineWidth: 1.5, dash: [5, 3] });
      s.push({ kind: 'text', x: g.w - 6, y: y + 9, text: cut.note, anchor: 'end', size: 10, fill: '#d62728' });
    }
    return s;
  }

  let ctx = null,
    at = 0,
    focused = false;
  const fit = () => {
    canvas.dataset.rows = `${top(0)} ${ROW} ${g.w}`;
    ctx = sizedCanvas(canvas, g.w, g.h);
  };
  const repaint = () => {
    ctx.clearRect(0, 0, g.w, g.h);
    paint(ctx, shapes(focused ? at : null));
  };
  const move = (i) => {
    at = i;
    fig.dataset.cursor = String(i);
    out.say(read(i));
    repaint();
  };
  fit();
  repaint();
  const barAt = (e) => {
    const box = canvas.getBoundingClientRect();
    const y = ((e.clientY - box.top) * g.w) / box.width;
    for (let i = 0; i < n; i++) if (y >= top(i) && y < top(i) + ROW) return i;
    return null;
  };
  canvas.addEventListener('pointermove', (e) => {
    const i = barAt(e);
    if (i !== null) out.say(read(i));
  });
  canvas.addEventListener('click', (e) => {
    const i = barAt(e);
    if (i !== null) move(i);
  });
  canvas.addEventListener('focus', () => {
    focused = true;
    move(at);
  });
  canvas.addEventListener('blur', () => {
    focused = false;
    repaint();
  });
  canvas.addEventListener('keydown', (e) => {
    const to = gridMove(e, 0, at, 1, n);
    const down = { ArrowDown: 1, ArrowUp: -1 }[e.key];
    if (!to && !down) return;
    e.preventDefault();
    move(down ? Math.max(0, Math.min(n - 1, at + down)) : to[1]);
  });
  // narrower on a phone: laid out again for its column
  followWidth(wrap, (columnWidth) => {
    const next = geometry(Math.max(200, Math.min(width, Math.floor(columnWidth))));
    if (next.w === g.w) return;
    g = next;
    fit();
    repaint();
  });

  const exported = () => titledPicture(shapes(), g.w, g.h, title);
  fig.append(wrap);
  if (title) {
    const c = document.createElement('figcaption');
    c.textContent = title;
    fig.append(c);
  }
  fig.append(
    shapesExportBar({
      what: 'bar chart',
      name: () => opts.name ?? fileName(fig, title, 'bar-chart'),
      title,
      exported,
      json: opts.json,
    }),
    out.el,
  );
  return fig;
}
