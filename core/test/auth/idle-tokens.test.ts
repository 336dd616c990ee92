import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AuthService } from '../../src/auth/service.js';
import { AUTH_OPTIONS, withPassword } from './support.js';

const IP = '192.168.1.20';
const DAY = 86_400_000;

test('a sign-in token (idle_expiry) stays valid while used, expires after the idle days unused, and is then deleted', async (t) => {
  const fx = await withPassword(t);
  const page = await fx.auth.createToken({ name: 'Settings page', scope: 'admin', idleExpiry: true });
  const plain = await fx.auth.createToken({ name: 'home-assistant' });
  assert.equal(page.idle_expiry, true);
  assert.equal(plain.idle_expiry, false);
  // Used every 20 days: never 30 days idle, so it keeps working past 30 days of age.
  for (let i = 0; i < 3; i++) {
    fx.clock.advance(20 * DAY);
    const used = await fx.auth.authenticate({ kind: 'token', secret: page.token }, IP);
    assert.equal(used.ok, true, `use ${i + 1} after 20 idle days`);
  }
  fx.clock.advance(30 * DAY);
  const idle = await fx.auth.authenticate({ kind: 'token', secret: page.token }, IP);
  assert.equal(idle.ok, false);
  if (!idle.ok) assert.match(idle.message, /expired after 30 days unused: sign in again/);
  // Listing cleans it up; the token without idle expiry stays however long it was unused.
  assert.deepEqual(
    (await fx.auth.listTokens()).map((tk) => tk.name),
    ['home-assistant'],
  );
  assert.equal((await fx.auth.authenticate({ kind: 'token', secret: plain.token }, IP)).ok, true);
});

test('the last use is saved: a restart keeps the idle clock of a token used after it was created', async (t) => {
  const fx = await withPassword(t);
  const page = await fx.auth.createToken({ name: 'Settings page', scope: 'admin', idleExpiry: true });
  fx.clock.advance(25 * DAY);
  assert.equal((await fx.auth.authenticate({ kind: 'token', secret: page.token }, IP)).ok, true);
  // A second service on the same file (a restart) reads the saved last use.
  const again = await AuthService.create(fx.db, fx.clock, AUTH_OPTIONS);
  fx.clock.advance(25 * DAY);
  assert.equal(
    (await again.authenticate({ kind: 'token', secret: page.token }, IP)).ok,
    true,
    '25 days after its last use',
  );
  fx.clock.advance(30 * DAY);
  assert.equal(
    (await again.authenticate({ kind: 'token', secret: page.token }, IP)).ok,
    false,
    '30 days after its last use',
  );
});
