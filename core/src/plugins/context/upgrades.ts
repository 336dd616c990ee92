/*
 * WebSocket upgrades of the service's port that plugins take (`ctx.integration.acceptUpgrades`):
 * a device that connects to Heliograph (an EV charger speaking OCPP-J at `/ocpp/<id>`). The
 * stream's upgrade handler (api/websocket) asks here before it refuses a path; the core checks
 * nothing on these paths, the plugin authenticates.
 */
import type { Disposer, UpgradeHandler } from '@heliograph/plugins-sdk';

interface UpgradeRoute {
  prefix: string;
  /** The instance that took it, named when another asks for the same prefix. */
  owner: string;
  handler: UpgradeHandler;
}

/** The path prefixes plugins took, each with its handler; one server's own. */
export class UpgradeRoutes {
  private readonly routes: UpgradeRoute[] = [];

  /** Takes `prefix` for `owner`'s `handler`; throws a message naming what is wrong with it. */
  add(prefix: string, owner: string, handler: UpgradeHandler): Disposer {
    const problem = prefixProblem(prefix);
    if (problem) throw new Error(`acceptUpgrades: prefix "${prefix}" ${problem}`);
    const clash = this.routes.find((r) => overlaps(r.prefix, prefix));
    if (clash) throw new Error(`acceptUpgrades: prefix "${prefix}" overlaps "${clash.prefix}" of ${clash.owner}`);
    const route = { prefix, owner, handler };
    this.routes.push(route);
    return () => {
      const i = this.routes.indexOf(route);
      if (i >= 0) this.routes.splice(i, 1);
    };
  }

  /** The handler of the route `pathname` is on (`/ocpp/CP1` is on `/ocpp`), if a plugin took it. */
  find(pathname: string): UpgradeHandler | undefined {
    return this.routes.find((r) => pathname === r.prefix || pathname.startsWith(`${r.prefix}/`))?.handler;
  }
}

function prefixProblem(prefix: string): string | undefined {
  if (!/^\/[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*$/.test(prefix))
    return 'must start with "/" and be path segments of letters, digits, ".", "_", "~" or "-", without a "/" at the end';
  if (prefix === '/api' || prefix.startsWith('/api/')) return "is under /api, the service's own API";
  return undefined;
}

const overlaps = (a: string, b: string) => a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
