/**
 * The `history` entry of GET /api/v1/plugins: a row shaped like a plugin's, so the page and
 * clients that list plugin states show history's too. Choice (docs/api-choices.md): `state`
 * is `running` while history records (its `last_error` naming the latest damage found and
 * set aside, if any) and `failed` when the service runs without history. Writes of the
 * database file that wait to be retried (the audit, the energy totals, a lock held by
 * another process) are named in `last_error` too: this row is the storage's.
 */
import type { PluginStatus as InstanceStatus } from '../contract/types.js';
import type { OpenedHistory } from './open.js';

export function historyStatusRow(
  opened: OpenedHistory,
  setAsideAs: string | undefined,
  storageTrouble: string | null = null,
): InstanceStatus {
  const base = {
    id: 'history',
    plugin: 'core',
    kind: 'history',
    devices: [],
    device_status: [],
    enabled: true,
    last_poll: null,
    isolation: 'process-local' as const,
  };
  const trouble = storageTrouble === null ? '' : `; ${storageTrouble}`;
  if (!opened.store) return { ...base, state: 'failed', last_error: `history is off: ${opened.reason}${trouble}` };
  const health = opened.store.healthReport;
  const notes: string[] = [];
  if (setAsideAs)
    notes.push(`the database file could not be read and was moved to ${setAsideAs}; history starts afresh`);
  if (health.quarantined > 0)
    notes.push(`${health.quarantined} damaged part(s) set aside; latest: ${health.problems.at(-1) ?? 'see the log'}`);
  else if (health.problems.length > 0) notes.push(health.problems.at(-1)!);
  if (storageTrouble !== null) notes.push(storageTrouble);
  return { ...base, state: 'running', last_error: notes.length > 0 ? notes.join('; ') : null };
}
