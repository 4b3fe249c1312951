// A 2-D scatter on [0, 10]^2 of points {x, y, label, kind}, in SVG (d3). The point labelled
// `movable` can be dragged (or moved with the arrow keys; Shift for bigger steps); onMove(x, y)
// is called and the caller answers with fig.update(points, arrows), which moves the existing
// marks in place. Exports: the SVG, a PNG of it, and the points and arrows as JSON.
import { select } from 'd3-selection';
import { scaleLinear } from 'd3-scale';
import { axisBottom, axisLeft } from 'd3-axis';
import { drag } from 'd3-drag';
import { exportBar, fileName, svgFileOf, pngOfSvg } from './export.js';

const COLOURS = { word: '#d62728', bank: '#1f77b4', after: '#7b3fa0', ghost: 'rgba(31,119,180,0.3)' };

export function scatter({ movable, onMove, title = '', size = 320, name } = {}) {
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
  const clamp = (v) => Math.round(Math.max(0, Math.min(10, v)) * 100) / 100;
  let current = null,
    shown = { points: [], arrows: [] };
  fig.update = (points, arrows = []) => {
    shown = { points, arrows };
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
          .attr('fill', (d) => COLOURS[d.kind] ?? '#333');
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
  const file = () => svgFileOf(svg.node());
  const side = [size + margin.left + margin.right, size + margin.top + margin.bottom];
  fig.append(
    exportBar({
      what: 'plot',
      name: () => name ?? fileName(fig, title, 'scatter'),
      svg: file,
      png: () => pngOfSvg(file(), ...side),
      json: () => ({ title, ...shown }),
    }),
  );
  return fig;
}
