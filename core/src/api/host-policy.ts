import { isIP } from 'node:net';

/**
 * Which `Host` and `Origin` values the service answers, against browsers used as weapons:
 * - DNS rebinding: a page on evil.example re-points its own name at the device and then
 *   reads the API as "same origin". The Host header still says evil.example, so only IP
 *   literals, `localhost`, `.local` (mDNS) names and configured names are answered.
 * - Cross-site requests: any page the user opens could open a WebSocket (browsers apply no
 *   CORS to it) and guess passwords from the user's own address, getting it throttled.
 *   A browser always sends `Origin` there, so a request with an Origin other than the
 *   page's own (same Host) or a configured one is refused. Clients that are not browsers
 *   send no Origin and are not affected.
 */
export interface HostPolicyConfig {
  /** Extra host names (without port) the device is reached by, e.g. `solar.example.net`. */
  allowedHosts: string[];
  /** Extra browser origins allowed to call the API, e.g. `https://dashboard.example.net`. */
  allowedOrigins: string[];
}

export const DEFAULT_HOST_POLICY: HostPolicyConfig = { allowedHosts: [], allowedOrigins: [] };

export class HostPolicy {
  private readonly hosts: Set<string>;
  private readonly origins: Set<string>;

  constructor(config: HostPolicyConfig = DEFAULT_HOST_POLICY) {
    this.hosts = new Set(config.allowedHosts.map((h) => h.toLowerCase().replace(/\.$/, '')));
    this.origins = new Set(config.allowedOrigins.map((o) => o.toLowerCase().replace(/\/$/, '')));
  }

  /** Why a `Host` header is refused, or undefined when it is fine (absent counts as fine: no browser omits it). */
  hostProblem(host: string | undefined): string | undefined {
    if (host === undefined || host === '') return undefined;
    const name = hostName(host);
    if (name !== undefined && this.hostAllowed(name)) return undefined;
    return `Host "${host.slice(0, 100)}" is not a name of this device: use its IP address, localhost or its .local name, or add the name to security.allowedHosts in the config`;
  }

  /** Why an `Origin` header is refused, or undefined when it is the page's own, configured, or absent. */
  originProblem(origin: string | undefined, host: string | undefined): string | undefined {
    if (origin === undefined) return undefined;
    const normalized = origin.toLowerCase();
    if (this.origins.has(normalized)) return undefined;
    const own =
      host !== undefined &&
      (normalized === `http://${host.toLowerCase()}` || normalized === `https://${host.toLowerCase()}`);
    if (own) return undefined;
    return `requests from the web page at ${origin.slice(0, 100)} are refused: only this device's own page may call the API from a browser (add the origin to security.allowedOrigins to allow it)`;
  }

  private hostAllowed(name: string): boolean {
    if (isIP(name) !== 0) return true;
    if (name === 'localhost' || name.endsWith('.localhost') || name.endsWith('.local')) return true;
    return this.hosts.has(name);
  }
}

/** The name part of a Host header (`[::1]:8080` -> `::1`), lower case, or undefined when malformed. */
function hostName(host: string): string | undefined {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+))(?::\d{1,5})?$/.exec(host.trim());
  if (!match) return undefined;
  return (match[1] ?? match[2]!).toLowerCase().replace(/\.$/, '');
}
