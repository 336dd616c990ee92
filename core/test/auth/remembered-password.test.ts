import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHook } from 'node:async_hooks';
import { openDatabase } from '../../src/db.js';
import { AuthService } from '../../src/auth/service.js';
import { AUTH_OPTIONS, PASSWORD, startAuth, withPassword } from './support.js';

const IP = '192.168.1.30';

/** How many scrypt computations `run` started (each is an async resource of type SCRYPTREQUEST). */
async function scryptsDuring<T>(run: () => Promise<T>): Promise<{ result: T; scrypts: number }> {
  let scrypts = 0;
  const hook = createHook({
    init(_id, type) {
      if (type === 'SCRYPTREQUEST') scrypts++;
    },
  }).enable();
  try {
    const result = await run();
    return { result, scrypts };
  } finally {
    hook.disable();
  }
}

test('the password set at start answers the first request without another scrypt', async (t) => {
  const fx = await startAuth();
  t.after(fx.close);
  assert.equal(await fx.auth.ensurePassword(PASSWORD), true);
  const first = await scryptsDuring(() => fx.auth.authenticate({ kind: 'password', secret: PASSWORD }, IP));
  assert.deepEqual(first.result, { ok: true, who: 'admin', scope: 'admin' });
  assert.equal(first.scrypts, 0);
  // A wrong password still pays the full scrypt.
  const wrong = await scryptsDuring(() => fx.auth.authenticate({ kind: 'password', secret: 'not the password' }, IP));
  assert.equal(wrong.result.ok, false);
  assert.equal(wrong.scrypts, 1);
});

test('a password confirmed at a later start is remembered too, and a changed one is not', async (t) => {
  const fx = await withPassword(t);

  // The next start: a fresh service on the same file, given the same HELIOGRAPH_PASSWORD.
  const db = await openDatabase(fx.file);
  t.after(() => db.close());
  const restarted = await AuthService.create(db, fx.clock, AUTH_OPTIONS);
  assert.equal(await restarted.ensurePassword(PASSWORD), false);
  const first = await scryptsDuring(() => restarted.authenticate({ kind: 'password', secret: PASSWORD }, IP));
  assert.deepEqual(first.result, { ok: true, who: 'admin', scope: 'admin' });
  assert.equal(first.scrypts, 0);

  // Changed by another process: the remembered one stops working once the row is re-read.
  await fx.auth.setPassword('a different password');
  fx.clock.advance(1000);
  const old = await restarted.authenticate({ kind: 'password', secret: PASSWORD }, IP);
  assert.equal(old.ok, false);
});

test("a remembered password does not wait behind the same address's pending guesses", async (t) => {
  const fx = await withPassword(t);
  const right = { kind: 'password' as const, secret: PASSWORD };
  // Read the stored hash once, as the first request of a polling client does.
  assert.equal((await fx.auth.authenticate(right, IP)).ok, true);

  const order: string[] = [];
  const guess = fx.auth
    .authenticate({ kind: 'password', secret: 'not the password' }, IP)
    .then((outcome) => order.push(`guess ${outcome.ok}`));
  const signedIn = fx.auth.authenticate(right, IP).then((outcome) => order.push(`signed-in ${outcome.ok}`));
  await Promise.all([guess, signedIn]);
  assert.deepEqual(order, ['signed-in true', 'guess false'], 'the scrypt of the guess did not hold the client up');

  // Under back-off the remembered password is answered 429 like any other attempt.
  for (let i = 0; i < 5; i++) await fx.auth.authenticate({ kind: 'password', secret: 'not the password' }, IP);
  const throttled = await fx.auth.authenticate(right, IP);
  assert.equal(throttled.ok, false);
  assert.equal(!throttled.ok && throttled.status, 429);
});
