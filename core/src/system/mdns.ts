import type { EventEmitter } from 'node:events';
import { networkInterfaces } from 'node:os';
import { Bonjour } from 'bonjour-service';
import { createLogger, errorMessage, type Logger } from '../log.js';

/**
 * The service types the unit advertises: the one the official clients (Home Assistant's
 * integration) browse for, and the product's own.
 */
export const MDNS_SERVICE_TYPES = ['solar-assistant', 'heliograph'] as const;

const CLOSE_TIMEOUT_MS = 1000;

export interface MdnsOptions {
  /** The HTTP port the API listens on. */
  port: number;
  /** `system/site_id`, sent as TXT `site_id` so clients recognise the unit at a new address. */
  siteId: number;
  /** Instance name shown by browsers; the site id keeps it unique when several units share a network. */
  name: string;
  /** IPv4 address of the one interface to advertise on (e.g. `127.0.0.1`); default all of them. */
  interface?: string;
  /** UDP port of the mDNS socket; 5353 but for tests that force a clash. */
  mdnsPort?: number;
  /** Where the one warning about a failed advertisement goes; default the `mdns` logger. */
  log?: Pick<Logger, 'warn'>;
}

/** Stops advertising (goodbye packets, then the socket closes). Never rejects. */
export interface MdnsAdvertisement {
  close(): Promise<void>;
}

/**
 * Advertises the unit over mDNS / DNS-SD with bonjour-service, so Home Assistant finds it
 * again after its IP address changes. Best effort: where multicast is unavailable (no
 * interface, port 5353 taken exclusively, a container without multicast) it logs one warning
 * and gives up, and the service carries on; nothing here can stop the start or throw later.
 */
export function advertiseMdns(options: MdnsOptions): MdnsAdvertisement {
  const log = options.log ?? createLogger('mdns');
  let warned = false;
  let bonjour: Bonjour | null = null;
  const warnOnce = (err: unknown) => {
    if (warned) return;
    warned = true;
    log.warn(
      `mDNS advertisement failed (${errorMessage(err)}): clients will not find this unit by itself after its IP address changes; ` +
        'the API keeps serving. Check that multicast works on this network, or turn the advertisement off with mdns.enabled false or HELIOGRAPH_MDNS=0',
    );
  };

  if (options.interface && !hasInterfaceAddress(options.interface)) {
    // Checked first: multicast-dns would fall back to the default interface for sending.
    warnOnce(new Error(`no network interface has the address ${options.interface} (mdns.interface)`));
    return { close: () => Promise.resolve() };
  }

  try {
    // Options go to multicast-dns. With one interface, the socket still binds to the
    // wildcard address: a socket bound to a unicast address receives no multicast on Linux.
    const mdnsOptions = {
      ...(options.interface ? { interface: options.interface, bind: '0.0.0.0' } : {}),
      ...(options.mdnsPort ? { port: options.mdnsPort } : {}),
    };
    bonjour = new Bonjour(mdnsOptions, warnOnce);
    // bonjour-service listens for neither: without these, a refused port 5353 would crash the process.
    const socket = (bonjour as unknown as { server: { mdns: MulticastDns } }).server.mdns;
    const fail = (err: unknown) => {
      warnOnce(err);
      void stop();
    };
    socket.on('error', fail);
    // Failed system calls (joining the group, sending) mean no advertisement; a malformed
    // packet from some other device on the network is no reason to give up.
    socket.on('warning', (err: unknown) => {
      if ((err as NodeJS.ErrnoException | null)?.syscall) fail(err);
    });
    const txt = { site_id: String(options.siteId) };
    for (const type of MDNS_SERVICE_TYPES) {
      const service = bonjour.publish({
        name: options.name,
        type,
        port: options.port,
        txt,
        disableIPv6: Boolean(options.interface),
      });
      service.on('error', warnOnce);
    }
    // bonjour-service ignores failed sends; one query of our own tells whether multicast
    // gets out at all (no route in a container, say), as a browser's first query would.
    socket.query(`_${MDNS_SERVICE_TYPES[0]}._tcp.local`, 'PTR', (err?: Error | null) => {
      if (err) fail(err);
    });
  } catch (err) {
    warnOnce(err);
    void stop();
  }

  function stop(): Promise<void> {
    const current = bonjour;
    bonjour = null;
    if (!current) return Promise.resolve();
    return new Promise<void>((resolve) => {
      // A socket that never came up may not call back: shutdown must not wait on it.
      const timer = setTimeout(resolve, CLOSE_TIMEOUT_MS);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      const destroy = () => {
        try {
          current.destroy(done);
        } catch {
          done();
        }
      };
      try {
        // Goodbye packets first, so browsers drop the unit at once rather than after the TTL.
        current.unpublishAll(destroy);
      } catch {
        destroy();
      }
    });
  }

  return { close: stop };
}

/** The parts of multicast-dns's instance used here. */
interface MulticastDns extends EventEmitter {
  query(name: string, type: string, callback: (err?: Error | null) => void): void;
}

function hasInterfaceAddress(address: string): boolean {
  return Object.values(networkInterfaces()).some((addrs) => addrs?.some((a) => a.address === address));
}
