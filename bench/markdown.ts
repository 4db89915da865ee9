/**
 * The results document of `npm run bench` rendered as Markdown: a header (date, machine,
 * versions), one table per benchmark, and the goals.
 *
 * @packageDocumentation
 */
import type { Compared, PerResourceCost } from "./deploy-results";
import { requestsMarkdown } from "./request-counts";
import type { BenchResults, DeployOnlyResults } from "./run-results";
import { round, type Summary } from "./stats";

/** `median (min–max)` with a unit. */
function cell(s: Summary, unit: "s" | "ms" | "x" | "B" | "req/s" | "ms/res", digits = 2): string {
  const f = (v: number) => {
    switch (unit) {
      case "s":
        return round(v / 1000, digits).toFixed(digits);
      case "x":
        return round(v, 2).toFixed(2);
      case "req/s":
      case "B":
        return String(Math.round(v));
      default:
        return String(round(v, 1));
    }
  };
  const u = unit === "x" ? "×" : ` ${unit}`;
  if (s.samples.length === 1) return `${f(s.median)}${u}`;
  return `${f(s.median)}${u} (${f(s.min)}–${f(s.max)})`;
}

/**
 * The two doors beside the floor: `up` from empty of each N, wall and CPU time with their ratios
 * to the floor of the same runs, and the state per resource, one row per program.
 */
function doorsTable(out: string[], d: BenchResults["deploy"]): void {
  out.push(
    "**Doors** — `up` from empty of the same stack through the dynamic providers (`pulumi-service`) and through the " +
      "native plugin (`pulumi-service/native`, `pulumi-resource-service`), against the floor, in the same runs:",
  );
  out.push("");
  out.push("| up from empty | wall | ratio to floor | CPU time | ratio to floor | state per resource |");
  out.push("| --- | --: | --: | --: | --: | --: |");
  const cpu = (c: Compared, which: "floorMs" | "realMs") => (c.cpu ? cell(c.cpu[which], "s") : "n/a");
  for (const [i, nd] of d.native.entries()) {
    const dyn = d.up[i];
    const sb = d.scale[i].stateBytesPerResource;
    out.push(
      `| N = ${nd.n}, floor | ${cell(dyn.floorMs, "s")} | 1.00× | ${cpu(dyn, "floorMs")} | 1.00× | ${cell(sb.floor, "B")} |`,
    );
    for (const [label, c, state] of [
      ["dynamic door", dyn, sb.real],
      ["native door", nd.up, nd.stateBytesPerResource],
    ] as const) {
      out.push(
        `| N = ${nd.n}, ${label} | ${cell(c.realMs, "s")} | ${cell(c.ratio, "x")} | ${cpu(c, "realMs")} | ` +
          `${c.cpu ? cell(c.cpu.ratio, "x") : "n/a"} | ${cell(state, "B")} |`,
      );
    }
  }
  out.push("");
}

/**
 * The header: title (with the quick-mode caveat), date, machine, versions and what each figure is.
 * Pushes lines onto `out`, ending with a blank one.
 */
function header(
  out: string[],
  r: Pick<BenchResults, "quick" | "date" | "machine" | "versions" | "runs" | "fastMode">,
): void {
  const m = r.machine;
  out.push(
    `### Benchmark results${r.quick ? " (quick mode: N=5, 1 run, short loads — not for comparison)" : ""}` +
      (r.fastMode ? " — fast mode (no checkpoints)" : ""),
  );
  out.push("");
  out.push(`- Date: ${r.date}`);
  out.push(
    `- Machine: ${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.os}; load average ${m.loadAverageAtStart} at start ` +
      `(shared with other work: absolute times vary, ratios are taken within each run)`,
  );
  out.push(
    `- Versions: Node.js ${r.versions.node}, Pulumi CLI ${r.versions.pulumi} (@pulumi/pulumi ${r.versions.pulumiSdk}), ` +
      `pulumi-service ${r.versions.package}`,
  );
  out.push(
    `- Each figure: median (min–max) of ${r.runs} run${r.runs === 1 ? "" : "s"}; ratio = this package / baseline.`,
  );
  if (r.fastMode)
    out.push(
      "- Engine in fast mode (`PULUMI_EXPERIMENTAL=true PULUMI_SKIP_CHECKPOINTS=true`): the state is written once, at the end.",
    );
  out.push("");
}

