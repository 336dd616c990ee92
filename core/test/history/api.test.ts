import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/api/app.js';
import { historyRoutes } from '../../src/api/history/route.js';
import { historyResponse } from '../../src/contract/schemas.js';
import type { ErrorResponse, HistoryResponse } from '../../src/contract/types.js';
import { TopicRegistry } from '../../src/topics/registry.js';
import {
  ManualClock,
  meta,
  openStore,
  random,
  reference,
  tempDbFile,
  type OpenedStore,
  type Reading,
} from './support.js';
import { assertErrorAnswer, assertSeriesHead, getJson, listenRoutes } from '../helpers/routes-server.js';

const NOW = Date.parse('2026-03-10T12:34:56.789Z');
const DAY = 86_400_000;
const iso = (s: number) => new Date(s * 1000).toISOString().replace('.000Z', 'Z');

describe('GET /api/v1/history', () => {
  const clock = new ManualClock(NOW);
  const registry = new TopicRegistry(clock);
  const pv: Reading[] = [];
  let opened: OpenedStore;
  let server: RunningServer;

  before(async () => {
    registry.define(meta('total/pv_power', { name: 'PV power' }));
    registry.define(meta('inverter_1/temperature', { unit: '°C' }));
    registry.define(meta('inverter_1/device_mode', { type: 'string', unit: '' }));
    registry.define(meta('inverter_1/serial_number', { recorded: false, group: 'Info', unit: '' }));
    registry.define(meta('battery_1/voltage', { unit: 'V' }));
    opened = await openStore(tempDbFile(), clock);
    const rnd = random(3);
    for (let t = NOW - 10 * DAY; t < NOW; t += 10_000) pv.push({ t, units: Math.floor(rnd() * 600_000), decimals: 2 });
    await opened.store.recordPast(
      meta('total/pv_power'),
      pv.map((r) => [r.t, r.units / 100] as const),
    );
    // A topic that used to exist: its plugin was removed, its history stays. Its stored device
    // is the display name history kept before the clients' rules; answers use the rules.
    await opened.store.recordPast(meta('inverter_9/pv_power', { device: 'Inverter 9', name: 'PV power' }), [
      [NOW - 3 * DAY, 1500],
    ]);
    await opened.store.recordPast(meta('total/grid_power'), [
      [NOW - DAY, 0.1],
      [NOW - DAY + 1000, 0.2],
    ]);
    registry.define(meta('total/grid_power'));
    server = await listenRoutes([historyRoutes({ registry, store: opened.store, clock })]);
  });
  after(async () => {
    await server.close();
    await opened.close();
  });

  /** The answer, its body read as T: a HistoryResponse unless the query is expected to fail. */
  const get = <T = HistoryResponse>(query: string) => getJson<T>(`${server.url}/api/v1/history${query}`);
  const expectError = async (query: string, status: number, message: RegExp) =>
    assertErrorAnswer(query, await get<ErrorResponse>(query), { status, message });

  it('answers the last day at 10 s means by default, in pages of 2000 buckets', async () => {
    const { status, type, body } = await get('?topic=total/pv_power');
    assert.equal(status, 200);
    assert.match(type, /^application\/json/);
    assertSeriesHead(
      body,
      { topic: 'total/pv_power', device: 'totals', number: null, group: 'Status', name: 'PV power', unit: 'W' },
      ['agg', 'group_by', 'from', 'to', 'points', 'next'],
    );
    assert.equal(body.agg, 'mean');
    assert.equal(body.group_by, '10s');
    assert.equal(body.from, '2026-03-09T12:34:56Z');
    // Bucket 0 is 12:34:50, the one holding from; 2000 buckets of 10 s later comes 18:08:10.
    assert.equal(body.to, '2026-03-09T18:08:10Z');
    assert.equal(body.next, '2026-03-09T18:08:10Z');
    // The slot at 12:34:50 began before from, so the first bucket has no readings and is left out.
    assert.equal(body.points[0]![0], '2026-03-09T12:35:00Z');
    assert.equal(body.points.length, 1999);
    // The JSON is built by hand for speed: it must still be what the schema (and so the
    // clients' HistoryResponse type) says.
    assert.deepEqual(historyResponse.parse(body), body);
  });

  it('pages with next until the last page, together equal to the exact answer', async () => {
    const to = '2026-03-08T01:02:03.5Z';
    for (const [groupBy, size, agg] of [
      ['90s', 90, 'mean'],
      ['7m', 420, 'max'],
      ['10s', 10, 'last'],
    ] as const) {
      let from = '2026-03-01T07:00:05+02:00';
      const points: Array<[string, number]> = [];
      for (let pages = 1; ; pages++) {
        const { status, body } = await get(
          `?topic=total/pv_power&from=${encodeURIComponent(from)}&to=${to}&group_by=${groupBy}&agg=${agg}`,
        );
        assert.equal(status, 200, JSON.stringify(body));
        points.push(...body.points);
        if (!body.next) {
          assert.equal(body.to, '2026-03-08T01:02:03Z');
          assert.ok(pages > 1 || size > 10);
          break;
        }
        assert.equal(body.to, body.next);
        from = body.next;
      }
      const expected = reference(
        pv,
        { fromMs: Date.parse('2026-03-01T05:00:05Z'), toMs: Date.parse(to), groupMs: size * 1000 },
        agg,
      ).map(([t, v]) => [iso(t), v]);
      assert.equal(points.length, expected.length, groupBy);
      for (let i = 0; i < expected.length; i++) {
        assert.equal(points[i]![0], expected[i]![0]);
        assert.ok(
          Math.abs(points[i]![1] - (expected[i]![1] as number)) <= 0.000005,
          `${groupBy} ${agg} ${points[i]![0]}`,
        );
      }
    }
  });

  it('takes times with any offset and answers in UTC at second precision', async () => {
    const { body } = await get(
      '?topic=total/pv_power&from=2026-03-10T13:00:00.250%2B01:00&to=2026-03-10T12:30:00Z&group_by=1h&agg=sum',
    );
    assert.equal(body.from, '2026-03-10T12:00:00Z');
    assert.equal(body.to, '2026-03-10T12:30:00Z');
    assert.equal(body.points.length, 1);
    assert.equal(body.points[0]![0], '2026-03-10T12:00:00Z');
    assert.equal(body.next, undefined);
  });

  it('writes numbers without float noise', async () => {
    const { text, body } = await get('?topic=total/grid_power&from=2026-03-09T00:00:00Z&group_by=1d&agg=sum');
    assert.deepEqual(body.points, [['2026-03-09T00:00:00Z', 0.3]]);
    assert.match(text, /\["2026-03-09T00:00:00Z",0\.3\]/);
    const mean = await get('?topic=total/grid_power&from=2026-03-09T00:00:00Z&group_by=1d&agg=mean');
    assert.deepEqual(mean.body.points, [['2026-03-09T00:00:00Z', 0.15]]);
  });

  it('answers a topic that left the registry from the history kept for it', async () => {
    const { status, body } = await get('?topic=inverter_9/pv_power&from=2026-03-01T00:00:00Z&group_by=1d');
    assert.equal(status, 200);
    assert.equal(body.device, 'inverters');
    assert.equal(body.number, 8);
    assert.equal(body.name, 'PV power');
    assert.deepEqual(body.points, [['2026-03-07T00:00:00Z', 1500]]);
  });

  it('answers a recorded topic without readings yet with no points', async () => {
    const { status, body } = await get('?topic=inverter_1/temperature');
    assert.equal(status, 200);
    assert.equal(body.unit, '°C');
    assert.deepEqual(body.points, []);
    assert.ok(body.next, 'paging still counts the empty bucket intervals');
  });

  it('answers 400 for every invalid parameter, saying which', async () => {
    await expectError('', 400, /topic is required/);
    await expectError('?topic=', 400, /topic must not be empty/);
    await expectError('?topic=total/*', 400, /globs .* are not accepted/);
    await expectError('?topic=total/pv_powe%3F', 400, /globs .* are not accepted/);
    await expectError('?topic=total/pv_power&from=yesterday', 400, /from must be an RFC 3339 time .*"yesterday"/);
    await expectError('?topic=total/pv_power&to=2026-02-30T00:00:00Z', 400, /to must be an RFC 3339 time/);
    await expectError('?topic=total/pv_power&from=2026-03-10T00:00:00', 400, /from must be an RFC 3339 time/);
    await expectError(
      '?topic=total/pv_power&from=2026-03-10T00:00:00Z&to=2026-03-10T00:00:00Z',
      400,
      /from must be before to, got from 2026-03-10T00:00:00Z and to 2026-03-10T00:00:00Z/,
    );
    await expectError(
      '?topic=total/pv_power&from=2026-03-11T00:00:00Z',
      400,
      /from must be before to \(to defaults to now\)/,
    );
    await expectError(
      '?topic=total/pv_power&to=2020-01-01T00:00:00Z&from=2020-02-01T00:00:00Z',
      400,
      /from must be before to/,
    );
    await expectError('?topic=total/pv_power&group_by=5s', 400, /group_by must be at least 10s/);
    await expectError('?topic=total/pv_power&group_by=0m', 400, /group_by must be at least 10s/);
    await expectError('?topic=total/pv_power&group_by=15s', 400, /whole number of 10-s slots/);
    await expectError(
      '?topic=total/pv_power&group_by=1.5h',
      400,
      /group_by must be a whole number followed by s, m, h or d/,
    );
    await expectError(
      '?topic=total/pv_power&group_by=1w',
      400,
      /group_by must be a whole number followed by s, m, h or d/,
    );
    await expectError('?topic=total/pv_power&group_by=', 400, /group_by must be a whole number/);
    await expectError('?topic=total/pv_power&agg=avg', 400, /agg must be one of mean, max, min, sum, last/);
    await expectError('?topic=total/pv_power&agg=mean&agg=max', 400, /agg is given more than once/);
  });

  it('answers 404 for unknown topics and topics that are not recorded', async () => {
    await expectError('?topic=total/nothing', 404, /unknown topic "total\/nothing"/);
    await expectError(
      '?topic=battery_1/voltage',
      404,
      /battery_1\/voltage is not recorded in history: battery metrics are not recorded/,
    );
    await expectError('?topic=battery_7/power', 404, /battery metrics are not recorded/);
    await expectError(
      '?topic=inverter_1/device_mode',
      404,
      /not recorded in history: its values are text, not numbers/,
    );
    await expectError(
      '?topic=inverter_1/serial_number',
      404,
      /not recorded in history: its plugin declares it as not recorded/,
    );
  });
});
