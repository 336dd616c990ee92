// Access: the tokens that reach the API (this page's own among them), the audit log and backups.

import { storeToken } from '../api/client.js';
import { card, h, replace } from '../ui/dom.js';
import { renderAudit } from './audit.js';
import { BackupsSection } from './backups.js';
import type { ScreenContext } from '../state/screen-context.js';
import { TokensSection } from './tokens.js';

/** A card whose heading is followed by a line saying what it is for. */
function hintedCard(title: string, id: string, hint: string, body: HTMLElement): HTMLElement {
  return card(title, id, h('p', { class: 'hint' }, hint), body);
}

export function mountAccess(container: HTMLElement, ctx: ScreenContext): () => void {
  const tokensBody = h('div');
  const auditBody = h('div', {}, h('p', { class: 'hint' }, 'Loading…'));
  const backupsBody = h('div');
  const refresh = h('button', { type: 'button', class: 'secondary' }, 'Refresh');
  refresh.addEventListener('click', () => void renderAudit(auditBody));
  replace(
    container,
    hintedCard(
      'Access tokens',
      'tokens',
      'Tokens let other clients (Home Assistant, scripts) and this page use the API without the device password.',
      tokensBody,
    ),
    h(
      'section',
      { class: 'card', id: 'audit', 'aria-labelledby': 'audit-title' },
      h('div', { class: 'card-head' }, h('h3', { id: 'audit-title' }, 'Audit log'), refresh),
      h('p', { class: 'hint' }, 'The last 50 changes and write attempts, refused ones included, newest first.'),
      auditBody,
    ),
    hintedCard(
      'Backups',
      'backups',
      'A backup holds the database (history, tokens, the password), the settings and the plugin setup.',
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
