// The price schedule as bars: height is the price, colour the slot's rank within its day
// (cheapest third green, middle amber, dearest third red: the same words in the legend
// and in each bar's details), the current slot outlined and named in text, day markers and
// hour labels in the site's zone, details of a bar by tap (and every price in a list for
// screen readers), and the cheapest window of a chosen length tomorrow.

import { h, replace, uid } from '../ui/dom.js';
import { loadSiteClock, RequestCache } from '../state/energy-data.js';
import { formatNumber, formatTime } from '../ui/format.js';
import { cheapestWindow } from './price-window.js';
import { addPeriods, periodStart } from '../state/zone.js';
import type { GridAnswer, PriceSlot } from '../api/types.js';

const SVG = 'http://www.w3.org/2000/svg';

// A pricing schedule's slots carry price and rank; an import/export one's, import_price
// and import_rank (the page plots what the user pays).
function priceOf(slot: PriceSlot): number {
  return 'price' in slot ? slot.price : slot.import_price;
}

function rankOf(slot: PriceSlot): number {
  return 'rank' in slot ? slot.rank : slot.import_rank;
}

/** cheap / normal / dear from the rank among the slots of the same local day. */
export function band(rank: number, slotsThatDay: number): 'cheap' | 'normal' | 'dear' {
  const share = (rank - 1) / Math.max(1, slotsThatDay - 1);
  return share < 1 / 3 ? 'cheap' : share < 2 / 3 ? 'normal' : 'dear';
}

/** What every part of the card reads: the slots, the site's zone and the bars' scale. */
interface Scale {
  slots: PriceSlot[];
  zone: string;
  /** The time the card was drawn (ms). */
  t: number;
  first: number;
  last: number;
  top: number;
  height: number;
  perDay: Map<number, number>;
  /** ms → percent across the chart. */
  x: (ms: number) => number;
  time: (ms: number) => string;
  day: (ms: number) => string;
  price: (p: number) => string;
  dayOf: (slot: PriceSlot) => number;
}

function priceScale(slots: PriceSlot[], unit: string, zone: string, t: number): Scale {
  const first = Date.parse(slots[0]!.from);
  const last = Date.parse(slots[slots.length - 1]!.to);
  const span = last - first || 1;
  const prices = slots.map((s) => priceOf(s));
  const top = Math.max(0, ...prices);
  const bottom = Math.min(0, ...prices);
  const perDay = new Map<number, number>();
  const dayOf = (s: PriceSlot) => periodStart(zone, Date.parse(s.from), 'day');
  for (const s of slots) perDay.set(dayOf(s), (perDay.get(dayOf(s)) ?? 0) + 1);
  return {
    slots,
    zone,
    t,
    first,
    last,
    top,
    height: top - bottom || 1,
    perDay,
    x: (ms) => ((ms - first) / span) * 100,
    time: (ms) => new Date(ms).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', timeZone: zone }),
    day: (ms) => new Date(ms).toLocaleDateString(undefined, { weekday: 'short', timeZone: zone }),
    price: (p) => `${formatNumber(p, 4)} ${unit}`,
    dayOf,
  };
}

/** A slot in words: day, time span, price and its rank that day. */
function describe(scale: Scale, slot: PriceSlot): string {
  const { day, time, price } = scale;
  const rank = rankOf(slot);
  return `${day(Date.parse(slot.from))} ${time(Date.parse(slot.from))}–${time(Date.parse(slot.to))}: ${price(priceOf(slot))}${rank !== null ? `, rank ${rank} of ${scale.perDay.get(scale.dayOf(slot))} that day` : ''}`;
}

/** The bars, coloured by band, the current one outlined; a tap on one tells its price in `detail`. */
function drawBars(scale: Scale, detail: HTMLElement): { chart: SVGElement; current: PriceSlot | null } {
  const { x, t, top, height } = scale;
  const chart = svgEl('svg', { viewBox: '0 0 100 100', preserveAspectRatio: 'none', class: 'price-bars' });
  chart.setAttribute('aria-hidden', 'true');
  let current: PriceSlot | null = null;
  for (const slot of scale.slots) {
    const from = Date.parse(slot.from);
    const to = Date.parse(slot.to);
    const p = priceOf(slot);
    const rank = rankOf(slot);
    const isNow = from <= t && t < to;
    if (isNow) current = slot;
    const w = x(to) - x(from);
    chart.append(
      svgEl('rect', {
        x: x(from) + w * 0.1,
        width: w * 0.8,
        y: ((top - Math.max(p, 0)) / height) * 100,
        height: Math.max(1, (Math.abs(p) / height) * 100),
        class: `bar ${rank === null ? 'normal' : band(rank, scale.perDay.get(scale.dayOf(slot))!)}${isNow ? ' now' : ''}`,
      }),
    );
    const hit = svgEl('rect', { x: x(from), width: w, y: 0, height: 100, class: 'hit' });
    hit.addEventListener('click', () => {
      chart.querySelector('.hit.picked')?.classList.remove('picked');
      hit.classList.add('picked');
      detail.textContent = describe(scale, slot);
    });
    chart.append(hit);
  }
  return { chart, current };
}

