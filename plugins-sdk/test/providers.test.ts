import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import got from 'got';
import { localDays, parseAnswer, parseJson, requestFailure, z } from '../src/index.js';
import { type FakeServer, send, sendJson, startFakeServer } from '../src/fake-server.js';

const http = got.extend({ retry: { limit: 0 }, timeout: { request: 5000 } });
const prices = 'the last published prices stay';

/** What got threw for a GET of `url`; fails the test when it did not throw. */
async function failureOf(url: string, signal?: AbortSignal): Promise<unknown> {
  try {
    await http.get(url, { signal }).text();
  } catch (error) {
    return error;
  }
  assert.fail(`GET ${url} did not fail`);
}

describe('requestFailure over real HTTP', () => {
  let fake: FakeServer;
  let heldRequest: () => void = () => {};

  before(async () => {
    fake = await startFakeServer({
      handle: (request, response) => {
        if (request.path === '/unavailable') return send(response, 503, 'text/html', '<html>down</html>');
        if (request.path === '/unauthorized') return sendJson(response, 401, { message: 'token expired' });
        if (request.path === '/limited') return sendJson(response, 429, { message: 'slow down' });
        if (request.path === '/teapot') return send(response, 418, 'text/plain', 'no');
        if (request.path === '/held') return heldRequest(); // never answered: the client aborts
        sendJson(response, 404, { message: 'Not Found' });
      },
    });
  });
  after(() => fake.close());

  test('an HTTP error names status, address without its query, and what stays', async () => {
    const error = await failureOf(`${fake.url}/unavailable?token=secret`);
    const failure = requestFailure({ provider: 'Acme', error, meanwhile: prices });
    assert.equal(
      failure.message,
      `Acme answered HTTP 503 Service Unavailable for ${fake.url}/unavailable: the service has a problem on its side; the last published prices stay and the next try follows with back-off.`,
    );
    assert.equal(failure.cause, error);
  });

  test("the service's own explanation is quoted, and each status class gets its hint", async () => {
    const explainBody = (body: string) => (JSON.parse(body) as { message?: string }).message;
    const unauthorized = requestFailure({
      provider: 'Acme',
      error: await failureOf(`${fake.url}/unauthorized`),
      explainBody,
      meanwhile: prices,
    });
    assert.equal(
      unauthorized.message,
      `Acme answered HTTP 401 Unauthorized for ${fake.url}/unauthorized ("token expired"): the service refused the credentials; check them in the plugin settings (the last published prices stay and the next try follows with back-off.)`,
    );
    const limited = requestFailure({
      provider: 'Acme',
      error: await failureOf(`${fake.url}/limited`),
      meanwhile: 'the last forecast stays',
    });
    assert.match(
      limited.message,
      /HTTP 429 Too Many Requests .*: too many requests, the service's rate limit was reached; the last forecast stays and the next try follows with back-off\.$/,
    );
    const teapot = requestFailure({
      provider: 'Acme',
      error: await failureOf(`${fake.url}/teapot`),
      meanwhile: prices,
    });
    assert.match(teapot.message, /HTTP 418 .*: the service refused the request; check the plugin settings \(/);
  });

  test('a 404 names the setting that holds the address', async () => {
    const error = await failureOf(`${fake.url}/v2/nothing`);
    assert.match(
      requestFailure({ provider: 'Acme', error, meanwhile: prices }).message,
      /nothing at that address; check baseUrl and the ids in the plugin settings/,
    );
    assert.match(
      requestFailure({ provider: 'Acme', error, meanwhile: prices, urlSetting: 'serverUrl' }).message,
      /check serverUrl and the ids/,
    );
  });

  test('a refused connection names the address and the error code, and what stays as a sentence', async () => {
    const gone = await startFakeServer({ handle: (_request, response) => send(response, 200, 'text/plain', 'ok') });
    await gone.close();
    const error = await failureOf(`${gone.url}/v1/prices?key=secret`);
    assert.equal(
      requestFailure({ provider: 'Acme', error, meanwhile: 'the last forecast stays' }).message,
      `could not reach Acme at ${gone.url}/v1/prices (ECONNREFUSED): check the network connection and the baseUrl setting. The last forecast stays.`,
    );
  });

  test('an abort and errors of other kinds pass through', async () => {
    const abort = new AbortController();
    const seen = new Promise<void>((resolve) => (heldRequest = resolve));
    const pending = failureOf(`${fake.url}/held`, abort.signal);
    await seen;
    abort.abort();
    const aborted = await pending;
    assert.equal(requestFailure({ provider: 'Acme', error: aborted, meanwhile: prices }), aborted);

    const plain = new TypeError('bad input');
    assert.equal(requestFailure({ provider: 'Acme', error: plain, meanwhile: prices }), plain);
    assert.equal(requestFailure({ provider: 'Acme', error: 'boom', meanwhile: prices }).message, 'Acme: boom');
  });
});

describe('parseJson and parseAnswer', () => {
  test('text that is not JSON is named with how it starts', () => {
    assert.throws(
      () => parseJson({ source: 'Acme answer', text: '<html><body>Wartungsarbeiten</body></html>', meanwhile: prices }),
      {
        message:
          'Acme answer is not JSON (it starts with "<html><body>Wartungsarbeiten</body></html>"); the last published prices stay.',
      },
    );
    assert.deepEqual(parseJson({ source: 'Acme answer', text: '{"a":[1]}', meanwhile: prices }), { a: [1] });
  });

  test('a valid answer comes back typed, a bad one as three problems with paths and a count', () => {
    const schema = z.object({ data: z.array(z.object({ price: z.number() })) });
    assert.deepEqual(
      parseAnswer({ source: 'Acme answer', schema, input: { data: [{ price: 1.5 }] }, meanwhile: prices }),
      { data: [{ price: 1.5 }] },
    );

    const input = { data: [{ price: 'a' }, { price: 'b' }, { price: 'c' }, { price: 'd' }, {}] };
    assert.throws(() => parseAnswer({ source: 'Acme answer', schema, input, meanwhile: prices }), {
      message:
        'Acme answer: data[0].price: expected number, received string; Acme answer: data[1].price: expected number, received string; ' +
        'Acme answer: data[2].price: expected number, received string; and 2 more problems. ' +
        'The service sent an answer this plugin does not understand; the last published prices stay.',
    });
    const watts = z.object({ watts: z.record(z.string(), z.number()) });
    assert.throws(
      () =>
        parseAnswer({
          source: 'Acme answer',
          schema: watts,
          input: { watts: { '2024-04-26 07:00': 'x' } },
          meanwhile: prices,
        }),
      {
        message:
          'Acme answer: watts["2024-04-26 07:00"]: expected number, received string. The service sent an answer this plugin does not understand; the last published prices stay.',
      },
    );
    assert.throws(
      () => parseAnswer({ source: 'Acme answer', schema, input: null, meanwhile: 'the last forecast stays' }),
      {
        message:
          'Acme answer: (whole answer): expected object, received null. The service sent an answer this plugin does not understand; the last forecast stays.',
      },
    );
  });
});

describe('localDays', () => {
  const HOUR = 3_600_000;

  test('today and tomorrow of the zone, a day of 25 hours when clocks go back', () => {
    const days = localDays({ now: Date.parse('2026-10-24T22:30:00Z'), zone: 'Europe/Berlin' });
    assert.deepEqual(days, {
      todayStart: Date.parse('2026-10-24T22:00:00Z'),
      tomorrowStart: Date.parse('2026-10-25T23:00:00Z'),
      end: Date.parse('2026-10-26T23:00:00Z'),
      today: '2026-10-25',
      tomorrow: '2026-10-26',
    });
    assert.equal(days.tomorrowStart - days.todayStart, 25 * HOUR);
  });

  test('a day of 23 hours when clocks go forward, and the last instant of a day still belongs to it', () => {
    const days = localDays({ now: Date.parse('2026-03-28T23:00:00Z') - 1, zone: 'Europe/Berlin' });
    assert.equal(days.today, '2026-03-28');
    assert.equal(days.end - days.tomorrowStart, 23 * HOUR);
  });

  test('a zone that is not an IANA zone is refused with what to fix', () => {
    assert.throws(() => localDays({ now: 0, zone: 'Mars/Olympus' }), {
      message: 'the site time zone "Mars/Olympus" is not a valid IANA time zone: fix it in the core config',
    });
  });
});

test('parseJson refuses text nested past maxDepth before parsing, and counts no brackets inside strings', () => {
  const deep = '['.repeat(65) + ']'.repeat(65);
  assert.throws(
    () => parseJson({ source: 'aWATTar answer', text: deep, meanwhile: 'the last published prices stay' }),
    {
      message:
        'aWATTar answer is nested more than 64 levels deep, which no real answer is; it was not parsed; the last published prices stay.',
    },
  );
  assert.deepEqual(parseJson({ source: 'a', text: '["[[[[", {"k": "\\\\"}]', meanwhile: 'm', maxDepth: 2 }), [
    '[[[[',
    { k: '\\' },
  ]);
  assert.equal(
    (parseJson({ source: 'a', text: '['.repeat(64) + ']'.repeat(64), meanwhile: 'm' }) as unknown[]).length,
    1,
  );
});
