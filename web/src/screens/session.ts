// Getting a token for the page: the first-run form (a password guarded by the one-time
// setup code the service prints in its log) or sign-in with the password. Either way the
// page keeps only the token it is given, never the password.

import { api, ApiError, authFailureMessage, basicAuth, storeToken, type PageToken } from '../api/client.js';
import { h, replace, showMessage } from '../ui/dom.js';
import { showIssues, clearIssues } from '../ui/field-errors.js';
import type { CreatedToken } from '../api/types.js';

/** Whether the device still has no password: GET /setup, or a 403 from the API before it existed. */
export async function needsSetup(): Promise<boolean> {
  try {
    const answer = await api<{ needs_setup: boolean }>('GET', '/setup', { authorization: null });
    return answer.needs_setup === true;
  } catch (err) {
    if (err instanceof ApiError && (err.status === 404 || err.status === 401)) return false;
    throw err;
  }
}

function browserName(): string {
  const ua = navigator.userAgent;
  for (const [pattern, name] of [
    [/Edg\//, 'Edge'],
    [/Firefox\//, 'Firefox'],
    [/Chrom(e|ium)\//, 'Chrome'],
    [/Safari\//, 'Safari'],
  ] as const) {
    if (pattern.test(ua)) return name;
  }
  return 'browser';
}

/**
 * Token names must be unique: the date and time to the second keep most sign-ins apart, and
 * another sign-in within the same second (two tabs, or signing out and in at once) is
 * numbered: "... 10:00:00 AM) 2".
 */
export function pageTokenName(attempt = 1): string {
  const now = new Date();
  const name = `Settings page (${browserName()}, ${now.toLocaleDateString()} ${now.toLocaleTimeString()})`;
  return attempt === 1 ? name : `${name} ${attempt}`;
}

/** The page's token, made with the password under a name no other token has (409: taken). */
async function createPageToken(password: string): Promise<CreatedToken> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await api<CreatedToken>('POST', '/tokens', {
        authorization: basicAuth(password),
        body: { name: pageTokenName(attempt), scope: 'admin', idle_expiry: true },
      });
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 409) || attempt >= 9) throw err;
    }
  }
}

/** Signs out: the token is revoked on the device, then forgotten here. */
export async function signOut(token: PageToken | null): Promise<void> {
  if (token) await api('DELETE', `/tokens/${encodeURIComponent(token.id)}`).catch(() => undefined);
  storeToken(null);
}

function passwordField(
  id: string,
  label: string,
  autocomplete: string,
): { field: HTMLElement; input: HTMLInputElement } {
  const input = h('input', { id, name: id, type: 'password', autocomplete, required: true, minlength: 8 });
  const field = h('div', { class: 'field', 'data-path': 'password' }, h('label', { for: id }, label), input);
  return { field, input };
}

/** The sign-in form; `onToken` gets the created token. */
export function showSignIn(root: HTMLElement, onToken: (token: PageToken) => void, message?: string): void {
  const { field, input } = passwordField('password', 'Device password', 'current-password');
  const status = h('p', { class: 'message', hidden: true });
  const button = h('button', { type: 'submit' }, 'Sign in');
  const form = h(
    'form',
    { class: 'card narrow', 'aria-label': 'Sign in' },
    h('h2', {}, 'Sign in'),
    h('p', { class: 'hint' }, 'The page keeps a revocable access token, never the password. Sign out to revoke it.'),
    field,
    h('div', { class: 'actions' }, button),
    status,
  );
  if (message) showMessage(status, 'error', message);
  const signIn = async (event: SubmitEvent) => {
    event.preventDefault();
    button.disabled = true;
    showMessage(status, 'info', 'Signing in…');
    try {
      const created = await createPageToken(input.value);
      storeToken(created);
      onToken(created);
    } catch (err) {
      showMessage(
        status,
        'error',
        err instanceof ApiError && [401, 403, 429].includes(err.status)
          ? authFailureMessage(err, true)
          : err instanceof ApiError
            ? err.message
            : String(err),
      );
      input.select();
    } finally {
      button.disabled = false;
    }
  };
  // signIn shows its own failures on the page, so its promise can be let go.
  form.addEventListener('submit', (event) => void signIn(event));
  replace(root, form);
  input.focus();
}

