/** The rule tables of every language. */
import type { Language } from '../types';
import { de } from './de';
import { en } from './en';
import { es } from './es';
import { fr } from './fr';
import type { LanguageTable } from './table';

export const TABLES: Readonly<Record<Language, LanguageTable>> = { fr, en, es, de };
