// Plots with d3 (d3-selection, d3-scale, d3-scale-chromatic, d3-axis, d3-drag), bundled by Vite.
// heatmap: small matrices as SVG cells (hover/focus shows how a value was computed); bigHeatmap:
// large matrices on a canvas with axes and a colour bar; scatter: the 2-D picture. Each heat map
// is one tab stop, and the arrow keys move inside it.
import { select } from 'd3-selection';
import { scaleBand, scaleLinear, scaleSequential, scaleDiverging } from 'd3-scale';
import { interpolateBlues, interpolateRdBu } from 'd3-scale-chromatic';
import { axisBottom, axisLeft, axisRight } from 'd3-axis';
import { drag } from 'd3-drag';

/** Matplotlib's "coolwarm" is a blue-white-red diverging map: RdBu reversed is its close twin. */
const coolwarm = (t) => interpolateRdBu(1 - t);

/**
 * The cell a key moves to in an (n, m) grid from (i, j), or null for a key that does not move:
 * arrows one cell (with Shift ten), Home / End the row's first / last cell, PageUp / PageDown ten
 * rows. Shared by both heat maps, so they answer the same keys.
 */
function gridMove(e, i, j, n, m) {
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

const KEYS_HINT = 'arrow keys move (Shift: 10 cells), Home/End, PageUp/PageDown';

/**
 * values: number[][]; options: rowLabels, colLabels, domain ([0, 1]), masked(i, j) -> bool,
 * detail(i, j) -> text shown on hover/focus, title, cell (px), showValues, info (a shared
 * readout element). Keyboard: the heat map is one tab stop (an ARIA grid with a roving
 * tabindex); the arrow keys move the focused cell and the readout follows it.
 * Returns the root element (a <figure>).
 */
export function heatmap(values, opts = {}) {
  const n = values.length,
    m = values[0].length;
  const {
    rowLabels = [...Array(n).keys()].map(String),
    colLabels = [...Array(m).keys()].map(String),
    domain = [0, 1],
    masked = () => false,
    detail,
    title = '',
    cell = 34,
    showValues = m <= 12,
  } = opts;
  const margin = { top: 8, right: 8, bottom: 46, left: 64 };
  const width = m * cell,
    height = n * cell;
  const fig = document.createElement('figure');
  fig.className = 'heatmap';
  fig.dataset.rows = n;
  fig.dataset.cols = m;
  const color = scaleSequential(interpolateBlues).domain(domain);
  const x = scaleBand()
    .domain(colLabels.map((_, j) => j))
    .range([0, width]);
  const y = scaleBand()
    .domain(rowLabels.map((_, i) => i))
    .range([0, height]);
  const label = title || `${n} by ${m} heat map`;
  const svg = select(fig)
    .append('svg')
    .attr('viewBox', `0 0 ${width + margin.left + margin.right} ${height + margin.top + margin.bottom}`)
    .attr('width', width + margin.left + margin.right)
    .attr('role', 'group')
    .attr('aria-label', label);
  svg
    .append('defs')
    .append('pattern')
    .attr('id', 'hatch')
    .attr('width', 6)
    .attr('height', 6)
    .attr('patternUnits', 'userSpaceOnUse')
    .attr('patternTransform', 'rotate(45)')
    .call((p) => {
      p.append('rect').attr('width', 6).attr('height', 6).attr('fill', '#eee');
      p.append('line')
        .attr('x1', 0)
        .attr('y1', 0)
        .attr('x2', 0)
        .attr('y2', 6)
        .attr('stroke', '#999')
        .attr('stroke-width', 2);
    });
  const g = svg.append('g').attr('transform', `translate(${margin.left},${margin.top})`);
  const info = opts.info ?? document.createElement('p');
  if (!opts.info) {
    info.className = 'hover';
    info.setAttribute('aria-live', 'polite');
    info.textContent = `Hover a cell, or focus the map (${KEYS_HINT}), to see how a value was computed.`;
  }
  const show = (d) => {
    info.textContent = detail ? detail(d.i, d.j) : `${rowLabels[d.i]} → ${colLabels[d.j]}: ${d.v.toFixed(4)}`;
  };
  // rows of cells inside an ARIA grid; only the current cell is in the tab order
  const grid = g
    .append('g')
    .attr('class', 'grid')
    .attr('role', 'grid')
    .attr('aria-label', `${label}: ${KEYS_HINT}`)
    .attr('aria-rowcount', n)
    .attr('aria-colcount', m);
  const cells = grid
    .selectAll('g.row')
    .data(values.map((r, i) => r.map((v, j) => ({ i, j, v, masked: masked(i, j) }))))
    .join('g')
    .attr('class', 'row')
    .attr('role', 'row')
    .selectAll('g.cell')
    .data((r) => r)
    .join('g')
    .attr('class', 'cell')
    .attr('role', 'gridcell')
    .attr('transform', (d) => `translate(${x(d.j)},${y(d.i)})`)
    .attr('tabindex', (d) => (d.i === 0 && d.j === 0 ? 0 : -1))
    .attr('data-i', (d) => d.i)
    .attr('data-j', (d) => d.j)
    .attr('data-value', (d) => d.v)
    .attr('data-masked', (d) => (d.masked ? 'true' : null))
    .attr('aria-label', (d) => `${rowLabels[d.i]} to ${colLabels[d.j]}: ${d.masked ? 'masked' : d.v.toFixed(4)}`)
    .on('mouseenter', (_, d) => show(d))
    .on('focus', (e, d) => {
      cells.attr('tabindex', -1);
      e.currentTarget.setAttribute('tabindex', 0);
      show(d);
    });
  grid.on('keydown', (e) => {
    const d = select(e.target).datum();
    const to = d && gridMove(e, d.i, d.j, n, m);
    if (!to) return;
    e.preventDefault();
    cells
      .filter((c) => c.i === to[0] && c.j === to[1])
      .node()
      .focus();
  });
  cells
    .append('rect')
    .attr('width', x.bandwidth() - 1)
    .attr('height', y.bandwidth() - 1)
    .attr('fill', (d) => (d.masked ? 'url(#hatch)' : color(d.v)));
  if (showValues) {
    cells
      .append('text')
      .attr('x', x.bandwidth() / 2)
      .attr('y', y.bandwidth() / 2 + 4)
      .attr('text-anchor', 'middle')
      .attr('font-size', Math.min(11, cell / 3.2))
      .attr('fill', (d) => (!d.masked && (d.v - domain[0]) / (domain[1] - domain[0]) > 0.55 ? '#fff' : '#222'))
      .text((d) => (d.masked ? '×' : d.v.toFixed(2)));
  }
  // the axes repeat what each cell's label says: hidden from assistive technology
  g.append('g')
    .attr('aria-hidden', 'true')
    .attr('transform', `translate(0,${height})`)
    .call(
      axisBottom(x)
        .tickFormat((j) => colLabels[j])
        .tickSizeOuter(0),
    )
    .selectAll('text')
    .attr('transform', 'rotate(-40)')
    .attr('text-anchor', 'end');
  g.append('g')
    .attr('aria-hidden', 'true')
    .call(
      axisLeft(y)
        .tickFormat((i) => rowLabels[i])
        .tickSizeOuter(0),
    );
  if (title) {
    const c = document.createElement('figcaption');
    c.textContent = title;
    fig.append(c);
  }
  if (!opts.info) fig.append(info);
  return fig;
}

/**
 * A large matrix (e.g. the positional encoding, max_length x d_model) on a canvas, with axes,
 * a diverging colour scale and a colour bar. Hover shows (row, column, value); so does the
 * keyboard: the canvas takes focus and the arrow keys move a cursor cell (gridMove).
 */
export function bigHeatmap(values, opts = {}) {
  const n = values.length,
    m = values[0].length;
  const { domain = [-1, 0, 1], title = '', xLabel = '', yLabel = '', maxWidth = 640 } = opts;
  const color = scaleDiverging(coolwarm).domain(domain);
  const px = Math.min(maxWidth / m, 480 / n, 12);
  const width = m * px,
    height = n * px;
  const margin = { top: 24, right: 70, bottom: 44, left: 60 };
  const fig = document.createElement('figure');
  fig.className = 'bigheatmap';
  fig.dataset.rows = n;
  fig.dataset.cols = m;
  const wrap = document.createElement('div');
  wrap.className = 'canvaswrap';
  wrap.style.position = 'relative';
  wrap.style.width = `${width + margin.left + margin.right}px`;
  const canvas = document.createElement('canvas');
  canvas.width = m;
  canvas.height = n;
  Object.assign(canvas.style, {
    position: 'absolute',
    left: `${margin.left}px`,
    top: `${margin.top}px`,
    width: `${width}px`,
    height: `${height}px`,
    imageRendering: 'pixelated',
  });
  const ctx = canvas.getContext('2d');
  const img = ctx.createImageData(m, n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < m; j++) {
      const c = parseRgb(color(values[i][j])),
        k = 4 * (i * m + j);
      img.data[k] = c[0];
      img.data[k + 1] = c[1];
      img.data[k + 2] = c[2];
      img.data[k + 3] = 255;
    }
  ctx.putImageData(img, 0, 0);
  const svg = select(wrap)
    .append('svg')
    .attr('width', width + margin.left + margin.right)
    .attr('height', height + margin.top + margin.bottom)
    .attr('role', 'img')
    .attr('aria-label', title);
  svg
    .append('text')
    .attr('x', margin.left + width / 2)
    .attr('y', 16)
    .attr('text-anchor', 'middle')
    .attr('font-size', 13)
    .text(title);
  const x = scaleLinear().domain([0, m]).range([0, width]);
  const y = scaleLinear().domain([0, n]).range([0, height]);
  svg
    .append('g')
    .attr('transform', `translate(${margin.left},${margin.top + height})`)
    .call(axisBottom(x).ticks(Math.min(8, m)));
  svg
    .append('g')
    .attr('transform', `translate(${margin.left},${margin.top})`)
    .call(axisLeft(y).ticks(Math.min(8, n)));
  svg
    .append('text')
    .attr('x', margin.left + width / 2)
    .attr('y', margin.top + height + 38)
    .attr('text-anchor', 'middle')
    .attr('font-size', 12)
    .text(xLabel);
  svg
    .append('text')
    .attr('transform', `translate(14,${margin.top + height / 2}) rotate(-90)`)
    .attr('text-anchor', 'middle')
    .attr('font-size', 12)
    .text(yLabel);
  // colour bar
  const barH = height,
    bx = margin.left + width + 12;
  const grad = svg
    .append('defs')
    .append('linearGradient')
    .attr('id', `cbar-${Math.random().toString(36).slice(2)}`)
    .attr('x1', 0)
    .attr('x2', 0)
    .attr('y1', 1)
    .attr('y2', 0);
  for (let s = 0; s <= 10; s++)
    grad
      .append('stop')
      .attr('offset', s / 10)
      .attr('stop-color', coolwarm(s / 10));
  svg
    .append('rect')
    .attr('class', 'colorbar')
    .attr('x', bx)
    .attr('y', margin.top)
    .attr('width', 12)
    .attr('height', barH)
    .attr('fill', `url(#${grad.attr('id')})`);
  svg
    .append('g')
    .attr('transform', `translate(${bx + 12},${margin.top})`)
    .call(axisRight(scaleLinear().domain([domain[0], domain[2]]).range([barH, 0])).ticks(5));
  wrap.style.height = `${height + margin.top + margin.bottom}px`;
  wrap.prepend(canvas);
  const info = document.createElement('p');
  info.className = 'hover';
  info.setAttribute('aria-live', 'polite');
  info.textContent = `Hover the matrix, or focus it (${KEYS_HINT}), to read a value.`;
  const read = (i, j) => {
    info.textContent = opts.detail ? opts.detail(i, j) : `pos ${i}, i ${j}: ${values[i][j].toFixed(4)}`;
  };
  const under = (e) => {
    const r = canvas.getBoundingClientRect();
    return [
      Math.min(n - 1, Math.floor(((e.clientY - r.top) / r.height) * n)),
      Math.min(m - 1, Math.floor(((e.clientX - r.left) / r.width) * m)),
    ];
  };
  canvas.addEventListener('mousemove', (e) => read(...under(e)));
  // Keyboard: the canvas is one tab stop; a cursor cell (at least 8 px, so that it shows on
  // 1-2 px cells) moves with the keys (or to a clicked cell) and the readout is announced.
  const cursor = document.createElement('div');
  cursor.className = 'cursor';
  cursor.hidden = true;
  const side = Math.max(px, 8);
  Object.assign(cursor.style, { position: 'absolute', width: `${side}px`, height: `${side}px`, pointerEvents: 'none' });
  let at = [0, 0];
  const moveCursor = ([i, j]) => {
    at = [i, j];
    fig.dataset.cursor = `${i},${j}`;
    cursor.style.left = `${margin.left + (j + 0.5) * px - side / 2}px`;
    cursor.style.top = `${margin.top + (i + 0.5) * px - side / 2}px`;
    read(i, j);
  };
  canvas.tabIndex = 0;
  canvas.setAttribute('role', 'application');
  canvas.setAttribute('aria-roledescription', 'heat map');
  canvas.setAttribute('aria-label', `${title}: ${n} rows by ${m} columns; ${KEYS_HINT}`);
  canvas.addEventListener('focus', () => {
    cursor.hidden = false;
    moveCursor(at);
  });
  canvas.addEventListener('blur', () => {
    cursor.hidden = true;
  });
  canvas.addEventListener('mousedown', (e) => moveCursor(under(e)));
  canvas.addEventListener('keydown', (e) => {
    const to = gridMove(e, at[0], at[1], n, m);
    if (!to) return;
    e.preventDefault();
    moveCursor(to);
  });
  wrap.append(cursor);
  fig.append(wrap, info);
  return fig;
}

function parseRgb(s) {
  const m = s.match(/\d+/g);
  return m ? m.slice(0, 3).map(Number) : [0, 0, 0];
}

/**
 * A 2-D scatter on [0, 10]^2 of points {x, y, label, kind}. The point labelled `movable` can be
 * dragged (or moved with the arrow keys; Shift for bigger steps); onMove(x, y) is called and the
 * caller answers with fig.update(points, arrows), which moves the existing marks in place.
 */
export function scatter({ movable, onMove, title = '', size = 320 } = {}) {
  const margin = { top: 24, right: 16, bottom: 30, left: 34 };
  const fig = document.createElement('figure');
  fig.className = 'scatter';
  const svg = select(fig)
    .append('svg')
    .attr('viewBox', `0 0 ${size + margin.left + margin.right} ${size + margin.top + margin.bottom}`)
    .attr('width', size + margin.left + margin.right)
    .attr('role', 'img')
    .attr('aria-label', title);
  svg
    .append('text')
    .attr('x', margin.left + size / 2)
    .attr('y', 15)
    .attr('text-anchor', 'middle')
    .attr('font-size', 13)
    .text(title);
  const g = svg.append('g').attr('transform', `translate(${margin.left},${margin.top})`);
  const x = scaleLinear().domain([0, 10]).range([0, size]);
  const y = scaleLinear().domain([0, 10]).range([size, 0]);
  g.append('g').attr('transform', `translate(0,${size})`).call(axisBottom(x));
  g.append('g').call(axisLeft(y));
  const lines = g.append('g');
  const marks = g.append('g');
  const colors = { word: '#d62728', bank: '#1f77b4', after: '#7b3fa0', ghost: 'rgba(31,119,180,0.3)' };
  const clamp = (v) => Math.round(Math.max(0, Math.min(10, v)) * 100) / 100;
  let current = null;
  fig.update = (points, arrows = []) => {
    lines
      .selectAll('line')
      .data(arrows)
      .join('line')
      .attr('stroke', '#7b3fa0')
      .attr('stroke-dasharray', '4 3')
      .attr('x1', (a) => x(a.from[0]))
      .attr('y1', (a) => y(a.from[1]))
      .attr('x2', (a) => x(a.to[0]))
      .attr('y2', (a) => y(a.to[1]));
    const pts = marks
      .selectAll('g.pt')
      .data(points, (d) => d.label)
      .join((enter) => {
        const e = enter
          .append('g')
          .attr('class', (d) => `pt ${d.kind}`)
          .attr('data-label', (d) => d.label);
        e.append('circle')
          .attr('r', 6)
          .attr('fill', (d) => colors[d.kind] ?? '#333');
        e.append('text')
          .attr('x', 9)
          .attr('y', 4)
          .attr('font-size', 12)
          .text((d) => d.label);
        return e;
      });
    pts
      .attr('transform', (d) => `translate(${x(d.x)},${y(d.y)})`)
      .attr('data-x', (d) => d.x)
      .attr('data-y', (d) => d.y);
    current = points.find((d) => d.label === movable);
    const sel = pts.filter((d) => d.label === movable);
    if (sel.size() && !sel.attr('tabindex')) {
      sel
        .attr('tabindex', 0)
        .attr('cursor', 'grab')
        .attr('aria-label', `${movable}: drag, or use the arrow keys, to move it`)
        .call(
          drag()
            .subject(() => ({ x: x(current.x), y: y(current.y) }))
            .on('drag', (e) => onMove?.(clamp(x.invert(e.x)), clamp(y.invert(e.y)))),
        )
        .on('keydown', (e) => {
          const step = e.shiftKey ? 1 : 0.25;
          const d = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, step], ArrowDown: [0, -step] }[e.key];
          if (d) {
            e.preventDefault();
            onMove?.(clamp(current.x + d[0]), clamp(current.y + d[1]));
          }
        });
    }
  };
  return fig;
}

