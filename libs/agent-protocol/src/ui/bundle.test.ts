import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InvalidInputError } from "@agent-server/core";
import { bundleUi, type UiAsset } from "./bundle.js";

let project: string;
beforeEach(() => {
  project = mkdtempSync(join(tmpdir(), "agent-server-ui-"));
});
afterEach(() => rmSync(project, { recursive: true, force: true }));

function write(path: string, content: string): void {
  mkdirSync(dirname(join(project, path)), { recursive: true });
  writeFileSync(join(project, path), content);
}

/** A package in the project's node_modules whose code carries `marker`, to see whether it was bundled. */
function writePackage(name: string, marker: string): void {
  write(`node_modules/${name}/package.json`, JSON.stringify({ name, main: "index.js" }));
  write(`node_modules/${name}/index.js`, `module.exports = { marker: ${JSON.stringify(marker)}, createElement() {} };\n`);
  write(`node_modules/${name}/jsx-runtime.js`, `module.exports = { jsx() { return ${JSON.stringify(marker)}; } };\n`);
}

const text = (asset: UiAsset | undefined) => new TextDecoder().decode(asset?.contents);

describe("bundleUi", () => {
  it("bundles the components, their relative imports, CSS and unshared packages; shared packages come from the page", async () => {
    writePackage("react", "BUNDLED-REACT");
    writePackage("chart-lib", "BUNDLED-CHART-LIB");
    writePackage("design-system", "BUNDLED-DESIGN-SYSTEM");
    write("src/format.ts", `export const format = (city: string) => "Weather in " + city.toUpperCase();\n`);
    write("src/weather.css", `.weather { color: rebeccapurple; }\n`);
    write(
      "src/ui.tsx",
      [
        `import "./weather.css";`,
        `import { useState } from "react";`,
        `import chart from "chart-lib";`,
        `import { Card } from "design-system";`,
        `import { format } from "./format";`,
        `const Weather = (props: { city: string }) => { useState(0); return <div className="weather">{format(props.city)}{chart.marker}{String(Card)}</div>; };`,
        `export default { weather: Weather };`,
      ].join("\n"),
    );

    const bundles = await bundleUi({ "my-agent": "./src/ui.tsx" }, { cwd: project, shared: ["design-system"] });
    const assets = bundles.get("my-agent")!;
    expect(assets.map((a) => [a.name, a.contentType]).sort()).toEqual([
      ["entrypoint.css", "text/css; charset=utf-8"],
      ["entrypoint.js", "text/javascript; charset=utf-8"],
    ]);
    const js = text(assets.find((a) => a.name === "entrypoint.js"));
    // An IIFE that defines the agent's global, with `render`.
    expect(js).toMatch(/^var __LGUI_my_agent = \(\(\) => \{/m);
    expect(js).toContain("function render(name, shadowRootId)");
    expect(js).toContain(`Symbol.for("LGUI_EXT_STORE")`);
    // Own code and an unshared package are inside; react (and its JSX runtime) and ui_config.shared are not.
    expect(js).toContain('"Weather in "');
    expect(js).toContain("BUNDLED-CHART-LIB");
    expect(js).not.toContain("BUNDLED-REACT");
    expect(js).not.toContain("BUNDLED-DESIGN-SYSTEM");
    expect(js).toContain(`globalThis[Symbol.for("LGUI_REQUIRE")]`);
    for (const shared of ["react", "react/jsx-runtime", "design-system"]) expect(js).toContain(`__LGUI$require("${shared}")`);
    expect(text(assets.find((a) => a.name === "entrypoint.css"))).toContain("rebeccapurple");
  });

  it("bundles each agent under its own global", async () => {
    write("a.tsx", `export default { a: () => <b>a</b> };\n`);
    write("b.tsx", `export default { b: () => <i>b</i> };\n`);
    const bundles = await bundleUi({ alpha: "./a.tsx", "beta.v2": "b.tsx" }, { cwd: project });
    expect([...bundles.keys()]).toEqual(["alpha", "beta.v2"]);
    expect(text(bundles.get("alpha")!.find((a) => a.name === "entrypoint.js"))).toMatch(/^var __LGUI_alpha = /m);
    expect(text(bundles.get("beta.v2")!.find((a) => a.name === "entrypoint.js"))).toMatch(/^var __LGUI_beta_v2 = /m);
    expect(bundles.get("alpha")!.map((a) => a.name)).toEqual(["entrypoint.js"]);
  });

  it("refuses a file that does not bundle, naming the agent, the file and the line", async () => {
    write("ui.tsx", `export default {\n  Broken: () => { const x = ; },\n};\n`);
    const failure = bundleUi({ agent: "./ui.tsx" }, { cwd: project });
    await expect(failure).rejects.toThrow(InvalidInputError);
    await expect(failure).rejects.toThrow(
      new RegExp(`^ui\\.agent: cannot bundle ${join(project, "ui.tsx")}: ui\\.tsx:2:\\d+: Unexpected ";"$`),
    );
  });

  it("refuses components without a default export, an unresolvable import, a missing file and a path outside the project", async () => {
    write("named.tsx", `export const Weather = () => null;\n`);
    await expect(bundleUi({ agent: "./named.tsx" }, { cwd: project })).rejects.toThrow(/ui\.agent: cannot bundle .*named\.tsx: .*default/);
    write("imports.tsx", `import x from "not-installed-anywhere";\nexport default { x };\n`);
    await expect(bundleUi({ agent: "./imports.tsx" }, { cwd: project })).rejects.toThrow(
      /imports\.tsx:1:\d+: Could not resolve "not-installed-anywhere"/,
    );
    await expect(bundleUi({ agent: "./missing.tsx" }, { cwd: project })).rejects.toThrow(
      `ui.agent: file not found: ${join(project, "missing.tsx")}`,
    );
    await expect(bundleUi({ agent: "../elsewhere/ui.tsx" }, { cwd: project })).rejects.toThrow(
      /ui\.agent: \.\.\/elsewhere\/ui\.tsx is outside the project folder/,
    );
  });
});
