// The whole service advertises itself over mDNS on the loopback interface, and a real mDNS
// browser (bonjour-service's) finds both service types with the HTTP port and TXT site_id.
// The one test that turns mDNS on; it skips, loudly, where loopback has no multicast, and fails
// instead when HELIOGRAPH_REQUIRE_MULTICAST=1 (CI).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { networkInterfaces } from 'node:os';
import { Bonjour, type Service } from 'bonjour-service';
import { startTestServer } from '../helpers/server.js';

const LOOPBACK = '127.0.0.1';
/** Bound on waiting for a datagram or an advertisement that should arrive within milliseconds. */
const WAIT_MS = 10_000;

/** Why multicast on loopback cannot work here, or null when a datagram sent to a group on it comes back. */
async function loopbackMulticastProblem(): Promise<string | null> {
  const receiver = createSocket({ type: 'udp4', reuseAddr: true });
  const sender = createSocket({ type: 'udp4', reuseAddr: true });
  try {
    await new Promise<void>((resolve, reject) => {
      receiver.once('error', reject);
      receiver.bind(0, '0.0.0.0', () => resolve());
    });
    receiver.addMembership('224.0.0.251', LOOPBACK);
    await new Promise<void>((resolve, reject) => {
      sender.once('error', reject);
      sender.bind(0, LOOPBACK, () => resolve());
    });
    sender.setMulticastInterface(LOOPBACK);
    const arrived = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), WAIT_MS);
      receiver.once('message', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    await new Promise<void>((resolve, reject) =>
      sender.send('probe', receiver.address().port, '224.0.0.251', (err) => (err ? reject(err) : resolve())),
    );
    return (await arrived) ? null : `a datagram sent to 224.0.0.251 on ${LOOPBACK} never arrived`;
  } catch (err) {
    return (err as Error).message;
  } finally {
    receiver.close();
    sender.close();
  }
}

const problem = await loopbackMulticastProblem();
if (problem && process.env.HELIOGRAPH_REQUIRE_MULTICAST === '1')
  throw new Error(`multicast on loopback is required (HELIOGRAPH_REQUIRE_MULTICAST=1) but missing: ${problem}`);
if (problem)
  console.warn(
    `### SKIPPING the mDNS browse test: this machine has no multicast on loopback (${problem}); CI with multicast runs it ###`,
  );

/**
 * Resolves with the first advertisement of `type` on loopback that `ours` accepts: any other
 * Heliograph on the machine (a user's own `npm start`) advertises the same types.
 */
function browse(bonjour: Bonjour, type: string, ours: (service: Service) => boolean): Promise<Service> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new Error(`no _${type}._tcp advertisement of this test's server seen on ${LOOPBACK} within ${WAIT_MS} ms`),
        ),
      WAIT_MS,
    );
    const browser = bonjour.find({ type }, (service) => {
      if (!ours(service)) return;
      clearTimeout(timer);
      browser.stop();
      resolve(service);
    });
  });
}

test(
  'a browser on loopback finds _solar-assistant._tcp and _heliograph._tcp with the port and TXT site_id',
  { skip: problem ? `no multicast on loopback: ${problem}` : false },
  async () => {
    // Another Heliograph on the machine, advertising both types first: it must not be taken for this one.
    const other = new Bonjour({ interface: LOOPBACK, bind: '0.0.0.0' } as object);
    for (const type of ['solar-assistant', 'heliograph'])
      other.publish({ name: `Heliograph 1 ${type}`, type, port: 9, txt: { site_id: '1' } });
    const server = await startTestServer({ plugins: [], mdns: { enabled: true, interface: LOOPBACK } });
    const browser = new Bonjour({ interface: LOOPBACK, bind: '0.0.0.0' } as object);
    try {
      const rows = (await (await server.api('/api/v1/system')).json()) as Array<{ topic: string; value: unknown }>;
      const siteId = rows.find((r) => r.topic === 'system/site_id')!.value;
      // This server's own advertisement: its port and site id (names and ports of others differ).
      const ours = (service: Service) =>
        service.port === server.port &&
        (service.txt as Record<string, unknown> | undefined)?.site_id === String(siteId);
      const [solarAssistant, heliograph] = await Promise.all([
        browse(browser, 'solar-assistant', ours),
        browse(browser, 'heliograph', ours),
      ]);
      for (const service of [solarAssistant, heliograph]) {
        assert.equal(service.port, server.port, `${service.type}: the HTTP port`);
        assert.deepEqual(service.txt, { site_id: String(siteId) }, `${service.type}: TXT site_id`);
        assert.equal(service.name, `Heliograph ${String(siteId)}`);
      }
      assert.equal(solarAssistant.type, 'solar-assistant');
      assert.equal(heliograph.type, 'heliograph');
    } finally {
      await server.close();
      await new Promise<void>((resolve) => browser.destroy(() => resolve()));
      await new Promise<void>((resolve) => other.unpublishAll(() => other.destroy(() => resolve())));
    }
  },
);

test('with the advertisement failing, the service starts and serves all the same', async () => {
  const present = new Set(Object.values(networkInterfaces()).flatMap((addrs) => (addrs ?? []).map((a) => a.address)));
  const absent = ['198.51.100.254', '198.51.100.253', '198.51.100.252'].find((a) => !present.has(a))!;
  const server = await startTestServer({ plugins: [], mdns: { enabled: true, interface: absent } });
  const res = await server.api('/api/v1/system');
  assert.equal(res.status, 200);
});