/** Day markers (in `chart`) at each local midnight, and hour labels every 6 h, in the site's zone. */
function drawAxis(scale: Scale, chart: SVGElement): HTMLElement {
  const { x, first, last, zone } = scale;
  const axis = h('div', { class: 'price-axis', 'aria-hidden': 'true' });
  for (let hour = periodStart(zone, first, 'day'); hour < last; hour += 3_600_000) {
    if (hour < first) continue;
    const wall = new Date(hour).toLocaleTimeString('en-GB', { hour: '2-digit', hourCycle: 'h23', timeZone: zone });
    if (wall === '00') {
      chart.append(svgEl('line', { x1: x(hour), x2: x(hour), y1: 0, y2: 100, class: 'day-mark' }));
      axis.append(tick('tick day', x(hour), scale.day(hour)));
    } else if (Number(wall) % 6 === 0)
      // 06 and 18 give way on a phone (CSS), so labels never run into each other.
      axis.append(tick(Number(wall) % 12 === 0 ? 'tick' : 'tick minor', x(hour), scale.time(hour)));
  }
  return axis;
}

/** "Run for [n h]" and the cheapest window of that length tomorrow (else ahead), in words. */
function windowChoice(scale: Scale): HTMLElement[] {
  const { zone, t, slots, day, time, price } = scale;
  const windowLine = h('p', { class: 'cheapest-window', 'aria-live': 'polite' });
  const durationId = uid('window-hours');
  const duration = h(
    'select',
    { id: durationId },
    [1, 2, 3, 4, 6].map((n) => h('option', { value: n }, `${n} h`)),
  );
  const showWindow = () => {
    const todayStart = periodStart(zone, t, 'day');
    const tomorrow = addPeriods(zone, todayStart, 'day', 1);
    const after = addPeriods(zone, tomorrow, 'day', 1);
    const spans = slots.map((s) => ({ from: Date.parse(s.from), to: Date.parse(s.to), price: priceOf(s) }));
    const hours = Number(duration.value);
    const best = cheapestWindow(spans, hours * 60, tomorrow, after);
    const ahead = best ?? cheapestWindow(spans, hours * 60, Math.floor(t / 900_000) * 900_000, scale.last);
    windowLine.textContent = ahead
      ? `Cheapest ${hours} h ${best ? 'tomorrow' : 'ahead (no prices for tomorrow yet)'}: ${day(ahead.from)} ${time(ahead.from)}–${time(ahead.to)}, ${price(ahead.mean)} on average.`
      : `No ${hours} h stretch with known prices ahead.`;
  };
  duration.addEventListener('change', showWindow);
  showWindow();
  return [h('div', { class: 'chart-controls' }, h('label', { for: durationId }, 'Run for'), duration), windowLine];
}

/** The price now and the cheapest price ahead, in words. */
function priceNow(scale: Scale, nowSlot: PriceSlot | null): HTMLElement {
  const { time, price } = scale;
  const cheapest = scale.slots.filter((s) => Date.parse(s.to) > scale.t).sort((a, b) => priceOf(a) - priceOf(b))[0];
  return h(
    'p',
    { class: 'price-now' },
    nowSlot
      ? h(
          'span',
          {},
          'Now: ',
          h('strong', {}, price(priceOf(nowSlot))),
          ` (${time(Date.parse(nowSlot.from))}–${time(Date.parse(nowSlot.to))})`,
        )
      : 'No price for the current slot.',
    cheapest
      ? h('span', {}, ` · Cheapest ahead: ${price(priceOf(cheapest))} at ${time(Date.parse(cheapest.from))}`)
      : null,
  );
}

