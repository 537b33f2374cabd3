/**
 * The extension's log: the output channel "Dictée", the `Logger` every layer writes to.
 */
import * as vscode from 'vscode';
import type { Logger } from '../shared/logger';

/**
 * The one output channel of Dictée, a `LogOutputChannel` (levels, timestamps, the user picks the level).
 * Passed as the `Logger` of every layer. Keys are never written here (callers redact them).
 */
export class Log implements Logger, vscode.Disposable {
  private readonly channel: vscode.LogOutputChannel;

  constructor() {
    this.channel = vscode.window.createOutputChannel('Dictée', { log: true });
  }

  trace(message: string, ...args: unknown[]): void {
    this.channel.trace(message, ...args);
  }
  debug(message: string, ...args: unknown[]): void {
    this.channel.debug(message, ...args);
  }
  info(message: string, ...args: unknown[]): void {
    this.channel.info(message, ...args);
  }
  warn(message: string, ...args: unknown[]): void {
    this.channel.warn(message, ...args);
  }
  error(message: string | Error, ...args: unknown[]): void {
    this.channel.error(message, ...args);
  }

  show(): void {
    this.channel.show(true);
  }

  dispose(): void {
    this.channel.dispose();
  }
}
