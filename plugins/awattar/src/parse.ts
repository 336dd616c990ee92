import { parseAnswer, parseJson, type PriceSlot } from '@heliograph/plugins-sdk';
import { z } from 'zod';

const answer = { source: 'aWATTar answer', meanwhile: 'the last published prices stay' };

const marketdataSchema = z.object({
  object: z.literal('list'),
  data: z.array(
    z
      .object({
        start_timestamp: z.number().int(),
        end_timestamp: z.number().int(),
        marketprice: z.number(),
        unit: z.string().regex(/^eur\/mwh$/i, 'expected "Eur/MWh"'),
      })
      .refine((entry) => entry.end_timestamp > entry.start_timestamp, 'end_timestamp must be after start_timestamp'),
  ),
});

/**
 * aWATTar's `/v1/marketdata` answer as slots in EUR per kWh, oldest first. The slot length is
 * taken from each entry, since aWATTar has moved between hourly and quarter-hourly data.
 */
export function parseMarketdata(body: string): PriceSlot[] {
  const marketdata = parseAnswer({ ...answer, schema: marketdataSchema, input: parseJson({ ...answer, text: body }) });
  return marketdata.data
    .map((entry) => ({ start: entry.start_timestamp, end: entry.end_timestamp, price: perKwh(entry.marketprice) }))
    .sort((a, b) => a.start - b.start);
}

/** EUR/MWh to EUR/kWh, without float noise such as 0.20020000000000002. */
function perKwh(eurPerMwh: number): number {
  return Math.round(eurPerMwh * 1e5) / 1e8;
}
