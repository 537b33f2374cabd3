/**
 * The dictation languages and specialties: one list, used by the wire contract (`configure` fields,
 * src/protocol/config.ts) and by the dictation grammar (src/dictation/types.ts) alike.
 */

export const LANGUAGES = ['fr', 'en', 'es', 'de'] as const;
export type Language = (typeof LANGUAGES)[number];

export const SPECIALTIES = ['general', 'radiology', 'cardiology', 'legal'] as const;
export type Specialty = (typeof SPECIALTIES)[number];

export function isLanguage(x: unknown): x is Language {
  return typeof x === 'string' && (LANGUAGES as readonly string[]).includes(x);
}
