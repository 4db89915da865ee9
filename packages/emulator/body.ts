/**
 * Request bodies in the emulator: parsing the raw body as a JSON object (213), the first stage of
 * the routes' body validation (see `plugins/bodyValidation.ts`).
 *
 * @packageDocumentation
 */
import { ErrorReply } from "./errorReply";

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";
const isHex = (c: string | undefined) => c !== undefined && /^[0-9A-Fa-f]$/.test(c);
const isSpace = (c: string) => c === " " || c === "\t" || c === "\n" || c === "\r";

/**
 * A text being read as JSON by {@link jsonErrorIndex}: `i` is the index, in UTF-16 code units, of
 * the next character to read (`text.length` at the end).
 */
interface Scan {
  readonly text: string;
  i: number;
}

/**
 * What the scanner expects next: a value, an object's key, or what follows a value (a `,`, a
 * closing bracket, or the end of the text).
 */
type Expecting = "value" | "key" | "after";

/**
 * What one step of the scanner gives: what it expects next, or the end of the scan: `at`, the
 * index of the first character that cannot continue a JSON text (`text.length` when the text ends
 * too early), `undefined` when the text is valid JSON.
 */
type Step = Expecting | { at: number | undefined };

/** The end of the scan at the fault: the current index, no further than the text's end. */
const fault = (s: Scan): Step => ({ at: Math.min(s.i, s.text.length) });

/** Moves past JSON whitespace: space, tab, line feed, carriage return. */
function skipSpace(s: Scan): void {
  while (s.i < s.text.length && isSpace(s.text[s.i])) s.i++;
}

/**
 * Reads a string starting at its opening quote, escapes included, up to and past its closing one.
 * @returns true when it is well formed; false (with `s.i` at the fault) on a control character,
 *   a bad escape, or the text's end before the closing quote.
 */
function scanString(s: Scan): boolean {
  const { text } = s;
  const n = text.length;
  for (s.i++; s.i < n;) {
    const c = text.charCodeAt(s.i);
    if (c === 0x22) {
      s.i++;
      return true;
    }
    if (c < 0x20) return false;
    if (c !== 0x5c) {
      s.i++;
      continue;
    }
    const e = text[++s.i];
    if (e === "u") {
      for (let k = 1; k <= 4; k++) {
        if (!isHex(text[s.i + k])) {
          s.i += k;
          return false;
        }
      }
      s.i += 5;
    } else if (e !== undefined && '"\\/bfnrt'.includes(e)) s.i++;
    else return false;
  }
  return false;
}

/** Reads one or more decimal digits; false (reading nothing) when there is none. */
function scanDigits(s: Scan): boolean {
  if (!isDigit(s.text[s.i])) return false;
  while (isDigit(s.text[s.i])) s.i++;
  return true;
}

/**
 * Reads a number: an optional `-`, `0` or digits without a leading zero, an optional fraction and
 * an optional exponent. False (with `s.i` at the fault) when a part has no digits.
 */
function scanNumber(s: Scan): boolean {
  const { text } = s;
  if (text[s.i] === "-") s.i++;
  if (text[s.i] === "0") s.i++;
  else if (!scanDigits(s)) return false;
  if (text[s.i] === ".") {
    s.i++;
    if (!scanDigits(s)) return false;
  }
  if (text[s.i] === "e" || text[s.i] === "E") {
    s.i++;
    if (text[s.i] === "+" || text[s.i] === "-") s.i++;
    if (!scanDigits(s)) return false;
  }
  return true;
}

/**
 * Reads `word` (`true`, `false` or `null`); false, with `s.i` at the first character that differs,
 * when the text does not spell it.
 */
function scanLiteral(s: Scan, word: string): boolean {
  for (const c of word) {
    if (s.text[s.i] !== c) return false;
    s.i++;
  }
  return true;
}

/**
 * Reads a value other than an object or an array: a string, a number or a literal, told apart by
 * its first character. False (with `s.i` at the fault) when it is none of them or is malformed.
 */
