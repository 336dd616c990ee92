// Access: the tokens that reach the API (this page's own among them), the audit log and backups.

import { storeToken } from '../api/client.js';
import { h, replace } from '../ui/dom.js';
import { renderAudit } from './audit.js';
import { BackupsSection } from './backups.js';
import type { ScreenContext } from '../state/screen-context.js';
import { TokensSection } from './tokens.js';

export function mountAccess(container: HTMLElement, ctx: ScreenContext): () => void {
  const tokensBody = h('div');
  const auditBody = h('div', {}, h('p', { class: 'hint' }, 'Loading…'));
  const backupsBody = h('div');
  const refresh = h('button', { type: 'button', class: 'secondary' }, 'Refresh');
  refresh.addEventListener('click', () => void renderAudit(auditBody));
  replace(
    container,
    h(
      'section',
      { class: 'card', id: 'tokens', 'aria-labelledby': 'tokens-title' },
      h('h3', { id: 'tokens-title' }, 'Access tokens'),
      h(
        'p',
        { class: 'hint' },
        'Tokens let other clients (Home Assistant, scripts) and this page use the API without the device password.',
      ),
      tokensBody,
    ),
    h(
      'section',
      { class: 'card', id: 'audit', 'aria-labelledby': 'audit-title' },
      h('div', { class: 'card-head' }, h('h3', { id: 'audit-title' }, 'Audit log'), refresh),
      h('p', { class: 'hint' }, 'The last 50 changes and write attempts, refused ones included, newest first.'),
      auditBody,
    ),
    h(
      'section',
      { class: 'card', id: 'backups', 'aria-labelledby': 'backups-title' },
      h('h3', { id: 'backups-title' }, 'Backups'),
      h(
        'p',
        { class: 'hint' },
        'A backup holds the database (history, tokens, the password), the settings and the plugin setup.',
      ),
      backupsBody,
    ),
  );
  const tokens = new TokensSection(tokensBody, ctx.token.id, () => {
    storeToken(null);
    location.reload();
  });
  void tokens.refresh();
  void renderAudit(auditBody);
  void new BackupsSection(backupsBody).refresh();
  return () => undefined;
}
