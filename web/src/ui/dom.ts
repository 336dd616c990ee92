// A tiny element builder. Text always goes in as text nodes, never as HTML, so values that
// come from devices or plugins cannot inject markup.

export type Child = Node | string | number | null | undefined | false;
type Attributes = Record<string, string | number | boolean | null | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Array<Child | Child[]>
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, String(value));
  }
  append(element, children.flat());
  return element;
}

function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's content. */
export function replace(parent: Element, ...children: Array<Child | Child[]>): void {
  parent.replaceChildren();
  append(parent, children.flat());
}

let nextId = 0;
/** A page-unique id, to tie a label to its input. */
export function uid(prefix: string): string {
  nextId += 1;
  return `${prefix}-${nextId}`;
}

/** A card: a section named by its heading, `title` with the id `<id>-title`. */
export function card(title: string, id: string, ...content: HTMLElement[]): HTMLElement {
  return h(
    'section',
    { class: 'card', 'aria-labelledby': `${id}-title`, id },
    h('h3', { id: `${id}-title` }, title),
    ...content,
  );
}

/** A status line under a form: `role=alert` for errors so screen readers announce them. */
export function showMessage(target: HTMLElement, kind: 'error' | 'ok' | 'info', text: string): void {
  target.className = `message ${kind}`;
  target.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  target.textContent = text;
  target.hidden = text === '';
}
