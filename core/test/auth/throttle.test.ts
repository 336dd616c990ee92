import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/clock.js';
import { LoginThrottle, MAX_BACKOFF_MS } from '../../src/auth/throttle.js';
import { throttleKey } from '../../src/auth/client-key.js';
import type { AuthOutcome, Credentials } from '../../src/auth/types.js';
import { PASSWORD, START, withPassword, type AuthFixture } from './support.js';

const IP = '192.168.1.20';
const WINDOW_MS = 15 * 60_000;
const RIGHT: Credentials = { kind: 'password', secret: PASSWORD };
/** Well-formed but unknown: a failed login that costs no scrypt. */
const UNKNOWN_TOKEN: Credentials = { kind: 'token', secret: `hg_${'A'.repeat(43)}` };

function statusOf(outcome: AuthOutcome): number {
  return outcome.ok ? 200 : outcome.status;
}

async function fail(fx: AuthFixture, times: number, ip = IP): Promise<void> {
  for (let i = 0; i < times; i++)
    assert.equal(statusOf(await fx.auth.authenticate(UNKNOWN_TOKEN, ip)), 401, `failure ${i + 1}`);
}

/** A request without credentials: never counted, and it shows whether the address is throttled. */
async function probe(fx: AuthFixture, ip = IP): Promise<AuthOutcome> {
  return fx.auth.authenticate(undefined, ip);
}

test('five failures start a 1 s back-off that refuses even the right password', async (t) => {
  const fx = await withPassword(t);
  await fail(fx, 4);
  assert.equal(statusOf(await probe(fx)), 401, 'four failures are not yet throttled');
  await fail(fx, 1);
  const refused = await fx.auth.authenticate(RIGHT, IP);
  assert.deepEqual(refused, {
    ok: false,
    status: 429,
    message: 'too many failed logins from this address: try again in 1 s (bearer tokens still work)',
    retryAfterS: 1,
  });
  fx.clock.advance(999);
  assert.deepEqual(await fx.auth.authenticate(RIGHT, IP), { ...refused, retryAfterS: 1 });
  fx.clock.advance(1);
  assert.deepEqual(await fx.auth.authenticate(RIGHT, IP), { ok: true, who: 'admin', scope: 'admin' });

  // The success reset the count: four more failures do not throttle.
  await fail(fx, 4);
  assert.equal(statusOf(await probe(fx)), 401);
});

test('each further failure doubles the back-off, up to 15 minutes', async (t) => {
  const fx = await withPassword(t);
  await fail(fx, 5);
  const seen: number[] = [];
  for (let further = 0; further < 13; further++) {
    const outcome = await probe(fx);
    assert.equal(outcome.ok, false);
    if (outcome.ok) return;
    assert.equal(outcome.status, 429);
    seen.push(outcome.retryAfterS!);
    assert.equal(
      statusOf(await fx.auth.authenticate(RIGHT, IP)),
      429,
      'the right password is refused during the back-off',
    );
    fx.clock.advance(outcome.retryAfterS! * 1000);
    await fail(fx, 1);
  }
  assert.deepEqual(seen, [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900, 900]);
  const last = await probe(fx);
  assert.equal(
    !last.ok && last.retryAfterS,
    MAX_BACKOFF_MS / 1000,
    'a failure right at the end of a 15-minute back-off keeps the streak',
  );
});

test('requests without credentials do not count as failed logins', async (t) => {
  const fx = await withPassword(t);
  await fail(fx, 4);
  for (let i = 0; i < 20; i++) assert.equal(statusOf(await probe(fx)), 401);
  assert.deepEqual(await fx.auth.authenticate(RIGHT, IP), { ok: true, who: 'admin', scope: 'admin' });
});

test('wrong passwords, revoked and expired tokens count alike', async (t) => {
  const fx = await withPassword(t);
  const revoked = await fx.auth.createToken({ name: 'revoked' });
  await fx.auth.revokeToken(revoked.id);
  const expiring = await fx.auth.createToken({ name: 'expiring', expiresAt: START + 1000 });
  fx.clock.advance(1000);
  const attempts: Credentials[] = [
    { kind: 'password', secret: 'not the password' },
    { kind: 'password', secret: `${PASSWORD}\0\0` },
    { kind: 'token', secret: revoked.token },
    { kind: 'token', secret: expiring.token },
    { kind: 'token', secret: 'not-even-token-shaped' },
  ];
  for (const credentials of attempts) assert.equal(statusOf(await fx.auth.authenticate(credentials, IP)), 401);
  assert.equal(statusOf(await fx.auth.authenticate(RIGHT, IP)), 429);
});

test('failures count within a sliding 15-minute window', async (t) => {
  const fx = await withPassword(t);
  await fail(fx, 4);
  fx.clock.advance(WINDOW_MS);
  await fail(fx, 1);
  assert.equal(statusOf(await probe(fx)), 401, 'the first four fell out of the window');
  fx.clock.advance(10 * 60_000);
  await fail(fx, 3);
  assert.equal(statusOf(await probe(fx)), 401, 'four within the window');
  fx.clock.advance(5 * 60_000 - 1);
  await fail(fx, 1);
  assert.equal(statusOf(await probe(fx)), 429, 'five within 15 minutes');
});

