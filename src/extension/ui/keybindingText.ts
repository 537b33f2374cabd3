/**
 * The key a user actually has for a command, read from their `keybindings.json` (JSON with comments)
 * over the extension's default, and written as VS Code writes keys (`Ctrl+Alt+Shift+D`, `⌥⇧⌘D`).
 * Pure (no `vscode`), tested in plain Node.
 */
import { parse } from 'jsonc-parser';

interface Rule {
  key?: unknown;
  command?: unknown;
}

/**
 * The key bound to `command`: the last rule of the user's file that binds it, else the default unless
 * the user removed it (`"command": "-<command>"`). Undefined when it has no key.
 */
export function effectiveKey(command: string, defaultKey: string | undefined, userJson: string | undefined): string | undefined {
  let key = defaultKey;
  let removedDefault = false;
  let userKey: string | undefined;
  const rules = userJson ? (parse(userJson, [], { allowTrailingComma: true }) as unknown) : [];
  if (Array.isArray(rules)) {
    for (const r of rules as Rule[]) {
      if (!r || typeof r.key !== 'string') continue;
      const norm = normaliseKey(r.key);
      if (r.command === command) userKey = norm;
      else if (r.command === `-${command}`) {
        if (defaultKey && norm === normaliseKey(defaultKey)) removedDefault = true;
        if (userKey === norm) userKey = undefined;
      }
    }
  }
  if (removedDefault) key = undefined;
  return userKey ?? key;
}

/** Lower case, single spaces between chord parts. */
function normaliseKey(key: string): string {
  return key.trim().toLowerCase().replace(/\s+/g, ' ');
}

const MAC_SYMBOLS: Record<string, string> = { ctrl: '⌃', alt: '⌥', shift: '⇧', cmd: '⌘', meta: '⌘' };
const MAC_ORDER = ['ctrl', 'shift', 'alt', 'cmd', 'meta'];
const NAMES: Record<string, string> = {
  escape: 'Escape',
  space: 'Space',
  enter: 'Enter',
  tab: 'Tab',
  backspace: 'Backspace',
  delete: 'Delete',
  insert: 'Insert',
  home: 'Home',
  end: 'End',
  pageup: 'PageUp',
  pagedown: 'PageDown',
  up: 'UpArrow',
  down: 'DownArrow',
  left: 'LeftArrow',
  right: 'RightArrow',
};

/** A key as VS Code shows it (its order of modifiers): `ctrl+alt+shift+d` → `Ctrl+Shift+Alt+D`; on macOS `cmd+alt+shift+d` → `⇧⌥⌘D`. */
export function displayKey(key: string, platform: NodeJS.Platform): string {
  return normaliseKey(key)
    .split(' ')
    .map((chord) => {
      const parts = chord.split('+');
      const main = parts.pop() ?? '';
      const mainName = NAMES[main] ?? (main.length === 1 ? main.toUpperCase() : main.replace(/^f(\d+)$/, 'F$1'));
      if (platform === 'darwin') {
        const mods = MAC_ORDER.filter((m) => parts.includes(m)).map((m) => MAC_SYMBOLS[m]);
        return `${mods.join('')}${mainName}`;
      }
      const order = ['ctrl', 'shift', 'alt', 'meta', 'win', 'cmd'];
      const mods = order
        .filter((m) => parts.includes(m))
        .map((m) =>
          m === 'meta' || m === 'win' || m === 'cmd' ? (platform === 'win32' ? 'Win' : 'Super') : m[0]!.toUpperCase() + m.slice(1),
        );
      return [...mods, mainName].join('+');
    })
    .join(' ');
}
