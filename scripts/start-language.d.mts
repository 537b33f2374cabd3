export function startLanguage(languages: readonly string[] | undefined, engine: string): { language: string; why: string };
