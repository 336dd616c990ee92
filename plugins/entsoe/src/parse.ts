import { parseAnswer, type PriceSlot } from '@heliograph/plugins-sdk';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { z } from 'zod';

const source = 'ENTSO-E answer';
const answer = { source, meanwhile: 'the last published prices stay' };

// Text stays text (parseTagValue: false) so that zod, not the XML parser, decides what a
// number is; repeated elements are always arrays, even when there is only one.
const xml = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  parseTagValue: false,
  isArray: (tagName) => ['TimeSeries', 'Period', 'Point', 'Reason'].includes(tagName),
});

const decimal = z
  .string()
  .trim()
  .regex(/^-?\d+(\.\d+)?$/, 'expected a decimal number')
  .transform(Number);
const wholeNumber = z
  .string()
  .trim()
  .regex(/^[1-9]\d*$/, 'expected a position from 1')
  .transform(Number);
const utcTime = z
  .string()
  .trim()
  .regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?Z$/, 'expected a UTC time such as 2026-11-19T23:00Z')
  .transform((time) => Date.parse(time));

const resolutionMs = { PT15M: 900_000, PT30M: 1_800_000, PT60M: 3_600_000 } as const;

const publicationSchema = z.object({
  Publication_MarketDocument: z.object({
    TimeSeries: z.array(
      z.object({
        'currency_Unit.name': z.string(),
        'price_Measure_Unit.name': z.literal('MWH'),
        Period: z.array(
          z.object({
            timeInterval: z.object({ start: utcTime, end: utcTime }),
            resolution: z.enum(['PT15M', 'PT30M', 'PT60M']),
            Point: z.array(z.object({ position: wholeNumber, 'price.amount': decimal })).min(1),
          }),
        ),
      }),
    ),
  }),
});

const acknowledgementSchema = z.object({
  Acknowledgement_MarketDocument: z.object({
    Reason: z.array(z.object({ code: z.string(), text: z.string().optional() })).min(1),
  }),
});

/** Prices of a day-ahead document, or ENTSO-E's reason for having none. */
export type DayAheadAnswer = { slots: PriceSlot[] } | { noData: string };

function parseXml(body: string): unknown {
  const valid = XMLValidator.validate(body);
  if (valid !== true) {
    throw new Error(
      `${source} is not valid XML (line ${valid.err.line}: ${valid.err.msg}); the last published prices stay.`,
    );
  }
  return xml.parse(body);
}

/** The reason text of an Acknowledgement_MarketDocument body, if it is one. */
export function acknowledgementReason(body: string): string | undefined {
  try {
    const ack = acknowledgementSchema.safeParse(xml.parse(body));
    return ack.success
      ? ack.data.Acknowledgement_MarketDocument.Reason.map((r) => r.text ?? r.code).join('; ')
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A `documentType=A44` answer as slots per kWh in `currency`, oldest first; an
 * Acknowledgement with reason 999 means there is no data for the asked period.
 *
 * Slot i of a Period starts at its start + (position - 1) * resolution. Curve type A03 leaves
 * out points whose price equals the one before, so missing positions repeat the last price.
 * Since the move to 15-minute trading a zone may publish the same day at PT15M and PT60M:
 * each stretch of time is taken from the finest series that covers it, never from two.
 */
export function parseDayAhead(body: string, currency: string): DayAheadAnswer {
  const document = parseXml(body);
  if (document !== null && typeof document === 'object' && 'Acknowledgement_MarketDocument' in document) {
    const reasons = parseAnswer({ ...answer, schema: acknowledgementSchema, input: document })
      .Acknowledgement_MarketDocument.Reason;
    const text = reasons.map((r) => r.text ?? r.code).join('; ');
    if (reasons.some((r) => r.code.trim() === '999')) return { noData: text };
    throw new Error(`ENTSO-E refused the request: ${text}. Check the area code and token in the plugin settings.`);
  }
  const series = parseAnswer({ ...answer, schema: publicationSchema, input: document }).Publication_MarketDocument
    .TimeSeries;
  const inCurrency = series.filter((s) => s['currency_Unit.name'] === currency);
  if (inCurrency.length === 0) {
    const found = [...new Set(series.map((s) => s['currency_Unit.name']))].join(', ');
    throw new Error(
      `${source}: prices are in ${found}, not ${currency}; set currency to ${found} in the plugin settings.`,
    );
  }

  const periods = inCurrency
    .flatMap((s) => s.Period)
    .sort(
      (a, b) => resolutionMs[a.resolution] - resolutionMs[b.resolution] || a.timeInterval.start - b.timeInterval.start,
    );
  const taken: Array<{ start: number; end: number }> = [];
  const slots: PriceSlot[] = [];
  for (const period of periods) {
    const { start, end } = period.timeInterval;
    if (taken.some((t) => t.start < end && start < t.end)) continue;
    taken.push({ start, end });
    slots.push(...periodSlots(start, end, resolutionMs[period.resolution], period.Point));
  }
  return { slots: slots.sort((a, b) => a.start - b.start) };
}

function periodSlots(
  start: number,
  end: number,
  step: number,
  points: Array<{ position: number; 'price.amount': number }>,
): PriceSlot[] {
  const count = (end - start) / step;
  const when = new Date(start).toISOString();
  if (!Number.isInteger(count) || count <= 0)
    throw new Error(
      `${source}: the Period starting ${when} does not divide into whole slots of ${step / 60_000} minutes.`,
    );
  const byPosition = new Map(points.map((p) => [p.position, p['price.amount']]));
  const beyond = points.find((p) => p.position > count);
  if (beyond)
    throw new Error(
      `${source}: the Period starting ${when} has ${count} slots but a Point at position ${beyond.position}.`,
    );
  if (!byPosition.has(1))
    throw new Error(
      `${source}: the Period starting ${when} has no price for position 1, so there is nothing to repeat.`,
    );

  const slots: PriceSlot[] = [];
  let price = 0;
  for (let position = 1; position <= count; position++) {
    price = byPosition.get(position) ?? price;
    const slotStart = start + (position - 1) * step;
    slots.push({ start: slotStart, end: slotStart + step, price: Math.round(price * 1e5) / 1e8 });
  }
  return slots;
}
