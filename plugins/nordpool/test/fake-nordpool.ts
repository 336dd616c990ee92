/*
 * A fake Nord Pool data portal answering GET /api/DayAheadPrices?date=&market=DayAhead&
 * deliveryArea=&currency= in the real wire format: one CET delivery day of quarter hours per
 * request, or 204 while that day is not published.
 */
import { DateTime } from 'luxon';
import { type FakeServer, send, sendJson, startFakeServer } from '@heliograph/plugins-sdk/fake-server';

export interface NordPoolMarket {
  /** Price per MWh of the slot starting at `start`, in an area and currency. */
  price(start: number, area: string, currency: string): number;
  /** Slot length in minutes (15 since 2025-10-01). */
  slotMinutes: number;
  /** The last CET delivery date with published prices (`2026-11-21`). */
  publishedThrough: string;
  failure?: { status: number; contentType: string; body: string };
  corrupt?: 'missing-area' | 'not-json';
}

export interface FakeNordPool extends FakeServer {
  market: NordPoolMarket;
}

const areas = ['SE1', 'SE2', 'SE3', 'SE4', 'NO1', 'NO2', 'DK1', 'DK2', 'FI', 'EE', 'GER', 'AT'];
const currencies = ['EUR', 'SEK', 'NOK', 'DKK'];

export async function startFakeNordPool(market: NordPoolMarket): Promise<FakeNordPool> {
  const fake = { market } as FakeNordPool;
  const server = await startFakeServer({
    handle: (req, res) => {
      const m = fake.market;
      if (req.method !== 'GET' || req.path !== '/api/DayAheadPrices') return send(res, 404, 'text/plain', '');
      const date = req.query.get('date') ?? '';
      const requested = (req.query.get('deliveryArea') ?? '').split(',');
      const currency = req.query.get('currency') ?? '';
      const day = DateTime.fromISO(date, { zone: 'Europe/Berlin' });
      if (
        !day.isValid ||
        req.query.get('market') !== 'DayAhead' ||
        !requested.every((a) => areas.includes(a)) ||
        !currencies.includes(currency)
      ) {
        return sendJson(res, 400, { message: 'Invalid request parameters' });
      }
      if (m.failure) return send(res, m.failure.status, m.failure.contentType, m.failure.body);
      if (date > m.publishedThrough) {
        res.writeHead(204);
        return res.end();
      }
      if (m.corrupt === 'not-json')
        return send(res, 200, 'text/html', '<html><head><title>Nord Pool</title></head></html>');

      const multiAreaEntries: Array<{
        deliveryStart: string;
        deliveryEnd: string;
        entryPerArea: Record<string, number>;
      }> = [];
      for (let t = day; t < day.plus({ days: 1 }); t = t.plus({ minutes: m.slotMinutes })) {
        const start = t.toMillis();
        const entryPerArea = Object.fromEntries(requested.map((area) => [area, m.price(start, area, currency)]));
        multiAreaEntries.push({
          deliveryStart: new Date(start).toISOString().replace('.000Z', 'Z'),
          deliveryEnd: new Date(t.plus({ minutes: m.slotMinutes }).toMillis()).toISOString().replace('.000Z', 'Z'),
          entryPerArea,
        });
      }
      if (m.corrupt === 'missing-area' && multiAreaEntries[5]) multiAreaEntries[5].entryPerArea = {};
      const average = (area: string) =>
        multiAreaEntries.reduce((sum, e) => sum + (e.entryPerArea[area] ?? 0), 0) / multiAreaEntries.length;
      sendJson(res, 200, {
        deliveryDateCET: date,
        version: 3,
        updatedAt: `${day.minus({ days: 1 }).toISODate()}T11:57:31.4871239Z`,
        deliveryAreas: requested,
        market: 'DayAhead',
        multiAreaEntries,
        blockPriceAggregates: [],
        currency,
        exchangeRate: currency === 'EUR' ? 1 : 11.0755,
        areaStates: [{ state: 'Final', areas: requested }],
        areaAverages: requested.map((areaCode) => ({ areaCode, price: Math.round(average(areaCode) * 100) / 100 })),
      });
    },
  });
  return Object.assign(fake, server);
}
