import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";
import ts from "typescript";
import { SUPPORTED_PEERS as PEERS } from "../../../apps/server/src/peers.js";
import { inspectorAssetsDir, inspectorVendorFiles } from "../../../libs/inspector/src/index.js";

/**
 * Builds the publishable `agent-server` package into dist/package/ and packs it: our libraries bundled to
 * JavaScript (esbuild; every third-party import left to the package's dependencies), LangChain's packages
 * as peers so the project's own copies run its graphs, and the few files the bundle finds beside itself
 * at run time. `npm run package` prints the tarball's path as its last line.
 */
export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const OUT = join(REPO_ROOT, "dist/package");

/** Entry points: the CLI, the peer check the bin runs first, and the two workers (each a file of its own). */
const ENTRIES = [
  { in: "apps/server/src/main.ts", out: "main" },
  { in: "apps/server/src/api.ts", out: "index" },
  { in: "apps/server/src/peers.ts", out: "peers" },
  { in: "libs/engine/src/graphs/schemas/static-schema-worker.mjs", out: "static-schema-worker" },
  { in: "libs/storage-sqlite/src/wal-checkpoint-worker.mjs", out: "wal-checkpoint-worker" },
  // `agent-server/a2a`: remoteAgent for the project's graphs.
  { in: "libs/remote-agent/src/index.ts", out: "a2a" },
];

/** The `agent-server/a2a` entry's sources, whose declarations the package carries as they are written. */
const A2A_TYPES_ENTRY = "libs/remote-agent/src/index.ts";

/** The types of apps/server/src/api.ts, the package's import entry (the tarball test type-checks a use of it). */
const API_TYPES = `/** The HTTP server started by startAgentServer, in this process. */
export interface AgentServer {
  /** The HTTP base URL, e.g. http://127.0.0.1:2024. */
  url: string;
  /** The A2A gRPC binding's host:port, when --grpc-port (or langgraph.json a2a.grpc_port) asked for it. */
  grpcUrl?: string;
  /** Drains (runs still executing after graceMs go back to the queue), closes the listeners and the storage. */
  stop(graceMs?: number): Promise<void>;
}

/** Starts dev or serve with the command line's arguments, e.g. ["serve", "--port", "0", "--config", "langgraph.json"]. */
export declare function startAgentServer(args: string[]): Promise<AgentServer>;
`;

/** Files the bundle loads by URL next to itself (`new URL("./x", import.meta.url)`), copied as they are. */
const BESIDE = ["libs/engine/src/graphs/module-scope.ts"];

/**
 * swagger-ui-dist's files for /docs, copied beside the bundle (libs/agent-protocol/src/meta/docs.ts looks
 * there first): the package itself would bring @scarf/scarf, whose install script reports installs.
 */
const SWAGGER_UI_FILES = [
  "LICENSE",
  "NOTICE",
  "swagger-ui-bundle.js.LICENSE.txt",
  "swagger-ui.css",
  "swagger-ui-bundle.js",
  "favicon-32x32.png",
  "favicon-16x16.png",
];

/**
 * The /inspector page's files beside the bundle (libs/inspector/src/index.ts looks there first): its own
 * modules and styles, and the ES module builds of preact, htm and @dagrejs/dagre with their licenses, so
 * the package needs none of them installed.
 */
function copyInspector(): void {
  const dir = join(OUT, "dist/inspector");
  mkdirSync(join(dir, "vendor"), { recursive: true });
  for (const name of readdirSync(inspectorAssetsDir())) copyFileSync(join(inspectorAssetsDir(), name), join(dir, name));
  const licensed = new Set<string>();
  for (const { file, source, pkg, packageDir } of inspectorVendorFiles()) {
    copyFileSync(source, join(dir, "vendor", file));
    if (licensed.has(pkg)) continue;
    licensed.add(pkg);
    const license = readdirSync(packageDir).find((f) => /^licen[cs]e/i.test(f));
    if (license) copyFileSync(join(packageDir, license), join(dir, "vendor", `${pkg.replace("/", "__")}.LICENSE.txt`));
  }
}

/**
 * The declarations of `entry` and the files it imports, written by TypeScript into `outDir` (no
 * hand-kept copy to drift). They import only packages the package depends on or its peers.
 */
function emitDeclarations(entry: string, outDir: string): void {
  const file = join(REPO_ROOT, entry);
  const program = ts.createProgram([file], {
    declaration: true,
    emitDeclarationOnly: true,
    outDir,
    rootDir: dirname(file),
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    skipLibCheck: true,
    types: ["node"],
  });
  const { diagnostics, emitSkipped } = program.emit();
  const errors = [...ts.getPreEmitDiagnostics(program), ...diagnostics].filter((d) => d.category === ts.DiagnosticCategory.Error);
  if (emitSkipped || errors.length > 0) {
    throw new Error(
      `declarations of ${entry}: ${ts.formatDiagnostics(errors, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => REPO_ROOT, getNewLine: () => "\n" })}`,
    );
  }
}

/**
 * Optional peers of our dependencies that code we use loads: npm installs no optional peer, and our
 * sources never import them by name, so they are listed as dependencies here. `@a2a-js/sdk/server/grpc`
 * (the A2A gRPC binding, `--grpc-port`) imports `@bufbuild/protobuf`.
 */
