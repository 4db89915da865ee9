/**
 * Writes `provider/native/schema.json`, the Pulumi package schema of the native provider,
 * generated from the contract (provider/native/schema.ts). Run: `npm run gen:schema`.
 * With `--check`, writes nothing and exits 1 when the file differs from what the contract gives.
 */
import * as fs from "fs";
import * as path from "path";
import { schemaText } from "../provider/native/schema";

const root = path.resolve(__dirname, "..", "..");
const file = path.join(root, "provider", "native", "schema.json");
const { version } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
  version: string;
};
const text = schemaText(version);
if (process.argv.includes("--check")) {
  const current = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
  if (current !== text) {
    console.error(`${path.relative(root, file)} is stale: run \`npm run gen:schema\``);
    process.exit(1);
  }
} else {
  fs.writeFileSync(file, text);
  console.log(`wrote ${path.relative(root, file)} (${Buffer.byteLength(text)} bytes)`);
}
