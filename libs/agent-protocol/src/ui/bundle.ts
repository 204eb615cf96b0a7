import { stat } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { build, type Message, type Plugin } from "esbuild";
import { getMimeType } from "hono/utils/mime";
import { InvalidInputError } from "@agent-server/core";

/**
 * Generative UI (langgraph.json `ui`): each agent's components file is bundled for the browser at
 * startup, the way the official server bundles it, so `LoadExternalComponent` of
 * `@langchain/langgraph-sdk/react-ui` can load it:
 * - one IIFE script `entrypoint.js` (and `entrypoint.css` when the components import CSS) whose global
 *   `__LGUI_<agent>` has `render(componentName, shadowRootId)`; the client puts the script into a shadow
 *   root and `render` hands the component and a mount point to the client's store
 *   (`globalThis[Symbol.for("LGUI_EXT_STORE")].respond`);
 * - React, ReactDOM and the SDK are not bundled: the page shares its own copies, which the client
 *   exposes as `globalThis[Symbol.for("LGUI_REQUIRE")](name)` (`bootstrapUiContext()`), as do packages
 *   named in `ui_config.shared` (the page registers them with `experimental_loadShare`).
 * Tailwind directives in CSS are passed through as written (the official server runs Tailwind on them).
 */

export interface UiAsset {
  /** File name under /ui/{agent}/ (e.g. "entrypoint.js"). */
  name: string;
  contentType: string;
  contents: Uint8Array;
}

/** Bundled assets per agent name (the keys of langgraph.json `ui`). */
export type UiBundles = ReadonlyMap<string, readonly UiAsset[]>;

export interface UiBundleOptions {
  /** Project folder: `ui` paths are relative to it and must stay inside it. */
  cwd: string;
  /** langgraph.json `ui_config.shared`: more packages the page provides instead of the bundle. */
  shared?: readonly string[];
}

/** Packages every page that renders generative UI provides (see `bootstrapUiContext` of the SDK). */
export const ALWAYS_SHARED = ["react", "react-dom", "@langchain/langgraph-sdk"] as const;

/** The name of the global the entry script defines; the HTML snippet calls its `render`. */
export function uiGlobalName(agent: string): string {
  return `__LGUI_${agent.replace(/[^a-zA-Z0-9]/g, "_")}`;
}

/**
 * Bundles every entry of langgraph.json `ui`. A missing file, a path outside the project or a file that
 * does not bundle is an InvalidInputError that names the agent and the file (a project error at startup).
 */
export async function bundleUi(defs: Record<string, string>, options: UiBundleOptions): Promise<UiBundles> {
  const shared = [...ALWAYS_SHARED, ...(options.shared ?? [])];
  const entries = await Promise.all(
    Object.entries(defs).map(async ([agent, path]) => [agent, await bundleOne(agent, path, options.cwd, shared)] as const),
  );
  return new Map(entries);
}

async function bundleOne(agent: string, path: string, cwd: string, shared: readonly string[]): Promise<UiAsset[]> {
  const file = resolve(cwd, path);
  const inside = relative(cwd, file);
  if (inside.startsWith("..") || isAbsolute(inside)) {
    throw new InvalidInputError(`ui.${agent}: ${path} is outside the project folder ${cwd}`);
  }
  const found = await stat(file).catch(() => undefined);
  if (!found?.isFile()) throw new InvalidInputError(`ui.${agent}: file not found: ${file}`);

  try {
    const result = await build({
      absWorkingDir: cwd,
      entryPoints: [{ in: ENTRY, out: "entrypoint" }],
      // Never written (write: false); esbuild only needs it to name the outputs.
      outdir: join(cwd, "dist"),
      write: false,
      bundle: true,
      platform: "browser",
      format: "iife",
      target: "es2020",
      jsx: "automatic",
      globalName: uiGlobalName(agent),
      logLevel: "silent",
      banner: { js: SHARED_LOADER_BANNER },
      plugins: [entryPlugin(file), sharedPlugin(shared)],
    });
    return result.outputFiles.map((output) => {
      const name = basename(output.path);
      return { name, contentType: getMimeType(name) ?? "application/octet-stream", contents: output.contents };
    });
  } catch (error) {
    const messages = (error as { errors?: Message[] }).errors;
    const detail = messages?.length ? messages.map(formatMessage).join("; ") : (error as Error).message;
    throw new InvalidInputError(`ui.${agent}: cannot bundle ${file}: ${detail}`);
  }
}

const ENTRY = "agent-server:ui-entry";

/**
 * The bundle's entry module: imports the project's components (its default export, an object of
 * components by name) and exports `render`. It lives beside the components file so that relative
 * imports and node_modules resolve from there.
 */
function entryPlugin(file: string): Plugin {
  const contents = `import components from ${JSON.stringify(file)};

export function render(name, shadowRootId) {
  const root = document.getElementById(shadowRootId)?.shadowRoot;
  if (!root) throw new Error("generative UI: no shadow root on #" + shadowRootId);
  const component = components[name];
  if (component == null) throw new Error("generative UI: no component " + JSON.stringify(name) + " in " + ${JSON.stringify(basename(file))});
  const target = document.createElement("div");
  root.appendChild(target);
  globalThis[Symbol.for("LGUI_EXT_STORE")].respond(shadowRootId, component, target);
}
`;
  return {
    name: "agent-server-ui-entry",
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /^agent-server:ui-entry$/ }, () => ({ path: ENTRY, namespace: "ui-entry" }));
      pluginBuild.onLoad({ filter: /.*/, namespace: "ui-entry" }, () => ({ contents, loader: "tsx", resolveDir: dirname(file) }));
    },
  };
}

/**
 * How the script takes the page's copy of a shared package: one function at the top of the script
 * (esbuild's banner, emitted verbatim), reading `globalThis[Symbol.for("LGUI_REQUIRE")]`, which the
 * SDK's `bootstrapUiContext()` sets. `var`, not `const`: every UI script on a page declares it again.
 * Its `$` keeps it apart from every agent's global (`uiGlobalName`).
 */
const SHARED_LOADER = "__LGUI$require";
const SHARED_LOADER_BANNER = `var ${SHARED_LOADER} = function (name) {
  var load = globalThis[Symbol.for("LGUI_REQUIRE")];
  if (typeof load !== "function") {
    throw new Error("generative UI: the page shares no modules (call bootstrapUiContext() of @langchain/langgraph-sdk/react-ui), so " + name + " is missing");
  }
  return load(name);
};`;

/** Imports of a shared package, or of one of its subpaths (e.g. "react/jsx-runtime"), go to the page's copy. */
function sharedPlugin(shared: readonly string[]): Plugin {
  const names = shared.map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")).join("|");
  const filter = new RegExp(`^(${names})(/.*)?$`);
  return {
    name: "agent-server-ui-shared",
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter }, (args) => ({ path: args.path, namespace: "ui-shared" }));
      pluginBuild.onLoad({ filter: /.*/, namespace: "ui-shared" }, (args) => ({
        loader: "js",
        contents: `module.exports = ${SHARED_LOADER}(${JSON.stringify(args.path)});`,
      }));
    },
  };
}

function formatMessage(message: Message): string {
  const at = message.location ? `${message.location.file}:${message.location.line}:${message.location.column}: ` : "";
  return `${at}${message.text}`;
}
