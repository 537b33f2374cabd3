/**
 * The key the user has for "Toggle Dictation" (their keybindings.json over the default), followed as
 * it changes, for the status bar's tooltip.
 */
import * as vscode from 'vscode';
import { displayKey, effectiveKey } from './keybindingText';

/**
 * Follows the key the user has for "Toggle Dictation" (their keybindings.json over the default), so that
 * the tooltip shows the real one. The file is the one beside the extension's global storage (the user's
 * profile folder); when it cannot be read, the default key is shown.
 */
export class ToggleKey implements vscode.Disposable {
  private readonly file: vscode.Uri;
  private readonly watcher: vscode.FileSystemWatcher;
  private readonly emitter = new vscode.EventEmitter<string | undefined>();
  readonly onDidChange = this.emitter.event;

  constructor(
    globalStorage: vscode.Uri,
    private readonly defaultKey: string | undefined,
  ) {
    this.file = vscode.Uri.joinPath(globalStorage, '..', '..', 'keybindings.json');
    this.watcher = vscode.workspace.createFileSystemWatcher(
      new vscode.RelativePattern(vscode.Uri.joinPath(this.file, '..'), 'keybindings.json'),
    );
    const refresh = (): void => void this.read().then((k) => this.emitter.fire(k));
    this.watcher.onDidChange(refresh);
    this.watcher.onDidCreate(refresh);
    this.watcher.onDidDelete(refresh);
  }

  /** The key as VS Code shows it, or undefined when the command has none. */
  async read(): Promise<string | undefined> {
    let text: string | undefined;
    try {
      text = new TextDecoder().decode(await vscode.workspace.fs.readFile(this.file));
    } catch {
      text = undefined;
    }
    const key = effectiveKey('dictee.toggle', this.defaultKey, text);
    return key ? displayKey(key, process.platform) : undefined;
  }

  dispose(): void {
    this.watcher.dispose();
    this.emitter.dispose();
  }
}