/** The operations timed after `up` from empty, in the order they run. */
const OPS = ["upNoChange", "preview", "refresh", "destroy"] as const;

/** Each operation of {@link OPS} as the tables name it. */
const OP_NAMES: Record<(typeof OPS)[number], string> = {
  upNoChange: "up, no changes",
  preview: "preview (no changes)",
  refresh: "refresh",
  destroy: "destroy",
};

/**
 * Every operation of the native door against the floor of the same runs, each N: `up` from empty
 * and each of {@link OPS}, wall and CPU time with their ratios. Pushes lines onto `out`, ending
 * with a blank one.
 */
function nativeOperationsTable(out: string[], d: BenchResults["deploy"]): void {
  out.push("**Native door, every operation** — against the floor of the same runs:");
  out.push("");
  out.push("| operation | floor | native door | ratio | CPU time: floor | native door | ratio |");
  out.push("| --- | --: | --: | --: | --: | --: | --: |");
  for (const nd of d.native) {
    for (const op of ["up", ...OPS] as const) {
      const c = nd[op];
      if (!c) continue;
      const cpu = c.cpu
        ? `${cell(c.cpu.floorMs, "s")} | ${cell(c.cpu.realMs, "s")} | ${cell(c.cpu.ratio, "x")}`
        : "n/a | n/a | n/a";
      out.push(
        `| ${op === "up" ? "up" : OP_NAMES[op]}, N = ${nd.n} | ${cell(c.floorMs, "s")} | ${cell(c.realMs, "s")} | ${cell(c.ratio, "x")} | ${cpu} |`,
      );
    }
  }
  out.push("");
}

/**
 * The deploy table: `up` of each N, then preview, refresh and destroy of each N's stack (of the
 * largest N's alone in documents without `operations`), wall and CPU time (seconds) against the
 * floor; the per-resource rows when there are several N; the state per resource (bytes) of the
 * largest N. Pushes lines onto `out`, ending with a blank one.
 */
function deployTable(out: string[], d: BenchResults["deploy"]): void {
  out.push(
    `**Deploy** — \`pulumi up\` from empty of 1 EventDestination + N EventSubscriptions, against the engine floor (same program, no-I/O dynamic provider):`,
  );
  out.push("");
  out.push("| operation | floor | pulumi-service | ratio | CPU time: floor | pulumi-service | ratio |");
  out.push("| --- | --: | --: | --: | --: | --: | --: |");
  const cpuCells = (c: Compared) =>
    c.cpu
      ? `${cell(c.cpu.floorMs, "s")} | ${cell(c.cpu.realMs, "s")} | ${cell(c.cpu.ratio, "x")}`
      : "n/a | n/a | n/a";
  const row = (label: string, c: Compared) =>
    out.push(
      `| ${label} | ${cell(c.floorMs, "s")} | ${cell(c.realMs, "s")} | ${cell(c.ratio, "x")} | ${cpuCells(c)} |`,
    );
  for (const u of d.up) row(`up, N = ${u.n}`, u);
  for (const op of OPS) {
    for (const o of d.operations ?? [d.largest]) {
      const c = o[op];
      // Documents from before the no-change up was timed do not have it.
      if (c) row(`${OP_NAMES[op]}, N = ${o.n}`, c);
    }
  }
  if (d.perResource) perResourceRows(out, d.perResource);
  const sb = d.largest.stateBytesPerResource;
  out.push(
    `| exported state per resource, N = ${d.largest.n} | ${cell(sb.floor, "B")} | ${cell(sb.real, "B")} | ${round(sb.real.median / sb.floor.median, 2).toFixed(2)}× | | | |`,
  );
  out.push("");
}

/**
 * The deploy table's two rows of the cost per resource fitted over N: the slope (ms per resource)
 * with its ratio to the floor's, then the fixed cost (seconds), R² and the marginal cost of each
 * step of N; from wall time, and from CPU time where measured ("n/a" cells otherwise).
 */
