/**
 * The command line (`packages/emulator/dist/cli.js`, built by `npm run build`): its one line of JSON,
 * keys from flags and the environment, clean stops on SIGTERM/SIGINT, persistence across
 * restarts on the same data file, and the background server of `--detach` with `stop`.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { spawn } from "node:child_process";
import { apiRequest, CLI_PATH, review, spawnEmulator, type SpawnedEmulator } from "../helpers/emulator";
import { destinationBody, expectError, subscriptionBody } from "../helpers/emulator-fixtures";
import { main } from "../../packages/emulator/cli";
import { freePort } from "../../scripts/postgres-server";
import { capture } from "../helpers/cli";
import { useTempDir } from "../helpers/temp-dir";

const tempDir = useTempDir("emulator-cli-");
const running: SpawnedEmulator[] = [];

async function spawnTracked(args: string[], env: Record<string, string> = {}): Promise<SpawnedEmulator> {
  const em = await spawnEmulator(args, env);
  running.push(em);
  return em;
}

/** {@link spawnTracked} on any free port with an in-memory store, plus `flags`. */
const spawnInMemory = (...flags: string[]) => spawnTracked(["--port", "0", "--data", ":memory:", ...flags]);

afterEach(async () => {
  await Promise.all(running.splice(0).map((em) => em.stop("SIGKILL")));
});

