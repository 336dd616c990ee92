import { isIPv6 } from 'node:net';
import { rememberingLast } from './rules.js';

/**
 * The key failed logins are counted under. An IPv4 address counts alone (its IPv4-mapped
 * IPv6 form is the same address). IPv6 clients are grouped by their /64: a home network
 * hands every device a whole /64 and privacy extensions pick new addresses at will, so
 * counting single IPv6 addresses would give a guesser 2^64 fresh budgets.
 *
 * Worked out on every authenticated request (IPv6 parsing is most of what a known client's
 * request costs on the snapshot's fast lane), so the last address's key is remembered.
 */
export const throttleKey = rememberingLast(keyOf);

function keyOf(clientIp: string): string {
  const ip = clientIp.split('%')[0]!;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!isIPv6(ip)) return ip;
  return `${networkGroups(ip).join(':')}::/64`;
}

/** The first four 16-bit groups of an IPv6 address (its /64), lower-case without leading zeros. */
function networkGroups(ip: string): string[] {
  // An embedded IPv4 tail (::1.2.3.4) counts as the last two groups, never part of the /64.
  const text = ip.replace(/\d+\.\d+\.\d+\.\d+$/, '0:0');
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : Array<string>(8 - headGroups.length - tailGroups.length).fill('0');
  return [...headGroups, ...zeros, ...tailGroups].slice(0, 4).map((g) => parseInt(g || '0', 16).toString(16));
}
