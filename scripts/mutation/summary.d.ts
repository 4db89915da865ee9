/** Types of summary.js (the committed summary of the mutation runs). */
export interface ModuleSummary {
  mutants: number;
  killed: number;
  timeout: number;
  survived: number;
  noCoverage: number;
  static: number;
  compileErrors: number;
  runtimeErrors: number;
  score: number;
  first: { score: number; date: string };
  equivalents: { where: string; what: string; why: string }[];
  survivors: { where: string; what: string; status: string }[];
  seconds: number;
  date: string;
  commit: string;
  files: Record<string, string>;
}
export interface Summary {
  marginPercent: number;
  modules: Record<string, ModuleSummary>;
}
export function render(summary: Summary): string;
export const START: string;
export const END: string;
