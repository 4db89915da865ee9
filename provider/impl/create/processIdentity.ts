/**
 * Which process holds an entry of a claims folder (claimsFolder.ts), and whether it still runs:
 * a process is named by its PID, its start time (Linux: field 22 of `/proc/<pid>/stat`) and its
 * PID namespace, so that neither a reused PID nor another container's process (containers that
 * share a temporary folder see each other's PIDs as their own) is taken for the holder. Where
 * `/proc` is missing, the PID alone decides.
 *
 * @packageDocumentation
 */
import { readFileSync, readlinkSync } from "node:fs";

/** True when process `pid` is running (or exists under another user), by its PID alone. */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Who a process is, as far as this machine tells: its PID, its start time (clock ticks since
 * boot, field 22 of `/proc/<pid>/stat`) and its PID namespace (the inode of `/proc/self/ns/pid`).
 * The last two are absent where `/proc` is missing (or in names written before they were kept).
 */
export interface ProcessIdentity {
  pid: number;
  startTime?: string;
  pidNamespace?: string;
}

/** This process's PID namespace; `null` until read. */
let ownNamespace: string | undefined | null = null;

/** The inode of this process's PID namespace, or `undefined` where `/proc` does not tell. */
function pidNamespace(): string | undefined {
  if (ownNamespace === null) {
    try {
      ownNamespace = /\[(\d+)\]/.exec(readlinkSync("/proc/self/ns/pid"))?.[1];
    } catch {
      ownNamespace = undefined;
    }
  }
  return ownNamespace;
}

/**
 * The start time of process `pid`: field 22 of `/proc/<pid>/stat` (clock ticks since boot, as
 * digits), or `undefined` where `/proc` is missing or the process is gone.
 */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 2 (the command, in parentheses) may hold spaces: count from the last ")". The field
    // after it is field 3, so field 22 is the 20th.
    const start = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    return start !== undefined && /^\d+$/.test(start) ? start : undefined;
  } catch {
    return undefined;
  }
}

/** The identity of process `pid` now (see {@link ProcessIdentity}); a process of this PID namespace. */
export function processIdentity(pid: number): ProcessIdentity {
  return { pid, startTime: processStartTime(pid), pidNamespace: pidNamespace() };
}

/** `<pid>.<start time>.<namespace>` (the parts unknown left empty, trailing dots dropped). */
export function formatIdentity(id: ProcessIdentity): string {
  return `${id.pid}.${id.startTime ?? ""}.${id.pidNamespace ?? ""}`.replace(/\.+$/, "");
}

/**
 * The identity at the head of a folder's name or an owner token (before its first `-`):
 * `<pid>.<start time>.<namespace>`, or a bare `<pid>` as names were before start times were kept.
 * @returns `undefined` when the head is not one.
 */
export function parseIdentity(nameOrToken: string): ProcessIdentity | undefined {
  const dash = nameOrToken.indexOf("-");
  const head = dash < 0 ? nameOrToken : nameOrToken.slice(0, dash);
  const m = /^(\d+)(?:\.(\d*)(?:\.(\d*))?)?$/.exec(head);
  if (!m) return undefined;
  return { pid: Number(m[1]), startTime: m[2] || undefined, pidNamespace: m[3] || undefined };
}

/**
 * Whether the process `id` names still runs: `"unknown"` for a process of another PID namespace
 * (another container sharing the folder: its PIDs mean nothing here). A PID that runs under
 * another start time is a later process: `"dead"`. Without a start time (`/proc` missing, or an
 * older name), the PID alone decides.
 */
export function liveness(id: ProcessIdentity): "alive" | "dead" | "unknown" {
  if (!Number.isInteger(id.pid) || id.pid <= 0) return "dead";
  if (id.pidNamespace !== undefined && id.pidNamespace !== pidNamespace()) return "unknown";
  if (!processAlive(id.pid)) return "dead";
  if (id.startTime === undefined) return "alive";
  const now = processStartTime(id.pid);
  // Running, but its start time cannot be read (a /proc that hides it): the PID alone decides.
  if (now === undefined) return "alive";
  return now === id.startTime ? "alive" : "dead";
}