function perResourceRows(out: string[], costs: NonNullable<BenchResults["deploy"]["perResource"]>): void {
  const f = costs.floor;
  const p = costs.real;
  const c = costs.cpu;
  const ratio = (a: PerResourceCost, b: PerResourceCost) =>
    `${round(b.msPerResource / a.msPerResource, 2).toFixed(2)}×`;
  out.push(
    `| per resource: least-squares slope of up over N | ${cell(f.slopePerRun, "ms/res")} | ${cell(p.slopePerRun, "ms/res")} | ${ratio(f, p)} | ` +
      (c
        ? `${cell(c.floor.slopePerRun, "ms/res")} | ${cell(c.real.slopePerRun, "ms/res")} | ${ratio(c.floor, c.real)} |`
        : "n/a | n/a | n/a |"),
  );
  const fit = (v: PerResourceCost) =>
    `${round(v.fixedMs / 1000, 2)} s, R² ${round(v.r2, 3)}, steps ${v.segmentSlopes.map((m) => round(m, 1)).join(" → ")} ms/res`;
  out.push(
    `| fixed cost (intercept), R², marginal cost per step of N | ${fit(f)} | ${fit(p)} | | ${c ? `${fit(c.floor)} | ${fit(c.real)} |` : "n/a | n/a |"} |`,
  );
}

/**
 * The scale table, one row per N: state per resource (bytes), peak resident memory (MiB) of the
 * provider process and of the program, floor and real ("n/a" where not measured), the requests
 * the emulator answered and its milliseconds per request. Pushes lines onto `out`, ending with a
 * blank one.
 */
function scaleTable(out: string[], scale: BenchResults["deploy"]["scale"]): void {
  out.push(
    "**Scale** — what else grows with N, during `up` from empty: state per resource, peak resident memory " +
      "of the dynamic-provider process and of the program (maxrss), requests the emulator answered and its time per request:",
  );
  out.push("");
  out.push(
    "| N | state per resource: floor | pulumi-service | provider process: floor | pulumi-service | program: floor | pulumi-service | requests | emulator ms per request |",
  );
  out.push("| --: | --: | --: | --: | --: | --: | --: | --: | --: |");
  const mib = (v: Summary) => `${round(v.median / 2 ** 20, 1)} MiB`;
  const pair = (p: { floor: Summary; real: Summary } | null) =>
    p ? `${mib(p.floor)} | ${mib(p.real)}` : "n/a | n/a";
  for (const sc of scale) {
    out.push(
      `| ${sc.n} | ${cell(sc.stateBytesPerResource.floor, "B")} | ${cell(sc.stateBytesPerResource.real, "B")} | ` +
        `${pair(sc.peakRssBytes.provider)} | ${pair(sc.peakRssBytes.program)} | ` +
        `${Math.round(sc.emulator.requests.median)} | ${round(sc.emulator.msPerRequest.median, 2)} ms |`,
    );
  }
  out.push("");
}

/**
 * The fixed cost by part: each part's time (milliseconds) in fresh processes and its ratio to
 * loading `@pulumi/pulumi`. Pushes lines onto `out`, ending with a blank one.
 */
function startupTable(out: string[], st: BenchResults["startup"]): void {
  out.push(
    `**Fixed cost by part** — fresh Node.js processes, median (min–max) of ${st.programLoadMs.samples.length} of each kind, beside loading \`@pulumi/pulumi\`, which every program and provider process pays:`,
  );
  out.push("");
  out.push("| part | time | ratio to loading `@pulumi/pulumi` |");
  out.push("| --- | --: | --: |");
  const part = (label: string, v: Summary) =>
    out.push(`| ${label} | ${cell(v, "ms")} | ${round(v.median / st.pulumiLoadMs.median, 2).toFixed(2)}× |`);
  part('`require("@pulumi/pulumi")` (baseline, both processes)', st.pulumiLoadMs);
  part('program: `require("pulumi-service")`', st.programLoadMs);
  part("provider process, no request (preview): load, `configure`, `check`, `diff`", st.providerNoRequestMs);
  part("provider process, first request: client (undici) and first `GET`", st.firstRequestMs);
  part("provider process, the `GET` after it", st.secondRequestMs);
  out.push("");
}

/**
 * The state table, one row per resource type: exported state and serialized provider, in bytes.
 * Pushes lines onto `out`, ending with a blank one.
 */
