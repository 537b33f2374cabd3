/**
 * The dashboard's script in the browser (bundled by esbuild into dist/dashboard/dashboard.js; no framework):
 * the copy button of a new key, the confirmation dialogs of Revoke and of Remove person (without script, each
 * is a confirmation page), one submission per form (a double click sends once), and the roll wizard's watch
 * of the old key's last use.
 * The DOM types it uses are declared here (the project's TypeScript has no DOM library).
 */

interface El {
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  addEventListener(type: string, fn: (e: Ev) => void): void;
  closest(sel: string): El | null;
  querySelector(sel: string): El | null;
  textContent: string | null;
  value: string;
  disabled: boolean;
  open?: boolean;
  showModal(): void;
  close(): void;
  focus(): void;
  select(): void;
}
interface Ev {
  target: El | null;
  preventDefault(): void;
}
declare const document: {
  querySelectorAll(sel: string): ArrayLike<El>;
  getElementById(id: string): El | null;
  addEventListener(t: string, fn: () => void): void;
};
declare const navigator: { clipboard?: { writeText(s: string): Promise<void> } };
declare function fetch(url: string, init?: object): Promise<{ ok: boolean; json(): Promise<unknown> }>;
declare function setTimeout(fn: () => void, ms: number): number;

function each(sel: string, fn: (el: El) => void): void {
  const all = document.querySelectorAll(sel);
  for (let i = 0; i < all.length; i++) fn(all[i]!);
}

function copyButtons(): void {
  each('button[data-copy]', (b) => {
    b.addEventListener('click', () => {
      const input = document.getElementById(b.getAttribute('data-copy') ?? '');
      if (!input) return;
      const status = b.closest('p')?.querySelector('.copied');
      const done = (ok: boolean): void => {
        if (status) status.textContent = ok ? (b.getAttribute('data-copied') ?? '✓') : '';
      };
      if (navigator.clipboard)
        navigator.clipboard.writeText(input.value).then(
          () => done(true),
          () => done(false),
        );
      else {
        input.focus();
        input.select();
      }
    });
  });
}

/**
 * A confirmation dialog (`PREFIX-dialog`, its form, the name shown, the field, Cancel) opened by the links
 * `links`: the form is sent where the link leads (its page, without script) and shows the link's `label` attribute
 * (and its `data-confirm-details`, which one it acts on, where the dialog has a `PREFIX-details` line).
 */
function confirmDialog(prefix: string, links: string, label: string): void {
  const dialog = document.getElementById(`${prefix}-dialog`);
  const form = document.getElementById(`${prefix}-form`);
  const name = document.getElementById(`${prefix}-name`);
  const input = document.getElementById(`${prefix}-confirm`);
  const cancel = document.getElementById(`${prefix}-cancel`);
  const details = document.getElementById(`${prefix}-details`);
  if (!dialog || !form || !name || !input || typeof dialog.showModal !== 'function') return;
  each(links, (a) => {
    a.addEventListener('click', (e) => {
      e.preventDefault();
      form.setAttribute('action', a.getAttribute('href') ?? '');
      name.textContent = a.getAttribute(label);
      if (details) details.textContent = a.getAttribute('data-confirm-details');
      input.value = '';
      dialog.showModal();
      input.focus();
    });
  });
  cancel?.addEventListener('click', () => dialog.close());
}

/** A form sends once: its submit buttons are disabled after the first submission (the server also makes a double submission one). */
function submitOnce(): void {
  each('form', (f) => {
    f.addEventListener('submit', () => {
      setTimeout(
        () =>
          each('button[type="submit"]', (b) => {
            if (b.closest('form') === f) b.disabled = true;
          }),
        0,
      );
    });
  });
}

/** The roll wizard: the old key's last use, asked again every 5 seconds until it goes quiet. */
function watchLastUse(): void {
  const last = document.querySelectorAll('[data-watch]')[0];
  const quiet = document.getElementById('quiet');
  if (!last || !quiet) return;
  const url = last.getAttribute('data-watch')!;
  const poll = (): void => {
    fetch(url, { credentials: 'same-origin', headers: { accept: 'application/json' } })
      .then((r) => (r.ok ? r.json() : undefined))
      .then((j) => {
        const s = j as { text: string; status: string; quiet: boolean } | undefined;
        if (!s) return;
        last.textContent = s.text;
        quiet.textContent = s.status;
        if (!s.quiet) setTimeout(poll, 5000);
      })
      .catch(() => setTimeout(poll, 15000));
  };
  setTimeout(poll, 5000);
}

document.addEventListener('DOMContentLoaded', () => {
  copyButtons();
  confirmDialog('revoke', 'a.revoke[data-key-id]', 'data-key-name');
  confirmDialog('remove-person', 'a.remove-person', 'data-confirm-label');
  submitOnce();
  watchLastUse();
});
export {};
