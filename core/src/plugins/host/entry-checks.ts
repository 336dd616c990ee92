/*
 * The host's checks of an instance entry against its plugin: the devices the manifest allows
 * and the plugin's config schemas, as plugins.json problems (at start) or as field issues
 * (an entry added or switched on through the API).
 */
import type { Device, PluginDefinition } from '@heliograph/plugins-sdk';
import { fieldIssues, issuesText, plainErrorMap, type FieldIssue } from '../../contract/field-issues.js';
import type { DiscoveredPlugin } from '../discovery/discovery.js';
import { deviceRule } from '../discovery/installed.js';
import { deviceEntryId, deviceRuleProblems, parseConfig, parseDevices } from '../instances/config-checks.js';
import type { PluginInstanceConfig } from '../instances/instances.js';
import type { Instance } from './instance.js';

type Checked = { ok: true; parsedConfig: unknown; devices: Device[] } | { ok: false; issues: FieldIssue[] };

/**
 * Problems with the devices of a new entry: more or fewer than the plugin drives, a kind
 * it does not drive, or one another instance drives.
 */
export function newDeviceProblems(
  entry: PluginInstanceConfig,
  plugin: DiscoveredPlugin,
  instances: readonly Instance[],
): FieldIssue[] {
  const name = plugin.manifest.name ?? plugin.manifest.id;
  const issues: FieldIssue[] = deviceRuleProblems(entry.devices, deviceRule(plugin), name).map((p) => ({
    path: p.index === undefined ? ['devices'] : ['devices', p.index],
    message: p.message,
  }));
  const owners = new Map(
    instances.flatMap((i) => i.config.devices.map((d) => [deviceEntryId(d), i.config.id] as const)),
  );
  entry.devices.forEach((device, index) => {
    const owner = owners.get(deviceEntryId(device));
    if (owner && !issues.some((i) => i.path[1] === index))
      issues.push({
        path: ['devices', index],
        message: `device "${deviceEntryId(device)}" is already driven by instance "${owner}": pick another number`,
      });
  });
  return issues;
}

/** A new entry's config and devices by the plugin's own schemas, after `issues` found so far. */
export function checkNewEntry(
  entry: PluginInstanceConfig,
  definition: PluginDefinition,
  issues: FieldIssue[],
): Checked {
  const parsed = parseConfig(definition.configSchema, entry.config, { error: plainErrorMap });
  if (!parsed.success) issues.push(...fieldIssues(parsed.error, ['config']));
  const devices = parseDevices(entry.devices, definition, { source: 'devices', pathPrefix: [] });
  if (!devices.ok) issues.push(...devices.problems.map((message) => ({ path: ['devices'], message })));
  if (issues.length > 0 || !parsed.success || !devices.ok) return { ok: false, issues };
  return { ok: true, parsedConfig: parsed.data, devices: devices.devices };
}

/** A stored entry switched on again: its plugin may have changed while it was off. */
export function checkStoredEntry(config: PluginInstanceConfig, definition: PluginDefinition): Checked {
  const parsed = parseConfig(definition.configSchema, config.config, { error: plainErrorMap });
  if (!parsed.success) {
    const issues = fieldIssues(parsed.error, ['config']);
    return {
      ok: false,
      issues: [
        {
          path: ['enabled'],
          message: `the stored config does not fit the plugin: ${issuesText(issues)}; fix it first`,
        },
        ...issues,
      ],
    };
  }
  const devices = parseDevices(config.devices, definition, { source: 'devices', pathPrefix: [] });
  if (!devices.ok) return { ok: false, issues: devices.problems.map((message) => ({ path: ['devices'], message })) };
  return { ok: true, parsedConfig: parsed.data, devices: devices.devices };
}

/**
 * An enabled instance's devices against the rule its manifest states and the plugin's per-device
 * config schema, as plugins.json problems (plugins[i].devices...).
 */
export function fileDeviceProblems(
  config: PluginInstanceConfig,
  plugin: DiscoveredPlugin,
  definition: PluginDefinition,
  at: { source: string; index: number },
): { ok: true; devices: Device[] } | { ok: false; problems: string[] } {
  const { source, index } = at;
  const name = plugin.manifest.name ?? plugin.manifest.id;
  // Only a rule the manifest states: SDK 1.0 plugins of any kind could drive devices.
  const rule = plugin.manifest.devices ?? null;
  const ruleProblems = (rule ? deviceRuleProblems(config.devices, rule, name) : []).map(
    (p) => `${source}: plugins[${index}].devices${p.index === undefined ? '' : `[${p.index}]`}: ${p.message}`,
  );
  if (ruleProblems.length > 0) return { ok: false, problems: ruleProblems };
  return parseDevices(config.devices, definition, { source, pathPrefix: ['plugins', index, 'devices'] });
}
