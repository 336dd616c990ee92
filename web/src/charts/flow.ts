// The power-flow picture: PV, battery (with its state of charge), grid and home around a
// hub. Each line's direction follows the sign of its power and its width the size; the
// words beside each node say the same for those who do not read pictures.

import { formatFlow, formatNumber, formatQuantity, signWord } from '../ui/format.js';
import type { LiveStore } from '../state/live.js';

const SVG = 'http://www.w3.org/2000/svg';

function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | number> = {},
  text?: string,
): SVGElementTagNameMap[K] {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  if (text !== undefined) element.textContent = text;
  return element;
}

interface Node {
  id: 'pv' | 'grid' | 'battery' | 'home';
  label: string;
  x: number;
  y: number;
}

const NODES: Node[] = [
  { id: 'pv', label: 'Solar', x: 60, y: 60 },
  { id: 'grid', label: 'Grid', x: 260, y: 60 },
  { id: 'battery', label: 'Battery', x: 60, y: 200 },
  { id: 'home', label: 'Home', x: 260, y: 200 },
];
const HUB = { x: 160, y: 130 };

/** Watts → line width: 1.5 px at idle up to 9 px at 10 kW and above. */
function width(watts: number): number {
  return 1.5 + Math.min(1, Math.abs(watts) / 10000) * 7.5;
}

interface FlowPicture {
  picture: SVGSVGElement;
  lines: Map<string, SVGPathElement>;
  values: Map<string, SVGTextElement>;
  directions: Map<string, SVGTextElement>;
}

/** The lines, the hub and the nodes, with empty texts for each node's value and direction. */
function drawPicture(): FlowPicture {
  const picture = svg('svg', { viewBox: '0 0 320 260', class: 'flow', role: 'img', 'aria-labelledby': 'flow-summary' });
  const lines = new Map<string, SVGPathElement>();
  const values = new Map<string, SVGTextElement>();
  const directions = new Map<string, SVGTextElement>();
  for (const node of NODES) {
    const path = svg('path', {
      d: `M${node.x},${node.y} L${HUB.x},${HUB.y}`,
      class: 'flow-line',
      'data-node': node.id,
    });
    lines.set(node.id, path);
    picture.append(path);
  }
  picture.append(svg('circle', { cx: HUB.x, cy: HUB.y, r: 5, class: 'flow-hub' }));
  for (const node of NODES) {
    const group = svg('g', { class: `flow-node node-${node.id}` });
    group.append(svg('circle', { cx: node.x, cy: node.y, r: 30 }));
    group.append(svg('text', { x: node.x, y: node.y - 4, 'text-anchor': 'middle', class: 'flow-label' }, node.label));
    const value = svg('text', {
      x: node.x,
      y: node.y + 13,
      'text-anchor': 'middle',
      class: 'flow-value',
      'data-node': node.id,
    });
    values.set(node.id, value);
    group.append(value);
    // Below the circle: which way the power goes, in words (grid, battery).
    const direction = svg('text', {
      x: node.x,
      y: node.y + (node.y < HUB.y ? -38 : 46),
      'text-anchor': 'middle',
      class: 'flow-dir',
      'data-node': node.id,
    });
    directions.set(node.id, direction);
    group.append(direction);
    picture.append(group);
  }
  return { picture, lines, values, directions };
}

/** Each line's width and direction, each node's value and direction in words, and the summary. */
function renderFlow({ lines, values, directions }: FlowPicture, summary: HTMLElement, live: LiveStore): void {
  const pv = live.value('total/pv_power');
  const grid = live.value('total/grid_power');
  const battery = live.value('total/battery_power');
  const load = live.value('total/load_power');
  const soc = live.value('total/battery_state_of_charge');
  // Positive means power flowing from the node into the hub.
  const towardHub: Record<Node['id'], number | null> = {
    pv: typeof pv === 'number' ? pv : null,
    grid: typeof grid === 'number' ? grid : null,
    battery: typeof battery === 'number' ? -battery : null,
    home: typeof load === 'number' ? -load : null,
  };
  for (const node of NODES) {
    const watts = towardHub[node.id];
    const line = lines.get(node.id)!;
    line.setAttribute('stroke-width', String(width(watts ?? 0)));
    line.classList.toggle('unknown', watts === null);
    line.classList.toggle('idle', watts !== null && Math.abs(watts) < 10);
    line.classList.toggle('inward', watts !== null && watts >= 10);
    line.classList.toggle('outward', watts !== null && watts <= -10);
  }
  values.get('pv')!.textContent = typeof pv === 'number' ? formatQuantity(pv, 'W') : '—';
  values.get('grid')!.textContent = typeof grid === 'number' ? formatQuantity(Math.abs(grid), 'W') : '—';
  values.get('home')!.textContent = typeof load === 'number' ? formatQuantity(load, 'W') : '—';
  directions.get('grid')!.textContent = signWord('total/grid_power', grid) ?? '';
  directions.get('battery')!.textContent =
    typeof battery === 'number' && signWord('total/battery_power', battery)
      ? `${signWord('total/battery_power', battery)} ${formatQuantity(Math.abs(battery), 'W')}`
      : '';
  values.get('battery')!.textContent =
    typeof soc === 'number'
      ? `${formatNumber(soc, 0)} %`
      : typeof battery === 'number'
        ? formatQuantity(Math.abs(battery), 'W')
        : '—';
  // A long value is squeezed to the circle's width rather than spilling out of it.
  for (const text of values.values()) {
    if ((text.textContent ?? '').length > 6) {
      text.setAttribute('textLength', '50');
      text.setAttribute('lengthAdjust', 'spacingAndGlyphs');
    } else text.removeAttribute('textLength');
  }
  const parts = [
    `Solar ${typeof pv === 'number' ? formatQuantity(pv, 'W') : 'unknown'}`,
    `grid ${formatFlow('total/grid_power', grid, 'W')}`,
    `battery ${formatFlow('total/battery_power', battery, 'W')}${typeof soc === 'number' ? ` at ${formatNumber(soc, 0)} %` : ''}`,
    `home using ${typeof load === 'number' ? formatQuantity(load, 'W') : 'unknown'}`,
  ];
  summary.textContent = `${parts.join(', ')}.`;
}

export function mountPowerFlow(container: HTMLElement, live: LiveStore): () => void {
  const flow = drawPicture();
  const summary = document.createElement('p');
  summary.id = 'flow-summary';
  summary.className = 'flow-summary';
  container.replaceChildren(flow.picture, summary);

  const render = () => renderFlow(flow, summary, live);
  const topics = new Set([
    'total/pv_power',
    'total/grid_power',
    'total/battery_power',
    'total/load_power',
    'total/battery_state_of_charge',
  ]);
  render();
  return live.subscribe((changed) => {
    for (const topic of changed) {
      if (topics.has(topic)) return render();
    }
  });
}
