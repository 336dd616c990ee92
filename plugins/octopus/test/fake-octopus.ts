/*
 * A fake Octopus Energy API answering GET /v1/products/{product}/electricity-tariffs/
 * {tariff}/standard-unit-rates/ in the real wire format: half-hourly rates, newest first,
 * paged with absolute `next` / `previous` links.
 */
import { type FakeServer, send, sendJson, startFakeServer } from '@heliograph/plugins-sdk/fake-server';

const HALF_HOUR = 1_800_000;

export interface OctopusMarket {
  region: string;
  /** Price incl. VAT in p/kWh of the half hour starting at `start`, per product code. */
  prices: Record<string, (start: number) => number>;
  /** VAT rate of a product's rates (0 for export). */
  vat: Record<string, number>;
  /** Half hours starting at or after this are not published yet. */
  publishedUntil: number;
  /** The server's page size cap (the real one is 1500). */
  maxPageSize: number;
  failure?: { product?: string; status: number; contentType: string; body: string };
  corrupt?: 'wrong-type' | 'not-json';
}

export interface FakeOctopus extends FakeServer {
  market: OctopusMarket;
}

const ratesPath = /^\/v1\/products\/([A-Z0-9-]+)\/electricity-tariffs\/([A-Z0-9-]+)\/standard-unit-rates\/$/;
const isoUtc = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?Z$/;

export async function startFakeOctopus(market: OctopusMarket): Promise<FakeOctopus> {
  const fake = { market } as FakeOctopus;
  const server = await startFakeServer({
    handle: (req, res, url) => {
      const m = fake.market;
      const match = ratesPath.exec(req.path);
      const product = match?.[1] ?? '';
      if (req.method !== 'GET' || !match || !m.prices[product]) return sendJson(res, 404, { detail: 'Not found.' });
      if (match[2] !== `E-1R-${product}-${m.region}`)
        return sendJson(res, 404, { detail: 'No ElectricityTariff matches the given query.' });
      if (m.failure && (m.failure.product ?? product) === product)
        return send(res, m.failure.status, m.failure.contentType, m.failure.body);
      if (m.corrupt === 'not-json')
        return send(res, 200, 'text/html', '<!DOCTYPE html><html><body>Octopus is down for maintenance</body></html>');

      const from = req.query.get('period_from') ?? '';
      const to = req.query.get('period_to') ?? '';
      if (!isoUtc.test(from) || !isoUtc.test(to))
        return sendJson(res, 400, { period_from: ['Enter a valid date/time.'] });
      const pageSize = Math.min(Number(req.query.get('page_size') ?? 100), m.maxPageSize);
      const page = Number(req.query.get('page') ?? 1);

      const all = [];
      for (
        let t = Math.ceil(Date.parse(from) / HALF_HOUR) * HALF_HOUR;
        t < Date.parse(to) && t < m.publishedUntil;
        t += HALF_HOUR
      ) {
        const inc = m.prices[product](t);
        all.push({
          value_exc_vat: Math.round((inc / (1 + (m.vat[product] ?? 0))) * 10_000) / 10_000,
          value_inc_vat: inc,
          valid_from: new Date(t).toISOString().replace('.000Z', 'Z'),
          valid_to: new Date(t + HALF_HOUR).toISOString().replace('.000Z', 'Z'),
          payment_method: null,
        });
      }
      all.reverse();
      const results: Array<Record<string, unknown>> = all.slice((page - 1) * pageSize, page * pageSize);
      if (m.corrupt === 'wrong-type' && results[3]) results[3].value_inc_vat = String(results[3].value_inc_vat);
      const link = (n: number) =>
        n < 1 || (n - 1) * pageSize >= all.length
          ? null
          : `${url}${req.path}?${new URLSearchParams({ page: String(n), page_size: String(pageSize), period_from: from, period_to: to }).toString()}`;
      sendJson(res, 200, { count: all.length, next: link(page + 1), previous: link(page - 1), results });
    },
  });
  return Object.assign(fake, server);
}
