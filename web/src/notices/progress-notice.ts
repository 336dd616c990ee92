// The long tasks plugins report (`progress` in GET /api/v1/plugins: the demo's backfill), one
// line each on the dashboard while they run: "Recording the demo's last 7 days: 3 of 7 days".
// The statuses are asked again every few seconds while one runs (never otherwise), and the
// dashboard is told when one ends, so it can load the figures the task has just completed.

import { h, replace } from '../ui/dom.js';
import type { PluginStatuses } from '../state/plugin-statuses.js';
import type { PluginStatus } from '../api/types.js';

const RECHECK_MS = 2000;

type Progress = NonNullable<PluginStatus['progress']>;

/** `3 of 7 days, about 40 s left`: whole units, the end only when the server could estimate it. */
export function progressText(progress: Progress, now = Date.now()): string {
  const unit = progress.unit ? ` ${progress.unit}` : '';
  const amount = `${Math.floor(progress.done)} of ${progress.total}${unit}`;
  if (progress.eta === null) return `${progress.what}: ${amount}`;
  const left = Math.max(1, Math.round((Date.parse(progress.eta) - now) / 1000));
  return `${progress.what}: ${amount}, about ${left < 90 ? `${left} s` : `${Math.round(left / 60)} min`} left`;
}

const running = (p: PluginStatus) =>
  p.progress !== null && p.progress !== undefined && p.progress.done < p.progress.total;

export function mountProgressNotice(
  container: HTMLElement,
  statuses: PluginStatuses,
  /** A task that was shown has ended (finished, or its instance stopped). */
  ended: () => void,
): () => void {
  let timer: number | undefined;
  let shown = new Set<string>();
  const stop = statuses.subscribe((list) => {
    const tasks = list.filter(running);
    const ids = new Set(tasks.map((p) => p.id));
    if ([...shown].some((id) => !ids.has(id))) ended();
    shown = ids;
    if (tasks.length === 0) replace(container);
    else
      replace(
        container,
        h(
          'div',
          { class: 'message info', role: 'status' },
          tasks.map((p) => h('p', { 'data-progress': p.id }, progressText(p.progress!))),
        ),
      );
    clearTimeout(timer);
    if (tasks.length > 0) timer = window.setTimeout(() => void statuses.refresh(), RECHECK_MS);
  });
  return () => {
    clearTimeout(timer);
    stop();
  };
}