function stateTable(out: string[], state: BenchResults["state"]): void {
  out.push("**State** — one resource of each type, exported state (compact JSON):");
  out.push("");
  out.push(
    "| type | state per resource | serialized provider (`__provider` output) | `__provider`, all copies |",
  );
  out.push("| --- | --: | --: | --: |");
  for (const t of state.types) {
    out.push(
      `| \`${t.type}\`${t.type.includes("/floor:") ? " (floor)" : ""} | ${t.stateBytes.median} B | ${t.providerBytes.median} B | ${t.providerBytesAllCopies.median} B |`,
    );
  }
  out.push("");
}

/**
 * The client table, one row per mode (sequential or a concurrency): bare undici against
 * `ServiceClient`, milliseconds, and their ratio. Pushes lines onto `out`, ending with a blank one.
 */
function clientTable(out: string[], client: BenchResults["client"]): void {
  out.push(
    `**Client** — ${client.requests} × \`GET /event_subscriptions/{id}\` against the emulator (own process):`,
  );
  out.push("");
  out.push("| mode | bare undici | ServiceClient | ratio |");
  out.push("| --- | --: | --: | --: |");
  for (const c of client.modes) {
    out.push(
      `| ${c.concurrency === 1 ? "sequential" : `concurrency ${c.concurrency}`} | ${cell(c.undiciMs, "ms")} | ${cell(c.clientMs, "ms")} | ${cell(c.ratio, "x")} |`,
    );
  }
  out.push("");
}

/**
 * The emulator table, one row per endpoint loaded: requests per second, p50 and p99 latency
 * (milliseconds). Pushes lines onto `out`, ending with a blank one.
 */
function emulatorTable(out: string[], e: BenchResults["emulator"]): void {
  out.push(`**Emulator** — autocannon, ${e.connections} connections × ${e.durationSeconds} s, ${e.store}:`);
  out.push("");
  out.push("| endpoint | requests/s | p50 | p99 |");
  out.push("| --- | --: | --: | --: |");
  for (const p of e.endpoints) {
    out.push(
      `| \`${p.label}\` | ${cell(p.requestsPerSecond, "req/s")} | ${cell(p.p50Ms, "ms")} | ${cell(p.p99Ms, "ms")} |`,
    );
  }
  out.push("");
}

/**
 * The goals table: each goal, its figure, and met, **missed** or not measured. Pushes lines onto
 * `out`, ending with a blank one.
 */
function goalsTable(out: string[], goals: BenchResults["goals"]): void {
  out.push("**Goals**:");
  out.push("");
  out.push("| goal | figure | |");
  out.push("| --- | --- | --- |");
  for (const g of goals) {
    out.push(
      `| ${g.goal} | ${g.figure} | ${g.met === null ? "not measured" : g.met ? "met" : "**missed**"} |`,
    );
  }
  out.push("");
}

/**
 * Renders the document as Markdown: header, one table per benchmark, the goals. Sections a
 * document does not have (an older or partial one: no native door, no scale figures, no
 * startup figures, no requests per operation) are left out.
 */
export function toMarkdown(r: BenchResults): string {
  const out: string[] = [];
  header(out, r);
  deployTable(out, r.deploy);
  if (r.deploy.native) doorsTable(out, r.deploy);
  if (r.deploy.scale) scaleTable(out, r.deploy.scale);
  if (r.startup) startupTable(out, r.startup);
  if (r.deploy.requests)
    out.push(
      "**Requests per operation** — requests the service answered per resource (N + 1: the destination and the N subscriptions), by method; **✗** misses its goal:",
      "",
      requestsMarkdown(r.deploy.requests),
      "",
    );
  stateTable(out, r.state);
  clientTable(out, r.client);
  emulatorTable(out, r.emulator);
  goalsTable(out, r.goals);
  return out.join("\n");
}

/**
 * Renders a document of the deploy benchmark alone (`BENCH_ONLY=deploy`) as Markdown: header,
 * the deploy table (the dynamic door), both doors' `up`, every operation of the native door, and
 * the goals.
 */
export function deployMarkdown(r: DeployOnlyResults): string {
  const out: string[] = [];
  header(out, r);
  deployTable(out, r.deploy);
  doorsTable(out, r.deploy);
  nativeOperationsTable(out, r.deploy);
  goalsTable(out, r.goals);
  return out.join("\n");
}