/**
 * Small multiples: rows x cols square heat maps of size n x n (e.g. every layer x head attention
 * pattern of a model), each a canvas, in one grid (colTicks: shorter column headings to show). `data` holds them back to back (rows, cols,
 * n, n), values in `domain` ([0, 1]). One tab stop, like the heat maps: the arrow keys (and
 * Home/End, PageUp/PageDown) move between the maps; the map focused or clicked is selected and
 * onSelect(i, j) is called; an aria-live line reads out which one and `describe(i, j)`.
 * Returns the <figure>; fig.select(i, j) selects from code.
 */
export function heatmapGrid(
  data,
  { rows, cols, n, rowLabels, colLabels, colTicks = colLabels, onSelect, describe, title = '', domain = [0, 1] },
) {
  const fig = document.createElement('figure');
  fig.className = 'heatmapgrid';
  fig.dataset.rows = rows;
  fig.dataset.cols = cols;
  fig.style.setProperty('--cols', cols);
  const color = scaleSequential(interpolateBlues).domain(domain);
  const grid = document.createElement('div');
  grid.className = 'grid';
  grid.setAttribute('role', 'grid');
  grid.setAttribute('aria-label', `${title}: ${rows} by ${cols} heat maps; ${KEYS_HINT}`);
  const corner = document.createElement('span');
  corner.setAttribute('aria-hidden', 'true');
  grid.append(
    corner,
    ...colTicks.map((l) => Object.assign(document.createElement('span'), { className: 'collabel', textContent: l })),
  );
  grid.querySelectorAll('.collabel').forEach((e) => e.setAttribute('aria-hidden', 'true'));
  const cells = [];
  for (let i = 0; i < rows; i++) {
    const row = document.createElement('div');
    row.setAttribute('role', 'row');
    row.className = 'row';
    const label = document.createElement('span');
    label.className = 'rowlabel';
    label.setAttribute('aria-hidden', 'true');
    label.textContent = rowLabels[i];
    row.append(label);
    for (let j = 0; j < cols; j++) {
      const cell = document.createElement('div');
      cell.className = 'map';
      cell.setAttribute('role', 'gridcell');
      cell.setAttribute('aria-label', `${rowLabels[i]}, ${colLabels[j]}`);
      cell.setAttribute('aria-selected', 'false');
      cell.tabIndex = i === 0 && j === 0 ? 0 : -1;
      cell.dataset.i = i;
      cell.dataset.j = j;
      const canvas = document.createElement('canvas');
      canvas.width = n;
      canvas.height = n;
      const ctx = canvas.getContext('2d');
      const img = ctx.createImageData(n, n);
      const offset = (i * cols + j) * n * n;
      for (let k = 0; k < n * n; k++) {
        const c = parseRgb(color(data[offset + k]));
        img.data.set([c[0], c[1], c[2], 255], 4 * k);
      }
      ctx.putImageData(img, 0, 0);
      cell.append(canvas);
      row.append(cell);
      cells.push(cell);
    }
    grid.append(row);
  }
  const info = document.createElement('p');
  info.className = 'hover';
  info.setAttribute('aria-live', 'polite');
  const at = (i, j) => cells[i * cols + j];
  fig.select = (i, j) => {
    for (const c of cells) {
      c.setAttribute('aria-selected', 'false');
      c.tabIndex = -1;
    }
    at(i, j).setAttribute('aria-selected', 'true');
    at(i, j).tabIndex = 0;
    fig.dataset.selected = `${i},${j}`;
    info.textContent = `${rowLabels[i]}, ${colLabels[j]}${describe ? `: ${describe(i, j)}` : ''}`;
    onSelect?.(i, j);
  };
  grid.addEventListener('focusin', (e) => {
    const cell = e.target.closest('.map');
    if (cell && cell.getAttribute('aria-selected') !== 'true')
      fig.select(Number(cell.dataset.i), Number(cell.dataset.j));
  });
  grid.addEventListener('click', (e) => e.target.closest('.map')?.focus());
  grid.addEventListener('keydown', (e) => {
    const cell = e.target.closest('.map');
    const to = cell && gridMove(e, Number(cell.dataset.i), Number(cell.dataset.j), rows, cols);
    if (!to) return;
    e.preventDefault();
    at(...to).focus();
  });
  if (title) {
    const c = document.createElement('figcaption');
    c.textContent = title;
    fig.append(c);
  }
  fig.prepend(grid);
  fig.append(info);
  return fig;
}

