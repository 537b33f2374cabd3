export function causeLines(output: string, max?: number): string[];
export function tailLines(output: string, n: number): string;
export function failureReport(what: string, why: string, output: string, logName: string, tail?: number): string;
