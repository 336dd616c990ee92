// The advertisement's failure paths, forced for real: they log one warning, never throw, and
// close cleanly, so a unit without multicast still starts and serves.
import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import { networkInterfaces } from 'node:os';
import { after, describe, it } from 'node:test';
import { advertiseMdns } from '../../src/system/mdns.js';
import { mdnsEnabled } from '../../src/system/mdns-enabled.js';
import { loadConfig } from '../../src/config/load.js';

function collectingLog(): { warnings: string[]; log: { warn(message: string): void } } {
  const warnings: string[] = [];
  return { warnings, log: { warn: (message: string) => warnings.push(message) } };
}

/** A UDP port held without SO_REUSEADDR, so binding it again fails with EADDRINUSE. */
async function exclusivePort(): Promise<{ port: number; socket: Socket }> {
  const socket = createSocket({ type: 'udp4', reuseAddr: false });
  await new Promise<void>((resolve) => socket.bind(0, '0.0.0.0', resolve));
  return { port: socket.address().port, socket };
}

/** An address of the documentation range no interface of this machine has. */
function absentAddress(): string {
  const present = new Set(Object.values(networkInterfaces()).flatMap((addrs) => (addrs ?? []).map((a) => a.address)));
  for (let i = 254; i > 0; i--) if (!present.has(`198.51.100.${i}`)) return `198.51.100.${i}`;
  throw new Error('every 198.51.100.x address is assigned here');
}

describe('mDNS advertisement failures', () => {
  it('a taken mDNS port (EADDRINUSE) logs one warning, and close still resolves', async () => {
    const held = await exclusivePort();
    after(() => held.socket.close());
    const { warnings, log } = collectingLog();
    let warned!: () => void;
    const firstWarning = new Promise<void>((resolve) => (warned = resolve));
    const advertisement = advertiseMdns({
      port: 8080,
      siteId: 12,
      name: 'Heliograph 12',
      interface: '127.0.0.1',
      mdnsPort: held.port,
      log: { warn: (m) => (log.warn(m), warned()) },
    });
    await firstWarning;
    await advertisement.close();
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0]!, /mDNS advertisement failed \(.*EADDRINUSE.*\)/);
    assert.match(warnings[0]!, /keeps serving/);
    assert.match(warnings[0]!, /mdns\.enabled false or HELIOGRAPH_MDNS=0/, 'says how to turn it off');
  });

  it('an interface address the machine does not have logs one warning and sends nothing', async () => {
    const { warnings, log } = collectingLog();
    const address = absentAddress();
    const advertisement = advertiseMdns({ port: 8080, siteId: 12, name: 'Heliograph 12', interface: address, log });
    await advertisement.close();
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, new RegExp(`no network interface has the address ${address.replace(/\./g, '\\.')}`));
  });
});

describe('mdns.enabled and HELIOGRAPH_MDNS', () => {
  const config = loadConfig();
  it('is on by default', () => {
    assert.equal(config.mdns.enabled, true);
    assert.equal(mdnsEnabled(config, {}), true);
  });
  it('the environment overrides the config either way', () => {
    assert.equal(mdnsEnabled(config, { HELIOGRAPH_MDNS: '0' }), false);
    assert.equal(mdnsEnabled({ ...config, mdns: { enabled: false, interface: null } }, { HELIOGRAPH_MDNS: '1' }), true);
    assert.equal(mdnsEnabled({ ...config, mdns: { enabled: false, interface: null } }, {}), false);
  });
  it('refuses a value it cannot read, saying what to write', () => {
    assert.throws(() => mdnsEnabled(config, { HELIOGRAPH_MDNS: 'maybe' }), /HELIOGRAPH_MDNS must be 0 .* or 1/);
  });
});
