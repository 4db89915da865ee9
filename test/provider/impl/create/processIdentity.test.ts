/**
 * Who holds an entry of a claims folder (provider/impl/create/processIdentity.ts): a process named
 * by its PID, its start time (field 22 of `/proc/<pid>/stat`) and its PID namespace, written into
 * and read back from names, and judged alive, dead or unknown. Linux (`/proc`), as CI.
 */
import {
  formatIdentity,
  liveness,
  parseIdentity,
  processAlive,
  processIdentity,
  processStartTime,
} from "../../../../provider/impl/create/processIdentity";

/** Node's fs module itself (an `import *` would be a copy), to hand processStartTime a stat line. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const fs = require("node:fs") as typeof import("node:fs");
/** A PID above Linux's largest (2^22): no process has it. */
const NO_SUCH_PID = 4_194_305;

afterEach(() => jest.restoreAllMocks());

describe("processAlive", () => {
  it("is true for a running process, false for a PID no process has and for what is no PID", () => {
    expect(processAlive(process.pid)).toBe(true);
    expect(processAlive(NO_SUCH_PID)).toBe(false);
    for (const pid of [0, -1, 1.5, Number.NaN]) expect(processAlive(pid)).toBe(false);
  });

  it("is true for a process of another user (EPERM), false when none has the PID (ESRCH)", () => {
    const fail = (code: string) =>
      jest.spyOn(process, "kill").mockImplementationOnce(() => {
        throw Object.assign(new Error(code), { code });
      });
    fail("EPERM");
    expect(processAlive(12_345)).toBe(true);
    fail("ESRCH");
    expect(processAlive(12_345)).toBe(false);
  });
});

describe("processIdentity", () => {
  it("names this process by its PID, its start time and its PID namespace", () => {
    const id = processIdentity(process.pid);
    expect(id.pid).toBe(process.pid);
    expect(id.startTime).toMatch(/^\d+$/);
    expect(id.pidNamespace).toBe(/\[(\d+)\]/.exec(fs.readlinkSync("/proc/self/ns/pid"))![1]);
  });
});

describe("processStartTime", () => {
  const statLine = (command: string, fields: string[]) => `4242 (${command}) ${fields.join(" ")}\n`;
  /** Fields 3 to 22 of a stat line, field 22 being `start`. */
  const fields = (start: string) => [
    ...Array.from({ length: 19 }, (_, i) => String(i + 3)),
    start,
    "23",
    "24",
  ];
  const startOf = (stat: string) => {
    jest.spyOn(fs, "readFileSync").mockReturnValueOnce(stat);
    return processStartTime(4242);
  };

  it("is field 22, counted from the last parenthesis (a command may hold spaces and parentheses)", () => {
    expect(startOf(statLine("node a) (b c", fields("987654")))).toBe("987654");
  });

  it("is undefined when field 22 is missing or not digits, or the process is gone", () => {
    expect(startOf(statLine("node", fields("98x")))).toBeUndefined();
    expect(startOf(statLine("node", fields("x98")))).toBeUndefined();
    expect(startOf(statLine("node", fields("98").slice(0, 19)))).toBeUndefined();
    expect(processStartTime(NO_SUCH_PID)).toBeUndefined();
  });
});

describe("formatIdentity and parseIdentity", () => {
  it.each<[Parameters<typeof formatIdentity>[0], string]>([
    [{ pid: 5 }, "5"],
    [{ pid: 5, startTime: "7" }, "5.7"],
    [{ pid: 5, pidNamespace: "9" }, "5..9"],
    [{ pid: 5, startTime: "7", pidNamespace: "9" }, "5.7.9"],
  ])("%j is written %s, and read back", (id, text) => {
    expect(formatIdentity(id)).toBe(text);
    expect(parseIdentity(`${text}-rest-of-the-name`)).toEqual({
      startTime: undefined,
      pidNamespace: undefined,
      ...id,
    });
    expect(parseIdentity(text)).toEqual(parseIdentity(`${text}-x`));
  });

  it.each(["x5-a", "5x-a", "5x", "5.7.9.1-a", "-5", ""])("%j names no process", (name) => {
    expect(parseIdentity(name)).toBeUndefined();
  });
});

describe("liveness", () => {
  const me = () => processIdentity(process.pid);

  it("is alive for this process, by its start time or without one", () => {
    expect(liveness(me())).toBe("alive");
    expect(liveness({ pid: process.pid })).toBe("alive");
  });

  it("is dead for a PID that is no process, no longer one, or one started at another time (a reused PID)", () => {
    // Dead whatever namespace it names: no process of any has such a PID.
    for (const pid of [0, -1, 1.5])
      for (const pidNamespace of [undefined, "1"]) expect(liveness({ pid, pidNamespace })).toBe("dead");
    expect(liveness({ pid: NO_SUCH_PID })).toBe("dead");
    expect(liveness({ ...me(), startTime: "1" })).toBe("dead");
  });

  it("is unknown for a process of another PID namespace (another container)", () => {
    expect(liveness({ ...me(), pidNamespace: "1" })).toBe("unknown");
  });

  it("lets the PID alone decide when the running process's start time cannot be read", () => {
    const older = { ...me(), startTime: "1" };
    jest.spyOn(fs, "readFileSync").mockImplementationOnce(() => {
      throw Object.assign(new Error("EACCES"), { code: "EACCES" });
    });
    expect(liveness(older)).toBe("alive");
  });
});
