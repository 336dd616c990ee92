import { parseAnswer, parseJson, type PriceSlot } from '@heliograph/plugins-sdk';
import { z } from 'zod';

const answer = { source: 'Amber answer', meanwhile: 'the last published prices stay' };

const intervalsSchema = z.array(
  z.object({
    type: z.string(),
    duration: z.number().int().positive(),
    startTime: z.iso.datetime({ offset: true }),
    endTime: z.iso.datetime({ offset: true }),
    perKwh: z.number(),
    channelType: z.string(),
  }),
);

export interface AmberPrices {
  /** The `general` channel: what the user pays per kWh imported. */
  import: PriceSlot[];
  /** The `feedIn` channel, sign flipped: what the user is paid per kWh exported. */
  export: PriceSlot[];
}

/**
 * Amber's intervals as AUD per kWh (Amber quotes c/kWh incl. GST).
 *
 * A slot ends at `endTime` and lasts `duration` minutes; `startTime` is one second past the
 * previous interval's end (02:00:01 for a slot from 02:00), so it is not used as the start.
 *
 * Sign of export: Amber reports feed-in as a charge to the customer, so `perKwh` is negative
 * when the user is paid. The export schedule holds what the user earns per kWh exported:
 * `-perKwh`, positive when paid and negative when exporting costs money (negative spot prices).
 * `controlledLoad` intervals are left out: the import schedule is the general meter's.
 */
export function parseIntervals(body: string): AmberPrices {
  const intervals = parseAnswer({ ...answer, schema: intervalsSchema, input: parseJson({ ...answer, text: body }) });
  const slots = (channel: string, sign: 1 | -1): PriceSlot[] =>
    intervals
      .filter((interval) => interval.channelType === channel)
      .map((interval) => {
        const end = Date.parse(interval.endTime);
        return {
          start: end - interval.duration * 60_000,
          end,
          price: (sign * Math.round(interval.perKwh * 1e6)) / 1e8,
        };
      })
      .sort((a, b) => a.start - b.start);
  return { import: slots('general', 1), export: slots('feedIn', -1) };
}
