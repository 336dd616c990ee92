import { parseAnswer, parseJson, type PriceSlot } from '@heliograph/plugins-sdk';
import { z } from 'zod';

const pageSchema = z.object({
  count: z.number().int(),
  next: z.string().nullable(),
  previous: z.string().nullable(),
  results: z.array(
    z.object({
      value_exc_vat: z.number(),
      value_inc_vat: z.number(),
      valid_from: z.iso.datetime({ offset: true }),
      // Null on tariffs whose rate holds until further notice; Agile rates always end.
      valid_to: z.iso.datetime({ offset: true }).nullable(),
      payment_method: z.string().nullable(),
    }),
  ),
});

export interface RatesPage {
  rates: Array<PriceSlot & { paymentMethod: string | null }>;
  /** The absolute URL of the next page, or null on the last one. */
  next: string | null;
}

/**
 * One page of `standard-unit-rates` in GBP per kWh (VAT included). Octopus lists the newest
 * rate first; `openEnd` closes a rate that has no `valid_to`.
 */
export function parseRatesPage(args: { body: string; source: string; openEnd: number; meanwhile: string }): RatesPage {
  const { body, source, openEnd, meanwhile } = args;
  const answer = { source, meanwhile };
  const page = parseAnswer({ ...answer, schema: pageSchema, input: parseJson({ ...answer, text: body }) });
  return {
    next: page.next,
    rates: page.results.map((rate) => ({
      start: Date.parse(rate.valid_from),
      end: rate.valid_to === null ? openEnd : Date.parse(rate.valid_to),
      price: Math.round(rate.value_inc_vat * 1e6) / 1e8,
      paymentMethod: rate.payment_method,
    })),
  };
}

/**
 * All pages' rates as one schedule, oldest first. Some tariffs list each period twice, for
 * direct debit and for other payment: the direct-debit rate is kept, as most customers pay so.
 */
export function mergeRates(rates: RatesPage['rates']): PriceSlot[] {
  const directDebit = rates.some((rate) => rate.paymentMethod === 'DIRECT_DEBIT');
  const byStart = new Map<number, PriceSlot>();
  for (const { paymentMethod, ...slot } of rates) {
    if (directDebit && paymentMethod === 'NON_DIRECT_DEBIT') continue;
    byStart.set(slot.start, slot);
  }
  return [...byStart.values()].sort((a, b) => a.start - b.start);
}
