/**
 * The templates and auto-texts dictation can insert: the built-in ones shipped in the extension
 * (`templates/<language>/`) and the user's own, from `dictee.templates.folder` (plain Markdown files, a
 * `fr/`, `en/`, `es/` or `de/` sub-folder for one language), read with `vscode.workspace.fs` (so a remote
 * folder works too) and read again when a file there changes. Parsing is the grammar's (`loadTemplates`).
 */
import os from 'node:os';
import * as vscode from 'vscode';
import { loadTemplates, type Language, type Template, type TemplateFile } from '../../dictation';
import { errorMessage } from '../../shared/errors';
import type { Logger } from '../../shared/logger';
import { resolveFolderSetting } from '../grammarSettings';

/** Files larger than this are not templates (and are not read). */
const MAX_TEMPLATE_BYTES = 1024 * 1024;
/** Changes in the folder are read once they settle. */
const RELOAD_AFTER_MS = 200;

export class TemplateStore implements vscode.Disposable {
  private builtin: Template[] = [];
  private user: Template[] = [];
  private folderSetting: string | undefined;
  private folder: vscode.Uri | undefined;
  private watcher: vscode.FileSystemWatcher | undefined;
  private reloadTimer: NodeJS.Timeout | undefined;
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  /** The templates changed (the folder was read again, or the setting changed). */
  readonly onDidChange = this.changeEmitter.event;
  private loading: Promise<void> = Promise.resolve();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: Logger,
    private readonly warn: (message: string) => void,
  ) {}

  /** Every template, the user's first. */
  all(): Template[] {
    return [...this.user, ...this.builtin];
  }

  /** The templates of one language (and those for every language), the user's first. */
  forLanguage(language: Language): Template[] {
    return this.all().filter((t) => t.language === null || t.language === language);
  }

  /** The user's folder, once resolved. */
  get userFolder(): vscode.Uri | undefined {
    return this.folder;
  }

  /** Resolves when what was asked so far is read. */
  ready(): Promise<void> {
    return this.loading;
  }

  /** Reads the built-in templates (once) and the folder of `dictee.templates.folder` (again when it changed). */
  load(folderSetting: string): Promise<void> {
    this.loading = this.loading.then(async () => {
      if (this.builtin.length === 0) {
        const files = await this.readFolder(vscode.Uri.joinPath(this.extensionUri, 'templates'));
        this.builtin = loadTemplates(files ?? [], 'builtin');
        this.log.info(`${this.builtin.length} built-in templates`);
      }
      if (folderSetting !== this.folderSetting) {
        this.folderSetting = folderSetting;
        this.watch(this.resolve(folderSetting));
        await this.readUser();
      }
    }).catch((e: unknown) => this.log.error(`templates could not be loaded: ${errorMessage(e)}`));
    return this.loading;
  }

  private resolve(setting: string): vscode.Uri | undefined {
    const f = resolveFolderSetting(setting, os.homedir());
    switch (f.kind) {
      case 'none':
        return undefined;
      case 'uri':
        return vscode.Uri.parse(f.value);
      case 'path':
        return vscode.Uri.file(f.value);
      case 'relative': {
        const ws = vscode.workspace.workspaceFolders?.[0];
        if (!ws) {
          this.warn(vscode.l10n.t('The templates folder "{0}" is relative, and no folder is open to resolve it against. Set an absolute path in dictee.templates.folder.', f.value));
          return undefined;
        }
        return vscode.Uri.joinPath(ws.uri, f.value);
      }
    }
  }

  private watch(folder: vscode.Uri | undefined): void {
    this.watcher?.dispose();
    this.watcher = undefined;
    this.folder = folder;
    if (!folder) return;
    this.watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, '**/*.md'));
    const changed = (): void => {
      if (this.reloadTimer) clearTimeout(this.reloadTimer);
      this.reloadTimer = setTimeout(() => {
        this.reloadTimer = undefined;
        this.loading = this.loading.then(() => this.readUser()).catch((e: unknown) => this.log.error(`templates could not be read again: ${errorMessage(e)}`));
      }, RELOAD_AFTER_MS);
    };
    this.watcher.onDidCreate(changed);
    this.watcher.onDidChange(changed);
    this.watcher.onDidDelete(changed);
  }

  private async readUser(): Promise<void> {
    const folder = this.folder;
    const files = folder ? await this.readFolder(folder) : [];
    if (folder && files === null) {
      this.warn(vscode.l10n.t('The templates folder {0} cannot be read; only the built-in templates are available. Check dictee.templates.folder.', folder.toString(true)));
    }
    this.user = loadTemplates(files ?? [], 'user');
    if (folder) this.log.info(`${this.user.length} templates and auto-texts in ${folder.toString(true)}`);
    this.changeEmitter.fire();
  }

  /** The Markdown files of a folder and of its sub-folders (one level), or null when it cannot be read. */
  private async readFolder(root: vscode.Uri): Promise<TemplateFile[] | null> {
    const out: TemplateFile[] = [];
    const decoder = new TextDecoder('utf-8');
    const walk = async (rel: string, depth: number): Promise<void> => {
      const dir = rel ? vscode.Uri.joinPath(root, rel) : root;
      for (const [name, type] of await vscode.workspace.fs.readDirectory(dir)) {
        const path = rel ? `${rel}/${name}` : name;
        if (type & vscode.FileType.Directory) {
          if (depth < 1) await walk(path, depth + 1);
          continue;
        }
        if (!name.toLowerCase().endsWith('.md')) continue;
        const uri = vscode.Uri.joinPath(root, path);
        try {
          const stat = await vscode.workspace.fs.stat(uri);
          if (stat.size > MAX_TEMPLATE_BYTES) {
            this.warn(vscode.l10n.t('The template {0} is larger than 1 MB and is not used.', uri.toString(true)));
            continue;
          }
          out.push({ path, content: decoder.decode(await vscode.workspace.fs.readFile(uri)) });
        } catch (e) {
          this.log.warn(`template ${uri.toString(true)} cannot be read: ${errorMessage(e)}`);
          this.warn(vscode.l10n.t('The template {0} cannot be read and is not used.', uri.toString(true)));
        }
      }
    };
    try {
      await walk('', 0);
      return out;
    } catch (e) {
      this.log.warn(`templates folder ${root.toString(true)} cannot be read: ${errorMessage(e)}`);
      return null;
    }
  }

  dispose(): void {
    if (this.reloadTimer) clearTimeout(this.reloadTimer);
    this.watcher?.dispose();
    this.changeEmitter.dispose();
  }
}
