import { parseAnswer, parseJson, type PriceSlot } from '@heliograph/plugins-sdk';
import { z } from 'zod';

function answerSchema(area: string) {
  return z.object({
    deliveryDateCET: z.iso.date(),
    deliveryAreas: z.array(z.string()),
    market: z.string(),
    currency: z.string(),
    multiAreaEntries: z.array(
      z
        .object({
          deliveryStart: z.iso.datetime({ offset: true }),
          deliveryEnd: z.iso.datetime({ offset: true }),
          // Built per area so that a missing price names the area in the error path.
          entryPerArea: z.object({ [area]: z.number() }),
        })
        .refine(
          (entry) => Date.parse(entry.deliveryEnd) > Date.parse(entry.deliveryStart),
          'deliveryEnd must be after deliveryStart',
        ),
    ),
  });
}

/**
 * One delivery day of `DayAheadPrices` for `area`, per kWh in `currency` (Nord Pool quotes per
 * MWh). Slots run from deliveryStart to deliveryEnd: 15 minutes since 2025-10-01, an hour before.
 */
export function parseDayAheadPrices(body: string, area: string, currency: string): PriceSlot[] {
  const source = 'Nord Pool answer';
  const meanwhile = 'the last published prices stay';
  const answer = parseAnswer({
    source,
    schema: answerSchema(area),
    input: parseJson({ source, text: body, meanwhile }),
    meanwhile,
  });
  if (answer.currency !== currency) {
    throw new Error(
      `${source}: currency is ${answer.currency}, but ${currency} was asked for; the last published prices stay.`,
    );
  }
  return answer.multiAreaEntries
    .map((entry) => ({
      start: Date.parse(entry.deliveryStart),
      end: Date.parse(entry.deliveryEnd),
      price: Math.round(entry.entryPerArea[area]! * 1e5) / 1e8,
    }))
    .sort((a, b) => a.start - b.start);
}
