import { readdirSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { InvalidInputError } from "@agent-server/core";
import { VERSION } from "../version.js";
import { displayPath, shellWord, writeGeneratedFiles, type GeneratedFile } from "./files.js";

/**
 * `agent-server new <dir>`: the smallest project `agent-server dev` runs, with a graph that answers
 * without an LLM (so it works offline and without keys). Refuses a folder that exists and is not empty.
 */
export function writeNewProject(dirOption: string, out: (line: string) => void): void {
  const dir = resolve(dirOption);
  refuseNonEmpty(dir);
  const files = newProjectFiles(dir);
  writeGeneratedFiles(files, false);
  out(`Created a new agent-server project in ${displayPath(dir)}:`);
  for (const file of files) out(`  ${file.path.slice(dir.length + 1)}`);
  out("");
  out("Next:");
  out(`  cd ${shellWord(displayPath(dir))} && npm install`);
  out("  npx agent-server dev");
}

function refuseNonEmpty(dir: string): void {
  let entries: string[];
  try {
    if (!statSync(dir).isDirectory()) throw new InvalidInputError(`${displayPath(dir)} exists and is not a folder`);
    entries = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if (entries.length > 0) throw new InvalidInputError(`${displayPath(dir)} exists and is not empty: choose a new or empty folder`);
}

/** The project's files, `dir` absolute. */
export function newProjectFiles(dir: string): GeneratedFile[] {
  const name = packageName(basename(dir));
  const file = (path: string, content: string): GeneratedFile => ({ path: join(dir, path), content });
  return [
    file("package.json", json(packageJson(name))),
    file("langgraph.json", json({ node_version: "20", graphs: { agent: "./src/agent.ts:graph" }, env: ".env" })),
    file("src/agent.ts", AGENT_TS),
    file("README.md", readme(name)),
    file(".gitignore", ["node_modules/", ".agent-server/", "*.sqlite*", ".env", ""].join("\n")),
    file(".env.example", ENV_EXAMPLE),
  ];
}

/**
 * agent-server is a dependency, not a devDependency: `agent-server serve` is what runs in production,
 * so `npm ci --omit=dev` must keep it. The server brings tsx, which loads src/agent.ts as it is.
 * `allowScripts` (npm 11) approves the install scripts the server needs (better-sqlite3 builds its
 * binary, esbuild installs its own) and declines protobufjs's, which the server does not need.
 */
function packageJson(name: string): object {
  return {
    name,
    private: true,
    type: "module",
    scripts: { dev: "agent-server dev", start: "agent-server serve" },
    dependencies: {
      "@langchain/core": "^1.4.0",
      "@langchain/langgraph": "^1.7.3",
      "@langchain/langgraph-checkpoint": "^1.2.2",
      "agent-server": `^${VERSION}`,
    },
    allowScripts: { "better-sqlite3": true, esbuild: true, protobufjs: false },
  };
}

/** An npm package name from a folder name: lower case, URL-safe, never starting with "." or "_". */
export function packageName(folder: string): string {
  const name = folder
    .toLowerCase()
    .replace(/[^a-z0-9._~-]+/g, "-")
    .replace(/^[._-]+|-+$/g, "");
  return name || "agent-project";
}

function json(value: object): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

const AGENT_TS = `import { AIMessage } from "@langchain/core/messages";
import { MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";

/**
 * Answers "You said: <your last message>". It calls no model, so it runs offline and without keys:
 * replace the "respond" node with a call to your model (for example ChatOpenAI from @langchain/openai).
 */
export const graph = new StateGraph(MessagesAnnotation)
  .addNode("respond", (state) => {
    const lastHuman = state.messages.filter((message) => message.getType() === "human").at(-1);
    return { messages: [new AIMessage(\`You said: \${lastHuman?.text ?? ""}\`)] };
  })
  .addEdge(START, "respond")
  .compile();
`;

const ENV_EXAMPLE = `# Copy this file to .env: langgraph.json loads it into the graph's environment.
# Keys your graph needs, for example:
# OPENAI_API_KEY=
`;

function readme(name: string): string {
  return `# ${name}

A LangGraph project served by [agent-server](https://www.npmjs.com/package/agent-server).

\`\`\`sh
npm install
npx agent-server dev
\`\`\`

The API listens on http://localhost:2024 (interactive docs at http://localhost:2024/docs); the graph is
\`agent\`, in \`src/agent.ts\`, and the server restarts when you change it. Any LangGraph client works, for
example \`@langchain/langgraph-sdk\`:

\`\`\`ts
import { Client } from "@langchain/langgraph-sdk";

const client = new Client({ apiUrl: "http://localhost:2024" });
const state = await client.runs.wait(null, "agent", { input: { messages: [{ role: "user", content: "hi" }] } });
\`\`\`

\`dev\` keeps threads and runs in SQLite under \`.agent-server/\`.

## Container

\`\`\`sh
npx agent-server dockerfile   # writes Dockerfile and .dockerignore
npx agent-server compose      # optional: compose.yaml with PostgreSQL and two API processes
\`\`\`
`;
}
