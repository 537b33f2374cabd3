/** The sample workspace of `npm start` for the clone at `root` (scripts/start-workspace.mjs). */
export function startWorkspace(root: string, tmp: string, uid: number | string): string;
/** The sample report in `language` (English for any other) and the cursor's place after its findings' label. */
export function sampleReport(language: string): { text: string; label: string; line: number; column: number };