describe("emulator command line", () => {
  it("persists everything across a SIGTERM and a restart on the same file with the same key", async () => {
    const data = path.join(tempDir(), "nested", "deeper", "data.db");
    const args = [
      "--port",
      "0",
      "--data",
      data,
      "--api-key",
      "persist-key",
      "--restricted-api-key",
      "persist-restricted",
      "--admin-key",
      "persist-admin",
      "--public-url",
      "http://emulator.test/",
    ];
    const first = await spawnTracked(args);
    expect(first).toMatchObject({
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      apiKeys: ["persist-key"],
      restrictedApiKeys: ["persist-restricted"],
      adminKey: "persist-admin",
    });
    const call = (em: SpawnedEmulator, method: string, p: string, body?: unknown) =>
      apiRequest(em.url, "persist-key", method, p, body);

    const dest = (
      await call(first, "POST", "/event_destinations", destinationBody({ description: "kept" }))
    ).json();
    const sub = (
      await call(first, "POST", "/event_subscriptions", subscriptionBody([dest.id], { metadata: "ü" }))
    ).json();
    const report = (
      await call(first, "POST", "/abuse_reports", { urls: ["https://p.example.org/x", "https://q.org"] })
    ).json();
    await review(first.url, first.adminKey, report.id, [{ hostname: "q.org", status: "BANNED" }]);
    const patched = (
      await call(first, "PATCH", `/event_subscriptions/${sub.id}`, { description: "edited" })
    ).json();
    expect(patched.uri).toBe(`http://emulator.test/event_subscriptions/${sub.id}`);
    const lists = async (em: SpawnedEmulator) => ({
      subs: (await call(em, "GET", "/event_subscriptions")).json(),
      dests: (await call(em, "GET", "/event_destinations")).json(),
      report: (await call(em, "GET", `/abuse_reports/${report.id}`)).json(),
      sub: (await call(em, "GET", `/event_subscriptions/${sub.id}`)).json(),
      dest: (await call(em, "GET", `/event_destinations/${dest.id}`)).json(),
    });
    const before = await lists(first);
    expect(before.report.status).toBe("PARTIALLY_PROCESSED");

    expect(await first.stop("SIGTERM")).toBe(0);
    expect(first.stdoutRest()).toBe("");

    const second = await spawnTracked(args);
    expect(await lists(second)).toEqual(before);
    // A new subscription sorts after the old one and comes first in the list.
    const newer = (await call(second, "POST", "/event_subscriptions", subscriptionBody([dest.id]))).json();
    expect(newer.id > sub.id).toBe(true);
    expect((await call(second, "GET", "/event_subscriptions")).json().event_subscriptions[0].id).toBe(
      newer.id,
    );
    // The destination is still referenced, the restricted key still restricted.
    expectError(await call(second, "DELETE", `/event_destinations/${dest.id}`), 409, 409);
    expectError(
      await apiRequest(second.url, "persist-restricted", "GET", `/abuse_reports/${report.id}`),
      403,
      221,
    );
    expect(await second.stop("SIGTERM")).toBe(0);

    // Another key on the same file is another account: it sees none of it.
    const third = await spawnTracked(["--port", "0", "--data", data, "--api-key", "someone-else"]);
    expectError(await apiRequest(third.url, "persist-key", "GET", "/event_subscriptions"), 401, 203);
    expectError(
      await apiRequest(third.url, "someone-else", "GET", `/event_subscriptions/${sub.id}`),
      404,
      404,
    );
    expect(
      (await apiRequest(third.url, "someone-else", "GET", "/event_subscriptions")).json().event_subscriptions,
    ).toEqual([]);
  });

  it("stops with exit code 0 on SIGINT and keeps what was committed", async () => {
    const data = path.join(tempDir(), "sigint.db");
    const args = ["--port", "0", "--data", data, "--api-key", "sigint-key", "--public-url", "http://e.test"];
    const first = await spawnTracked(args);
    const dest = (
      await apiRequest(first.url, "sigint-key", "POST", "/event_destinations", destinationBody())
    ).json();
    expect(await first.stop("SIGINT")).toBe(0);
    expect(first.stderr()).toContain("SIGINT");
    const second = await spawnTracked(args);
    expect(
      (await apiRequest(second.url, "sigint-key", "GET", `/event_destinations/${dest.id}`)).json(),
    ).toEqual(dest);
  });

  it("makes one random authorized key and a random admin key when none is given", async () => {
    const em = await spawnInMemory();
    expect(Object.keys(JSON.parse(em.firstLine)).sort()).toEqual([
      "adminKey",
      "apiKeys",
      "restrictedApiKeys",
      "url",
    ]);
    expect(em.apiKeys).toHaveLength(1);
    expect(em.restrictedApiKeys).toEqual([]);
    expect(em.adminKey).toMatch(/^\S{16,}$/);
    const res = await apiRequest(em.url, em.apiKeys[0], "POST", "/abuse_reports", {
      urls: ["https://r.org"],
    });
    expect(res.status).toBe(201);
    expect(
      (await review(em.url, em.adminKey, res.json().id, [{ hostname: "r.org", status: "IGNORE" }])).status,
    ).toBe("PROCESSED");
  });

  it("takes keys from the environment", async () => {
    const em = await spawnTracked(["--port", "0", "--data", ":memory:", "--api-key", "flag-key"], {
      SERVICE_EMULATOR_API_KEYS: "env-key-1, env-key-2",
      SERVICE_EMULATOR_RESTRICTED_API_KEYS: "env-restricted",
      SERVICE_EMULATOR_ADMIN_KEY: "env-admin",
    });
    expect(em.apiKeys).toEqual(["flag-key", "env-key-1", "env-key-2"]);
    expect(em.restrictedApiKeys).toEqual(["env-restricted"]);
    expect(em.adminKey).toBe("env-admin");
    for (const key of em.apiKeys) {
      expect((await apiRequest(em.url, key, "GET", "/event_subscriptions")).status).toBe(200);
    }
    expectError(
      await apiRequest(em.url, "env-restricted", "POST", "/abuse_reports", { urls: ["https://x.org"] }),
      403,
      221,
    );
  });

  it("warns on stderr when bound beyond loopback", async () => {
    const em = await spawnInMemory("--host", "0.0.0.0", "--api-key", "wide-key");
    expect(em.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(em.stderr()).toMatch(/warning: listening on 0\.0\.0\.0/);
    expect((await apiRequest(em.url, "wide-key", "GET", "/event_subscriptions")).status).toBe(200);
  });

  it("honours Idempotency-Key by default, and ignores it with --no-idempotency-keys", async () => {
    const body = destinationBody({ description: "cli-idem" });
    const post = (em: SpawnedEmulator) =>
      apiRequest(em.url, em.apiKeys[0], "POST", "/event_destinations", body, { "idempotency-key": "k-cli" });
    const honours = await spawnInMemory();
    const [a, b] = [await post(honours), await post(honours)];
    expect(b.json().id).toBe(a.json().id);
    expect(b.headers["idempotent-replayed"]).toBe("true");
    const ignores = await spawnInMemory("--no-idempotency-keys");
    const [c, d] = [await post(ignores), await post(ignores)];
    expect(d.json().id).not.toBe(c.json().id);
    expect(c.headers["idempotency-key"]).toBeUndefined();
  });

  it("applies --rate-limit, --faults and --review-delay", async () => {
    const limited = await spawnInMemory("--api-key", "rl", "--rate-limit", "2/60s");
    expect((await apiRequest(limited.url, "rl", "GET", "/event_subscriptions")).status).toBe(200);
    expect((await apiRequest(limited.url, "rl", "GET", "/event_subscriptions")).status).toBe(200);
    const res = await apiRequest(limited.url, "rl", "GET", "/event_subscriptions");
    expectError(res, 429, 226);
    expect(Number(res.headers["retry-after"])).toBeGreaterThanOrEqual(59);

    const faulty = await spawnInMemory("--api-key", "f", "--faults", "503:1,latency:10ms");
    expectError(await apiRequest(faulty.url, "f", "GET", "/event_subscriptions"), 503, 500);

    const reviewing = await spawnInMemory("--api-key", "rv", "--review-delay", "0s");
    const created = (
      await apiRequest(reviewing.url, "rv", "POST", "/abuse_reports", {
        urls: ["https://s.org", "http://localhost/"],
      })
    ).json();
    expect(created.status).toBe("PENDING");
    const got = (await apiRequest(reviewing.url, "rv", "GET", `/abuse_reports/${created.id}`)).json();
    expect(got.hostnames).toEqual([
      { hostname: "s.org", status: "BANNED" },
      { hostname: "localhost", status: "IGNORE" },
    ]);
  });

  it.each([
    ["a bad fault spec", ["--faults", "503:2"], /shares|share/],
    ["an unknown fault kind", ["--faults", "501:0.1"], /unknown fault kind "501"/],
    ["a bad rate limit", ["--rate-limit", "fast"], /invalid rate limit/],
    ["a bad review delay", ["--review-delay", "soon"], /invalid duration/],
    ["a malformed key", ["--api-key", "has space"], /keys must be/],
    [
      "a key both authorized and restricted",
      ["--api-key", "dup", "--restricted-api-key", "dup"],
      /both authorized and restricted/,
    ],
  ])("exits 1 with a message on stderr and nothing on stdout for %s", async (_name, args, message) => {
    const child = spawn(process.execPath, [CLI_PATH, "--port", "0", "--data", ":memory:", ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code).toBe(1);
    expect(out).toBe("");
    expect(err).toMatch(message);
  });
});

/** Runs the compiled command line to its end: exit code, stdout, stderr. */
function runCli(args: string[], cwd = tempDir()): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [CLI_PATH, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, out, err })));
}

