/**
 * Request bodies in the emulator: parsing the raw body as a JSON object (213), the first stage of
 * the routes' body validation (see `plugins/validation.ts`).
 *
 * @packageDocumentation
 */
import { ServiceError } from "./errors";

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";
const isHex = (c: string | undefined) => c !== undefined && /^[0-9A-Fa-f]$/.test(c);

/**
 * Where `text` stops being JSON (RFC 8259): the index, in UTF-16 code units, of the first
 * character that cannot continue a JSON text, `text.length` when the text ends too early, or
 * `undefined` when it is valid JSON. Iterative, so any depth of nesting is fine.
 *
 * It exists because V8's `JSON.parse` errors quote part of the text, and the body may hold a
 * secret; this gives the position alone.
 */
export function jsonErrorIndex(text: string): number | undefined {
  const n = text.length;
  const open: string[] = [];
  let i = 0;
  const skipSpace = () => {
    while (i < n && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++;
  };
  /** Reads a string starting at its opening quote; false (with `i` at the fault) when bad. */
  const string = (): boolean => {
    for (i++; i < n;) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return true;
      }
      if (c < 0x20) return false;
      if (c !== 0x5c) {
        i++;
        continue;
      }
      const e = text[++i];
      if (e === "u") {
        for (let k = 1; k <= 4; k++) {
          if (!isHex(text[i + k])) {
            i += k;
            return false;
          }
        }
        i += 5;
      } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i++;
      else return false;
    }
    return false;
  };
  const digits = (): boolean => {
    if (!isDigit(text[i])) return false;
    while (isDigit(text[i])) i++;
    return true;
  };
  const number = (): boolean => {
    if (text[i] === "-") i++;
    if (text[i] === "0") i++;
    else if (!digits()) return false;
    if (text[i] === ".") {
      i++;
      if (!digits()) return false;
    }
    if (text[i] === "e" || text[i] === "E") {
      i++;
      if (text[i] === "+" || text[i] === "-") i++;
      if (!digits()) return false;
    }
    return true;
  };
  const literal = (word: string): boolean => {
    for (const c of word) {
      if (text[i] !== c) return false;
      i++;
    }
    return true;
  };
  let state: "value" | "key" | "after" = "value";
  for (;;) {
    skipSpace();
    if (state === "value") {
      const c = text[i];
      if (c === "{" || c === "[") {
        i++;
        skipSpace();
        if (text[i] === (c === "{" ? "}" : "]")) {
          i++;
          state = "after";
        } else {
          open.push(c);
          state = c === "{" ? "key" : "value";
        }
        continue;
      }
      const ok =
        c === '"'
          ? string()
          : c === "-" || isDigit(c)
            ? number()
            : c === "t"
              ? literal("true")
              : c === "f"
                ? literal("false")
                : c === "n"
                  ? literal("null")
                  : false;
      if (!ok) return Math.min(i, n);
      state = "after";
    } else if (state === "key") {
      if (text[i] !== '"' || !string()) return Math.min(i, n);
      skipSpace();
      if (text[i] !== ":") return Math.min(i, n);
      i++;
      state = "value";
    } else {
      const top = open[open.length - 1];
      if (top === undefined) return i < n ? i : undefined;
      const c = text[i];
      if (c === ",") {
        i++;
        state = top === "{" ? "key" : "value";
      } else if (c === (top === "{" ? "}" : "]")) {
        i++;
        open.pop();
      } else return Math.min(i, n);
    }
  }
}

/**
 * Parses a raw request body (as read by the app's catch-all content-type parser) into a JSON
 * object. Messages never quote the body: invalid JSON is answered with the offset of the first
 * bad byte (counted from 0, in bytes of the body as UTF-8) and the body's length in bytes.
 *
 * @throws ServiceError 213 when the body is missing, is not valid JSON, or is JSON but not an
 * object (an array, a string, `null`, …).
 */
export function parseJsonObject(raw: unknown): Record<string, unknown> {
  if (raw === undefined || raw === null || raw === "") {
    throw new ServiceError(213, "request body is empty; expected a JSON object");
  }
  let value: unknown;
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw);
    } catch {
      // V8's message quotes part of the body; only the position is given.
      const at = jsonErrorIndex(raw) ?? raw.length;
      throw new ServiceError(
        213,
        `request body is not valid JSON (at byte ${Buffer.byteLength(raw.slice(0, at))} of ${Buffer.byteLength(raw)})`,
      );
    }
  } else {
    value = raw;
  }
  if (!isPlainObject(value)) {
    const got = Array.isArray(value) ? "an array" : value === null ? "null" : `a ${typeof value}`;
    throw new ServiceError(213, `request body must be a JSON object, got ${got}`);
  }
  return value;
}
