export function frenchPlan(engine: string | undefined, has: { fr: boolean; lm: boolean }): { fetch: boolean; notes: string[] };
export function frenchFetchFailedNote(reason: string): string;
export function displayLanguage(locale: string | undefined, served: readonly string[] | undefined): string | undefined;
export function servedNote(health: unknown, engine: string | undefined): string;
export function modelsDirOf(env: NodeJS.ProcessEnv, home: string): string;
export function vscodeLocale(userData: string, env: NodeJS.ProcessEnv): string | undefined;
export function prepareFrench(root: string, engine: string | undefined, env: NodeJS.ProcessEnv): string[];
export function chooseEngineThenFrench(
  chosen: Record<string, string | undefined>,
  models: readonly { name: string; kind: string; state: string }[],
  sphinxInstalled: boolean,
  prepare: (engine: string) => string[],
): string[];
export function neuralHint(engine: string | undefined, recommended: string | undefined, served: readonly string[] | undefined): string;
export function displayLanguageWhy(engine: string | undefined): string;