function scanScalar(s: Scan): boolean {
  const c = s.text[s.i];
  return c === '"'
    ? scanString(s)
    : c === "-" || isDigit(c)
      ? scanNumber(s)
      : c === "t"
        ? scanLiteral(s, "true")
        : c === "f"
          ? scanLiteral(s, "false")
          : c === "n"
            ? scanLiteral(s, "null")
            : false;
}

/**
 * Where a value is expected: an object or array is opened (and, when empty, closed at once); any
 * other value is read whole. `open` holds the brackets (`{`, `[`) still open, innermost last.
 */
function atValue(s: Scan, open: string[]): Step {
  const c = s.text[s.i];
  if (c === "{" || c === "[") {
    s.i++;
    skipSpace(s);
    if (s.text[s.i] === (c === "{" ? "}" : "]")) {
      s.i++;
      return "after";
    }
    open.push(c);
    return c === "{" ? "key" : "value";
  }
  return scanScalar(s) ? "after" : fault(s);
}

/** Where an object's key is expected: reads the key string and its `:`, then a value is expected. */
function atKey(s: Scan): Step {
  if (s.text[s.i] !== '"' || !scanString(s)) return fault(s);
  skipSpace(s);
  if (s.text[s.i] !== ":") return fault(s);
  s.i++;
  return "value";
}

/**
 * After a value: inside an object or array, a `,` (then a key or a value) or the closing bracket
 * (popped from `open`); at the top level, the end of the text, where the scan ends (valid JSON)
 * or finds trailing characters.
 */
function afterValue(s: Scan, open: string[]): Step {
  const top = open[open.length - 1];
  if (top === undefined) return { at: s.i < s.text.length ? s.i : undefined };
  const c = s.text[s.i];
  if (c === ",") {
    s.i++;
    return top === "{" ? "key" : "value";
  }
  if (c === (top === "{" ? "}" : "]")) {
    s.i++;
    open.pop();
    return "after";
  }
  return fault(s);
}

/**
 * Where `text` stops being JSON (RFC 8259): the index, in UTF-16 code units, of the first
 * character that cannot continue a JSON text, `text.length` when the text ends too early, or
 * `undefined` when it is valid JSON. Iterative, so any depth of nesting is fine.
 *
 * It exists because V8's `JSON.parse` errors quote part of the text, and the body may hold a
 * secret; this gives the position alone.
 */
export function jsonErrorIndex(text: string): number | undefined {
  const s: Scan = { text, i: 0 };
  const open: string[] = [];
  let expecting: Expecting = "value";
  for (;;) {
    skipSpace(s);
    const step: Step =
      expecting === "value" ? atValue(s, open) : expecting === "key" ? atKey(s) : afterValue(s, open);
    if (typeof step !== "string") return step.at;
    expecting = step;
  }
}

/**
 * Parses a raw request body (as read by the app's catch-all content-type parser) into a JSON
 * object. Messages never quote the body: invalid JSON is answered with the offset of the first
 * bad byte (counted from 0, in bytes of the body as UTF-8) and the body's length in bytes.
 *
 * @throws ErrorReply 213 when the body is missing, is not valid JSON, or is JSON but not an
 * object (an array, a string, `null`, …).
 */
export function parseJsonObject(raw: unknown): Record<string, unknown> {
  if (raw === undefined || raw === null || raw === "") {
    throw new ErrorReply(213, "request body is empty; expected a JSON object");
  }
  let value: unknown;
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw);
    } catch {
      // V8's message quotes part of the body; only the position is given.
      const at = jsonErrorIndex(raw) ?? raw.length;
      throw new ErrorReply(
        213,
        `request body is not valid JSON (at byte ${Buffer.byteLength(raw.slice(0, at))} of ${Buffer.byteLength(raw)})`,
      );
    }
  } else {
    value = raw;
  }
  if (!isPlainObject(value)) {
    const got = Array.isArray(value) ? "an array" : value === null ? "null" : `a ${typeof value}`;
    throw new ErrorReply(213, `request body must be a JSON object, got ${got}`);
  }
  return value;
}
