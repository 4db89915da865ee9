/**
 * `service-recover` in process, with its output captured: usage and bad input. (The whole
 * recovery runs as a child process in test/reliability/interrupted.test.ts.)
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ServiceClient } from "../../client";
import { main } from "../../gitops/recover-cli";
import { TYPE_TOKENS } from "../../gitops/recovery";
import { startEmulator, type RunningEmulator } from "../helpers/emulator";
import { capture } from "../helpers/cli";
import { loadedWith } from "../helpers/loaded-modules";

const io = capture;

describe("service-recover (in process)", () => {
  it("--help prints the usage naming both files on stdout and exits 0", async () => {
    const help = io();
    expect(await main(["node", "service-recover", "--help"], help.cli)).toBe(0);
    expect(help.out.stdout).toMatch(/<exported>.*<output>/s);
    expect(help.out.stderr).toBe("");
  });

  it("--version prints the version of pulumi-service on stdout and exits 0", async () => {
    const run = io();
    expect(await main(["node", "service-recover", "--version"], run.cli)).toBe(0);
    expect(run.out.stdout).toBe(`${(await import("../../package.json")).version}\n`);
  });

  it("--version, --help and a bad command line answer without loading the client", async () => {
    for (const args of [["--version"], ["--help"], ["only-one.json"]]) {
      const { loaded } = await loadedWith(["zod", "undici"], async () => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const cli = require("../../gitops/recover-cli") as typeof import("../../gitops/recover-cli");
        await cli.main(["node", "service-recover", ...args], io().cli);
      });
      expect({ args, loaded }).toEqual({ args, loaded: [] });
    }
  });

  it.each([
    [["node", "service-recover"]],
    [["node", "service-recover", "only-one.json"]],
    [["node", "service-recover", "a", "b", "--nope"]],
  ])("a bad command line %j exits 1", async (argv) => {
    const bad = io();
    expect(await main(argv, bad.cli)).toBe(1);
    expect(bad.out.stderr).toMatch(/error/);
  });

  it("a file that is not an exported stack is refused before anything is written", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "recover-cli-"));
    try {
      const input = path.join(dir, "in.json");
      const output = path.join(dir, "out.json");
      fs.writeFileSync(input, JSON.stringify({ hello: "world" }));
      await expect(main(["node", "service-recover", input, output], io().cli)).rejects.toThrow(
        /is not the output of `pulumi stack export`/,
      );
      expect(fs.existsSync(output)).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    "yesterday",
    "2026-11-24",
    "2026-11-24T13:47:00",
    " 2026-11-24T13:47:00Z",
    "2026-11-24T13:47:00Zx",
    "2026-11-24T13:47:00+0200",
    "2026-11-24T13:47:00.Z",
    "2026-13-45T13:47:00Z",
  ])(
    "--since %j (not an RFC 3339 time with a zone) is refused before anything is read or written",
    async (since) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "recover-cli-"));
      try {
        const output = path.join(dir, "out.json");
        await expect(
          main(
            ["node", "service-recover", path.join(dir, "missing.json"), output, "--since", since],
            io().cli,
          ),
        ).rejects.toThrow(
          `--since must be an RFC 3339 date and time with a zone, such as 2026-11-24T13:47:00Z, got ${JSON.stringify(since)}`,
        );
        expect(fs.existsSync(output)).toBe(false);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it.each(["2026-11-24T13:47Z", "2026-11-24T13:47:00.123+02:00", "2026-11-24t13:47:00z"])(
    "--since %j is an RFC 3339 time: accepted (the missing exported file is what fails)",
    async (since) => {
      const missing = path.join(os.tmpdir(), `recover-cli-missing-${process.pid}`);
      await expect(
        main(
          [
            "node",
            "service-recover",
            path.join(missing, "in.json"),
            path.join(missing, "out.json"),
            "--since",
            since,
          ],
          io().cli,
        ),
      ).rejects.toThrow(/ENOENT/);
    },
  );

  it("--found without --since is refused before anything is read or written", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "recover-cli-"));
    try {
      const found = path.join(dir, "found.json");
      await expect(
        main(
          [
            "node",
            "service-recover",
            path.join(dir, "missing.json"),
            path.join(dir, "out.json"),
            "--found",
            found,
          ],
          io().cli,
        ),
      ).rejects.toThrow(/--found needs --since/);
      expect(fs.existsSync(found)).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("service-recover (in process) against the emulator", () => {
  let em: RunningEmulator;
  let client: ServiceClient;
  let dir: string;
  beforeAll(async () => {
    em = await startEmulator();
    client = new ServiceClient({ apiKey: em.apiKeys[0], baseUrl: em.url });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "recover-cli-run-"));
  });
  afterAll(async () => {
    await client.close();
    await em.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("adopts a recorded ID and clears what the service lacks, one line each; writes the stack (0600); a create kept exits 2", async () => {
    const destination = (
      await client.eventDestinations.create({ description: "d", target: { datadog: { apiKey: "k" } } })
    ).id;
    const inputs = { sources: [{ type: "ip_policy_created.v0" }], destinationIds: [destination] };
    const made = await client.eventSubscriptions.create({ ...inputs, description: "made" });
    const twin = { ...inputs, description: "twin" };
    await client.eventSubscriptions.create(twin);
    await client.eventSubscriptions.create(twin);
    const pending = (name: string, description: string, id?: string) => ({
      type: "creating",
      resource: {
        urn: `urn:pulumi:dev::p::${TYPE_TOKENS.subscription}::${name}`,
        type: TYPE_TOKENS.subscription,
        inputs: { ...inputs, description },
        created: new Date(Date.now() - 5_000).toISOString(),
        ...(id ? { id } : {}),
      },
    });
    const write = (file: string, ops: unknown[]) =>
      fs.writeFileSync(
        file,
        JSON.stringify({ version: 3, deployment: { resources: [], pending_operations: ops } }),
      );
    const input = path.join(dir, "in.json");
    const output = path.join(dir, "out.json");
    write(input, [pending("made", "other", made.id), pending("never", "never made")]);
    const run = io({ SERVICE_API_KEY: em.apiKeys[0] });
    expect(await main(["node", "service-recover", input, output, "--base-url", em.url], run.cli)).toBe(0);
    expect(run.out.stderr).toBe(
      `adopt  urn:pulumi:dev::p::${TYPE_TOKENS.subscription}::made  ${made.id}  (the engine had recorded its ID, and the service holds it)\n` +
        `clear  urn:pulumi:dev::p::${TYPE_TOKENS.subscription}::never  (the service holds no resource with its values made since: the create did not happen)\n` +
        `service-recover: 1 adopted, 1 cleared, 0 kept; wrote ${output}\n`,
    );
    expect(fs.statSync(output).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(output, "utf8")).deployment.resources).toEqual([
      expect.objectContaining({ id: made.id }),
    ]);
    write(input, [pending("twin", "twin")]);
    const kept = io({ SERVICE_API_KEY: em.apiKeys[0], SERVICE_BASE_URL: em.url });
    expect(await main(["node", "service-recover", input, output], kept.cli)).toBe(2);
    expect(kept.out.stderr).toMatch(/^keep {3}urn:\S+::twin {2}\(/);
  });

  it("--since lists what the service made since then that the stack lacks; --found writes it for SERVICE_ADOPT_FROM", async () => {
    const since = new Date(Date.now() - 1_000).toISOString();
    const destination = (
      await client.eventDestinations.create({ description: "late", target: { datadog: { apiKey: "k" } } })
    ).id;
    const input = path.join(dir, "empty.json");
    fs.writeFileSync(input, JSON.stringify({ version: 3, deployment: { resources: [] } }));
    const output = path.join(dir, "out2.json");
    const found = path.join(dir, "found.json");
    const env = { SERVICE_API_KEY: em.apiKeys[0], SERVICE_BASE_URL: em.url };
    const listed = io(env);
    expect(await main(["node", "service-recover", input, output, "--since", since], listed.cli)).toBe(0);
    expect(listed.out.stderr).toContain(`found  destination ${destination}  made `);
    expect(listed.out.stderr).toContain(
      `that the stack does not hold; give --found FILE to write them for \`SERVICE_ADOPT_FROM=FILE pulumi up --refresh\``,
    );
    const written = io(env);
    expect(
      await main(["node", "service-recover", input, output, "--since", since, "--found", found], written.cli),
    ).toBe(0);
    expect(JSON.parse(fs.readFileSync(found, "utf8"))).toMatchObject({
      since,
      resources: expect.arrayContaining([expect.objectContaining({ id: destination })]),
    });
    expect(written.out.stderr).toContain(`; wrote ${found}: after \`pulumi stack import\``);
  });
});

// Imported here rather than at the top so that the tests above keep their lines (Stryker's
// incremental run tells tests apart by their place).
import { useTempDir } from "../helpers/temp-dir";

describe("service-recover's usage and input (in process)", () => {
  const tmp = useTempDir("recover-cli-");

  it("--help prints the usage word for word (spaces and line breaks aside: commander wraps at the terminal's width)", async () => {
    const help = io();
    expect(await main(["node", "service-recover", "--help"], help.cli)).toBe(0);
    const words = (text: string) => text.replace(/\s+/g, " ").trim();
    expect(words(help.out.stdout)).toBe(
      words(`Usage: service-recover [options] <exported> <output>
Settle the pending creates of an interrupted \`pulumi up\`: adopt the resources the service holds,
clear the others
Arguments:
  exported the stack, from \`pulumi stack export --show-secrets --file <exported>\`
  output where to write the edited stack, for \`pulumi stack import --file <output>\`
Options:
  -V, --version output the version number
  --base-url <url> base URL of the service (default: env SERVICE_BASE_URL)
  --since <time> when the interrupted run started (RFC 3339): also list what the service made since
    then that the stack lacks (runs that skipped checkpoints)
  --found <file> with --since: write what was found to this file, for SERVICE_ADOPT_FROM=<file>
    pulumi up
  -h, --help display help for command`),
    );
  });

  it("a file holding JSON null is refused as not an exported stack, naming the file", async () => {
    const input = path.join(tmp(), "null.json");
    fs.writeFileSync(input, "null");
    await expect(
      main(["node", "service-recover", input, path.join(tmp(), "out.json")], io().cli),
    ).rejects.toThrow(new Error(`${input} is not the output of \`pulumi stack export\``));
  });
});

// Imported here for the same reason as useTempDir above.
import {
  fakeId,
  json,
  lastPage,
  startScriptedServer,
  wireDestination,
  wireSubscription,
} from "../helpers/scripted-server";

describe("service-recover against a scripted service (in process)", () => {
  const tmp = useTempDir("recover-cli-scripted-");
  const SUB = TYPE_TOKENS.subscription;

  it("a kept operation that is not a create leaves the exit code 0; the requests name service-recover; the connections are closed; the stack file ends its last line", async () => {
    const recorded = fakeId("esb_", 0);
    const server = await startScriptedServer([json(200, wireSubscription("http://svc", 0))]);
    const close = jest.spyOn(ServiceClient.prototype, "close");
    try {
      const input = path.join(tmp(), "in.json");
      const output = path.join(tmp(), "out.json");
      const resource = (name: string, id: string) => ({
        urn: `urn:pulumi:dev::p::${SUB}::${name}`,
        type: SUB,
        id,
      });
      const ops = [
        { type: "deleting", resource: resource("going", fakeId("esb_", 9)) },
        { type: "creating", resource: { ...resource("made", recorded), inputs: {} } },
      ];
      fs.writeFileSync(
        input,
        JSON.stringify({ version: 3, deployment: { resources: [], pending_operations: ops } }),
      );
      const run = io({ SERVICE_API_KEY: "sk_recover_scripted_0123", SERVICE_BASE_URL: server.url });
      expect(await main(["node", "service-recover", input, output], run.cli)).toBe(0);
      expect(run.out.stderr.split("\n").map((l) => l.split("  ")[0])).toEqual([
        "keep",
        "adopt",
        `service-recover: 1 adopted, 0 cleared, 1 kept; wrote ${output}`,
        "",
      ]);
      expect(server.requests.map((r) => [r.url, r.headers["user-agent"]])).toEqual([
        [`/event_subscriptions/${recorded}`, "pulumi-service-recover"],
      ]);
      expect(close).toHaveBeenCalledTimes(1);
      expect(fs.readFileSync(output, "utf8")).toMatch(/\n}\n$/);
    } finally {
      close.mockRestore();
      await server.close();
    }
  });

  it("--found's file ends its last line", async () => {
    const server = await startScriptedServer([
      lastPage("event_subscriptions"),
      lastPage("event_destinations", [wireDestination("http://svc", 1)]),
    ]);
    try {
      const input = path.join(tmp(), "empty.json");
      const found = path.join(tmp(), "found.json");
      fs.writeFileSync(input, JSON.stringify({ version: 3, deployment: { resources: [] } }));
      const run = io({ SERVICE_API_KEY: "sk_recover_scripted_0123", SERVICE_BASE_URL: server.url });
      const args = ["node", "service-recover", input, path.join(tmp(), "out3.json")];
      expect(await main([...args, "--since", "2026-11-21T09:00:00Z", "--found", found], run.cli)).toBe(0);
      const text = fs.readFileSync(found, "utf8");
      expect(text).toMatch(/\n}\n$/);
      expect(JSON.parse(text).resources.map((r: { id: string }) => r.id)).toEqual([fakeId("ed_", 1)]);
    } finally {
      await server.close();
    }
  });

  it("--since with anything before the date (here an expanded year, which Date.parse takes) is refused", async () => {
    const since = "+002026-11-24T13:47:00Z";
    expect(Number.isNaN(Date.parse(since))).toBe(false);
    const output = path.join(tmp(), "never.json");
    await expect(
      main(["node", "service-recover", path.join(tmp(), "missing.json"), output, "--since", since], io().cli),
    ).rejects.toThrow(
      `--since must be an RFC 3339 date and time with a zone, such as 2026-11-24T13:47:00Z, got "${since}"`,
    );
    expect(fs.existsSync(output)).toBe(false);
  });
});

describe("service-recover's usage as installed", () => {
  it("the usage names service-recover whatever the script's file is called (as npm installs it: dist/gitops/recover-cli.js)", async () => {
    const help = io();
    const script = path.join(
      "/usr",
      "lib",
      "node_modules",
      "pulumi-service",
      "dist",
      "gitops",
      "recover-cli.js",
    );
    expect(await main(["node", script, "--help"], help.cli)).toBe(0);
    expect(help.out.stdout.split("\n")[0]).toBe("Usage: service-recover [options] <exported> <output>");
  });
});