/**
 * A line plot of `values` over the points `xLabels` (e.g. a token's hidden state through the
 * layers). One tab stop: the arrow keys (Home/End) move a cursor point and an aria-live line
 * reads it out (`detail(k)`, else the label and the value); hover does the same.
 */
export function linePlot(values, { xLabels, title = '', yLabel = '', domain, detail, width = 300, height = 170 }) {
  const margin = { top: 22, right: 12, bottom: 34, left: 46 };
  const m = values.length;
  const fig = document.createElement('figure');
  fig.className = 'lineplot';
  fig.dataset.points = m;
  const lo = Math.min(...values),
    hi = Math.max(...values);
  const y = scaleLinear()
    .domain(domain ?? [Math.min(0, lo), hi + (hi - lo || 1) * 0.05])
    .nice()
    .range([height, 0]);
  const x = scaleLinear()
    .domain([0, Math.max(1, m - 1)])
    .range([0, width]);
  const svg = select(fig)
    .append('svg')
    .attr('viewBox', `0 0 ${width + margin.left + margin.right} ${height + margin.top + margin.bottom}`)
    .attr('width', width + margin.left + margin.right)
    .attr('tabindex', 0)
    .attr('role', 'application')
    .attr('aria-roledescription', 'line plot')
    .attr('aria-label', `${title}: ${m} points; arrow keys, Home/End move along them`);
  svg
    .append('text')
    .attr('x', margin.left + width / 2)
    .attr('y', 14)
    .attr('text-anchor', 'middle')
    .attr('font-size', 12)
    .text(title);
  const g = svg.append('g').attr('transform', `translate(${margin.left},${margin.top})`);
  g.append('g')
    .attr('aria-hidden', 'true')
    .attr('transform', `translate(0,${height})`)
    .call(
      axisBottom(x)
        .tickValues(xLabels.map((_, k) => k).filter((k) => m <= 13 || k % Math.ceil(m / 12) === 0))
        .tickFormat((k) => xLabels[k]),
    );
  g.append('g').attr('aria-hidden', 'true').call(axisLeft(y).ticks(5));
  svg
    .append('text')
    .attr('transform', `translate(12,${margin.top + height / 2}) rotate(-90)`)
    .attr('text-anchor', 'middle')
    .attr('font-size', 11)
    .text(yLabel);
  g.append('path')
    .attr('fill', 'none')
    .attr('stroke', '#1f77b4')
    .attr('stroke-width', 2)
    .attr('d', values.map((v, k) => `${k ? 'L' : 'M'}${x(k)},${y(v)}`).join(''));
  const dots = g
    .selectAll('circle')
    .data(values.map((v, k) => ({ v, k })))
    .join('circle')
    .attr('r', 3.5)
    .attr('fill', '#1f77b4')
    .attr('cx', (d) => x(d.k))
    .attr('cy', (d) => y(d.v));
  const cursor = g
    .append('circle')
    .attr('class', 'cursor')
    .attr('r', 6)
    .attr('fill', 'none')
    .attr('stroke', '#000')
    .attr('stroke-width', 2)
    .attr('visibility', 'hidden');
  const info = document.createElement('p');
  info.className = 'hover';
  info.setAttribute('aria-live', 'polite');
  info.textContent = `Hover the plot, or focus it (arrow keys), to read a point.`;
  let at = 0;
  const move = (k) => {
    at = k;
    fig.dataset.cursor = k;
    cursor.attr('cx', x(k)).attr('cy', y(values[k])).attr('visibility', 'visible');
    info.textContent = detail ? detail(k) : `${xLabels[k]}: ${values[k].toFixed(4)}`;
  };
  dots.on('mouseenter', (_, d) => move(d.k));
  svg.on('focus', () => move(at)).on('blur', () => cursor.attr('visibility', 'hidden'));
  svg.on('keydown', (e) => {
    const to = gridMove(e, 0, at, 1, m);
    if (!to) return;
    e.preventDefault();
    move(to[1]);
  });
  fig.append(info);
  return fig;
}
