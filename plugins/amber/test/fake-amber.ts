/*
 * A fake Amber Electric API answering GET /v1/sites/{siteId}/prices/current?next=&previous=
 * &resolution= (Authorization: Bearer) in the real wire format: for each channel, `previous`
 * ActualIntervals, the CurrentInterval and `next` ForecastIntervals, as far as the forecast goes.
 */
import { DateTime } from 'luxon';
import { type FakeServer, send, sendJson, startFakeServer } from '@heliograph/plugins-sdk/fake-server';

export type Channel = 'general' | 'feedIn' | 'controlledLoad';

export interface AmberSite {
  siteId: string;
  apiKey: string;
  /** The fake's idea of now (Unix ms), which picks the current interval. */
  now: number;
  channels: Channel[];
  /** c/kWh incl. GST of the interval starting at `start`; feed-in negative when the customer is paid. */
  perKwh(start: number, channel: Channel): number;
  /** Forecast intervals end here. */
  forecastUntil: number;
  failure?: { status: number; contentType: string; body: string };
  corrupt?: 'wrong-type' | 'not-json';
}

export interface FakeAmber extends FakeServer {
  site: AmberSite;
}

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

export async function startFakeAmber(site: AmberSite): Promise<FakeAmber> {
  const fake = { site } as FakeAmber;
  const server = await startFakeServer({
    handle: (req, res) => {
      const s = fake.site;
      const match = /^\/v1\/sites\/([^/]+)\/prices\/current$/.exec(req.path);
      if (req.method !== 'GET' || !match) return sendJson(res, 404, { message: 'Not Found' });
      if (req.headers.authorization !== `Bearer ${s.apiKey}`) return sendJson(res, 401, { message: 'Unauthorized' });
      if (decodeURIComponent(match[1]!) !== s.siteId) return sendJson(res, 404, { message: 'Site not found' });
      if (s.failure) return send(res, s.failure.status, s.failure.contentType, s.failure.body);
      if (s.corrupt === 'not-json')
        return send(res, 200, 'text/html', '<html><body>Amber is having a nap</body></html>');
      const resolution = Number(req.query.get('resolution') ?? 30);
      const next = Number(req.query.get('next') ?? 0);
      const previous = Number(req.query.get('previous') ?? 0);
      if (
        ![5, 30].includes(resolution) ||
        !Number.isInteger(next) ||
        !Number.isInteger(previous) ||
        next < 0 ||
        previous < 0 ||
        next + previous > 2048
      ) {
        return sendJson(res, 400, { message: 'next, previous and resolution must be valid' });
      }

      const step = resolution * 60_000;
      const current = Math.floor(s.now / step) * step;
      const intervals: Array<Record<string, unknown>> = [];
      for (let i = -previous; i <= next; i++) {
        const start = current + i * step;
        if (start >= s.forecastUntil) break;
        const end = start + step;
        const type = i < 0 ? 'ActualInterval' : i === 0 ? 'CurrentInterval' : 'ForecastInterval';
        for (const channelType of s.channels) {
          const perKwh = s.perKwh(start, channelType);
          intervals.push({
            type,
            date: DateTime.fromMillis(start, { zone: 'UTC+10' }).toISODate(),
            duration: resolution,
            startTime: iso(start + 1000),
            endTime: iso(end),
            nemTime: DateTime.fromMillis(end, { zone: 'UTC+10' }).toISO({ suppressMilliseconds: true }),
            perKwh,
            renewables: 41.2,
            spotPerKwh: Math.round(perKwh * 0.4 * 100) / 100,
            channelType,
            spikeStatus: 'none',
            descriptor: 'neutral',
            estimate: type !== 'ActualInterval',
            ...(type === 'ForecastInterval' ? { range: { min: perKwh - 1, max: perKwh + 1 } } : {}),
          });
        }
      }
      if (s.corrupt === 'wrong-type' && intervals[3]) intervals[3].perKwh = 'twenty';
      sendJson(res, 200, intervals);
    },
  });
  return Object.assign(fake, server);
}
