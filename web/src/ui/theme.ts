// Light, dark, or the system's choice (the default), remembered in this browser.

import { h, replace } from './dom.js';

const KEY = 'heliograph.theme';
type Theme = 'system' | 'light' | 'dark';

export function applyStoredTheme(): void {
  const theme = (localStorage.getItem(KEY) as Theme | null) ?? 'system';
  if (theme === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
}

export function mountThemeSwitch(slot: HTMLElement): void {
  const select = h(
    'select',
    { id: 'theme', class: 'compact' },
    (['system', 'light', 'dark'] as const).map((t) =>
      h('option', { value: t }, t === 'system' ? 'Auto' : t === 'light' ? 'Light' : 'Dark'),
    ),
  );
  select.value = localStorage.getItem(KEY) ?? 'system';
  select.addEventListener('change', () => {
    localStorage.setItem(KEY, select.value);
    applyStoredTheme();
  });
  replace(slot, h('label', { for: 'theme', class: 'sr-only' }, 'Theme'), select);
}
