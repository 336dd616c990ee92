/*
 * A fake Tibber GraphQL API (POST /v1-beta/gql with a Bearer token) answering the price query
 * in the real wire format: today's and tomorrow's prices of each home, in the home's time zone.
 */
import { DateTime } from 'luxon';
import { type FakeServer, send, sendJson, startFakeServer } from '@heliograph/plugins-sdk/fake-server';

export interface TibberAccount {
  token: string;
  /** The homes' local time zone; "today" is the home's day. */
  zone: string;
  /** The fake's idea of now (Unix ms), which picks today and `current`. */
  now: number;
  currency: string;
  /** Price incl. tax per kWh of the slot starting at `start`, for a home. */
  total(start: number, homeId: string): number;
  tomorrowPublished: boolean;
  homes: Array<{ id: string; subscribed: boolean }>;
  failure?: { status: number; contentType: string; body: string };
  corrupt?: 'wrong-type' | 'not-json' | 'graphql-error';
}

export interface FakeTibber extends FakeServer {
  account: TibberAccount;
}

const slotMinutes = { QUARTER_HOURLY: 15, HOURLY: 60 } as const;

export async function startFakeTibber(account: TibberAccount): Promise<FakeTibber> {
  const fake = { account } as FakeTibber;
  const server = await startFakeServer({
    handle: (req, res) => {
      const a = fake.account;
      if (req.path !== '/v1-beta/gql') return send(res, 404, 'text/plain', 'Not Found');
      if (req.method !== 'POST') return sendJson(res, 405, { errors: [{ message: 'GET query missing.' }] });
      if (req.headers.authorization !== `Bearer ${a.token}`) {
        return sendJson(res, 400, {
          errors: [{ message: 'Context creation failed: invalid token', extensions: { code: 'UNAUTHENTICATED' } }],
        });
      }
      if (a.failure) return send(res, a.failure.status, a.failure.contentType, a.failure.body);
      const query = (() => {
        try {
          return (JSON.parse(req.body) as { query?: unknown }).query;
        } catch {
          return undefined;
        }
      })();
      if (!String(req.headers['content-type']).startsWith('application/json') || typeof query !== 'string') {
        return sendJson(res, 400, { errors: [{ message: 'Must provide query string.' }] });
      }
      if (!/priceInfo\b/.test(query) || !/\btotal\b/.test(query) || !/\bstartsAt\b/.test(query)) {
        return sendJson(res, 400, {
          errors: [{ message: 'fake Tibber only knows the priceInfo query with total and startsAt' }],
        });
      }
      if (a.corrupt === 'not-json') return send(res, 200, 'text/html', '<html><body>Maintenance</body></html>');
      if (a.corrupt === 'graphql-error') {
        return sendJson(res, 200, {
          data: null,
          errors: [
            {
              message: 'An internal server error occurred',
              path: ['viewer'],
              extensions: { code: 'INTERNAL_SERVER_ERROR' },
            },
          ],
        });
      }
      // Tibber's default resolution is hourly when the query does not ask for one.
      const resolution = /priceInfo\(resolution:\s*QUARTER_HOURLY\)/.test(query) ? 'QUARTER_HOURLY' : 'HOURLY';

      const today = DateTime.fromMillis(a.now, { zone: a.zone }).startOf('day');
      const homes = a.homes.map((home) => {
        if (!home.subscribed) return { id: home.id, currentSubscription: null };
        const day = (start: DateTime) => {
          const prices = [];
          for (let t = start; t < start.plus({ days: 1 }); t = t.plus({ minutes: slotMinutes[resolution] })) {
            const total = a.total(t.toMillis(), home.id);
            const energy = Math.round(total * 0.6 * 10_000) / 10_000;
            prices.push({
              total,
              energy,
              tax: Math.round((total - energy) * 10_000) / 10_000,
              startsAt: t.toISO(),
              level: 'NORMAL',
            });
          }
          return prices;
        };
        const todayPrices = day(today);
        const currentIndex = todayPrices.findLastIndex((p) => Date.parse(p.startsAt!) <= a.now);
        const priceInfo = {
          current: { ...todayPrices[currentIndex], currency: a.currency },
          today: todayPrices,
          tomorrow: a.tomorrowPublished ? day(today.plus({ days: 1 })) : [],
        };
        if (a.corrupt === 'wrong-type') (priceInfo.today[3] as Record<string, unknown>).total = 'cheap';
        return { id: home.id, currentSubscription: { priceInfo } };
      });
      sendJson(res, 200, { data: { viewer: { homes } } });
    },
  });
  return Object.assign(fake, server);
}
