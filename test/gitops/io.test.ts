/**
 * gitops/io.ts and gitops/format-option.ts: what the checks print, in each format; the secrets a
 * text may hold, redacted (longest first); an error's message as the user reads it.
 */
import { Command } from "commander";
import { withFormatOptions } from "../../gitops/format-option";
import { failureOutput, messageOf, redact, renderResult } from "../../gitops/io";

test("redact: a bearer token of any spacing or case, and each secret of 4 characters or more, longest first", () => {
  expect(redact("Authorization: Bearer  abc.def other", [])).toBe("Authorization: Bearer  [redacted] other");
  expect(redact('bearer tok"', [])).toBe('bearer [redacted]"');
  expect(redact("key abcdefgh and abcd and abc", ["abc", "abcd", "abcdefgh", ""])).toBe(
    "key [redacted] and [redacted] and abc",
  );
});

test("messageOf: the checks' own errors as they are, others with their class unless a plain Error, anything else as text", () => {
  class DriftError extends Error {
    override name = "DriftError";
  }
  class PreviewError extends Error {
    override name = "PreviewError";
  }
  expect(messageOf(new DriftError("no stack"))).toBe("no stack");
  expect(messageOf(new PreviewError("no preview"))).toBe("no preview");
  expect(messageOf(new Error("plain"))).toBe("plain");
  expect(messageOf(new TypeError("bad type"))).toBe("TypeError: bad type");
  expect(messageOf("text")).toBe("text");
});

test("renderResult and failureOutput: JSON as one indented document, Markdown and text by their forms; a failure's JSON, Markdown on one line, no text", () => {
  const forms = { markdown: (r: { n: number }) => `md ${r.n}`, text: (r: { n: number }) => `text ${r.n}` };
  expect(renderResult("json", { n: 1 }, forms)).toBe('{\n  "n": 1\n}\n');
  expect(renderResult("markdown", { n: 2 }, forms)).toBe("md 2");
  expect(renderResult("text", { n: 3 }, forms)).toBe("text 3");
  expect(failureOutput("json", "it broke", "Drift check")).toBe(
    '{\n  "error": "it broke",\n  "exitCode": 1\n}\n',
  );
  expect(failureOutput("markdown", "it\n  broke\there", "Drift check")).toBe(
    "**Drift check failed** (exit code 1): it broke here\n",
  );
  expect(failureOutput("text", "it broke", "Drift check")).toBe("");
});

test("withFormatOptions: --format text, json or markdown (text by default), and --json; each described in the help", () => {
  const parse = (...args: string[]) =>
    withFormatOptions(new Command().exitOverride().configureOutput({ writeErr: () => undefined }))
      .parse(args, { from: "user" })
      .opts();
  expect(parse()).toEqual({ format: "text" });
  expect(parse("--format", "markdown", "--json")).toEqual({ format: "markdown", json: true });
  expect(parse("--format", "json")).toEqual({ format: "json" });
  expect(() => parse("--format", "yaml")).toThrow(/Allowed choices are text, json, markdown/);
  const help = withFormatOptions(new Command()).helpInformation();
  expect(help).toContain("--format <format>  text (a table), json (one document) or markdown (a comment)");
  expect(help).toContain("--json             the same as --format json");
});
