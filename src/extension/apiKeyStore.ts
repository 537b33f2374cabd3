/**
 * The API key of the service, in VS Code's SecretStorage (the OS keychain): stored, read, cleared,
 * imported once from the environment, and followed across windows.
 */
import * as vscode from 'vscode';
import { looksLikeApiKey, redactKey } from '../protocol/http';
import { DictationError, scrubKey } from '../client/errors';
import { verifyKey } from '../client/http';
import type { Log } from './log';
import { errorMessage } from '../shared/errors';

const SECRET_ID = 'dictee.apiKey';
/** An environment variable from which a key is imported into SecretStorage once, when none is stored. */
const API_KEY_ENV = 'DICTEE_API_KEY';

/**
 * The API key, kept only in VS Code's SecretStorage (the OS keychain): never in settings, logs or
 * messages. Follows changes made in other windows through `secrets.onDidChange`.
 */
export class ApiKeyStore implements vscode.Disposable {
  private readonly listener: vscode.Disposable;
  /** Settles once a key from the environment (if any) has been imported. */
  private readonly ready: Promise<void>;

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly log: Log,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.ready = this.importFromEnvironment(env);
    this.listener = secrets.onDidChange((e) => {
      if (e.key !== SECRET_ID) return;
      void this.get().then((k) => {
        this.log.info(k ? `API key changed (${redactKey(k)})` : 'API key cleared');
        void vscode.commands.executeCommand('setContext', 'dictee.hasApiKey', k !== undefined);
      });
    });
    void this.get().then((k) => vscode.commands.executeCommand('setContext', 'dictee.hasApiKey', k !== undefined));
  }

  /**
   * Keys belong in a secret manager or the environment (spec, part 5): when SecretStorage holds no key
   * and DICTEE_API_KEY holds one, it is stored (not checked: the service may not be up yet; the first
   * run checks it). A stored key is never overwritten, and the value is never logged.
   */
  private async importFromEnvironment(env: NodeJS.ProcessEnv): Promise<void> {
    const candidate = env[API_KEY_ENV]?.trim();
    if (!candidate) return;
    if (!looksLikeApiKey(candidate)) {
      this.log.warn(`${API_KEY_ENV} is set but does not hold an API key (svc_live_…, svc_test_… or svc_proj_…); ignored`);
      return;
    }
    try {
      if (await this.secrets.get(SECRET_ID)) return;
      await this.secrets.store(SECRET_ID, candidate);
      this.log.info(`API key ${redactKey(candidate)} taken from ${API_KEY_ENV} and stored in the secret storage`);
    } catch (e) {
      this.log.error(`cannot store the API key from ${API_KEY_ENV}: ${errorMessage(e)}`);
    }
  }

  async get(): Promise<string | undefined> {
    await this.ready;
    try {
      const k = await this.secrets.get(SECRET_ID);
      return k ? k : undefined;
    } catch (e) {
      this.log.error(`cannot read the API key from the secret storage: ${errorMessage(e)}`);
      return undefined;
    }
  }

  async clear(): Promise<void> {
    const had = await this.get();
    await this.secrets.delete(SECRET_ID);
    void vscode.window.showInformationMessage(
      had ? vscode.l10n.t('Dictée: API key cleared.') : vscode.l10n.t('Dictée: no API key was stored.'),
    );
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
      await this.secrets.store(SECRET_ID, key);
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
          await this.secrets.store(SECRET_ID, key);
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
