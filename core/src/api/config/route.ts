import Router from '../router.js';
import { z } from 'zod';
import { siteSettingsPatchSchema, siteSettingsSchema, type LiveSiteSettings } from '../../config/site-settings.js';
import { systemTimeZone } from '../../config/schema.js';
import { saveSettingChanges, type RecordChange } from '../change-audit.js';
import { ValidationError, issuesText, parseBody } from '../../contract/field-issues.js';
import { sourceIssues, type SourceCandidate } from './source-checks.js';

/**
 * GET /api/v1/config: the site settings the settings page edits (site, energy, prices) and
 * their JSON Schema. PUT /api/v1/config: any subset of them; validated (400 with field
 * issues, nothing saved), saved atomically to the user config file, applied without a
 * restart, and each changed key audited as `config/<section.key>`.
 */
export function siteConfigRoutes(deps: {
  settings: LiveSiteSettings;
  record?: RecordChange;
  /** The plugin instances that may be chosen as price or forecast source (source-checks.ts). */
  sources?: () => SourceCandidate[];
}): Router {
  const { settings } = deps;
  const record: RecordChange = deps.record ?? (async () => {});
  const router = new Router();
  const schema = z.toJSONSchema(siteSettingsSchema, { io: 'input', unrepresentable: 'any' });

  router.get('/config', (ctx) => {
    ctx.body = { ...settings.current(), time_zone: settings.timeZone(), system_time_zone: systemTimeZone(), schema };
  });

  router.put('/config', async (ctx) => {
    const patch = parseBody(siteSettingsPatchSchema, ctx.request.body);
    const issues = deps.sources ? sourceIssues(patch, settings.current(), deps.sources()) : [];
    if (issues.length > 0) throw new ValidationError(issuesText(issues), issues);
    await saveSettingChanges('the settings', () => settings.update(patch), record, ctx.state.who);
    ctx.body = settings.current();
  });

  return router;
}
