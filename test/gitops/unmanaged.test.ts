/**
 * gitops/unmanaged.ts against the emulator (in process, over HTTP) with states written here: what
 * is unmanaged, across pages, per account; exclusions; the bulk-import file; bad options refused
 * before anything is sent; the abuse reports said not to be checked; no API key in errors.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ServiceClient } from "../../client";
import {
  ABUSE_REPORTS_NOT_CHECKED,
  bulkImportFile,
  findUnmanaged,
  parseStackRef,
  runUnmanagedCheck,
  UnmanagedError,
  type StackState,
} from "../../gitops/unmanaged";
import { keyStamp } from "../../provider/impl/keyStamp";
import { startEmulator, type RunningEmulator } from "../helpers/emulator";

const KEY_A = "sk_unmanaged_unit_a_0123456789";
const KEY_B = "sk_unmanaged_unit_b_0123456789";
const KINESIS = {
  kinesis: { auth: { role: { roleArn: "arn:aws:iam::1:role/r" } }, streamArn: "arn:aws:kinesis:s" },
};

/** A state of `ids` as the native door writes them: `uri` of `url`, stamped with `key`. */
function stateOf(stack: string, url: string, key: string, ids: string[]): StackState {
  const stamp = keyStamp(key);
  return {
    stack,
    workDir: `/projects/${stack}`,
    deployment: {
      resources: ids.map((id) => {
        const sub = id.startsWith("esb_");
        return {
          urn: `urn:pulumi:${stack}::p::service:index:${sub ? "EventSubscription" : "EventDestination"}::${id}`,
          type: `service:index:${sub ? "EventSubscription" : "EventDestination"}`,
          custom: true,
          id,
          outputs: {
            uri: `${url}/${sub ? "event_subscriptions" : "event_destinations"}/${id}`,
            __keyStamp: stamp,
          },
        };
      }),
    },
  };
}

