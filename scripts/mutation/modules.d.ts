/** Types of modules.js (the modules of the mutation run). */
export interface MutationModule {
  name: string;
  mutate: string[];
  tests: string[];
  goal: number;
}
export const MODULES: MutationModule[];
export function selectModules(names: string | undefined): MutationModule[];
