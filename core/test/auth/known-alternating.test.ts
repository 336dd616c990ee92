// The fast path's credentials are decoded and hashed once per distinct value (a polling client
// sends the same header every time): each request must still be decided by its own header and
// its own address, however the values alternate.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { credentialsFromHeader } from '../../src/api/auth.js';
import { PASSWORD, startAuth, withPassword } from './support.js';

const basic = (password: string): string => `Basic ${Buffer.from(`admin:${password}`, 'utf8').toString('base64')}`;
const known = (fx: Awaited<ReturnType<typeof startAuth>>, header: string, ip: string) => {
  const credentials = credentialsFromHeader(header);
  return credentials && fx.auth.knownIdentity(credentials, ip);
};

test('alternating passwords, tokens and addresses: each request is decided by its own', async (t) => {
  const fx = await withPassword(t);
  assert.equal((await fx.auth.authenticate({ kind: 'password', secret: PASSWORD }, '10.0.0.1')).ok, true);
  const reader = await fx.auth.createToken({ name: 'reader', scope: 'read' });
  const writer = await fx.auth.createToken({ name: 'writer', scope: 'write' });
  for (const token of [reader, writer])
    assert.equal((await fx.auth.authenticate({ kind: 'token', secret: token.token }, '10.0.0.1')).ok, true);

  for (let round = 0; round < 2; round++) {
    assert.equal(known(fx, basic(PASSWORD), '10.0.0.1')?.scope, 'admin');
    assert.equal(known(fx, basic(`${PASSWORD}x`), '10.0.0.1'), undefined, 'a wrong password after the right one');
    assert.equal(known(fx, basic(PASSWORD), '10.0.0.1')?.scope, 'admin', 'the right one after a wrong one');
    assert.equal(known(fx, `Bearer ${reader.token}`, '10.0.0.1')?.who, 'reader');
    assert.equal(known(fx, `Bearer ${writer.token}`, '10.0.0.1')?.who, 'writer');
    assert.equal(known(fx, `Bearer ${reader.token}x`, '10.0.0.1'), undefined);
  }

  // Five failures put 2001:db8::/64 under back-off: the password from that /64 must wait,
  // from another address (asked in between) it need not.
  for (let i = 0; i < 5; i++)
    assert.equal((await fx.auth.authenticate({ kind: 'password', secret: 'wrong guess' }, '2001:db8::7')).ok, false);
  for (const [ip, admitted] of [
    ['2001:db8::1', false],
    ['10.0.0.1', true],
    ['2001:db8::2', false],
    ['2001:db8:0:1::2', true],
  ] as const)
    assert.equal(known(fx, basic(PASSWORD), ip) !== undefined, admitted, `the password from ${ip}`);

  // A revoked token is refused on the next request, though its key was just worked out.
  assert.equal(known(fx, `Bearer ${reader.token}`, '10.0.0.1')?.who, 'reader');
  assert.equal(await fx.auth.revokeToken(reader.id), true);
  assert.equal(known(fx, `Bearer ${reader.token}`, '10.0.0.1'), undefined, 'the revoked token');
});
