// The address failed logins count against (client-key.ts): IPv4 alone, its IPv4-mapped form
// the same, IPv6 by its /64 however it is written. Answers worked out by hand from RFC 4291's
// text forms, not by the code under test.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { throttleKey } from '../../src/auth/client-key.js';

const CASES: Array<[address: string, key: string]> = [
  ['10.1.2.3', '10.1.2.3'],
  ['::ffff:10.11.12.13', '10.11.12.13'],
  ['::FFFF:10.11.12.13', '10.11.12.13'],
  ['::ffff:10.11.12.13%eth0', '10.11.12.13'],
  // Not addresses: kept as they are (each is then a key of its own).
  ['x::ffff:10.1.2.3', 'x::ffff:10.1.2.3'],
  ['::ffff:10.1.2.3x', '::ffff:10.1.2.3x'],
  ['', ''],
  // IPv6: the first four groups, lower-case, without leading zeros, a zone dropped.
  ['fe80::1%eth0', 'fe80:0:0:0::/64'],
  ['2001:DB8:0:1:aaaa:bbbb:cccc:dddd', '2001:db8:0:1::/64'],
  ['2001:0db8:0000:0001::1', '2001:db8:0:1::/64'],
  ['2001:db8:1:2::', '2001:db8:1:2::/64'],
  ['2001:db8::', '2001:db8:0:0::/64'],
  ['::1', '0:0:0:0::/64'],
  ['::', '0:0:0:0::/64'],
  ['a:b:c::d:e:f:0', 'a:b:c:0::/64'],
  // An IPv4 tail is two groups: it decides how many groups `::` stands for.
  ['1::2:3:4:5:10.20.30.40', '1:0:2:3::/64'],
  ['1::2:3:4:5:6:7', '1:0:2:3::/64'],
  ['::2:3:4:5:6:1.2.3.4', '0:2:3:4::/64'],
];

test('failed logins count per IPv4 address and per IPv6 /64, however the address is written', () => {
  for (const [address, key] of CASES) assert.equal(throttleKey(address), key, JSON.stringify(address));
  // Asked again in another order: the remembered last answer is only ever the same address's.
  for (const [address, key] of [...CASES].reverse()) assert.equal(throttleKey(address), key, JSON.stringify(address));
});
