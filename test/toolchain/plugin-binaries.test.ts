/**
 * `npm run build:plugin-binaries` (scripts/build-plugin-binaries.js): the native plugin as one
 * self-contained executable per platform. The script runs once (its base Node.js binaries come
 * from the project's cache, fetched on a new machine); then the linux-amd64 executable, copied
 * out of the repository, runs with no `node` on PATH, no NODE_PATH and its working folder outside
 * the repository, and speaks the plugin protocol: its port alone on stdout, then GetPluginInfo
 * and GetSchema over gRPC answer the package's version and the schema. The other four are checked
 * from their headers (ELF machine, Mach-O magic and CPU type with the NODE_SEA segment, PE
 * machine), and every one holds the bundle and has Node.js's SEA fuse set by the injection.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import { ServiceClient } from "../../client";
import { REPO_ROOT } from "../../scripts/pulumi-env";
import { startEmulator } from "../helpers/emulator";
import { runBinariesBuild } from "../helpers/binaries-build";
import { useTempDir } from "../helpers/temp-dir";

/** A cold run fetches five Node.js binaries (about 30 MB each, packed) before it injects. */
const BUILD_TIMEOUT = 900_000;
const VERSION: string = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")).version;
const OUT = path.join(REPO_ROOT, "dist", "plugin-binaries");
/** The fuse Node.js reads to know a blob was injected; postject turns its `:0` into `:1`. */
const FUSE_SET = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2:1";

/** The header fields each executable must show. */
const EXPECTED: Record<string, { format: "ELF" | "Mach-O" | "PE"; machine: number }> = {
  "linux-amd64": { format: "ELF", machine: 0x3e }, // EM_X86_64
  "linux-arm64": { format: "ELF", machine: 0xb7 }, // EM_AARCH64
  "darwin-amd64": { format: "Mach-O", machine: 0x01000007 }, // CPU_TYPE_X86_64
  "darwin-arm64": { format: "Mach-O", machine: 0x0100000c }, // CPU_TYPE_ARM64
  "windows-amd64": { format: "PE", machine: 0x8664 }, // IMAGE_FILE_MACHINE_AMD64
};

/** An executable's format and machine, read from its header; `segments`: Mach-O's segment names. */
function readHeader(file: string): { format: string; machine: number; segments: string[] } {
  const fd = fs.openSync(file, "r");
  try {
    const head = Buffer.alloc(64 * 1024);
    fs.readSync(fd, head, 0, head.length, 0);
    if (head.readUInt32BE(0) === 0x7f454c46) {
      // ELF: 64-bit (EI_CLASS 2), little-endian (EI_DATA 1), e_machine at 18.
      expect([head[4], head[5]]).toEqual([2, 1]);
      return { format: "ELF", machine: head.readUInt16LE(18), segments: [] };
    }
    if (head.readUInt32LE(0) === 0xfeedfacf) {
      // mach_header_64: cputype at 4, ncmds at 16; load commands from 32 (LC_SEGMENT_64 = 0x19).
      const segments: string[] = [];
      for (let i = 0, at = 32; i < head.readUInt32LE(16); i++, at += head.readUInt32LE(at + 4)) {
        if (head.readUInt32LE(at) === 0x19)
          segments.push(head.toString("latin1", at + 8, at + 24).replace(/\0+$/, ""));
      }
      return { format: "Mach-O", machine: head.readUInt32LE(4), segments };
    }
    if (head.toString("latin1", 0, 2) === "MZ") {
      // PE: the offset of "PE\0\0" at 0x3c, the COFF header's Machine right after it.
      const pe = head.readUInt32LE(0x3c);
      expect(head.toString("latin1", pe, pe + 4)).toBe("PE\0\0");
      return { format: "PE", machine: head.readUInt16LE(pe + 4), segments: [] };
    }
    throw new Error(`${file}: neither ELF, Mach-O 64 nor PE`);
  } finally {
    fs.closeSync(fd);
  }
}

/** Runs `exe` until it prints its first line; resolves to that line. */
function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve(out);
    });
    child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", reject);
    // (the lines of a minified bundle that Node.js quotes with an error are cut short)
    const short = (text: string) => text.replace(/^(.{300}).+$/gm, "$1…");
    child.on("exit", (code) =>
      reject(new Error(`exited with ${code} before a line; stdout ${short(out)}, stderr ${short(err)}`)),
    );
  });
}

function call<Req, Res>(
  client: ResourceProviderClient,
  method: "getPluginInfo" | "getSchema" | "configure" | "invoke",
  req: Req,
): Promise<Res> {
  const fn = (client as unknown as Record<string, (r: Req, cb: (e: Error | null, r: Res) => void) => void>)[
    method
  ];
  return new Promise((resolve, reject) => fn.call(client, req, (e, r) => (e ? reject(e) : resolve(r))));
}

