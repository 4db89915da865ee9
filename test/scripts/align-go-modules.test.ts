/**
 * scripts/align-go-modules.js: the Go tool modules require their shared dependencies at
 * tools/pulumi's versions, so that a new machine compiles each of those packages once (Go's
 * build cache keys a package by its module's version).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { ALIGNED, REFERENCE, mismatches, requirements } from "../../scripts/align-go-modules";
import { useTempDir } from "../helpers/temp-dir";

const REPO_ROOT = path.join(__dirname, "..", "..");
const goMod = (dir: string) => path.join(REPO_ROOT, dir, "go.mod");

describe("align-go-modules", () => {
  const tempDir = useTempDir("align-go-modules-");

  it.each(ALIGNED.map((m) => [m.dir, m.holds] as const))(
    "%s requires every dependency it shares with tools/pulumi at tools/pulumi's version, but for its holds",
    (dir, holds) => {
      expect(mismatches(goMod(dir), goMod(REFERENCE), holds)).toEqual([]);
    },
  );

  it("shares most of the reference's dependency graph, and holds only modules that still differ", () => {
    const reference = requirements(goMod(REFERENCE));
    for (const { dir, holds } of ALIGNED) {
      const own = requirements(goMod(dir));
      const shared = [...own.keys()].filter((m) => reference.has(m));
      expect(shared.length).toBeGreaterThan(80);
      // A hold whose module now has the reference's version is no longer needed.
      for (const held of Object.keys(holds)) {
        expect([held, own.get(held)]).not.toEqual([held, reference.get(held)]);
        expect(own.has(held)).toBe(true);
      }
    }
  });

  it("reports a shared module at another version, and leaves out Pulumi's release and the holds", () => {
    const dir = tempDir();
    const write = (name: string, text: string) => {
      fs.writeFileSync(path.join(dir, name), text);
      return path.join(dir, name);
    };
    const reference = write(
      "reference.mod",
      [
        "module a",
        "",
        "go 1.26",
        "",
        "require github.com/pulumi/pulumi/pkg/v3 v3.274.1",
        "",
        "require (",
        "\tgoogle.golang.org/grpc v1.85.0 // indirect",
        "\tgocloud.dev v0.46.1",
        "\tgolang.org/x/sys v0.49.0",
        ")",
      ].join("\n"),
    );
    const aligned = write(
      "aligned.mod",
      [
        "module b",
        "",
        "require (",
        "\tgithub.com/pulumi/pulumi/pkg/v3 v3.248.0",
        "\tgoogle.golang.org/grpc v1.81.1 // indirect",
        "\tgocloud.dev v0.46.0",
        "\tgolang.org/x/sys v0.49.0",
        "\texample.com/only/here v1.0.0",
        ")",
      ].join("\n"),
    );
    expect(requirements(aligned).get("google.golang.org/grpc")).toBe("v1.81.1");
    expect(mismatches(aligned, reference)).toEqual([
      { module: "gocloud.dev", want: "v0.46.1", have: "v0.46.0" },
      { module: "google.golang.org/grpc", want: "v1.85.0", have: "v1.81.1" },
    ]);
    expect(mismatches(aligned, reference, { "gocloud.dev": "why" })).toEqual([
      { module: "google.golang.org/grpc", want: "v1.85.0", have: "v1.81.1" },
    ]);
  });
});
