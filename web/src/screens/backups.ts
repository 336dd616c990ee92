// Backups on the Access screen: the schedule, the list with downloads, "Back up now",
// delete, and a restore of a listed backup or from a file, which the service checks before
// anything changes and then puts in place by restarting; the page waits for it to come back.

import type { BackupEntry, BackupsResponse, RestoreStaged } from '@heliograph/core/api-types';
import { api, ApiError, errorText, loadFailure, storedToken } from '../api/client.js';
import { h, replace, showMessage, uid } from '../ui/dom.js';
import { listRow, showRows } from '../ui/rows.js';
import { formatTime } from '../ui/format.js';

/** How long the page waits for the service to come back after a restore. */
const RESTART_WAIT_MS = 120_000;

function formatSize(bytes: number): string {
  return bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1e3))} kB`;
}

const authHeader = (): Record<string, string> => {
  const stored = storedToken();
  return stored ? { Authorization: `Bearer ${stored.token}` } : {};
};

/** The words of an error answer, or its status. */
async function refusal(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { error?: unknown };
    if (typeof body.error === 'string') return body.error;
  } catch {
    // Not JSON: the status says it.
  }
  return `${response.status} ${response.statusText}`;
}

/** Saves a listed backup: fetched with the page's token (a plain link carries none), then handed to the browser. */
async function download(name: string): Promise<void> {
  const response = await fetch(`/api/v1/backups/${encodeURIComponent(name)}`, {
    headers: authHeader(),
    cache: 'no-store',
  });
  if (!response.ok) throw new ApiError(response.status, await refusal(response));
  const url = URL.createObjectURL(await response.blob());
  const link = h('a', { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export class BackupsSection {
  private readonly schedule = h('form', { class: 'inline-form', 'aria-label': 'Backup schedule' });
  private readonly status = h('div', { class: 'backup-status' });
  private readonly list = h('div', { class: 'backup-list' });
  private readonly message = h('p', { class: 'message', hidden: true });
  private readonly restore = this.restoreForm();
  private readonly now = h('button', { type: 'button' }, 'Back up now');
  private lastRestoreAt: string | null = null;

  constructor(container: HTMLElement) {
    this.now.addEventListener('click', () => void this.backUpNow());
    replace(
      container,
      this.schedule,
      this.status,
      h('div', { class: 'actions' }, this.now),
      this.message,
      this.list,
      this.restore,
    );
  }

  async refresh(): Promise<void> {
    let answer: BackupsResponse;
    try {
      answer = await api<BackupsResponse>('GET', '/backups');
    } catch (err) {
      const failed = loadFailure(
        err,
        'load the backups',
        'This version of Heliograph has no backups in the page: use `heliograph backup FILE` on the device.',
      );
      showMessage(this.message, failed.missing ? 'info' : 'error', failed.text);
      return;
    }
    this.lastRestoreAt = answer.restored?.at ?? null;
    this.renderSchedule(answer);
    this.renderStatus(answer);
    this.renderList(answer.backups);
  }

  private renderSchedule(answer: BackupsResponse): void {
    const scheduleId = uid('backup-schedule');
    const timeId = uid('backup-time');
    const keepId = uid('backup-keep');
    const schedule = h(
      'select',
      { id: scheduleId },
      (
        [
          ['daily', 'Every day'],
          ['weekly', 'Every week (Monday)'],
          ['off', 'Off'],
        ] as const
      ).map(([value, label]) => h('option', { value, selected: value === answer.schedule.schedule }, label)),
    );
    const time = h('input', { id: timeId, type: 'time', required: true, value: answer.schedule.time });
    const keep = h('input', { id: keepId, type: 'number', min: 1, max: 365, step: 1, value: answer.schedule.keep });
    const message = h('p', { class: 'message', hidden: true });
    const save = h('button', { type: 'submit', class: 'secondary' }, 'Save schedule');
    replace(
      this.schedule,
      h('div', { class: 'field' }, h('label', { for: scheduleId }, 'Scheduled backups'), schedule),
      h('div', { class: 'field' }, h('label', { for: timeId }, 'At (site time)'), time),
      h('div', { class: 'field' }, h('label', { for: keepId }, 'Keep'), keep),
      h('div', { class: 'actions' }, save),
      message,
    );
    this.schedule.onsubmit = (event) => {
      event.preventDefault();
      save.disabled = true;
      const body = { schedule: schedule.value, time: time.value.slice(0, 5), keep: Number(keep.value) };
      void api('PUT', '/backups/schedule', { body })
        .then(() => {
          showMessage(message, 'ok', 'Saved.');
          return this.refresh();
        })
        .catch((err: unknown) => showMessage(message, 'error', `Not saved: ${errorText(err)}`))
        .finally(() => (save.disabled = false));
    };
  }

  private renderStatus(answer: BackupsResponse): void {
    const { last, restored } = answer;
    replace(
      this.status,
      h(
        'p',
        { class: 'hint' },
        `Written to ${answer.folder}. `,
        answer.next_at ? `Next scheduled backup: ${formatTime(answer.next_at)}.` : 'No scheduled backups.',
      ),
      last.error ? h('p', { class: 'message error', role: 'alert' }, `The last backup failed: ${last.error}`) : null,
      restored?.error ? h('p', { class: 'message error', role: 'alert' }, restored.error) : null,
      restored && !restored.error
        ? h(
            'p',
            { class: 'message ok', role: 'status' },
            `Restored the backup made ${formatTime(restored.created)} at ${formatTime(restored.at)}.`,
          )
        : null,
    );
  }

  private renderList(backups: BackupEntry[]): void {
    showRows(this.list, {
      className: 'token-rows backup-rows',
      none: 'No backups yet.',
      rows: backups.map((b) => {
        const link = h('a', { href: `/api/v1/backups/${encodeURIComponent(b.name)}`, download: b.name }, 'Download');
        link.addEventListener('click', (event) => {
          event.preventDefault();
          void download(b.name).catch((err: unknown) =>
            showMessage(this.message, 'error', `Not downloaded: ${errorText(err)}`),
          );
        });
        const remove = h(
          'button',
          { type: 'button', class: 'danger', 'aria-label': `Delete backup ${b.name}` },
          'Delete',
        );
        remove.addEventListener('click', () => void this.remove(b.name, remove));
        const restore = h(
          'button',
          { type: 'button', class: 'danger', 'aria-label': `Restore backup ${b.name}` },
          'Restore…',
        );
        restore.addEventListener('click', () => void this.restoreListed(b, restore));
        return listRow({
          className: 'token-row backup-row',
          name: [formatTime(b.created_at)],
          hint: `${b.kind === 'scheduled' ? 'Scheduled' : 'Made by hand'} · ${formatSize(b.size)} · ${b.name}`,
          actions: [link, restore, remove],
        });
      }),
    });
  }

  private async backUpNow(): Promise<void> {
    this.now.disabled = true;
    showMessage(this.message, 'info', 'Writing a backup…');
    try {
      const made = await api<BackupEntry>('POST', '/backups');
      showMessage(this.message, 'ok', `Backup written (${formatSize(made.size)}).`);
      await this.refresh();
    } catch (err) {
      showMessage(this.message, 'error', `No backup written: ${errorText(err)}`);
    } finally {
      this.now.disabled = false;
    }
  }

  private async remove(name: string, button: HTMLButtonElement): Promise<void> {
    if (!window.confirm(`Delete the backup ${name}? It cannot be brought back.`)) return;
    button.disabled = true;
    try {
      await api('DELETE', `/backups/${encodeURIComponent(name)}`);
      showMessage(this.message, 'ok', 'Deleted.');
    } catch (err) {
      showMessage(this.message, 'error', `Not deleted: ${errorText(err)}`);
    }
    await this.refresh();
  }

  /** Restores a backup of the list: the service checks and stages it as it does an upload. */
  private async restoreListed(backup: BackupEntry, button: HTMLButtonElement): Promise<void> {
    const question =
      `Restore the backup made ${formatTime(backup.created_at)} (${backup.name})? ` +
      "The service restarts on this backup's data: settings, tokens, plugins and history become the backup's; " +
      'what is there now is kept aside on the device as heliograph.db.before-restore-<time>. ' +
      'This page may ask you to sign in again.';
    if (!window.confirm(question)) return;
    button.disabled = true;
    showMessage(this.message, 'info', `Checking the backup ${backup.name}…`);
    let staged: RestoreStaged;
    try {
      staged = await api<RestoreStaged>('POST', `/backups/${encodeURIComponent(backup.name)}/restore`);
    } catch (err) {
      showMessage(this.message, 'error', `Not restored: ${errorText(err)}`);
      button.disabled = false;
      return;
    }
    await this.staged(staged, this.message);
  }

  private restoreForm(): HTMLFormElement {
    const fileId = uid('restore-file');
    const file = h('input', { id: fileId, type: 'file', required: true });
    const message = h('p', { class: 'message', hidden: true });
    const button = h('button', { type: 'submit', class: 'danger' }, 'Restore…');
    const form = h(
      'form',
      { class: 'inline-form', 'aria-label': 'Restore a backup' },
      h('div', { class: 'field' }, h('label', { for: fileId }, 'Backup file to restore'), file),
      h('div', { class: 'actions' }, button),
      message,
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const chosen = file.files?.[0];
      if (!chosen) return;
      const question =
        `Restore ${chosen.name}? Settings, tokens, plugins and history become the backup's; ` +
        'what is there now is kept aside on the device. The service restarts, and this page may ask you to sign in again.';
      if (!window.confirm(question)) return;
      button.disabled = true;
      void this.upload(chosen, message).finally(() => (button.disabled = false));
    });
    return form;
  }

  private async upload(file: File, message: HTMLElement): Promise<void> {
    showMessage(message, 'info', 'Checking the backup…');
    let response: Response;
    try {
      response = await fetch('/api/v1/backups/restore', {
        method: 'POST',
        headers: { ...authHeader(), 'Content-Type': 'application/octet-stream' },
        body: file,
      });
    } catch {
      showMessage(message, 'error', 'The device did not answer: nothing was restored.');
      return;
    }
    if (!response.ok) {
      showMessage(message, 'error', `Not restored: ${await refusal(response)}`);
      return;
    }
    await this.staged((await response.json()) as RestoreStaged, message);
  }

  /** Says what was staged, then waits for the service to come back with it in place. */
  private async staged(staged: RestoreStaged, message: HTMLElement): Promise<void> {
    const stripped = staged.stripped.length ? ` Removed from it: ${staged.stripped.join(', ')}.` : '';
    showMessage(
      message,
      'info',
      `The backup passed the checks; the service is restarting to put it in place…${stripped}`,
    );
    await this.waitForRestart(message);
  }

  /** Asks until the restarted service answers with this restore's outcome (a 401 sends the page to sign-in). */
  private async waitForRestart(message: HTMLElement): Promise<void> {
    const before = this.lastRestoreAt;
    const deadline = Date.now() + RESTART_WAIT_MS;
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      try {
        const answer = await api<BackupsResponse>('GET', '/backups');
        if (answer.restored && answer.restored.at !== before) {
          showMessage(message, answer.restored.error ? 'error' : 'ok', answer.restored.error ?? 'Restored.');
          await this.refresh();
          return;
        }
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return;
      }
    }
    showMessage(message, 'error', 'The service has not come back within 2 minutes: check it on the device.');
  }
}
