import { api, errorText } from '../api/client.js';
import { h, replace } from '../ui/dom.js';
import { auditValueText, formatTime } from '../ui/format.js';
import type { AuditEntry } from '../api/types.js';

/** The last 50 write attempts, refused ones included, newest first, as a list (not a table: it must fit a phone). */
export async function renderAudit(list: HTMLElement): Promise<void> {
  let entries: AuditEntry[];
  try {
    entries = await api<AuditEntry[]>('GET', '/audit?limit=50');
  } catch (err) {
    replace(list, h('p', { class: 'message error', role: 'alert' }, `Cannot load the audit log: ${errorText(err)}`));
    return;
  }
  if (entries.length === 0) return replace(list, h('p', {}, 'No changes yet.'));
  replace(
    list,
    h(
      'ol',
      { class: 'audit' },
      entries.map((e) =>
        h(
          'li',
          { class: e.result === 'ok' ? 'ok' : 'refused' },
          h(
            'p',
            { class: 'audit-head' },
            h('code', {}, e.topic),
            h(
              'span',
              { class: e.result === 'ok' ? 'badge state-running' : 'badge state-failed' },
              e.result === 'ok' ? 'done' : 'refused',
            ),
          ),
          h('p', {}, `${auditValueText(e.old_value)} → ${auditValueText(e.new_value)}`),
          e.result === 'ok' ? null : h('p', { class: 'error-text' }, e.message ?? ''),
          h('p', { class: 'hint' }, `${formatTime(e.time)} · ${e.who} · ${viaText(e.via)}`),
        ),
      ),
    ),
  );
}

/** Where a write came from: REST, the WebSocket, or the plugin (by id) that wrote it. */
function viaText(via: string): string {
  return via === 'ws' ? 'WebSocket' : via === 'rest' ? 'REST' : `plugin ${via}`;
}
