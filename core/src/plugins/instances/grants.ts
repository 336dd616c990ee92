/*
 * Grants: what a plugin instance may do beyond its own devices (write other devices'
 * settings, publish grid prices or the PV forecast, reach hosts through ctx.http). The
 * manifest asks (`heliograph.grants`), the owner approves per instance (plugins.json
 * `grants`), and the core checks each call on its own side: a call outside the approved
 * grants is refused with GRANT_MISSING, logged and audited (context/refusals.ts).
 *
 * A bundled plugin's manifest grants are approved by default (it ships with Heliograph); an
 * entry's own `grants` narrows them. A third-party plugin has only what its entry approves,
 * and only what its manifest asked for.
 */
import { manifestGrantsSchema, type PluginGrants } from '@heliograph/plugins-sdk';
import { compileGlob, type GlobMatcher } from '../../topics/glob.js';

export type { PluginGrants };

/** The `grants` key of a plugins.json entry: what the owner approved. */
export const grantsSchema = manifestGrantsSchema;

export const GRANT_MISSING = 'GRANT_MISSING';

/** A call outside the instance's approved grants; `code` reaches the plugin, in process or not. */
export class GrantMissingError extends Error {
  readonly code = GRANT_MISSING;
  override name = 'GrantMissingError';
}

interface GrantedManifest {
  kind: string;
  grants?: PluginGrants;
}

/**
 * What a plugin asks for: its manifest's grants, and what its kind is for (a `prices` plugin
 * publishes prices, a `forecast` plugin the forecast) without having to say so again.
 */
export function requestedGrants(manifest: GrantedManifest): PluginGrants {
  const grants = { ...manifest.grants };
  if (manifest.kind === 'prices') grants.prices = true;
  if (manifest.kind === 'forecast') grants.forecast = true;
  return grants;
}

/** What an instance may do: its plugin's requested grants as approved by its entry. */
export function approvedGrants(
  plugin: { bundled?: boolean; manifest: GrantedManifest },
  entry: { grants?: PluginGrants },
): PluginGrants {
  const requested = requestedGrants(plugin.manifest);
  if (plugin.bundled !== false && entry.grants === undefined) return requested;
  return within(entry.grants ?? {}, requested);
}

/** The part of `approved` the manifest asked for: an approval never adds to the request. */
export function within(approved: PluginGrants, requested: PluginGrants): PluginGrants {
  const list = (a: string[] | undefined, r: string[] | undefined) => (a ?? []).filter((x) => (r ?? []).includes(x));
  const grants: PluginGrants = {};
  const writes = list(approved.writes, requested.writes);
  const hosts = list(approved.hosts, requested.hosts);
  if (writes.length > 0) grants.writes = writes;
  if (approved.prices === true && requested.prices === true) grants.prices = true;
  if (approved.forecast === true && requested.forecast === true) grants.forecast = true;
  if (hosts.length > 0) grants.hosts = hosts;
  return grants;
}

/** What `approved` holds that `requested` does not: each as a sentence for the API's answer. */
export function beyondRequest(approved: PluginGrants, requested: PluginGrants): { path: string[]; message: string }[] {
  const issues: { path: string[]; message: string }[] = [];
  const asked = (key: 'writes' | 'hosts') => requested[key]?.map((x) => JSON.stringify(x)).join(', ') || 'none';
  for (const key of ['writes', 'hosts'] as const)
    approved[key]?.forEach((x, i) => {
      if (!requested[key]?.includes(x))
        issues.push({
          path: [key, String(i)],
          message: `${JSON.stringify(x)} is not among the plugin's requested ${key} (${asked(key)})`,
        });
    });
  for (const key of ['prices', 'forecast'] as const)
    if (approved[key] === true && requested[key] !== true)
      issues.push({ path: [key], message: `the plugin does not ask to publish ${key}` });
  return issues;
}

/** The checks of one instance's calls against its grants. */
export class GrantCheck {
  private readonly writes: GlobMatcher[];
  private readonly own: string[];

  constructor(
    readonly grants: PluginGrants,
    ownDevices: readonly { id: string }[],
  ) {
    this.writes = (grants.writes ?? []).map(compileGlob);
    this.own = ownDevices.map((d) => `${d.id}/`);
  }

  /** Undefined when the instance may write `topic`, else the refusal's sentence. */
  write(topic: string): string | undefined {
    if (this.own.some((prefix) => topic.startsWith(prefix))) return undefined;
    if (this.writes.some((m) => m.test(topic))) return undefined;
    return `${GRANT_MISSING}: writing ${topic} needs a grant: it is not a setting of the instance's own devices and matches none of its approved "writes" (${(this.grants.writes ?? []).join(', ') || 'none'})`;
  }

  /** Undefined when the instance may publish grid prices or forecast series. */
  publish(what: 'prices' | 'forecast'): string | undefined {
    if (this.grants[what] === true) return undefined;
    return `${GRANT_MISSING}: publishing ${what === 'prices' ? 'grid prices' : 'the forecast'} needs the "${what}" grant, which the owner has not approved for this instance`;
  }

  /** Undefined when ctx.http may reach `host`. */
  host(host: string): string | undefined {
    return hostRefusal(this.grants.hosts, host);
  }
}

/** Whether `hosts` (a grant's list) lets ctx.http reach `host`; the refusal's sentence when not. */
export function hostRefusal(hosts: readonly string[] | undefined, host: string): string | undefined {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '');
  for (const pattern of hosts ?? []) {
    const p = pattern.toLowerCase().replace(/^\[|\]$/g, '');
    if (p === '*' || p === name) return undefined;
    if (p.startsWith('*.') && name.endsWith(p.slice(1))) return undefined;
  }
  return `${GRANT_MISSING}: ctx.http may not reach ${host}: it is not among the instance's approved "hosts" (${hosts?.join(', ') || 'none'})`;
}
