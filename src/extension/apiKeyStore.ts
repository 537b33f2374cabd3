/**
 * The API key of the service, in VS Code's SecretStorage (the OS keychain): stored, read, cleared,
 * imported once from the environment, and followed across windows.
 */
import * as vscode from 'vscode';
import { looksLikeApiKey, redactKey } from '../protocol/http';
import { ApiKeyBook, secretIdFor } from './apiKeyBook';
import { DictationError, scrubKey } from '../client/errors';
import { verifyKey } from '../client/http';
import type { Log } from './log';
import { errorMessage } from '../shared/errors';

/** An environment variable whose key is used for the address VS Code starts with (`npm start` hands its development key there). */
const API_KEY_ENV = 'DICTEE_API_KEY';

/**
 * The API keys, kept only in VS Code's SecretStorage (the OS keychain), one per service address
 * (apiKeyBook.ts): never in settings, logs or messages. Follows changes made in other windows through
 * `secrets.onDidChange`.
 */
export class ApiKeyStore implements vscode.Disposable {
  private readonly listener: vscode.Disposable;
  private readonly book: ApiKeyBook;
  /** Settles once the old single key is moved and the environment's key (if any) is taken. */
  private readonly ready: Promise<void>;

  constructor(
    secrets: vscode.SecretStorage,
    private readonly log: Log,
    /** The service address the key is for (`dictee.serverUrl`, read each time). */
    private readonly serverUrl: () => string,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.book = new ApiKeyBook(secrets, log);
    this.ready = this.book.start(serverUrl(), env[API_KEY_ENV], API_KEY_ENV);
    this.listener = secrets.onDidChange((e) => {
      if (e.key !== secretIdFor(this.serverUrl())) return;
      void this.get().then((k) => {
        this.log.info(k ? `API key changed (${redactKey(k)})` : 'API key cleared');
        void vscode.commands.executeCommand('setContext', 'dictee.hasApiKey', k !== undefined);
      });
    });
    void this.showHasKey();
  }

  /** The `dictee.hasApiKey` context, for the current address (again when `dictee.serverUrl` changes). */
  async showHasKey(): Promise<void> {
    const k = await this.get();
    await vscode.commands.executeCommand('setContext', 'dictee.hasApiKey', k !== undefined);
  }

  /** The key for the current service address (`dictee.serverUrl`). */
  async get(): Promise<string | undefined> {
    await this.ready;
    return (await this.book.get(this.serverUrl()))?.key;
  }

  /** Removes the key stored for the current address; the environment's key, for that address, applies again. */
  async clear(): Promise<void> {
    await this.ready;
    const url = this.serverUrl();
    const { had, fallback } = await this.book.clear(url);
    this.log.info(`Clear API Key: ${had ? 'the key stored' : 'no key was stored'} for ${url}${fallback ? `; ${API_KEY_ENV} applies` : ''}`);
    const text = fallback
      ? vscode.l10n.t('Dictée: API key for {0} cleared; the key given in {1} is used again.', url, API_KEY_ENV)
      : had
        ? vscode.l10n.t('Dictée: API key for {0} cleared.', url)
        : vscode.l10n.t('Dictée: no API key was stored for {0}.', url);
    void vscode.window.showInformationMessage(text);
  }

  /**
   * Asks for a key in a password box, checks its format, checks it against the service (a real
   * session init) and stores it. Returns the stored key, or undefined when the user gave up or the key
   * was refused.
   */
  async promptAndStore(serverUrl: string): Promise<string | undefined> {
    const entered = await vscode.window.showInputBox({
      title: vscode.l10n.t('Dictée: Set API Key'),
      prompt: vscode.l10n.t(
        "API key for {0} (it starts with svc_live_, svc_test_ or svc_proj_). It is kept in your system's secret storage.",
        serverUrl,
      ),
      placeHolder: 'svc_live_…',
      password: true,
      ignoreFocusOut: true,
      validateInput: (v) => {
        const t = v.trim();
        if (t === '') return null;
        if (!/^svc_(live|test|proj)_/.test(t)) return vscode.l10n.t('An API key starts with svc_live_, svc_test_ or svc_proj_.');
        if (!looksLikeApiKey(t)) return vscode.l10n.t('After its prefix, a key has 32 to 128 letters, digits, "-" or "_".');
        return null;
      },
    });
    const key = entered?.trim();
    if (!key) {
      this.log.info('Set API Key: cancelled');
      return undefined;
    }
    if (!looksLikeApiKey(key)) {
      void vscode.window.showErrorMessage(
        vscode.l10n.t(
          'Dictée: this is not an API key (svc_live_…, svc_test_… or svc_proj_… followed by 32 to 128 characters). Nothing was saved.',
        ),
      );
      return undefined;
    }
    try {
      const check = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Dictée: checking the API key with {0}…', serverUrl) },
        () => verifyKey(serverUrl, key),
      );
      await this.book.set(serverUrl, key);
      this.log.info(`API key ${redactKey(key)} verified (org ${check.orgId}) and stored`);
      void vscode.window.showInformationMessage(vscode.l10n.t('Dictée: API key verified and saved.'));
      return key;
    } catch (e) {
      const err = e instanceof DictationError ? e : undefined;
      const message = scrubKey(errorMessage(e), key);
      this.log.warn(`Set API Key: the key ${redactKey(key)} was not saved: ${message}`);
      if (err && (err.code === 'NETWORK_ERROR' || err.code === 'TIMEOUT' || err.code === 'RATE_LIMITED' || err.code === 'INTERNAL_ERROR')) {
        const saveAnyway = vscode.l10n.t('Save Without Checking');
        const choice = await vscode.window.showWarningMessage(
          vscode.l10n.t('Dictée: the key could not be checked: the service at {0} did not answer. Save it without checking?', serverUrl),
          saveAnyway,
          vscode.l10n.t('Cancel'),
        );
        if (choice === saveAnyway) {
          await this.book.set(serverUrl, key);
          this.log.info(`API key ${redactKey(key)} stored without verification`);
          return key;
        }
        return undefined;
      }
      void vscode.window.showErrorMessage(
        vscode.l10n.t('Dictée: the service refused this API key (unknown, revoked, or not allowed to dictate); it was not saved.'),
      );
      return undefined;
    }
  }

  dispose(): void {
    this.listener.dispose();
  }
}