describe("the plugin as self-contained executables (scripts/build-plugin-binaries.js)", () => {
  const tmp = useTempDir("plugin-binaries-");
  let built: Map<string, { bytes: number; path: string }>;

  beforeAll(() => {
    built = runBinariesBuild("build-plugin-binaries.js", BUILD_TIMEOUT);
  }, BUILD_TIMEOUT);

  it("prints one line per platform: its name, size and path under dist/plugin-binaries", () => {
    expect([...built.keys()]).toEqual(Object.keys(EXPECTED));
    for (const [name, b] of built) {
      const exe = name.startsWith("windows") ? "pulumi-resource-service.exe" : "pulumi-resource-service";
      expect(b.path).toBe(path.join(OUT, name, exe));
      expect(fs.statSync(b.path).size).toBe(b.bytes);
    }
  });

  it("each is an executable of its platform's format and CPU, with the bundle injected", () => {
    const bundle = fs.readFileSync(path.join(OUT, ".build", "pulumi-resource-service.js"));
    // A stretch from the middle of the bundle (the blob holds its source as is).
    const piece = bundle.subarray(Math.floor(bundle.length / 2), Math.floor(bundle.length / 2) + 4096);
    for (const [name, b] of built) {
      const header = readHeader(b.path);
      expect({ name, format: header.format, machine: header.machine }).toEqual({ name, ...EXPECTED[name] });
      if (header.format === "Mach-O") expect(header.segments).toContain("NODE_SEA");
      const bytes = fs.readFileSync(b.path);
      expect({ name, fuseSet: bytes.includes(FUSE_SET), bundled: bytes.includes(piece) }).toEqual({
        name,
        fuseSet: true,
        bundled: true,
      });
    }
  });

  const onLinuxAmd64 = process.platform === "linux" && process.arch === "x64" ? it : it.skip;
  onLinuxAmd64(
    "linux-amd64 runs without Node.js: its port on stdout, then plugin info, schema and a function over gRPC",
    async () => {
      // Outside the repository, with a PATH of one folder that holds no node, and no NODE_* variable.
      const exe = path.join(tmp(), "pulumi-resource-service");
      fs.copyFileSync(built.get("linux-amd64")!.path, exe);
      fs.chmodSync(exe, 0o755);
      const bin = path.join(tmp(), "bin");
      fs.mkdirSync(bin);
      const child = spawn(exe, ["127.0.0.1:1"], {
        cwd: tmp(),
        env: { PATH: bin, HOME: tmp() },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let client: ResourceProviderClient | undefined;
      try {
        const line = await firstLine(child);
        expect(line).toMatch(/^\d+\n$/);
        client = new ResourceProviderClient(`127.0.0.1:${line.trim()}`, grpc.credentials.createInsecure());
        const info = await call<Empty, { getVersion(): string }>(client, "getPluginInfo", new Empty());
        expect(info.getVersion()).toBe(VERSION);
        const schema = await call<proto.GetSchemaRequest, proto.GetSchemaResponse>(
          client,
          "getSchema",
          new proto.GetSchemaRequest(),
        );
        expect(schema.getSchema()).toBe(
          fs.readFileSync(path.join(REPO_ROOT, "provider", "native", "schema.json"), "utf8"),
        );
        // The service's client in the bundle (undici, zod, secrets): configured for an emulator,
        // the function getEventDestination reads a destination made there, its target a secret.
        const emulator = await startEmulator({});
        const service = new ServiceClient({ apiKey: emulator.apiKeys[0], baseUrl: emulator.url });
        try {
          const dest = await service.eventDestinations.create({
            target: { datadog: { apiKey: "dd-key-plugin-binaries", ddsite: "datadoghq.eu" } },
          });
          const configure = new proto.ConfigureRequest();
          configure.setArgs(Struct.fromJavaScript({ apiKey: emulator.apiKeys[0], baseUrl: emulator.url }));
          await call(client, "configure", configure);
          const invoke = new proto.InvokeRequest();
          invoke.setTok("service:index:getEventDestination");
          invoke.setArgs(Struct.fromJavaScript({ id: dest.id }));
          const resp = await call<proto.InvokeRequest, proto.InvokeResponse>(client, "invoke", invoke);
          expect(resp.getFailuresList()).toEqual([]);
          const returns = resp.getReturn()!.toJavaScript() as Record<string, Record<string, unknown>>;
          expect(returns.id).toBe(dest.id);
          expect(returns.target[specialSigKey]).toBe(specialSecretSig);
        } finally {
          await service.close();
          await emulator.close();
        }
      } finally {
        client?.close();
        child.kill();
      }
    },
  );
});
