/**
 * The Python blocks of the documentation, checked by pyflakes (scripts/requirements/pyflakes.txt,
 * in the venv scripts/ensure-venv.js makes) and against the Python SDK's public names.
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";

/** One Python program to check: a name for messages (`docs/x.md:12`) and its source. */
export interface PythonSource {
  name: string;
  code: string;
}

/**
 * Run by the venv's Python with `{"sdk": <folder of the SDK package>, "sources": [...]}` on stdin;
 * prints a JSON list of problems. For each source: pyflakes' messages (a syntax error, an
 * undefined name, an unused import…), then every `<alias>.<name>` of an `import pulumi_service`
 * (and every `from pulumi_service import <name>`) that is neither a module nor in the `__all__`
 * of a module the SDK's `__init__.py` star-imports, and every `<alias>.<Enum>.<MEMBER>` that is not
 * a member of that enum.
 */
const CHECKER = String.raw`
import ast, json, os, sys
import pyflakes.api, pyflakes.reporter

class Collect(pyflakes.reporter.Reporter):
    def __init__(self):
        self.out = []
    def unexpectedError(self, filename, msg):
        self.out.append(f"{filename}: {msg}")
    def syntaxError(self, filename, msg, lineno, offset, text):
        self.out.append(f"{filename}: line {lineno}: syntax error: {msg}")
    def flake(self, message):
        self.out.append(f"{message.filename}: line {message.lineno}: {message.message % message.message_args}")

req = json.load(sys.stdin)
sdk, pkg = req["sdk"], os.path.basename(req["sdk"])
names, enums = set(), {}
for entry in os.listdir(sdk):
    if entry.endswith(".py") and entry != "__init__.py":
        names.add(entry[:-3])
    elif os.path.isfile(os.path.join(sdk, entry, "__init__.py")):
        names.add(entry)
init = ast.parse(open(os.path.join(sdk, "__init__.py")).read())
for node in init.body:
    if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module and any(a.name == "*" for a in node.names):
        mod = ast.parse(open(os.path.join(sdk, node.module + ".py")).read())
        for stmt in mod.body:
            if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in stmt.targets):
                names.update(ast.literal_eval(stmt.value))
            if isinstance(stmt, ast.ClassDef) and any("Enum" in ast.unparse(b) for b in stmt.bases):
                enums[stmt.name] = {t.id for s in stmt.body if isinstance(s, ast.Assign) for t in s.targets if isinstance(t, ast.Name)}

problems = []
for src in req["sources"]:
    collect = Collect()
    pyflakes.api.check(src["code"], src["name"], collect)
    problems.extend(collect.out)
    try:
        tree = ast.parse(src["code"])
    except SyntaxError:
        continue
    aliases = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            aliases.update(a.asname or a.name for a in node.names if a.name == pkg)
        if isinstance(node, ast.ImportFrom) and node.module == pkg:
            for a in node.names:
                if a.name not in names:
                    problems.append(f"{src['name']}: line {node.lineno}: {pkg} has no {a.name}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            if node.attr not in names:
                problems.append(f"{src['name']}: line {node.lineno}: {pkg} has no {node.attr}")
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) and isinstance(node.value.value, ast.Name) \
                and node.value.value.id in aliases and node.value.attr in enums and node.attr not in enums[node.value.attr]:
            problems.append(f"{src['name']}: line {node.lineno}: {pkg}.{node.value.attr} has no member {node.attr}")
print(json.dumps(problems))
`;

/**
 * Checks `sources` with pyflakes and against the SDK package folder `sdk` (e.g.
 * `<repo>/sdk/python/pulumi_service`), using the interpreter `python` (the pyflakes venv's).
 * @returns the problems, each `<name>: line <n>: <message>`.
 * @throws Error with the checker's output when it does not run.
 */
export function checkPython(python: string, sdk: string, sources: PythonSource[]): string[] {
  const r = spawnSync(python, ["-c", CHECKER], {
    input: JSON.stringify({ sdk: path.resolve(sdk), sources }),
    encoding: "utf8",
    timeout: 60_000,
  });
  if (r.status !== 0)
    throw new Error(`the Python checker failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stderr}`);
  return JSON.parse(r.stdout) as string[];
}
