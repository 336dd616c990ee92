import type { SiteSettings, SiteSettingsPatch } from '../../config/site-settings.js';
import type { InstanceStatus } from '../../plugins/host/host.js';
import type { FieldIssue } from '../../contract/field-issues.js';

/** A plugin instance as GET /api/v1/plugins shows it: its grants say what it may publish. */
export type SourceCandidate = Pick<InstanceStatus, 'id' | 'plugin' | 'grants'>;

const WHAT = { prices: 'grid prices', forecast: 'the forecast' } as const;

/**
 * The owner's price and forecast sources (`prices.source`, `prices.fallbacks` and the same
 * under `forecast`) checked against plugins.json: each id the patch names must be a plugin
 * instance approved to publish that (a price or forecast plugin, or one granted it, as the
 * simulator is), and no id may be named twice. An instance added later cannot be chosen
 * before it exists: a misspelt id would otherwise leave the site without prices, silently.
 */
export function sourceIssues(
  patch: SiteSettingsPatch,
  current: SiteSettings,
  candidates: readonly SourceCandidate[],
): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const section of ['prices', 'forecast'] as const) {
    const given = patch[section];
    if (!given || (given.source === undefined && given.fallbacks === undefined)) continue;
    const may = (c: SourceCandidate) => c.grants?.approved[section] === true;
    const able = candidates.filter(may).map((c) => `"${c.id}"`);
    const choices =
      able.length > 0
        ? `choose one of ${able.join(', ')}`
        : `no plugin instance publishes ${WHAT[section]} yet: add one first`;
    const check = (id: string, path: Array<string | number>) => {
      const instance = candidates.find((c) => c.id === id);
      if (!instance)
        issues.push({ path, message: `"${id}" is no plugin instance (GET /api/v1/plugins lists them); ${choices}` });
      else if (!may(instance))
        issues.push({
          path,
          message: `"${id}" (plugin ${instance.plugin}) does not publish ${WHAT[section]}; ${choices}`,
        });
    };
    const source = given.source === undefined ? current[section].source : given.source;
    if (typeof given.source === 'string') check(given.source, [section, 'source']);
    given.fallbacks?.forEach((id, i) => {
      const path = [section, 'fallbacks', i];
      if (id === source)
        issues.push({ path, message: `"${id}" is the ${section} source itself; list other instances` });
      else if (given.fallbacks!.indexOf(id) < i) issues.push({ path, message: `"${id}" is listed twice` });
      else check(id, path);
    });
  }
  return issues;
}
