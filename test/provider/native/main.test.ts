/**
 * What the native plugin loads when the engine starts it (provider/native/main.ts, as built by
 * `npm run build`, which `npm test`'s pretest runs): the engine starts a fresh plugin process for
 * every `preview`, `up`, `refresh` and `destroy`, so each module it loads is paid at every one.
 * The plugin uses Pulumi's log of the SDK, not its root: the root module loads the whole SDK
 * (581 more modules, about 0.45 s more before the plugin prints its port).
 */
import { execFileSync } from "node:child_process";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "../../..");
const SDK = path.join(ROOT, "node_modules", "@pulumi", "pulumi");

/** The files of the modules a fresh Node.js process has loaded after requiring `file`. */
function modulesLoadedBy(file: string): string[] {
  const script = `require(${JSON.stringify(file)}); process.stdout.write(JSON.stringify(Object.keys(require.cache)));`;
  return JSON.parse(
    execFileSync(process.execPath, ["-e", script], { cwd: ROOT, encoding: "utf8" }),
  ) as string[];
}

test("the plugin's modules load Pulumi's log and protocol, never the SDK's root module", () => {
  const loaded = modulesLoadedBy(path.join(ROOT, "dist", "provider", "native", "main.js"));
  // What the plugin does use of the SDK is there: the provider protocol and the log.
  expect(loaded).toContain(path.join(SDK, "proto", "provider_grpc_pb.js"));
  expect(loaded).toContain(path.join(SDK, "log", "index.js"));
  expect(loaded).not.toContain(path.join(SDK, "index.js"));
  // The root's other parts are not either (the Automation API, for one).
  expect(loaded.filter((f) => f.startsWith(path.join(SDK, "automation") + path.sep))).toEqual([]);
});
