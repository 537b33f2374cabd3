/** The sample workspace of `npm start` for the clone at `root` (scripts/start-workspace.mjs). */
export function startWorkspace(root: string, tmp: string, uid: number | string): string;