describe("the unmanaged check (emulator in process)", () => {
  let emulator: RunningEmulator;
  let a: ServiceClient;
  let b: ServiceClient;
  /** Account A: 3 destinations and 120 subscriptions (2 pages); account B: one destination. */
  const ids = { destinations: [] as string[], subscriptions: [] as string[], other: "" };
  const accounts = () => [
    { name: "A", baseUrl: emulator.url, apiKey: KEY_A },
    { name: "B", baseUrl: `${emulator.url}/`, apiKey: KEY_B },
  ];

  beforeAll(async () => {
    emulator = await startEmulator({ apiKeys: [KEY_A, KEY_B] });
    a = new ServiceClient({ apiKey: KEY_A, baseUrl: emulator.url });
    b = new ServiceClient({ apiKey: KEY_B, baseUrl: emulator.url });
    for (const description of ["audit", "by hand", ""]) {
      ids.destinations.push((await a.eventDestinations.create({ description, target: KINESIS })).id);
    }
    for (let i = 0; i < 120; i++) {
      const s = await a.eventSubscriptions.create({
        description: i === 119 ? "[unmanaged-ok] lab" : `sub ${i}`,
        sources: [{ type: "ip_policy_created.v0" }],
        destinationIds: [ids.destinations[i === 118 ? 1 : 0]],
      });
      ids.subscriptions.push(s.id);
    }
    ids.other = (await b.eventDestinations.create({ description: "B's", target: KINESIS })).id;
  }, 120_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await emulator?.close();
  });

  it("lists, over every page, what no state of the account holds; each account apart", async () => {
    // Two stacks of account A hold all but destination 1, subscription 118 (by hand) and 119.
    const one = stateOf("one", emulator.url, KEY_A, [ids.destinations[0], ...ids.subscriptions.slice(0, 60)]);
    const two = stateOf("two", emulator.url, KEY_A, [
      ids.destinations[2],
      ...ids.subscriptions.slice(60, 118),
    ]);
    // A stack of account B holds B's destination, and claims A's destination 1 with B's key: not A's.
    const three = stateOf("three", emulator.url, KEY_B, [ids.other, ids.destinations[1]]);
    const report = await findUnmanaged([one, two, three], accounts());
    expect(report.unmanaged.map((r) => [r.account, r.kind, r.id])).toEqual([
      ["A", "eventDestination", ids.destinations[1]],
      ["A", "eventSubscription", ids.subscriptions[118]],
      ["A", "eventSubscription", ids.subscriptions[119]],
    ]);
    const sub = report.unmanaged[1];
    expect(sub).toEqual({
      account: "A",
      kind: "eventSubscription",
      type: "service:index:EventSubscription",
      id: ids.subscriptions[118],
      description: "sub 118",
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      destinationIds: [ids.destinations[1]],
    });
    expect(report.unmanaged[0]).not.toHaveProperty("destinationIds");
    expect(report.accounts).toEqual([
      {
        name: "A",
        baseUrl: emulator.url,
        listed: { eventSubscription: 120, eventDestination: 3 },
        managed: 120,
        excluded: 0,
        unmanaged: 3,
      },
      {
        name: "B",
        baseUrl: emulator.url,
        listed: { eventSubscription: 0, eventDestination: 1 },
        managed: 1,
        excluded: 0,
        unmanaged: 0,
      },
    ]);
    expect(report.stacks.map((s) => [s.stack, s.resources])).toEqual([
      ["one", 61],
      ["two", 59],
      ["three", 2],
    ]);
    expect(report.notChecked).toEqual([{ kind: "abuseReport", reason: ABUSE_REPORTS_NOT_CHECKED }]);
    expect([report.found, report.exitCode]).toEqual([true, 2]);
  });

  it("leaves out resources excluded by ID or description prefix, and reports them apart; none left: exit 0", async () => {
    const all = stateOf("all", emulator.url, KEY_A, [
      ids.destinations[0],
      ids.destinations[2],
      ...ids.subscriptions.slice(0, 118),
    ]);
    const report = await findUnmanaged([all], accounts().slice(0, 1), {
      exclude: {
        ids: [ids.destinations[1], ids.subscriptions[118]],
        descriptionPrefixes: ["[unmanaged-ok]"],
      },
    });
    expect(report.unmanaged).toEqual([]);
    expect(report.excluded).toEqual([
      { account: "A", kind: "eventDestination", id: ids.destinations[1], by: "id" },
      { account: "A", kind: "eventSubscription", id: ids.subscriptions[118], by: "id" },
      { account: "A", kind: "eventSubscription", id: ids.subscriptions[119], by: "description" },
    ]);
    expect([report.found, report.exitCode, report.accounts[0].excluded]).toEqual([false, 0, 3]);
  });

  it("writes the bulk-import file: native types, names from descriptions as identifiers (unique), destinations first", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "unmanaged-unit-"));
    try {
      const file = path.join(dir, "import.json");
      const report = await runUnmanagedCheck({
        states: [stateOf("s", emulator.url, KEY_A, ids.subscriptions.slice(0, 117))],
        accounts: accounts().slice(0, 1),
        importFile: file,
      });
      expect(report.importFile).toBe(file);
      const written = JSON.parse(fs.readFileSync(file, "utf8")) as unknown;
      expect(written).toEqual(bulkImportFile(report.unmanaged));
      expect(written).toEqual({
        resources: [
          { type: "service:index:EventDestination", name: "audit", id: ids.destinations[0] },
          { type: "service:index:EventDestination", name: "byHand", id: ids.destinations[1] },
          {
            type: "service:index:EventDestination",
            name: ids.destinations[2].replace("_", ""),
            id: ids.destinations[2],
          },
          { type: "service:index:EventSubscription", name: "sub117", id: ids.subscriptions[117] },
          { type: "service:index:EventSubscription", name: "sub118", id: ids.subscriptions[118] },
          { type: "service:index:EventSubscription", name: "unmanagedOkLab", id: ids.subscriptions[119] },
        ],
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("names a duplicate description -2 across kinds, in ID order", () => {
    const r = (id: string, kind: "eventDestination" | "eventSubscription") => ({
      account: "A",
      kind,
      type: `service:index:${kind === "eventDestination" ? "EventDestination" : "EventSubscription"}`,
      id,
      description: "Audit",
      createdAt: "2026-01-01T00:00:00Z",
    });
    const file = bulkImportFile([
      r(`esb_${"1".repeat(27)}`, "eventSubscription"),
      r(`ed_${"2".repeat(27)}`, "eventDestination"),
    ]);
    expect(file.resources.map((e) => [e.type, e.name])).toEqual([
      ["service:index:EventDestination", "audit"],
      ["service:index:EventSubscription", "audit2"],
    ]);
  });

  it("refuses bad options before anything is sent, naming the flag", async () => {
    const states = [stateOf("s", emulator.url, KEY_A, [])];
    const cases: [Parameters<typeof runUnmanagedCheck>[0], RegExp][] = [
      [{ accounts: accounts() }, /No stack given: pass --stack/],
      [{ states, accounts: [] }, /No account given/],
      [
        { states, accounts: [{ name: "A", baseUrl: "ftp://x", apiKey: KEY_A }] },
        /base URL "ftp:\/\/x" is not an http/,
      ],
      [
        { states, accounts: accounts(), exclude: { ids: ["esb_short"] } },
        /--exclude-id "esb_short": not an esb_… or ed_… ID/,
      ],
      [
        { states, accounts: accounts(), exclude: { descriptionPrefixes: [""] } },
        /--exclude-description-prefix: the prefix is empty/,
      ],
      [
        { states, accounts: accounts(), importFile: "/tmp/x.json" },
        /--import-file takes one account's resources/,
      ],
    ];
    for (const [opts, message] of cases) {
      await expect(runUnmanagedCheck(opts)).rejects.toThrow(message);
    }
    await expect(runUnmanagedCheck(cases[0][0])).rejects.toBeInstanceOf(UnmanagedError);
  });

  it("a bad key: an UnmanagedError naming the account, never the key", async () => {
    const bad = "sk_not_an_account_key_9876543";
    const err = (await runUnmanagedCheck({
      states: [stateOf("s", emulator.url, KEY_A, [])],
      accounts: [{ name: "PROD_API_KEY", baseUrl: emulator.url, apiKey: bad }],
      clientOptions: { maxRetries: 0 },
    }).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(UnmanagedError);
    expect(err.message).toMatch(
      /Listing account PROD_API_KEY \(http:\/\/[^)]+\) failed: AuthenticationError/,
    );
    expect(err.message).not.toContain(bad);
  });

  it("parseStackRef: [DIR:]STACK, the stack after the last colon", () => {
    expect(parseStackRef("dev", "/work")).toEqual({ stack: "dev", cwd: "/work" });
    expect(parseStackRef("/srv/infra:org/proj/prod", "/work")).toEqual({
      stack: "org/proj/prod",
      cwd: "/srv/infra",
    });
    expect(() => parseStackRef("/srv/infra:", "/work")).toThrow(/expected \[DIR:\]STACK/);
  });

  it("refuses an account without a key, one whose URL is not http(s), and an account given twice, each named", async () => {
    const states = [stateOf("s", emulator.url, KEY_A, [])];
    const A = { name: "A", baseUrl: emulator.url, apiKey: KEY_A };
    const refused = async (accounts: Parameters<typeof runUnmanagedCheck>[0]["accounts"]) =>
      ((await runUnmanagedCheck({ states, accounts }).catch((e: unknown) => e)) as Error).message;
    expect(await refused([{ ...A, apiKey: "" }])).toBe("Account A: no API key (empty).");
    expect(await refused([{ ...A, baseUrl: "git+https://svc.example" }])).toBe(
      'Account A: base URL "git+https://svc.example" is not an http(s) URL.',
    );
    expect(await refused([{ ...A, baseUrl: "not a URL" }])).toBe(
      'Account A: base URL "not a URL" is not an http(s) URL.',
    );
    expect(await refused([A, { ...A, apiKey: KEY_B }])).toBe("Account A is given twice.");
  });

  it("takes stacks and states together: the stacks are read too (here one that is not a project)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "unmanaged-unit-"));
    try {
      const err = (await runUnmanagedCheck({
        stacks: [{ stack: "dev", cwd: dir }],
        states: [stateOf("s", emulator.url, KEY_A, [])],
        accounts: accounts(),
      }).catch((e: unknown) => e)) as Error;
      expect(err).toBeInstanceOf(UnmanagedError);
      expect(err.message).toBe(
        `Reading stack "dev" in ${dir} failed: no Pulumi.yaml there (write --stack DIR:STACK).`,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("runs over two accounts with well-formed exclusions: by ID, and by any one of several description prefixes", async () => {
    const report = await runUnmanagedCheck({
      states: [
        stateOf("a", emulator.url, KEY_A, [
          ids.destinations[0],
          ids.destinations[2],
          ...ids.subscriptions.slice(0, 118),
        ]),
        stateOf("b", emulator.url, KEY_B, [ids.other]),
      ],
      accounts: accounts(),
      exclude: { ids: [ids.subscriptions[118]], descriptionPrefixes: ["[lab]", "by h", "[unmanaged-ok]"] },
    });
    expect(report.unmanaged).toEqual([]);
    expect(report.excluded).toEqual([
      { account: "A", kind: "eventDestination", id: ids.destinations[1], by: "description" },
      { account: "A", kind: "eventSubscription", id: ids.subscriptions[118], by: "id" },
      { account: "A", kind: "eventSubscription", id: ids.subscriptions[119], by: "description" },
    ]);
    expect(report.accounts.map((x) => [x.name, x.managed, x.excluded, x.unmanaged])).toEqual([
      ["A", 120, 3, 0],
      ["B", 1, 0, 0],
    ]);
    expect([report.found, report.exitCode, report.importFile]).toEqual([false, 0, undefined]);
  });

  it("a destination of a state does not manage a subscription of the same ID (a hand-edited state)", async () => {
    const id = ids.subscriptions[119];
    const state = stateOf("s", emulator.url, KEY_A, [
      ...ids.destinations,
      ...ids.subscriptions.slice(0, 119),
    ]);
    state.deployment.resources?.push({
      urn: `urn:pulumi:s::p::service:index:EventDestination::edited`,
      type: "service:index:EventDestination",
      custom: true,
      id,
      outputs: { uri: `${emulator.url}/event_destinations/${id}`, __keyStamp: keyStamp(KEY_A) },
    });
    const report = await findUnmanaged([state], accounts().slice(0, 1));
    expect(report.unmanaged.map((r) => [r.kind, r.id])).toEqual([["eventSubscription", id]]);
    expect(report.accounts[0].managed).toBe(122);
  });

  it("a bulk-import file that cannot be written: the check fails naming the error", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "unmanaged-unit-"));
    try {
      const file = path.join(dir, "missing", "import.json");
      const err = (await runUnmanagedCheck({
        states: [stateOf("s", emulator.url, KEY_A, [])],
        accounts: accounts().slice(0, 1),
        importFile: file,
      }).catch((e: unknown) => e)) as Error;
      expect(err).toBeInstanceOf(UnmanagedError);
      expect(err.message).toBe(
        `The unmanaged check failed: Error: ENOENT: no such file or directory, open '${file}'`,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("sorts what the service lists in any order: destinations, then subscriptions, each in ID order; names itself; closes its connections", async () => {
    const http = await import("node:http");
    const { listenLocally } = await import("../helpers/local-server");
    // A proxy that returns each page's items in the reverse of the emulator's order.
    const agents: string[] = [];
    const sockets = new Set<import("node:net").Socket>();
    const proxy = http.createServer((req, res) => {
      agents.push(String(req.headers["user-agent"]));
      void (async () => {
        const answer = await fetch(`${emulator.url}${req.url}`, {
          headers: Object.entries(req.headers)
            .filter(([name]) => name !== "host" && name !== "connection")
            .map(([name, value]) => [name, String(value)]),
        });
        const body = (await answer.json()) as Record<string, unknown>;
        for (const value of Object.values(body)) if (Array.isArray(value)) value.reverse();
        res.writeHead(answer.status, {
          "content-type": "application/json",
          "operation-id": answer.headers.get("operation-id") ?? "",
        });
        res.end(JSON.stringify(body));
      })();
    });
    proxy.on("connection", (s: import("node:net").Socket) => {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
    });
    const server = await listenLocally(proxy);
    try {
      const report = await findUnmanaged([], [{ name: "A", baseUrl: server.url, apiKey: KEY_A }]);
      expect(report.unmanaged.map((r) => r.id)).toEqual([...ids.destinations, ...ids.subscriptions].sort());
      expect(report.unmanaged.map((r) => r.id).slice(0, 3)).toEqual(ids.destinations);
      expect(agents).toEqual(Array(3).fill("service-drift-unmanaged"));
      for (let i = 0; i < 20 && sockets.size > 0; i++) await new Promise((r) => setTimeout(r, 25));
      expect(sockets.size).toBe(0);
    } finally {
      await server.close();
    }
  });

  it("bulk-import names: an identifier already taken gets the next free number, given in ID order whatever the order given", () => {
    const r = (n: number, kind: "eventDestination" | "eventSubscription", description: string) => ({
      account: "A",
      kind,
      type: `service:index:${kind === "eventDestination" ? "EventDestination" : "EventSubscription"}`,
      id: `${kind === "eventDestination" ? "ed_" : "esb_"}${String(n).repeat(27)}`,
      description,
      createdAt: "2026-01-01T00:00:00Z",
    });
    // "Audit" twice: audit and audit-2, as identifiers audit and audit2, the name "audit2" would take: it gets audit23 (audit22 is taken).
    const [x, y, w, z] = [
      r(1, "eventDestination", "Audit"),
      r(2, "eventDestination", "Audit"),
      r(3, "eventDestination", "audit22"),
      r(4, "eventDestination", "audit2"),
    ];
    const [p, q, s] = [
      r(1, "eventSubscription", "Log"),
      r(2, "eventSubscription", "Log"),
      r(3, "eventSubscription", "log2"),
    ];
    expect(bulkImportFile([z, y, w, x, p, q, s])).toEqual({
      resources: [
        { type: "service:index:EventDestination", name: "audit", id: x.id },
        { type: "service:index:EventDestination", name: "audit2", id: y.id },
        { type: "service:index:EventDestination", name: "audit22", id: w.id },
        { type: "service:index:EventDestination", name: "audit23", id: z.id },
        { type: "service:index:EventSubscription", name: "log", id: p.id },
        { type: "service:index:EventSubscription", name: "log2", id: q.id },
        { type: "service:index:EventSubscription", name: "log22", id: s.id },
      ],
    });
  });

  it("an error of the caller's progress callback: the check fails naming it", async () => {
    const err = (await runUnmanagedCheck({
      states: [stateOf("s", emulator.url, KEY_A, [])],
      accounts: accounts().slice(0, 1),
      onProgress: (phase) => {
        if (phase === "done") throw new TypeError(`cannot show ${phase}`);
      },
    }).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(UnmanagedError);
    expect(err.message).toBe("The unmanaged check failed: TypeError: cannot show done");
  });
});
