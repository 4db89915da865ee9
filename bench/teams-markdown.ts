/**
 * The Markdown of a run of the bench of parallel stacks (bench/teams.ts): one row per backend,
 * each batch's wall and CPU time and their ratio, and PostgreSQL against files.
 *
 * @packageDocumentation
 */
import type { Backend } from "./scale-results";
import type { Summary } from "./stats";
import type { TeamsResults } from "./teams-results";

/** The name of a backend in the tables. */
const BACKEND_NAMES: Record<Backend, string> = { postgres: "PostgreSQL", file: "files" };

/** `median s (min–max)` of milliseconds, in seconds with one decimal. */
function seconds(s: Summary): string {
  const v = (ms: number) => (ms / 1000).toFixed(1);
  return s.min === s.max ? `${v(s.median)} s` : `${v(s.median)} s (${v(s.min)}–${v(s.max)})`;
}

/** `median (min–max)` of a ratio, with two decimals. */
function times(s: Summary): string {
  const v = (x: number) => x.toFixed(2);
  return s.min === s.max ? v(s.median) : `${v(s.median)} (${v(s.min)}–${v(s.max)})`;
}

/**
 * The Markdown of the results: a heading line, then one row per backend (each batch's wall time,
 * their ratio, and each batch's CPU time, `—` where not measured) and, with both backends, a row
 * of PostgreSQL / file.
 */
export function teamsMarkdown(r: TeamsResults): string {
  const k = r.stacks;
  const lines = [
    `**${k} stacks of ${r.resourcesPerStack} resources each, \`up\` from empty** (${r.runs === 1 ? "one run" : `median (min–max) of ${r.runs} runs`}; ratios taken within each run; ${r.machine.cores} cores, load average ${r.machine.loadAverageAtStart} at the start${r.quick ? "; quick mode: not figures to compare" : ""})`,
    "",
    `| backend | ${k} stacks in parallel | the same ${k} one after the other | parallel / one after the other | CPU time, in parallel | CPU time, one after the other |`,
    "| --- | ---: | ---: | ---: | ---: | ---: |",
    ...r.backends.map(
      (b) =>
        `| ${BACKEND_NAMES[b.backend]} | ${seconds(b.parallelMs)} | ${seconds(b.sequentialMs)} | ${times(b.ratio)} | ${b.cpuMs ? seconds(b.cpuMs.parallel) : "—"} | ${b.cpuMs ? seconds(b.cpuMs.sequential) : "—"} |`,
    ),
  ];
  if (r.postgresOverFile)
    lines.push(
      `| PostgreSQL / files | ${times(r.postgresOverFile.parallel)} | ${times(r.postgresOverFile.sequential)} | | | |`,
    );
  const s = r.service;
  if (s?.rateLimit) {
    const { max, windowMs, burst } = s.rateLimit;
    const limit =
      burst === undefined
        ? `${max} requests per rolling ${windowMs / 1000} s`
        : `${max} requests per ${windowMs / 1000} s in bursts of ${burst}`;
    const counts = Object.entries(s.answers429).map(
      ([backend, c]) =>
        `${BACKEND_NAMES[backend as Backend]}: ${c.parallel.join("/")} in parallel, ${c.sequential.join("/")} one after the other`,
    );
    lines.push(
      "",
      `One account at ${limit}, ${s.latencyMs} ms a round trip, the ${s.door === "native" ? "native" : "dynamic"} door; answers of 429 in each run's \`up\`s (all retried) — ${counts.join("; ")}.`,
    );
  }
  return lines.join("\n");
}
