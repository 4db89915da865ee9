/**
 * Request bodies that are not JSON: the 400 / 213 answer names the byte where the JSON breaks
 * and quotes nothing of the body (a half-sent destination holds its secrets); the scanner that
 * finds that byte agrees with JSON.parse.
 */
import fc from "fast-check";
import { jsonErrorIndex } from "../../packages/emulator/body";
import { apiRequest, startEmulator, type RunningEmulator } from "../helpers/emulator";
import { expectError } from "../helpers/emulator-fixtures";

const KEY = "key-body";
const SECRET = "dd_SECRET_4f9c2a71e0";

let em: RunningEmulator;
beforeAll(async () => {
  em = await startEmulator({ apiKeys: [KEY] });
});
afterAll(() => em.close());

/** Posts `text` as is to `path` and checks the 213 answer, its position and that no secret shows. */
async function expectJsonError(path: string, text: string, byte: number) {
  const before = em.store.snapshot();
  const res = await apiRequest(em.url, KEY, "POST", path, text);
  expectError(res, 400, 213);
  expect(res.json().msg).toBe(
    `request body is not valid JSON (at byte ${byte} of ${Buffer.byteLength(text)})`,
  );
  expect(res.text).not.toContain("SECRET");
  expect(JSON.stringify(res.headers)).not.toContain("SECRET");
  expect(em.store.snapshot()).toEqual(before);
}

describe("a body that is not valid JSON", () => {
  it("cut off after a secret: 213 at the end of the body, the secret nowhere in the answer", async () => {
    const text = `{"target":{"datadog":{"api_key":"${SECRET}","ddsite":`;
    await expectJsonError("/event_destinations", text, Buffer.byteLength(text));
  });

  it("cut off inside the secret's string", async () => {
    const text = `{"target":{"datadog":{"api_key":"${SECRET}`;
    await expectJsonError("/event_destinations", text, Buffer.byteLength(text));
  });

  it("a bad token right after a secret: the position counts bytes of UTF-8, not characters", async () => {
    const prefix = `{"description":"é🙂 naïve","target":{"datadog":{"api_key":"${SECRET}" `;
    await expectJsonError("/event_destinations", `${prefix}${SECRET}}}}`, Buffer.byteLength(prefix));
  });

  it.each([
    ["a single quote", `{'api_key': '${SECRET}'}`, 1],
    ["a trailing comma", `{"metadata":"${SECRET}",}`, 35],
    ["a raw line break in a string", `{"metadata":"${SECRET}\n"}`, 33],
    ["a bad escape", `{"metadata":"\\q${SECRET}"}`, 14],
    ["a bad \\u escape", `{"metadata":"\\u12G4${SECRET}"}`, 17],
    ["a number with a leading zero", `{"n":012,"m":"${SECRET}"}`, 6],
    ["a number without digits after the point", `{"n":1.,"m":"${SECRET}"}`, 7],
    ["a misspelt literal", `{"n":nul,"m":"${SECRET}"}`, 8],
    ["text after the object", `{"metadata":"x"} ${SECRET}`, 17],
    ["a missing colon", `{"metadata" "${SECRET}"}`, 12],
    ["an unclosed list", `{"urls":["${SECRET}"`, 31],
  ])("%s: the position of the first byte that cannot continue the JSON", async (_name, text, byte) => {
    await expectJsonError("/abuse_reports", text, byte);
  });
});

describe("jsonErrorIndex", () => {
  /** V8's verdict on `text`: "ok", its position when its message gives one, else "bad". */
  const v8 = (text: string): string => {
    try {
      JSON.parse(text);
      return "ok";
    } catch (e) {
      return /at position (\d+)/.exec((e as Error).message)?.[1] ?? "bad";
    }
  };
  const ours = (text: string, v8verdict: string): string => {
    const at = jsonErrorIndex(text);
    if (at === undefined) return "ok";
    return v8verdict === "bad" ? "bad" : String(at);
  };

  it("agrees with JSON.parse on validity, and on the position wherever V8 gives one", () => {
    const pieces = fc.constantFrom(
      "{",
      "}",
      "[",
      "]",
      ",",
      ":",
      '"',
      "\\",
      "\\u",
      "0",
      "-",
      ".",
      "e",
      " ",
      "n",
      "é",
      "\n",
    );
    const texts = fc.oneof(
      fc.json(),
      fc.tuple(fc.json(), fc.nat()).map(([t, cut]) => t.slice(0, cut % (t.length + 1))),
      fc.tuple(fc.json(), fc.nat(), pieces).map(([t, at, p]) => {
        const k = at % (t.length + 1);
        return t.slice(0, k) + p + t.slice(k);
      }),
      fc.array(pieces, { maxLength: 12 }).map((a) => a.join("")),
    );
    fc.assert(
      fc.property(texts, (text) => {
        const verdict = v8(text);
        expect(ours(text, verdict)).toBe(verdict);
      }),
      { numRuns: 3000 },
    );
  });

  it("reads any depth of nesting", () => {
    expect(jsonErrorIndex("[".repeat(200_000) + "]".repeat(200_000))).toBeUndefined();
    expect(jsonErrorIndex("[".repeat(200_000))).toBe(200_000);
  });
});
