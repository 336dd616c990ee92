// Field-level errors: each issue the API (or the page itself) reports is shown under the
// field it names, the control marked invalid and described by the message, and the first
// such field focused. Fields carry `data-path` ("config.planes.0.tilt").

import type { Issue } from '../api/client.js';
import { h, uid } from './dom.js';

export function clearIssues(form: HTMLElement): void {
  for (const error of form.querySelectorAll('.field-error')) error.remove();
  for (const control of form.querySelectorAll('[aria-invalid]')) {
    control.removeAttribute('aria-invalid');
    const ids = (control.getAttribute('aria-describedby') ?? '').split(' ').filter((id) => !id.startsWith('err-'));
    if (ids.length) control.setAttribute('aria-describedby', ids.join(' '));
    else control.removeAttribute('aria-describedby');
  }
}

/**
 * Shows each issue at its field. `strip` is a leading path part the form's fields leave out
 * (the API's `config` in `["config", "port"]`). Returns the issues no field matched.
 */
export function showIssues(form: HTMLElement, issues: Issue[], strip: string[] = []): Issue[] {
  const unmatched: Issue[] = [];
  let first: HTMLElement | null = null;
  for (const issue of issues) {
    let path = issue.path.map(String);
    if (strip.length && strip.every((part, i) => path[i] === part)) path = path.slice(strip.length);
    const field = findField(form, path);
    if (!field) {
      unmatched.push(issue);
      continue;
    }
    const id = uid('err');
    field.append(h('p', { class: 'field-error', id, role: 'alert' }, issue.message));
    const control = field.querySelector<HTMLElement>('input, select, textarea');
    if (control) {
      control.setAttribute('aria-invalid', 'true');
      control.setAttribute(
        'aria-describedby',
        [control.getAttribute('aria-describedby'), id].filter(Boolean).join(' '),
      );
      first ??= control;
    }
  }
  first?.focus();
  return unmatched;
}

/** The field for a path, or for its nearest ancestor path that has one. */
function findField(form: HTMLElement, path: string[]): HTMLElement | null {
  for (let n = path.length; n > 0; n--) {
    const key = path.slice(0, n).join('.');
    const field = form.querySelector<HTMLElement>(`[data-path="${CSS.escape(key)}"]`);
    if (field) return field;
  }
  return null;
}
