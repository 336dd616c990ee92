// What the OCPP charger tests share: the plugin's config, an emulated charge point that ends
// with the test, a raw upgrade request (to read the HTTP answer of a refused charger) and
// waits on the emulator and the API, each with a deadline naming what it waited for.
import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { after } from 'node:test';
import { EmulatedChargePoint, type ChargePointOptions } from '@heliograph/plugin-ocpp/emulator';
import { pollUntil } from '../helpers/deadline.js';

export const PASSWORD_1 = 'charger-one-password-16';
export const PASSWORD_2 = 'charger-two-password-16';

/** An ocpp instance with two chargers: CP1 free charging, CP2 a local list with TAG-OK. */
export function ocppEntry(config: Record<string, unknown> = {}, devices = ['charger_1', 'charger_2']): unknown {
  return {
    id: 'ocpp',
    plugin: 'ocpp',
    devices,
    config: {
      heartbeatIntervalS: 60,
      decideIntervalMs: 0,
      ...config,
      chargers: {
        charger_1: { chargePointId: 'CP1', password: PASSWORD_1, maxCurrentA: 16, phases: 3 },
        charger_2: {
          chargePointId: 'CP2',
          password: PASSWORD_2,
          maxCurrentA: 32,
          phases: 1,
          authorization: 'list',
          idTags: ['TAG-OK'],
        },
        ...((config.chargers as object | undefined) ?? {}),
      },
    },
  };
}

/** A started charge point, closed after the test. */
export async function chargePoint(options: ChargePointOptions): Promise<EmulatedChargePoint> {
  const point = new EmulatedChargePoint(options);
  after(() => point.close());
  await point.start();
  return point;
}

/** Charge point CP1 of the server at `serverUrl`, with `options`; resolves once its boot is accepted. */
export async function bootedCp1(
  serverUrl: string,
  options: Omit<ChargePointOptions, 'url' | 'password'>,
): Promise<EmulatedChargePoint> {
  const point = await chargePoint({
    url: `${serverUrl.replace(/^http/, 'ws')}/ocpp/CP1`,
    password: PASSWORD_1,
    ...options,
  });
  await pointWhen(point, (p) => p.bootStatus === 'Accepted', 'the charge point booted');
  return point;
}

/**
 * Charge point CP1 of a test server, on the server's manual clock, with meter values once an
 * hour and a 60 kWh car at 20 % to plug in; resolves once its boot is accepted.
 */
export function bootedPoint(serverUrl: string, now: () => number): Promise<EmulatedChargePoint> {
  return bootedCp1(serverUrl, { now, meterIntervalS: 3600, car: { capacityKWh: 60, soc: 20 } });
}

/** The HTTP status an OCPP upgrade request gets (101 when it is taken). */
export function upgradeStatus(url: string, authorization?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url.replace(/^ws/, 'http'), {
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
        'Sec-WebSocket-Protocol': 'ocpp1.6',
        ...(authorization ? { Authorization: authorization } : {}),
      },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

export const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** Waits until `check` holds for the charge point, naming `what`. */
export async function pointWhen(
  point: EmulatedChargePoint,
  check: (p: EmulatedChargePoint) => boolean,
  what: string,
  ms = 20_000,
): Promise<void> {
  await pollUntil(
    () => {
      point.tick();
      return Promise.resolve({
        done: check(point),
        seen: { status: point.status, offered: point.offered(), powerW: point.powerW, tx: point.transactionId },
      });
    },
    what,
    { ms, everyMs: 20 },
  );
}

/** A topic's value as the API serves it. */
export async function valueOf(server: { api(path: string): Promise<Response> }, topic: string): Promise<unknown> {
  const rows = (await (await server.api(`/api/v1/metrics?topic=${encodeURIComponent(topic)}`)).json()) as Array<{
    value: unknown;
  }>;
  return rows[0]?.value;
}

/** Waits until the API shows `topic` with a value `check` takes, naming `what`; returns it. */
export async function valueWhen(
  server: { api(path: string): Promise<Response> },
  topic: string,
  check: (value: unknown) => boolean,
  what: string,
  ms = 20_000,
): Promise<unknown> {
  let value: unknown;
  await pollUntil(
    async () => {
      value = await valueOf(server, topic);
      return { done: check(value), seen: value };
    },
    `${topic}: ${what}`,
    { ms, everyMs: 50 },
  );
  return value;
}
