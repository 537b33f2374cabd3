export function frenchPlan(engine: string | undefined, has: { fr: boolean; lm: boolean }): { fetch: boolean; notes: string[] };
export function frenchFetchFailedNote(reason: string): string;
export function displayLanguage(locale: string | undefined, served: readonly string[] | undefined): string | undefined;
export function servedNote(health: unknown, engine: string | undefined): string;
