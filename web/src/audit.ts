import { api, ApiError } from './api.js';
import { formatTime, formatValue, h, replace } from './dom.js';
import type { AuditEntry } from './types.js';

/** The last 50 write attempts, refused ones included, newest first. */
export class AuditSection {
  private readonly table = h('div');

  constructor(container: HTMLElement) {
    const refresh = h('button', { type: 'button', class: 'secondary' }, 'Refresh audit log');
    refresh.addEventListener('click', () => void this.refresh());
    replace(container, h('div', { class: 'actions' }, refresh), this.table);
  }

  async refresh(): Promise<void> {
    let entries: AuditEntry[];
    try {
      entries = await api<AuditEntry[]>('GET', '/audit?limit=50');
    } catch (err) {
      replace(this.table, h('p', { class: 'message error', role: 'alert' }, `Cannot load the audit log: ${err instanceof ApiError ? err.message : String(err)}`));
      return;
    }
    if (entries.length === 0) {
      replace(this.table, h('p', {}, 'No writes yet.'));
      return;
    }
    replace(
      this.table,
      h(
        'table',
        { class: 'audit' },
        h('thead', {}, h('tr', {}, ['Time', 'Who', 'Via', 'Topic', 'Old', 'New', 'Result'].map((c) => h('th', { scope: 'col' }, c)))),
        h(
          'tbody',
          {},
          entries.map((e) =>
            h(
              'tr',
              { class: e.result === 'ok' ? '' : 'refused' },
              h('td', {}, formatTime(e.time)),
              h('td', {}, e.who),
              h('td', {}, e.via === 'ws' ? 'WebSocket' : 'REST'),
              h('td', {}, h('code', {}, e.topic)),
              h('td', {}, formatValue(e.old_value)),
              h('td', {}, e.new_value),
              h('td', {}, e.result === 'ok' ? 'ok' : `refused: ${e.message ?? ''}`),
            ),
          ),
        ),
      ),
    );
  }
}
