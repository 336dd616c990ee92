// The Access screen's lists (tokens, backups): a row per item, its name over a hint line, then
// its buttons; a line in words where there is none.
import { h, replace, type Child } from './dom.js';

/** Replaces `list`'s content with the rows, or with the line `none` when there are no rows. */
export function showRows(list: HTMLElement, options: { className: string; rows: HTMLElement[]; none: string }): void {
  replace(
    list,
    options.rows.length === 0 ? h('p', {}, options.none) : h('ul', { class: options.className }, options.rows),
  );
}

/** One row: its name (and what stands beside it) over a hint line, then its buttons. */
export function listRow(options: {
  className: string;
  name: Child[];
  hint: string;
  actions: HTMLElement[];
}): HTMLElement {
  return h(
    'li',
    { class: options.className },
    h('div', {}, h('p', { class: 'token-name' }, options.name), h('p', { class: 'hint' }, options.hint)),
    options.actions,
  );
}
