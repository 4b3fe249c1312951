// A line plot of `values` over the points `xLabels` (e.g. a token's hidden state through the
// layers), in SVG (d3). One tab stop: the arrow keys (Home/End) move a cursor point and the
// read-out says it (`detail(k)`, else the label and the value); hover does the same. Exports:
// the SVG itself, a PNG of it, and the points as JSON.
import { select } from 'd3-selection';
import { scaleLinear } from 'd3-scale';
import { axisBottom, axisLeft } from 'd3-axis';
import { gridMove } from './keys.js';
import { readout } from './readout.js';
import { exportBar, fileName, jsonNumbers, svgFileOf, pngOfSvg } from './export.js';

export function linePlot(
  values,
  { xLabels, title = '', yLabel = '', domain, detail, width = 300, height = 170, name },
) {
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
  const out = readout('Hover the plot, or focus it (arrow keys), to read a point.');
  let at = 0;
  const move = (k) => {
    at = k;
    fig.dataset.cursor = k;
    cursor.attr('cx', x(k)).attr('cy', y(values[k])).attr('visibility', 'visible');
    out.say(detail ? detail(k) : `${xLabels[k]}: ${values[k].toFixed(4)}`);
  };
  dots.on('mouseenter', (_, d) => move(d.k));
  svg.on('focus', () => move(at)).on('blur', () => cursor.attr('visibility', 'hidden'));
  svg.on('keydown', (e) => {
    const to = gridMove(e, 0, at, 1, m);
    if (!to) return;
    e.preventDefault();
    move(to[1]);
  });
  const file = () => {
    const hidden = cursor.attr('visibility');
    cursor.attr('visibility', 'hidden');
    const text = svgFileOf(svg.node());
    cursor.attr('visibility', hidden);
    return text;
  };
  const size = [width + margin.left + margin.right, height + margin.top + margin.bottom];
  fig.append(
    exportBar({
      what: 'line plot',
      name: () => name ?? fileName(fig, title, 'line-plot'),
      svg: file,
      png: () => pngOfSvg(file(), ...size),
      json: () => ({ title, x: xLabels, y: jsonNumbers(values), yLabel }),
    }),
    out.el,
  );
  return fig;
}
