// The heat map: an (n, m) matrix on a canvas, every one on the page (the attention weights of
// the documents' examples, the positional-encoding matrix, the model explorer's head). Cells of
// 8 px and more are drawn apart with their labels (and their values when they fit); smaller ones
// as one picture (a pixel per cell, or the peak of a block of cells when the matrix has more
// cells than the canvas pixels). Where the labels no longer fit, a focus window below the matrix
// shows the cursor's neighbourhood (up to 24 x 24 cells) large and labelled, its place outlined on
// the matrix: so a 512-token head stays legible. The layout follows the width of the chart's
// column (a ResizeObserver): on a phone the matrix and the window shrink, the labels do not.
//
// Keyboard: the canvas is one tab stop; the arrow keys (keys.js) move a cursor cell, the window
// follows it, and the read-out (aria-live) says the cell's value or how it was computed
// (detail(i, j)). The pointer reads out the cell under it; a click moves the cursor there. Every
// repaint draws the shape list of draw.js, which the PNG and SVG exports draw too.
import { scaleLinear } from 'd3-scale';
import { colourScale } from './colour.js';
import { asMatrix, valueAt, matrixBitmap } from './matrix.js';
import { paint, sizedCanvas, textWidth, clip, titledPicture, followWidth, chartFigure } from './draw.js';
import { gridMove, KEYS_HINT } from './keys.js';
import { readout } from './readout.js';
import { shapesExportBar, fileName, jsonNumbers } from './export.js';
import { timed } from '../timing.js';

const LABEL_MIN = 10; // px per cell from which every row and column is labelled
const GAP_MIN = 8; // px per cell from which cells are drawn apart (1 px gaps), values in them
const WINDOW = 24; // cells per side of the focus window
const WINDOW_CELL = 20; // px per cell in the focus window
const LABEL_SIZE = 11;
const SIN40 = Math.sin((40 * Math.PI) / 180);

/** Integer ticks of 0..count-1 about `every` px apart at `cell` px per index. */
function indexTicks(count, cell, every) {
  return scaleLinear()
    .domain([0, count - 1])
    .ticks(Math.max(1, Math.floor((count * cell) / every)))
    .filter((t) => Number.isInteger(t));
}

/**
 * values: number[][] or a matrix { data, offset, n, m } (matrix.js). Options:
 *   rowLabels, colLabels  the rows' and columns' names (default: their indices)
 *   domain                [lo, hi] (Blues) or [lo, mid, hi] (coolwarm); default [0, 1]
 *   masked(i, j)          cells drawn hatched and read out as masked
 *   detail(i, j)          the read-out of a cell (default "row → column: value")
 *   title                 the caption (and the exported picture's title)
 *   cell                  px per cell wanted (34); maxWidth / maxHeight bound the matrix (560)
 *   showValues            print each value in its cell (default: up to 12 columns)
 *   xLabel, yLabel, colourBar
 *   readout               a shared read-out (readout.js); default: the figure's own
 *   json()                the JSON export (default: title, labels, values and masked cells)
 *   name                  the exported files' name (default: from the title)
 * Returns the <figure>; fig.readout is its read-out.
 */
