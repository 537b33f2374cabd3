/**
 * The extension's entry point: `activate` builds the composition root (container.ts), which builds every
 * service and registers the commands; `deactivate` returns its asynchronous teardown.
 */
import * as vscode from 'vscode';
import { Container } from './container';

let container: Container | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const began = performance.now();
  const c = new Container(context);
  container = c;
  context.subscriptions.push(c);
  const version = (context.extension.packageJSON as { version?: unknown }).version;
  c.log.info(
    `Dictée ${String(version)} activated in ${Math.round(performance.now() - began)} ms (service ${c.settings.read().serverUrl}, display language ${vscode.env.language})`,
  );
}

/** VS Code does not await `dispose`: the asynchronous teardown (recorder, connection) is returned here. */
export function deactivate(): Promise<void> | undefined {
  const c = container;
  container = undefined;
  return c?.shutdown();
}
