import { api, errorText, loadFailure } from '../api/client.js';
import { h, replace, showMessage, uid } from '../ui/dom.js';
import { listRow, showRows } from '../ui/rows.js';
import { formatTime } from '../ui/format.js';
import type { CreatedToken, TokenInfo } from '../api/types.js';

/**
 * Bearer tokens for other clients (Home Assistant, scripts): list, create (the secret is
 * shown this once) and revoke.
 */
export class TokensSection {
  private readonly list = h('div', { class: 'token-list' });
  private readonly created = h('div', { class: 'created-token', hidden: true });
  private readonly listMessage = h('p', { class: 'message', hidden: true });

  private readonly form = this.createForm();

  constructor(
    container: HTMLElement,
    /** The page's own token: marked, and revoking it signs this page out. */
    private readonly ownId: string,
    private readonly onOwnRevoked: () => void,
  ) {
    replace(container, this.form, this.created, this.listMessage, this.list);
  }

  async refresh(): Promise<void> {
    try {
      this.renderList(await api<TokenInfo[]>('GET', '/tokens'));
      showMessage(this.listMessage, 'info', '');
      this.form.hidden = false;
    } catch (err) {
      const failed = loadFailure(err, 'load the tokens', 'This device does not offer access tokens.');
      if (failed.missing) this.form.hidden = true;
      showMessage(this.listMessage, failed.missing ? 'info' : 'error', failed.text);
    }
  }

  private createForm(): HTMLFormElement {
    const nameId = uid('token-name');
    const expiresId = uid('token-expires');
    const name = h('input', {
      id: nameId,
      type: 'text',
      required: true,
      maxlength: 64,
      autocomplete: 'off',
      placeholder: 'e.g. Home Assistant',
    });
    const expires = h('input', { id: expiresId, type: 'datetime-local' });
    const message = h('p', { class: 'message', hidden: true });
    const button = h('button', { type: 'submit' }, 'Create token');
    const form = h(
      'form',
      { class: 'inline-form', 'aria-label': 'Create an access token' },
      h('div', { class: 'field' }, h('label', { for: nameId }, 'Token name'), name),
      h('div', { class: 'field' }, h('label', { for: expiresId }, 'Expires (optional)'), expires),
      h('div', { class: 'actions' }, button),
      message,
    );
    const create = async (event: SubmitEvent) => {
      event.preventDefault();
      // datetime-local is the browser's local time; the API wants RFC 3339.
      const expiresAt = expires.value ? new Date(expires.value) : null;
      if (expiresAt && Number.isNaN(expiresAt.getTime())) {
        showMessage(message, 'error', 'The expiry is not a valid date and time.');
        return;
      }
      button.disabled = true;
      try {
        const body: { name: string; expires_at?: string } = { name: name.value.trim() };
        if (expiresAt) body.expires_at = expiresAt.toISOString();
        const token = await api<CreatedToken>('POST', '/tokens', { body });
        showMessage(message, 'info', '');
        form.reset();
        this.showCreated(token);
        await this.refresh();
      } catch (err) {
        showMessage(message, 'error', `Not created: ${errorText(err)}`);
      } finally {
        button.disabled = false;
      }
    };
    // create shows its own failures on the page, so its promise can be let go.
    form.addEventListener('submit', (event) => void create(event));
    return form;
  }

  private showCreated(token: CreatedToken): void {
    const id = uid('new-token');
    const input = h('input', {
      id,
      type: 'text',
      readonly: true,
      value: token.token,
      class: 'secret',
      spellcheck: false,
    });
    const copied = h('p', { class: 'message', hidden: true });
    const copy = h('button', { type: 'button' }, 'Copy');
    const copyToken = async () => {
      input.select();
      try {
        // The clipboard API exists only on https or localhost; a device on the LAN is
        // usually plain http, where the selected text is copied the old way.
        if (navigator.clipboard && window.isSecureContext) await navigator.clipboard.writeText(token.token);
        else if (!document.execCommand('copy')) throw new Error('copy refused');
        showMessage(copied, 'ok', 'Copied.');
      } catch {
        showMessage(copied, 'info', 'The text is selected: press Ctrl+C (or ⌘C) to copy it.');
      }
    };
    // copyToken shows its own failures on the page, so its promise can be let go.
    copy.addEventListener('click', () => void copyToken());
    const done = h('button', { type: 'button', class: 'secondary' }, 'Done');
    done.addEventListener('click', () => {
      this.created.hidden = true;
      replace(this.created);
    });
    replace(
      this.created,
      h(
        'p',
        {},
        h('strong', {}, `Token "${token.name}" created. Copy it now: it is not shown again.`),
        ' Use it as "Authorization: Bearer <token>", or as ?token= on the WebSocket.',
      ),
      h(
        'div',
        { class: 'setting-row' },
        h('label', { for: id, class: 'sr-only' }, 'New access token'),
        input,
        copy,
        done,
      ),
      copied,
    );
    this.created.hidden = false;
    input.focus();
    input.select();
  }

  private renderList(tokens: TokenInfo[]): void {
    showRows(this.list, {
      className: 'token-rows',
      none: 'No access tokens yet.',
      rows: tokens.map((t) => {
        const own = t.id === this.ownId;
        const revoke = h(
          'button',
          {
            type: 'button',
            class: 'danger',
            // The name starts with the visible words (WCAG 2.5.3), then says what it does.
            'aria-label': own ? `Sign out: revoke this page's token ${t.name}` : `Revoke token ${t.name}`,
          },
          own ? 'Sign out' : 'Revoke',
        );
        const revokeToken = async () => {
          const question = own
            ? "Revoke this page's own token? The page signs out."
            : `Revoke the token "${t.name}"? Clients using it lose access at once.`;
          if (!window.confirm(question)) return;
          revoke.disabled = true;
          try {
            await api('DELETE', `/tokens/${encodeURIComponent(t.id)}`);
          } catch (err) {
            showMessage(this.listMessage, 'error', `Not revoked: ${errorText(err)}`);
          }
          if (own) return this.onOwnRevoked();
          await this.refresh();
        };
        // revokeToken shows its own failures on the page, so its promise can be let go.
        revoke.addEventListener('click', () => void revokeToken());
        return listRow({
          className: 'token-row',
          name: [t.name, own ? h('span', { class: 'badge state-running' }, 'this page') : null],
          hint: `Created ${formatTime(t.created_at)} · expires ${t.expires_at ? formatTime(t.expires_at) : t.idle_expiry ? 'when unused for a while (30 days unless set otherwise)' : 'never'}`,
          actions: [revoke],
        });
      }),
    });
  }
}