/** The bands' legend with the provider's name, and every price in a list (for screen readers too). */
function legendAndList(scale: Scale, provider: string): HTMLElement[] {
  return [
    h(
      'p',
      { class: 'legend' },
      h('span', { class: 'key cheap' }, 'cheapest third'),
      h('span', { class: 'key normal' }, 'middle'),
      h('span', { class: 'key dear' }, 'dearest third'),
      h('span', { class: 'key now' }, 'now'),
      ` · ${provider}`,
    ),
    h(
      'details',
      { class: 'price-table' },
      h('summary', {}, 'All prices'),
      h(
        'ul',
        {},
        scale.slots.map((s) => h('li', {}, describe(scale, s))),
      ),
    ),
  ];
}

/**
 * Mounts the price card: bars with day markers and hour labels, tap details, the cheapest
 * window. `cache` shares the /grid answer with the plan card.
 */
export async function mountPrices(
  container: HTMLElement,
  now: () => number = Date.now,
  cache = new RequestCache(),
): Promise<void> {
  let answer: GridAnswer;
  let zone: string;
  try {
    [answer, { zone }] = await Promise.all([cache.get<GridAnswer>('/grid'), loadSiteClock()]);
  } catch {
    replace(container, h('p', { class: 'hint' }, 'Prices could not be loaded.'));
    return;
  }
  const slots = answer.pricing?.slots ?? [];
  const notice = providerNotice(answer, now());
  if (!answer.pricing || slots.length === 0) {
    replace(
      container,
      notice,
      h(
        'p',
        { class: 'hint' },
        answer.provider === 'none'
          ? 'No price plugin is configured: add one (aWATTar, Tibber, Octopus, …) under Plugins to see the price schedule.'
          : `No prices from ${answer.provider} yet.`,
      ),
    );
    return;
  }
  const scale = priceScale(slots, answer.pricing.unit, zone, now());
  const detail = h('p', { class: 'hint bar-detail', 'aria-live': 'polite' }, 'Tap a bar for its price.');
  const { chart, current } = drawBars(scale, detail);
  const axis = drawAxis(scale, chart);
  // On a phone the bars keep a tappable width (CSS: --slots × 8 px) and scroll sideways,
  // opened at the current slot.
  const plot = h('div', { class: 'price-chart' }, chart, axis);
  plot.style.setProperty('--slots', String(slots.length));
  const scroller = h(
    'div',
    { class: 'price-scroll', tabindex: 0, role: 'region', 'aria-label': 'Price bars (scroll sideways)' },
    plot,
  );
  replace(
    container,
    notice,
    priceNow(scale, current),
    ...windowChoice(scale),
    scroller,
    detail,
    ...legendAndList(scale, answer.provider),
  );
  if (scroller.scrollWidth > scroller.clientWidth)
    scroller.scrollLeft = Math.max(0, (Math.min(100, Math.max(0, scale.x(scale.t))) / 100) * scroller.scrollWidth - 24);
}

/**
 * The provider's trouble in words, with the time of its last good data: the answer's
 * `status` (failed plugin, prices running out), or, from a service without it, prices that
 * end within the hour. null while the prices can be trusted.
 */
export function providerNotice(answer: GridAnswer, now: number): HTMLElement | null {
  const status = (
    answer as GridAnswer & { status?: { state: string; message: string | null; last_data: string | null } }
  ).status;
  let state = status?.state ?? 'ok';
  let message = status?.message ?? null;
  const lastData = status?.last_data ?? null;
  const slots = answer.pricing?.slots ?? [];
  if (!status && answer.provider !== 'none') {
    const end = slots.reduce((last, s) => Math.max(last, Date.parse(s.to)), -Infinity);
    if (end < now + 3_600_000) {
      state = 'stale';
      message =
        end === -Infinity
          ? `no prices from ${answer.provider} yet`
          : `prices end at ${formatTime(new Date(end).toISOString())}`;
    }
  }
  if (state === 'ok') return null;
  const what = state === 'failed' ? 'failing' : 'out of date';
  return h(
    'p',
    { class: 'message warn provider-status', role: 'status', 'data-state': state },
    h('strong', {}, `Prices from ${answer.provider} are ${what}`),
    `: ${(message ?? 'no reason given').replace(/\.+$/, '')}. `,
    lastData ? `Last good data ${formatTime(lastData)}.` : 'No good data received yet.',
    ' The prices below may be old or missing; the plugin card under Plugins says more.',
  );
}

/** An axis label at `left` percent (set through the CSSOM: the page's CSP refuses style attributes). */
function tick(className: string, left: number, text: string): HTMLElement {
  const edge = left < 5 ? ' start' : left > 95 ? ' end' : '';
  const span = h('span', { class: className + edge }, text);
  span.style.left = `${left}%`;
  return span;
}

function svgEl(tag: string, attrs: Record<string, string | number>): SVGElement {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}