test('a throttled address is forgotten after its back-off and a quiet window', async (t) => {
  const fx = await withPassword(t);
  await fail(fx, 5);
  fx.clock.advance(1000 + WINDOW_MS - 1);
  await fail(fx, 1);
  assert.equal(((await probe(fx)) as { retryAfterS?: number }).retryAfterS, 2, 'still on its streak just before');
  fx.clock.advance(2000 + WINDOW_MS);
  assert.equal(statusOf(await probe(fx)), 401);
  await fail(fx, 4);
  assert.equal(statusOf(await probe(fx)), 401, 'a fresh count');
});

test('throttling is per address; the IPv4-mapped form is the same address', async (t) => {
  const fx = await withPassword(t);
  await fail(fx, 5);
  assert.equal(statusOf(await probe(fx, `::ffff:${IP}`)), 429);
  assert.deepEqual(await fx.auth.authenticate(RIGHT, '192.168.1.21'), { ok: true, who: 'admin', scope: 'admin' });
});

test('concurrent guesses from one address are counted one by one', async (t) => {
  const fx = await withPassword(t);
  const wrong: Credentials = { kind: 'password', secret: 'not the password' };
  const outcomes = await Promise.all(Array.from({ length: 20 }, () => fx.auth.authenticate(wrong, IP)));
  assert.deepEqual(outcomes.map(statusOf), [...Array<number>(5).fill(401), ...Array<number>(15).fill(429)]);
  const tokens = await Promise.all(Array.from({ length: 20 }, () => fx.auth.authenticate(UNKNOWN_TOKEN, '10.9.9.9')));
  // Token look-ups are not queued per address, so their answers may come back in any order:
  // what counts is that exactly five were let through to a 401.
  assert.deepEqual(
    tokens.map(statusOf).sort(),
    [...Array<number>(5).fill(401), ...Array<number>(15).fill(429)],
    'unknown tokens are counted as they come back',
  );
});

test('the throttle remembers a bounded number of addresses, sweeping expired ones first', () => {
  const clock = new ManualClock(START);
  const throttle = new LoginThrottle(clock, { maxFailures: 1, windowMs: WINDOW_MS, maxAddresses: 100 });
  for (let i = 0; i < 150; i++) throttle.recordFailure(`10.0.${i >> 8}.${i & 255}`);
  assert.ok(throttle.size <= 100, `${throttle.size} remembered`);
  assert.equal(throttle.waitMs('10.0.0.0'), 0, 'the stalest were dropped');
  assert.equal(throttle.waitMs('10.0.0.149'), 1000, 'the latest are still throttled');

  clock.advance(1000 + WINDOW_MS);
  throttle.recordFailure('10.1.0.1');
  assert.ok(throttle.size <= 100);
  assert.equal(throttle.waitMs('10.1.0.1'), 1000, 'going over the bound swept the expired ones, not the new one');
});

test('many addresses failing once each cannot flush an address under back-off', async (t) => {
  const fx = await withPassword(t);
  await fail(fx, 5);
  for (let i = 0; i < 10_050; i++)
    await fx.auth.authenticate(UNKNOWN_TOKEN, `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
  assert.equal(statusOf(await fx.auth.authenticate(RIGHT, IP)), 429, 'still throttled');
});

test('IPv6 clients are counted by their /64', async (t) => {
  const fx = await withPassword(t);
  for (let i = 1; i <= 5; i++) await fx.auth.authenticate(UNKNOWN_TOKEN, `2001:db8:1:2::${i.toString(16)}`);
  assert.equal(statusOf(await probe(fx, '2001:db8:1:2:ffff:1:2:3')), 429, 'another address in the same /64');
  assert.equal(statusOf(await probe(fx, '2001:0db8:0001:0002:0000:0000:0000:0009')), 429, 'written out in full');
  assert.equal(statusOf(await probe(fx, '2001:db8:1:3::1')), 401, 'the next /64 is another client');
  assert.equal(throttleKey('::ffff:192.168.1.20'), '192.168.1.20');
  assert.equal(throttleKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
  assert.equal(throttleKey('::ffff:c0a8:0114'), '0:0:0:0::/64');
});

test('a valid token is never throttled and does not reset the count; a throttled address answers 429 before any hashing', async (t) => {
  const fx = await withPassword(t);
  const token = await fx.auth.createToken({ name: 'panel', scope: 'read' });
  await fail(fx, 5);
  for (let i = 0; i < 3; i++)
    assert.equal(statusOf(await fx.auth.authenticate({ kind: 'token', secret: token.token }, IP)), 200);
  assert.equal(statusOf(await fx.auth.authenticate(RIGHT, IP)), 429, 'the token did not reset the password count');
  assert.equal(statusOf(await fx.auth.authenticate(UNKNOWN_TOKEN, IP)), 429);
});
