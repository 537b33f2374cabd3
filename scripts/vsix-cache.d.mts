export function packageInputs(root: string): string[];
export function inputsHash(root: string): string;
export function vsixUpToDate(root: string, vsix: string, stampFile: string): { upToDate: boolean; hash: string; why: string };
export function recordVsix(vsix: string, stampFile: string, hash: string): void;