export function heatmap(values, opts = {}) {
  const x = asMatrix(values);
  const { n, m } = x;
  const {
    rowLabels,
    colLabels,
    domain = [0, 1],
    masked,
    detail,
    title = '',
    cell: wanted = 34,
    maxWidth = 560,
    maxHeight = 560,
    showValues = m <= 12,
    xLabel = '',
    yLabel = '',
    colourBar = false,
  } = opts;
  const scale = colourScale(domain);
  const rowName = (i) => (rowLabels ? rowLabels[i] : String(i));
  const colName = (j) => (colLabels ? colLabels[j] : String(j));

  // ---- the layout (CSS px), for the width available (a phone's column, or the chart's own) ----
  const widest = (ticks, text) => Math.max(0, ...ticks.map((t) => textWidth(text(t), LABEL_SIZE)));
  const allRows = [...Array(n).keys()],
    allCols = [...Array(m).keys()];
  const right = colourBar ? 64 : 8;
  const yLabelRoom = yLabel ? 20 : 0;
  /** Where everything goes when the chart may be `available` px wide. */
  function geometry(available) {
    const fit = (ox) => Math.min(wanted, Math.min(maxWidth, available - ox - right) / m, maxHeight / n);
    // with every label, if the cells are large enough for them; else index ticks and a focus window
    const labelledLeft = Math.max(28, yLabelRoom + widest(allRows, (i) => clip(rowName(i))) + 10);
    let labelled = fit(labelledLeft) >= LABEL_MIN;
    const rowText = (i) => (labelled ? clip(rowName(i)) : String(i));
    const colText = (j) => (labelled ? clip(colName(j)) : String(j));
    const ox = labelled ? labelledLeft : Math.max(28, yLabelRoom + textWidth(String(n - 1), LABEL_SIZE) + 12);
    const cell = Math.max(fit(ox), 0.05);
    labelled &&= cell >= LABEL_MIN;
    const W = m * cell,
      H = n * cell;
    const rowTicks = labelled ? allRows : indexTicks(n, cell, 28);
    const colTicks = labelled ? allCols : indexTicks(m, cell, 48);
    const oy = 8;
    const colRoom = labelled ? widest(colTicks, colText) * SIN40 + 16 : 22;
    const overviewBottom = oy + H + colRoom + (xLabel ? 20 : 0);
    const g = {
      cell,
      labelled,
      apart: cell >= GAP_MIN,
      windowed: !labelled,
      W,
      H,
      ox,
      oy,
      colRoom,
      rowTicks,
      colTicks,
      rowText,
      colText,
    };
    g.width = Math.ceil(ox + W + right);
    g.height = Math.ceil(overviewBottom);
    if (g.windowed) {
      // the focus window: R x C cells around the cursor, labelled with every name
      g.wx = labelledLeft - yLabelRoom;
      g.C = Math.max(1, Math.min(WINDOW, m, Math.floor((available - g.wx - 8) / WINDOW_CELL)));
      g.R = Math.min(WINDOW, n, Math.max(g.C, 12));
      g.wy = overviewBottom + 26;
      g.width = Math.ceil(Math.max(g.width, g.wx + g.C * WINDOW_CELL + 8));
      g.height = Math.ceil(g.wy + g.R * WINDOW_CELL + widest(allCols, (j) => clip(colName(j))) * SIN40 + 16);
    }
    return g;
  }
  let g = geometry(Infinity);

  // a cell's colour (a step of the scale's table); the matrix as one picture at the screen's
  // density, made once per size
  const colourOf = (i, j) => scale.css(valueAt(x, i, j));
  const bitmaps = new Map(); // "width height" -> bitmap
  const bitmapOf = ({ W, H }) => {
    const dpr = window.devicePixelRatio || 1;
    const size = [Math.min(m, Math.ceil(W * dpr)), Math.min(n, Math.ceil(H * dpr))];
    if (!bitmaps.has(String(size)))
      bitmaps.set(String(size), matrixBitmap(x, scale, { width: size[0], height: size[1], masked }));
    return bitmaps.get(String(size));
  };

  const label = title || `${n} by ${m} heat map`;
  const { fig, wrap, canvas } = chartFigure('heatmap', 'heat map', `${label}: ${n} rows by ${m} columns; ${KEYS_HINT}`);
  fig.dataset.rows = n;
  fig.dataset.cols = m;
  fig.dataset.cursor = '0,0';
  let ctx = null;
  /** Sizes the canvas for the layout g; data-cells says where cell (i, j) is, for tests and tools. */
  const fitCanvas = () => {
    canvas.dataset.cells = `${g.ox} ${g.oy} ${g.cell} ${g.width}`;
    ctx = sizedCanvas(canvas, g.width, g.height);
  };
  fitCanvas();
  const out =
    opts.readout ?? readout(`Hover a cell, or focus the map (${KEYS_HINT}), to see how a value was computed.`);
  fig.readout = out;

  const state = { at: [0, 0], focused: false, hover: null, win: [0, 0] };
  const isMasked = (i, j) => Boolean(masked?.(i, j));
  const read = (i, j) =>
    detail ? detail(i, j) : `${rowName(i)} → ${colName(j)}: ${isMasked(i, j) ? 'masked' : valueAt(x, i, j).toFixed(4)}`;

  // ---- shapes ----
  function cellShapes(shapes, i, j, px, py, size, gap, withValue) {
    if (isMasked(i, j)) shapes.push({ kind: 'hatch', x: px, y: py, w: size - gap, h: size - gap });
    else
      shapes.push({
        kind: 'rect',
        x: px,
        y: py,
        w: size - gap,
        h: size - gap,
        fill: colourOf(i, j),
      });
    if (withValue) {
      const v = valueAt(x, i, j);
      shapes.push({
        kind: 'text',
        x: px + (size - gap) / 2,
        y: py + (size - gap) / 2,
        text: isMasked(i, j) ? '×' : v.toFixed(2),
        size: Math.min(11, size / 3.2),
        anchor: 'middle',
        fill: !isMasked(i, j) && scale.dark(v) ? '#fff' : '#222',
      });
    }
  }

  function overviewShapes(shapes) {
    const { cell, labelled, ox, oy, W, H, colRoom } = g;
    if (g.apart) {
      const values = showValues && cell >= 20;
      for (let i = 0; i < n; i++)
        for (let j = 0; j < m; j++) cellShapes(shapes, i, j, ox + j * cell, oy + i * cell, cell, 1, values);
    } else
      shapes.push({
        kind: 'image',
        x: ox,
        y: oy,
        w: W,
        h: H,
        bitmap: bitmapOf(g),
        cellCount: n * m,
        cells: () => {
          const list = [];
          for (let i = 0; i < n; i++)
            for (let j = 0; j < m; j++) cellShapes(list, i, j, ox + j * cell, oy + i * cell, cell, 0, false);
          return list;
        },
      });
    for (const i of g.rowTicks) {
      const y = oy + (i + 0.5) * cell;
      shapes.push({ kind: 'text', x: ox - 6, y, text: g.rowText(i), size: LABEL_SIZE, anchor: 'end' });
      if (!labelled) shapes.push({ kind: 'line', x1: ox - 4, y1: y, x2: ox, y2: y, stroke: '#444' });
    }
    for (const j of g.colTicks) {
      const cx = ox + (j + 0.5) * cell;
      if (labelled)
        shapes.push({
          kind: 'text',
          x: cx,
          y: oy + H + 8,
          text: g.colText(j),
          size: LABEL_SIZE,
          anchor: 'end',
          rotate: -40,
        });
      else {
        shapes.push({ kind: 'line', x1: cx, y1: oy + H, x2: cx, y2: oy + H + 4, stroke: '#444' });
        shapes.push({ kind: 'text', x: cx, y: oy + H + 12, text: g.colText(j), size: LABEL_SIZE, anchor: 'middle' });
      }
    }
    if (xLabel)
      shapes.push({ kind: 'text', x: ox + W / 2, y: oy + H + colRoom + 8, text: xLabel, size: 12, anchor: 'middle' });
    if (yLabel)
      shapes.push({ kind: 'text', x: 10, y: oy + H / 2, text: yLabel, size: 12, anchor: 'middle', rotate: -90 });
    if (colourBar) {
      const bx = ox + W + 12;
      shapes.push({ kind: 'gradient', x: bx, y: oy, w: 12, h: H, stops: scale.stops(10), className: 'colourbar' });
      const [lo, hi] = [domain[0], domain.at(-1)];
      const y = scaleLinear()
        .domain([lo, hi])
        .range([oy + H, oy]);
      for (const t of y.ticks(5)) {
        shapes.push({ kind: 'line', x1: bx + 12, y1: y(t), x2: bx + 16, y2: y(t), stroke: '#444' });
        shapes.push({ kind: 'text', x: bx + 19, y: y(t), text: String(t), size: LABEL_SIZE });
      }
    }
  }

  function windowShapes(shapes) {
    const { cell, ox, oy, wx, wy, R, C } = g;
    const [r0, c0] = state.win;
    shapes.push({
      kind: 'text',
      x: 4,
      y: wy - 13,
      text: `Around the cursor: rows ${r0}–${r0 + R - 1}, columns ${c0}–${c0 + C - 1}`,
      size: 12,
    });
    for (let a = 0; a < R; a++)
      for (let b = 0; b < C; b++)
        cellShapes(shapes, r0 + a, c0 + b, wx + b * WINDOW_CELL, wy + a * WINDOW_CELL, WINDOW_CELL, 1, false);
    for (let a = 0; a < R; a++)
      shapes.push({
        kind: 'text',
        x: wx - 6,
        y: wy + (a + 0.5) * WINDOW_CELL,
        text: clip(rowName(r0 + a)),
        size: LABEL_SIZE,
        anchor: 'end',
      });
    for (let b = 0; b < C; b++)
      shapes.push({
        kind: 'text',
        x: wx + (b + 0.5) * WINDOW_CELL,
        y: wy + R * WINDOW_CELL + 8,
        text: clip(colName(c0 + b)),
        size: LABEL_SIZE,
        anchor: 'end',
        rotate: -40,
      });
    // where the window is on the matrix: red in white
    const frame = { kind: 'rect', x: ox + c0 * cell, y: oy + r0 * cell, w: C * cell, h: R * cell };
    shapes.push({ ...frame, stroke: '#fff', lineWidth: 3 }, { ...frame, stroke: '#d62728', lineWidth: 1.5 });
  }

  /** What is drawn whatever the cursor: the exports draw this. */
  const staticShapes = () => {
    const shapes = [];
    overviewShapes(shapes);
    if (g.windowed) windowShapes(shapes);
    return shapes;
  };

  /** A cell's outline: 2 px black in 1 px of white, at least 8 px so that it shows on small cells. */
  function outline(shapes, cx, cy, side, dashed) {
    const s = Math.max(side, 8);
    const r = { kind: 'rect', x: cx - s / 2, y: cy - s / 2, w: s, h: s };
    shapes.push(
      { ...r, stroke: '#fff', lineWidth: 4 },
      { ...r, stroke: '#000', lineWidth: 2, dash: dashed ? [3, 2] : null },
    );
  }
  function marks(shapes, [i, j], dashed) {
    const { cell, ox, oy, wx, wy, R, C } = g;
    outline(shapes, ox + (j + 0.5) * cell, oy + (i + 0.5) * cell, cell, dashed);
    const [r0, c0] = state.win;
    if (g.windowed && i >= r0 && i < r0 + R && j >= c0 && j < c0 + C)
      outline(shapes, wx + (j - c0 + 0.5) * WINDOW_CELL, wy + (i - r0 + 0.5) * WINDOW_CELL, WINDOW_CELL, dashed);
  }

  function repaint() {
    timed('heat map paint', () => {
      const shapes = staticShapes();
      if (state.hover) marks(shapes, state.hover, true);
      if (state.focused) marks(shapes, state.at, false);
      ctx.clearRect(0, 0, g.width, g.height);
      paint(ctx, shapes);
    });
  }
  let frame = 0;
  const schedule = () => {
    frame ||= requestAnimationFrame(() => {
      frame = 0;
      repaint();
    });
  };

  // ---- interaction ----
  /** The cell under a pointer event: [i, j], or null. */
  function under(e) {
    const { cell, ox, oy, wx, wy, R, C } = g;
    const r = canvas.getBoundingClientRect();
    const px = ((e.clientX - r.left) * g.width) / r.width,
      py = ((e.clientY - r.top) * g.height) / r.height;
    const inside = (v, lo, count, size) => v >= lo && v < lo + count * size;
    if (inside(px, ox, m, cell) && inside(py, oy, n, cell))
      return [Math.floor((py - oy) / cell), Math.floor((px - ox) / cell)];
    if (g.windowed && inside(px, wx, C, WINDOW_CELL) && inside(py, wy, R, WINDOW_CELL))
      return [state.win[0] + Math.floor((py - wy) / WINDOW_CELL), state.win[1] + Math.floor((px - wx) / WINDOW_CELL)];
    return null;
  }
  /** Moves the window the least that puts (i, j) inside it. */
  function follow([i, j]) {
    const [r0, c0] = state.win;
    const shift = (v, lo, size, count) =>
      Math.max(0, Math.min(count - size, v < lo ? v : v >= lo + size ? v - size + 1 : lo));
    state.win = [shift(i, r0, g.R, n), shift(j, c0, g.C, m)];
    fig.dataset.window = state.win.join(',');
  }
  function moveCursor(to) {
    state.at = to;
    fig.dataset.cursor = to.join(',');
    if (g.windowed) follow(to);
    out.say(read(...to));
    repaint();
  }
  canvas.addEventListener('mousemove', (e) => {
    const c = under(e);
    if (String(c) === String(state.hover)) return;
    state.hover = c;
    if (c) out.say(read(...c));
    schedule();
  });
  canvas.addEventListener('mouseleave', () => {
    state.hover = null;
    schedule();
  });
  canvas.addEventListener('mousedown', (e) => {
    const c = under(e);
    if (c) moveCursor(c);
  });
  canvas.addEventListener('focus', () => {
    state.focused = true;
    moveCursor(state.at);
  });
  canvas.addEventListener('blur', () => {
    state.focused = false;
    repaint();
  });
  canvas.addEventListener('keydown', (e) => {
    const to = gridMove(e, state.at[0], state.at[1], n, m);
    if (!to) return;
    e.preventDefault();
    moveCursor(to);
  });
  if (g.windowed) follow([0, 0]);
  repaint();
  // laid out again, for its column, when the chart is narrower than its own width (a phone)
  followWidth(wrap, (columnWidth) => {
    const next = geometry(Math.max(columnWidth, 200));
    if (next.width === g.width && next.height === g.height && next.cell === g.cell) return;
    g = next;
    fitCanvas();
    if (g.windowed) follow(state.at);
    repaint();
  });

  // ---- export ----
  const exported = () => titledPicture(staticShapes(), g.width, g.height, title);
  const json =
    opts.json ??
    (() => {
      const cells = [];
      if (masked) for (let i = 0; i < n; i++) for (let j = 0; j < m; j++) if (isMasked(i, j)) cells.push([i, j]);
      return {
        title,
        rows: rowLabels ?? null,
        columns: colLabels ?? null,
        values: Array.from({ length: n }, (_, i) =>
          jsonNumbers(x.data.slice(x.offset + i * m, x.offset + (i + 1) * m)),
        ),
        ...(masked ? { masked: cells } : {}),
      };
    });
  const bar = shapesExportBar({
    what: 'heat map',
    name: () => opts.name ?? fileName(fig, title, 'heatmap'),
    title,
    exported,
    json,
  });

  fig.append(wrap);
  if (title) {
    const c = document.createElement('figcaption');
    c.textContent = title;
    fig.append(c);
  }
  fig.append(bar);
  if (!opts.readout) fig.append(out.el);
  return fig;
}
