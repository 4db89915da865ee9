/**
 * The fixed cost by part (goal 1): what this package adds to the start of every deployment,
 * each part timed in fresh Node.js processes (the median of `runs`), beside what every program
 * and provider process pays anyway, loading `@pulumi/pulumi` (the baseline, same processes):
 *
 * - **program**: `require("pulumi-service")` in a Pulumi program (after `@pulumi/pulumi`);
 * - **provider, no request** (all a `preview` or a run without changes does): loading the
 *   implementations in the dynamic-provider process, `configure`, then `check` and `diff` of one
 *   subscription;
 * - **provider, first request**: building the client and its first `GET` against the emulator
 *   (loading undici, opening the connection), then a second `GET` on the warm connection.
 *
 * It loads the built package (`pulumi-service` resolves to `dist/`): run `npm run build` first.
 *
 * @packageDocumentation
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { startEmulator } from "service-emulator";
import { REPO_ROOT } from "./engine";
import { summarize, type Summary } from "./stats";

const run = promisify(execFile);

/** Options of {@link benchStartup}. */
export interface StartupBenchOptions {
  /** Fresh processes per part (each figure is their median). */
  runs: number;
  /** Progress lines (to stderr). */
  log: (line: string) => void;
  /**
   * The checkout whose built package the children load; default this one. Another checkout
   * (with its own `node_modules/pulumi-service`) measures an earlier version the same way.
   */
  root?: string;
}

/** The parts, each in milliseconds of wall time in a fresh process. */
export interface StartupResults {
  /** `require("@pulumi/pulumi")`: the baseline every program and provider process pays. */
  pulumiLoadMs: Summary;
  /** `require("pulumi-service")` after it, in the program. */
  programLoadMs: Summary;
  /** Provider process: loading the implementations, `configure`, `check` and `diff` of one subscription. */
  providerNoRequestMs: Summary;
  /** Provider process: building the client and its first `GET` (undici loaded, connection opened). */
  firstRequestMs: Summary;
  /** The `GET` after it, on the warm connection, for comparison. */
  secondRequestMs: Summary;
}

/**
 * The child's code: plain JavaScript run by `node -e` in the repository (so that `pulumi-service`
 * resolves to the built package), printing one line of JSON of milliseconds.
 */
const CHILD = `
const now = () => Number(process.hrtime.bigint()) / 1e6;
(async () => {
  const [part, baseUrl, apiKey, destinationId, subscriptionId] = process.argv.slice(1);
  const t0 = now();
  require("@pulumi/pulumi");
  const t1 = now();
  const out = { pulumiLoadMs: t1 - t0 };
  if (part === "program") {
    require("pulumi-service");
    out.programLoadMs = now() - t1;
  } else {
    const runtime = require("pulumi-service/provider/impl/runtime");
    const subscriptions = require("pulumi-service/provider/impl/eventSubscription");
    const settings = { "service:apiKey": apiKey, "service:baseUrl": baseUrl };
    await runtime.configure({ config: { get: (k) => settings[k] } });
    const inputs = { sources: [{ type: "ip_policy_created.v0" }], destinationIds: [destinationId] };
    const checked = await subscriptions.check({}, inputs);
    if (checked.failures.length > 0) throw new Error(JSON.stringify(checked.failures));
    const outs = { ...inputs, description: "", metadata: "", uri: "u", createdAt: "c", destinations: [] };
    await subscriptions.diff(subscriptionId, outs, inputs);
    const t2 = now();
    const client = runtime.getClient();
    await client.eventSubscriptions.get(subscriptionId);
    const t3 = now();
    await client.eventSubscriptions.get(subscriptionId);
    const t4 = now();
    Object.assign(out, { providerNoRequestMs: t2 - t1, firstRequestMs: t3 - t2, secondRequestMs: t4 - t3 });
    await client.close();
  }
  process.stdout.write(JSON.stringify(out) + "\\n");
})().catch((e) => {
  process.stderr.write(String(e && e.stack || e) + "\\n");
  process.exit(1);
});
`;

/**
 * Times each part in `runs` fresh processes of each kind, program and provider alternating.
 * @throws Error when a child process fails (e.g. the package is not built).
 */
export async function benchStartup(opts: StartupBenchOptions): Promise<StartupResults> {
  const emulator = await startEmulator({});
  try {
    const { ServiceClient } = await import("../client");
    const client = new ServiceClient({ baseUrl: emulator.url, apiKey: emulator.apiKeys[0] });
    const destination = await client.eventDestinations.create({
      target: { kinesis: { auth: { role: { roleArn: "arn:r" } }, streamArn: "arn:s" } },
    });
    const subscription = await client.eventSubscriptions.create({
      sources: [{ type: "ip_policy_created.v0" }],
      destinationIds: [destination.id],
    });
    await client.close();
    const child = async (part: "program" | "provider") => {
      const args = [emulator.url, emulator.apiKeys[0], destination.id, subscription.id];
      const { stdout } = await run(process.execPath, ["-e", CHILD, part, ...args], {
        cwd: opts.root ?? REPO_ROOT,
        timeout: 60_000,
      });
      return JSON.parse(stdout) as Record<string, number>;
    };
    const samples: Record<keyof StartupResults, number[]> = {
      pulumiLoadMs: [],
      programLoadMs: [],
      providerNoRequestMs: [],
      firstRequestMs: [],
      secondRequestMs: [],
    };
    for (let i = 0; i < opts.runs; i++) {
      for (const part of ["program", "provider"] as const) {
        const r = await child(part);
        for (const [k, v] of Object.entries(r)) samples[k as keyof StartupResults].push(v);
      }
    }
    const results = Object.fromEntries(
      Object.entries(samples).map(([k, v]) => [k, summarize(v)]),
    ) as unknown as StartupResults;
    opts.log(
      `startup: @pulumi/pulumi ${Math.round(results.pulumiLoadMs.median)} ms; program +${Math.round(results.programLoadMs.median)} ms; ` +
        `provider without request +${Math.round(results.providerNoRequestMs.median)} ms, first request ${Math.round(results.firstRequestMs.median)} ms`,
    );
    return results;
  } finally {
    await emulator.close();
  }
}
