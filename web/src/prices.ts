// The price schedule as bars: height is the price, colour the slot's rank within its day
// (cheapest third green, middle amber, dearest third red: the same words in the legend
// and in each bar's title), the current slot outlined and named in text.

import { api } from './api.js';
import { h, replace } from './dom.js';
import { formatNumber } from './format.js';
import type { GridAnswer, PriceSlot } from './types.js';

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

function time(iso: string): string {
  return new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
}

export async function mountPrices(container: HTMLElement, now: () => number = Date.now): Promise<void> {
  let answer: GridAnswer;
  try {
    answer = await api<GridAnswer>('GET', '/grid');
  } catch {
    replace(container, h('p', { class: 'hint' }, 'Prices could not be loaded.'));
    return;
  }
  const slots = answer.pricing?.slots ?? [];
  if (!answer.pricing || slots.length === 0) {
    replace(
      container,
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
  const unit = answer.pricing.unit;
  const prices = slots.map((s) => priceOf(s));
  const top = Math.max(0, ...prices);
  const bottom = Math.min(0, ...prices);
  const span = top - bottom || 1;
  const perDay = new Map<string, number>();
  const dayOf = (s: PriceSlot) => new Date(s.from).toDateString();
  for (const s of slots) perDay.set(dayOf(s), (perDay.get(dayOf(s)) ?? 0) + 1);

  const chart = document.createElementNS(SVG, 'svg');
  chart.setAttribute('viewBox', `0 0 ${slots.length * 10} 100`);
  chart.setAttribute('preserveAspectRatio', 'none');
  chart.setAttribute('class', 'price-bars');
  chart.setAttribute('aria-hidden', 'true');
  const t = now();
  let current: PriceSlot | null = null;
  slots.forEach((slot, i) => {
    const price = priceOf(slot);
    const rank = rankOf(slot);
    const rect = document.createElementNS(SVG, 'rect');
    const y = ((top - Math.max(price, 0)) / span) * 100;
    rect.setAttribute('x', String(i * 10 + 1));
    rect.setAttribute('width', '8');
    rect.setAttribute('y', String(y));
    rect.setAttribute('height', String(Math.max(1, (Math.abs(price) / span) * 100)));
    const isNow = Date.parse(slot.from) <= t && t < Date.parse(slot.to);
    if (isNow) current = slot;
    rect.setAttribute(
      'class',
      `bar ${rank === null ? 'normal' : band(rank, perDay.get(dayOf(slot))!)}${isNow ? ' now' : ''}`,
    );
    const title = document.createElementNS(SVG, 'title');
    title.textContent = `${time(slot.from)}–${time(slot.to)}: ${formatNumber(price, 4)} ${unit}${rank !== null ? `, rank ${rank}` : ''}`;
    rect.append(title);
    chart.append(rect);
  });
  const cheapest = slots.filter((s) => Date.parse(s.to) > t).sort((a, b) => priceOf(a) - priceOf(b))[0];
  const nowSlot = current as PriceSlot | null;
  replace(
    container,
    h(
      'p',
      { class: 'price-now' },
      nowSlot
        ? h(
            'span',
            {},
            'Now: ',
            h('strong', {}, `${formatNumber(priceOf(nowSlot), 4)} ${unit}`),
            ` (${time(nowSlot.from)}–${time(nowSlot.to)})`,
          )
        : 'No price for the current slot.',
      cheapest
        ? h('span', {}, ` · Cheapest ahead: ${formatNumber(priceOf(cheapest), 4)} ${unit} at ${time(cheapest.from)}`)
        : null,
    ),
    chart,
    h(
      'div',
      { class: 'price-axis' },
      h(
        'span',
        {},
        `${new Date(slots[0]!.from).toLocaleDateString(undefined, { weekday: 'short' })} ${time(slots[0]!.from)}`,
      ),
      h('span', {}, `${time(slots[slots.length - 1]!.to)}`),
    ),
    h(
      'p',
      { class: 'legend' },
      h('span', { class: 'key cheap' }, 'cheapest third'),
      h('span', { class: 'key normal' }, 'middle'),
      h('span', { class: 'key dear' }, 'dearest third'),
      h('span', { class: 'key now' }, 'now'),
      ` · ${answer.provider}`,
    ),
  );
}
