/**
 * The confirmation of an action that cannot be undone, by typing what it acts on (Revoke: the key's name;
 * Remove person: the person's email): as a `<dialog>` on the list page, opened from the list's links by
 * browser/dashboard.ts (`confirmDialog`: the form is sent where the link leads, the expected value shown),
 * and as a page of its own (without script, and again after a wrong answer, with what was typed kept).
 */
import type { DashReq } from './context';
import { html, type Html } from './html';
import { csrfField } from './layout';
import { sendPage } from './respond';

export interface TypedConfirm {
  /** The dialog's ids begin with it: `PREFIX-dialog`, `-form`, `-title`, `-name`, `-confirm`, `-cancel`; the page's error `PREFIX-error`. */
  prefix: string;
  title: string;
  /** What the action does, said before the field. */
  text: string;
  /** The field's label, with the value to type (empty in the dialog: the script shows it after). */
  label(expected: string): string;
  /** The form field's name and input type. */
  field: string;
  type?: 'email';
  /** The submit button's text. */
  button: string;
  /** The dialog has a line that tells which one it acts on (the link's `data-confirm-details`), read with the field. */
  detailed?: boolean;
}

/** The dialog of a list page (its form's action is set by the script from the link). */
export function confirmDialog(r: DashReq, c: TypedConfirm, action: string): Html {
  const p = c.prefix;
  return html`<dialog id="${p}-dialog" aria-labelledby="${p}-title">
    <form method="post" id="${p}-form" action="${action}">
      ${csrfField(r)}
      <h2 id="${p}-title">${c.title}</h2>
      <p>${c.text}</p>
      ${c.detailed ? html`<p id="${p}-details"></p>` : ''}
      <p>
        <label for="${p}-confirm">${c.label('')}<strong id="${p}-name"></strong></label>
        <input
          id="${p}-confirm"
          name="${c.field}"
          type="${c.type ?? 'text'}"
          required
          autocomplete="off"
          ${c.detailed ? html` aria-describedby="${p}-details"` : ''}
        />
      </p>
      <p>
        <button type="submit" class="danger">${c.button}</button>
        <button type="button" id="${p}-cancel">${r.l10n.t('Cancel')}</button>
      </p>
    </form>
  </dialog>`;
}

/** The same as a page: `expected` in the label, `details` (which one) before it, the form sent to `action`, Cancel back to `back`. */
export function confirmPage(
  r: DashReq,
  c: TypedConfirm,
  at: { action: string; expected: string; back: string; details?: string },
  error?: string,
  typed = '',
  status = 200,
): void {
  const errorId = `${c.prefix}-error`;
  const detailsId = `${c.prefix}-details`;
  const described = [at.details ? detailsId : '', error ? errorId : ''].filter(Boolean).join(' ');
  sendPage(
    r,
    c.title,
    html`<p>${c.text}</p>
      ${at.details ? html`<p id="${detailsId}">${at.details}</p>` : ''}
      ${error ? html`<p class="error" role="alert" id="${errorId}">${error}</p>` : ''}
      <form method="post" action="${at.action}">
        ${csrfField(r)}
        <p>
          <label for="${c.prefix}-typed">${c.label(at.expected)}</label>
          <input
            id="${c.prefix}-typed"
            name="${c.field}"
            type="${c.type ?? 'text'}"
            required
            autocomplete="off"
            value="${typed}"
            ${described ? html` aria-describedby="${described}"` : ''}
          />
        </p>
        <p><button type="submit" class="danger">${c.button}</button> <a href="${at.back}">${r.l10n.t('Cancel')}</a></p>
      </form>`,
    status,
  );
}