/** Whether process `pid` still exists (a zombie counts as gone). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

describe("emulator command line: --detach and stop", () => {
  const pids: number[] = [];
  afterAll(() => {
    for (const pid of pids) if (processAlive(pid)) process.kill(pid, "SIGKILL");
  });

  it("--detach returns once the server listens, which keeps running after the command exited; stop ends it and keeps the data", async () => {
    const work = mkdtempSync(path.join(tempDir(), "detach-"));
    const started = await runCli(
      ["--detach", "--port", "0", "--data", "state/data.db", "--api-key", "detach-key"],
      work,
    );
    expect(started.code).toBe(0);
    const line = JSON.parse(started.out) as { url: string; pid: number; pidFile: string; logFile: string };
    pids.push(line.pid);
    expect(started.out.trim().split("\n")).toHaveLength(1);
    expect(line).toMatchObject({
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      apiKeys: ["detach-key"],
      pidFile: path.join(work, ".emulator", "emulator.pid"),
      logFile: path.join(work, ".emulator", "emulator.log"),
    });
    expect(started.err).toContain("npx service-emulator stop");
    expect(readFileSync(line.pidFile, "utf8").trim()).toBe(String(line.pid));

    // The command has exited; the server answers.
    const created = await apiRequest(
      line.url,
      "detach-key",
      "POST",
      "/event_destinations",
      destinationBody(),
    );
    expect(created.status).toBe(201);

    // A second --detach on the same PID file refuses to start another.
    const again = await runCli(["--detach", "--port", "0", "--data", ":memory:"], work);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(new RegExp(`already running \\(PID ${line.pid}`));

    const stopped = await runCli(["stop"], work);
    expect(stopped).toMatchObject({ code: 0, out: `stopped the emulator (PID ${line.pid})\n` });
    expect(processAlive(line.pid)).toBe(false);
    expect(existsSync(line.pidFile)).toBe(false);
    await expect(apiRequest(line.url, "detach-key", "GET", "/event_destinations")).rejects.toThrow();
    expect(readFileSync(line.logFile, "utf8")).toContain("SIGTERM, stopping");

    // Started again on the same file, it finds what the first one stored.
    const restarted = await spawnTracked([
      "--port",
      "0",
      "--data",
      path.join(work, "state/data.db"),
      "--api-key",
      "detach-key",
    ]);
    expect(
      (await apiRequest(restarted.url, "detach-key", "GET", `/event_destinations/${created.json().id}`))
        .status,
    ).toBe(200);

    // Nothing left to stop.
    const none = await runCli(["stop"], work);
    expect(none.code).toBe(1);
    expect(none.err).toMatch(/no emulator to stop/);
  }, 120_000);

  it("--detach exits 1 with the server's error when it cannot listen, and leaves no PID file", async () => {
    const work = mkdtempSync(path.join(tempDir(), "detach-taken-"));
    const first = await spawnInMemory();
    const port = new URL(first.url).port;
    const r = await runCli(
      ["--detach", "--port", port, "--data", ":memory:", "--pid-file", "run/em.pid"],
      work,
    );
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toMatch(/the background emulator exited with code 1/);
    expect(r.err).toMatch(/EADDRINUSE/);
    expect(existsSync(path.join(work, "run/em.pid"))).toBe(false);
  }, 120_000);

  it("kill $(cat <PID file>) stops a detached emulator cleanly too: it removes its PID file", async () => {
    const work = mkdtempSync(path.join(tempDir(), "detach-kill-"));
    const started = await runCli(["--detach", "--port", "0", "--data", "d.db", "--pid-file", "em.pid"], work);
    expect(started.code).toBe(0);
    const { pid, url } = JSON.parse(started.out) as { pid: number; url: string };
    pids.push(pid);
    expect(started.err).toContain("npx service-emulator stop --pid-file em.pid");
    process.kill(Number(readFileSync(path.join(work, "em.pid"), "utf8")), "SIGTERM");
    const deadline = Date.now() + 30_000;
    while (processAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(processAlive(pid)).toBe(false);
    expect(existsSync(path.join(work, "em.pid"))).toBe(false);
    await expect(apiRequest(url, "k", "GET", "/event_destinations")).rejects.toThrow();
  }, 120_000);

  it("stop with a PID file whose process is gone exits 1 and removes the stale file", async () => {
    const work = mkdtempSync(path.join(tempDir(), "stale-"));
    const pidFile = path.join(work, "em.pid");
    const gone = spawn(process.execPath, ["-e", ""]);
    await new Promise((resolve) => gone.on("exit", resolve));
    writeFileSync(pidFile, `${gone.pid}\n`);
    const r = await runCli(["stop", "--pid-file", pidFile], work);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(new RegExp(`no process with PID ${gone.pid}`));
    expect(existsSync(pidFile)).toBe(false);
  });
});

describe("service-emulator main (in process)", () => {
  const io = capture;

  it.each([
    [["--port", "not-a-port"], 1],
    [["--nope"], 1],
  ])("%j exits %i without starting, nothing on stdout", async (args, code) => {
    const run = io();
    expect(await main(["node", "service-emulator", ...args], run.cli)).toBe(code);
    expect(run.out.stdout).toBe("");
  });

  it.each([
    [["--help"], /^Usage: service-emulator \[options\]/],
    [["--version"], /^\d+\.\d+\.\d+\S*\n$/],
  ])("%j prints on stdout and exits 0 without starting", async (args, out) => {
    const run = io();
    expect(await main(["node", "service-emulator", ...args], run.cli)).toBe(0);
    expect(run.out.stdout).toMatch(out);
    expect(run.out.stderr).toBe("");
  });

  it.each([
    ["without --public-url, on the listening URL", [], ""],
    [
      "with --public-url, on it",
      ["--public-url", "https://emulator.example/base/"],
      "https://emulator.example/base",
    ],
  ])("hands out uri and next_page_uri %s, whatever the Host header", async (_name, args, base) => {
    const run = io();
    const started = await main(
      ["node", "service-emulator", "--port", "0", "--data", ":memory:", "--api-key", "key_host", ...args],
      run.cli,
    );
    if (typeof started === "number") throw new Error(`did not start: ${run.out.stderr}`);
    try {
      const expected = base || started.url;
      const evil = { host: "evil.example" };
      const call = (method: string, p: string, body?: unknown) =>
        apiRequest(started.url, "key_host", method, p, body, evil);
      const first = (await call("POST", "/event_destinations", destinationBody())).json();
      await call("POST", "/event_destinations", destinationBody());
      expect(first.uri).toBe(`${expected}/event_destinations/${first.id}`);
      const page = (await call("GET", "/event_destinations?limit=1")).json();
      expect(page.uri).toBe(`${expected}/event_destinations`);
      expect(page.next_page_uri).toBe(
        `${expected}/event_destinations?before_id=${page.event_destinations[0].id}&limit=1`,
      );
    } finally {
      await started.close();
    }
  });

  it("listens on SERVICE_EMULATOR_PORT when --port is absent; --port wins; a value that is no port is refused naming it", async () => {
    const free = await freePort();
    const fromEnv = io({ SERVICE_EMULATOR_PORT: String(free) });
    const started = await main(["node", "service-emulator", "--data", ":memory:"], fromEnv.cli);
    if (typeof started === "number") throw new Error(`did not start: ${fromEnv.out.stderr}`);
    try {
      expect(started.url).toBe(`http://127.0.0.1:${free}`);
    } finally {
      await started.close();
    }
    const flagWins = io({ SERVICE_EMULATOR_PORT: String(free) });
    const onZero = await main(
      ["node", "service-emulator", "--port", "0", "--data", ":memory:"],
      flagWins.cli,
    );
    if (typeof onZero === "number") throw new Error(`did not start: ${flagWins.out.stderr}`);
    try {
      expect(onZero.url).not.toBe(`http://127.0.0.1:${free}`);
    } finally {
      await onZero.close();
    }
    const bad = io({ SERVICE_EMULATOR_PORT: "eighty" });
    expect(await main(["node", "service-emulator", "--data", ":memory:"], bad.cli)).toBe(1);
    expect(bad.out).toEqual({
      stdout: "",
      stderr: 'service-emulator: SERVICE_EMULATOR_PORT="eighty" is not a port (0-65535)\n',
    });
  });

  it.each([
    ["--max-abuse-reports", "0"],
    ["--max-idempotency-keys", "1.5"],
    ["--max-abuse-reports", "-3"],
  ])("%s %s exits 1 naming the option and the rule", async (flag, value) => {
    const run = io();
    expect(await main(["node", "service-emulator", "--port", "0", flag, value], run.cli)).toBe(1);
    expect(run.out.stdout).toBe("");
    expect(run.out.stderr).toContain(`option '${flag} <n>' argument '${value}' is invalid`);
    expect(run.out.stderr).toContain("must be a whole number from 1 up");
  });

  it("--max-abuse-reports and --max-idempotency-keys bound what each account stores", async () => {
    const run = io();
    const started = await main(
      [
        "node",
        "service-emulator",
        "--port",
        "0",
        "--data",
        ":memory:",
        "--api-key",
        "key_limits",
        "--max-abuse-reports",
        "1",
        "--max-idempotency-keys",
        "2",
      ],
      run.cli,
    );
    if (typeof started === "number") throw new Error(`did not start: ${run.out.stderr}`);
    try {
      const call = (p: string, body: unknown, headers: Record<string, string> = {}) =>
        apiRequest(started.url, "key_limits", "POST", p, body, headers);
      expect((await call("/abuse_reports", { urls: ["https://one.example.org/"] })).status).toBe(201);
      expectError(
        await call("/abuse_reports", { urls: ["https://two.example.org/"] }),
        409,
        241,
        /^this account already has 1 abuse report, the most an account may have/,
      );
      for (const k of ["a", "b", "c"])
        expect((await call("/event_destinations", destinationBody(), { "idempotency-key": k })).status).toBe(
          201,
        );
      const keys = (started.store.snapshot().idempotency_keys as { key: string }[]).map((r) => r.key).sort();
      expect(keys).toEqual(["b", "c"]);
    } finally {
      await started.close();
    }
  });

  it("starts with the keys of its environment and prints one JSON line", async () => {
    const run = io({
      SERVICE_EMULATOR_API_KEYS: "key_env_a,key_env_b",
      SERVICE_EMULATOR_ADMIN_KEY: "admin_env",
    });
    const started = await main(["node", "service-emulator", "--port", "0", "--data", ":memory:"], run.cli);
    if (typeof started === "number") throw new Error(`did not start: ${run.out.stderr}`);
    try {
      const line = JSON.parse(run.out.stdout);
      expect(line).toEqual({
        url: started.url,
        apiKeys: ["key_env_a", "key_env_b"],
        restrictedApiKeys: [],
        adminKey: "admin_env",
      });
      const res = await apiRequest(started.url, "key_env_b", "GET", "/event_subscriptions");
      expect(res.status).toBe(200);
    } finally {
      await started.close();
    }
  });
});
