/*
 * A fake aWATTar API answering GET /v1/marketdata?start=&end= in the real wire format, from
 * a market the test describes: a price per slot and how far the auction results are published.
 */
import { type FakeServer, send, sendJson, startFakeServer } from '@heliograph/plugins-sdk/fake-server';

export interface AwattarMarket {
  /** EUR/MWh of the slot starting at `start` (Unix ms). */
  price(start: number): number;
  /** Slot length in ms; slots align to multiples of it since the epoch. */
  slotMs: number;
  /** Slots starting at or after this are not published yet. */
  publishedUntil: number;
  /** Answer with an error status and body instead of data. */
  failure?: { status: number; contentType: string; body: string; headers?: Record<string, string> };
  /** Corrupt the answer: `wrong-type` makes data[3].marketprice a string, `not-json` sends HTML. */
  corrupt?: 'wrong-type' | 'not-json';
}

export interface FakeAwattar extends FakeServer {
  market: AwattarMarket;
}

export async function startFakeAwattar(market: AwattarMarket): Promise<FakeAwattar> {
  const fake = { market } as FakeAwattar;
  const server = await startFakeServer({
    handle: (req, res) => {
      const m = fake.market;
      if (req.method !== 'GET' || req.path !== '/v1/marketdata') return sendJson(res, 404, { error: 'Not Found' });
      if (m.failure) return send(res, m.failure.status, m.failure.contentType, m.failure.body, m.failure.headers);
      if (m.corrupt === 'not-json') return send(res, 200, 'text/html', '<html><body>Wartungsarbeiten</body></html>');
      const start = Number(req.query.get('start'));
      const end = req.query.has('end') ? Number(req.query.get('end')) : start + 86_400_000;
      if (!Number.isInteger(start) || !Number.isInteger(end))
        return sendJson(res, 400, { error: 'start and end must be Unix ms' });

      const data: Array<Record<string, unknown>> = [];
      for (
        let slot = Math.floor(start / m.slotMs) * m.slotMs;
        slot < end && slot < m.publishedUntil;
        slot += m.slotMs
      ) {
        data.push({
          start_timestamp: slot,
          end_timestamp: slot + m.slotMs,
          marketprice: m.price(slot),
          unit: 'Eur/MWh',
        });
      }
      if (m.corrupt === 'wrong-type' && data[3]) data[3].marketprice = 'n/a';
      sendJson(res, 200, { object: 'list', data, url: '/de/v1/marketdata' });
    },
  });
  return Object.assign(fake, server);
}