/** The setup code's input, with where to find the code. */
function setupCodeField(): { field: HTMLElement; input: HTMLInputElement } {
  const code = h('input', {
    id: 'setup-code',
    name: 'code',
    type: 'text',
    autocomplete: 'one-time-code',
    required: true,
    spellcheck: false,
    autocapitalize: 'characters',
    placeholder: 'XXXX-XXXX',
    'aria-describedby': 'setup-code-hint',
  });
  const field = h(
    'div',
    { class: 'field', 'data-path': 'code' },
    h('label', { for: 'setup-code' }, 'Setup code'),
    code,
    h(
      'p',
      { class: 'hint', id: 'setup-code-hint' },
      'The service shows it on the device: in its log at start, as a line "setup code: XXXX-XXXX" (journalctl -u heliograph | grep "setup code"), and in the file setup-code in its data directory (readable by the service’s user). A new code is made at each start.',
    ),
  );
  return { field, input: code };
}

/** First run: choose the password, with the setup code from the service's log. */
export function showSetup(root: HTMLElement, onToken: (token: PageToken) => void): void {
  const { field: codeField, input: code } = setupCodeField();
  const first = passwordField('new-password', 'New device password', 'new-password');
  const again = passwordField('new-password-again', 'Repeat the password', 'new-password');
  again.field.dataset.path = 'password_again';
  const status = h('p', { class: 'message', hidden: true });
  const button = h('button', { type: 'submit' }, 'Set password');
  const form = h(
    'form',
    { class: 'card narrow', 'aria-label': 'First start', novalidate: true },
    h('h2', {}, 'Welcome to Heliograph'),
    h(
      'p',
      {},
      'No device password is set yet. Choose one (at least 8 characters): it protects the settings and is asked for when you sign in from another browser.',
    ),
    codeField,
    first.field,
    again.field,
    h('div', { class: 'actions' }, button),
    status,
  );
  const setPassword = async (event: SubmitEvent) => {
    event.preventDefault();
    // A new try: the last one's errors go, so no stale message stands beside a new one.
    clearIssues(form);
    showMessage(status, 'info', '');
    if (first.input.value !== again.input.value) {
      showIssues(form, [
        { path: ['password_again'], message: 'The two passwords differ: type the same password twice.' },
      ]);
      return;
    }
    button.disabled = true;
    showMessage(status, 'info', 'Setting the password…');
    try {
      const created = await api<CreatedToken>('POST', '/setup', {
        authorization: null,
        body: { code: code.value.trim().toUpperCase(), password: first.input.value },
      });
      storeToken(created);
      onToken(created);
    } catch (err) {
      const apiErr = err instanceof ApiError ? err : null;
      if (apiErr?.status === 401)
        showIssues(form, [
          {
            path: ['code'],
            message: 'This is not the current setup code: copy it again from the log (a restart prints a new one).',
          },
        ]);
      else if (apiErr && apiErr.issues.length) showIssues(form, apiErr.issues);
      if (apiErr?.status === 409) showMessage(status, 'error', 'A password was set meanwhile. Sign in with it.');
      else if (apiErr?.status === 429) showMessage(status, 'error', authFailureMessage(apiErr, true));
      else showMessage(status, 'error', `Not set: ${apiErr ? apiErr.message : String(err)}`);
    } finally {
      button.disabled = false;
    }
  };
  // setPassword shows its own failures on the page, so its promise can be let go.
  form.addEventListener('submit', (event) => void setPassword(event));
  replace(root, form);
  code.focus();
}