const OPTIONAL_PEERS_USED = ["@bufbuild/protobuf"];

/** Bundles `@agent-server/*` and relative imports; records every other package as external. */
function externals(found: Set<string>): Plugin {
  const builtins = new Set(builtinModules);
  return {
    name: "externals",
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith("@agent-server/")) return undefined;
        const name = args.path.startsWith("@") ? args.path.split("/").slice(0, 2).join("/") : args.path.split("/")[0]!;
        if (!args.path.startsWith("node:") && !builtins.has(name)) found.add(name);
        return { path: args.path, external: true };
      });
    },
  };
}

/** The versions the workspace packages pin (they agree), by name; our own packages (0.1.0) left out. */
function workspacePins(): Map<string, string> {
  const pins = new Map<string, string>();
  for (const dir of ["apps", "libs"].flatMap((d) => readdirSync(join(REPO_ROOT, d)).map((p) => join(REPO_ROOT, d, p)))) {
    const file = join(dir, "package.json");
    if (!existsSync(file)) continue;
    const { dependencies = {} } = JSON.parse(readFileSync(file, "utf8")) as { dependencies?: Record<string, string> };
    for (const [name, version] of Object.entries(dependencies)) if (!name.startsWith("@agent-server/")) pins.set(name, version);
  }
  return pins;
}

/** The installed version of `name`: for packages the workspace does not pin itself. */
function installedVersion(name: string): string {
  return (JSON.parse(readFileSync(join(REPO_ROOT, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
}

export async function buildPackage(): Promise<string> {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(join(OUT, "bin"), { recursive: true });
  const found = new Set<string>();
  await build({
    absWorkingDir: REPO_ROOT,
    entryPoints: ENTRIES,
    outdir: join(OUT, "dist"),
    outExtension: { ".js": ".mjs" },
    // Chunks stay beside the entries: the bundle finds ../package.json, ../bin and its copied files by URL.
    chunkNames: "[name]-[hash]",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    legalComments: "none",
    logLevel: "warning",
    plugins: [externals(found)],
  });
  for (const file of BESIDE) copyFileSync(join(REPO_ROOT, file), join(OUT, "dist", file.split("/").at(-1)!));
  mkdirSync(join(OUT, "dist/swagger-ui"));
  const swaggerUi = join(REPO_ROOT, "node_modules/swagger-ui-dist");
  for (const file of SWAGGER_UI_FILES.filter((f) => existsSync(join(swaggerUi, f)))) {
    copyFileSync(join(swaggerUi, file), join(OUT, "dist/swagger-ui", file));
  }
  // Its name, version and license only: the package's dependencies (the telemetry one) stay behind.
  const { name, version, license } = JSON.parse(readFileSync(join(swaggerUi, "package.json"), "utf8")) as Record<string, string>;
  writeFileSync(join(OUT, "dist/swagger-ui/package.json"), `${JSON.stringify({ name, version, license }, null, 2)}\n`);
  copyInspector();

  const server = JSON.parse(readFileSync(join(REPO_ROOT, "apps/server/package.json"), "utf8")) as { version: string };
  const root = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
    description: string;
    license: string;
    engines: object;
  };
  const pins = workspacePins();
  const dependencies = Object.fromEntries(
    [...found, ...OPTIONAL_PEERS_USED]
      .filter((name) => !(name in PEERS))
      .sort()
      .map((name) => [name, pins.get(name) ?? installedVersion(name)]),
  );
  const manifest = {
    name: "agent-server",
    version: server.version,
    description: root.description,
    license: root.license,
    type: "module",
    bin: { "agent-server": "bin/agent-server.mjs" },
    exports: {
      ".": { types: "./dist/index.d.mts", default: "./dist/index.mjs" },
      "./a2a": { types: "./dist/a2a/index.d.ts", default: "./dist/a2a.mjs" },
      "./package.json": "./package.json",
    },
    files: ["bin", "dist", "README.md", "LICENSE"],
    engines: root.engines,
    dependencies,
    peerDependencies: PEERS,
    keywords: ["langgraph", "agent-protocol", "a2a", "mcp", "langchain"],
  };
  writeFileSync(join(OUT, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(OUT, "dist/index.d.mts"), API_TYPES);
  emitDeclarations(A2A_TYPES_ENTRY, join(OUT, "dist/a2a"));
  writeFileSync(
    join(OUT, "bin/agent-server.mjs"),
    [
      "#!/usr/bin/env node",
      "// The project's LangGraph packages are checked before anything loads them (dist/peers.mjs).",
      'import { checkPeers } from "../dist/peers.mjs";',
      "",
      "checkPeers();",
      'await import("../dist/main.mjs");',
      "",
    ].join("\n"),
    { mode: 0o755 },
  );
  copyFileSync(join(REPO_ROOT, "apps/server/PACKAGE_README.md"), join(OUT, "README.md"));
  if (existsSync(join(REPO_ROOT, "LICENSE"))) copyFileSync(join(REPO_ROOT, "LICENSE"), join(OUT, "LICENSE"));

  const packed = execFileSync("npm", ["pack", "--json", "--pack-destination", dirname(OUT)], { cwd: OUT, encoding: "utf8" });
  const [{ filename }] = JSON.parse(packed) as [{ filename: string }];
  return join(dirname(OUT), filename);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const tarball = await buildPackage();
  console.log(tarball);
}
