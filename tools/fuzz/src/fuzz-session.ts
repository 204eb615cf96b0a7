import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { a2aHttpTargets, a2aJsonRpcTarget } from "./a2a-targets.js";
import { a2aBulkSweep } from "./a2a-bulk-sweep.js";
import { Campaign, type CampaignOptions, type CampaignReport } from "./campaign.js";
import { a2aGrpcTarget } from "./grpc-targets.js";
import { closeConnections } from "./http-exchange.js";
import { mcpTarget } from "./mcp-targets.js";
import { openApiTargets, type OpenApiDocument } from "./openapi-targets.js";
import { threadCommandTarget } from "./protocol-targets.js";
import type { FuzzTarget } from "./request-parts.js";
import type { GenContext } from "./schema-arbitraries.js";
import { startServerUnderTest, startSink, type ServerUnderTest } from "./server-under-test.js";
import { seedWorld, type World } from "./world.js";

/**
 * Every target: each OpenAPI operation, unrouted paths, the thread streaming protocol's commands, both A2A
 * JSON-RPC versions, each HTTP+JSON route, the A2A gRPC port and /mcp.
 */
export function allTargets(doc: OpenApiDocument, world: World): FuzzTarget[] {
  const ctx: GenContext = { world, components: doc.components?.schemas ?? {} };
  const [api, last] = splitLast(openApiTargets(doc, ctx));
  return [
    ...api,
    threadCommandTarget(ctx),
    a2aJsonRpcTarget(ctx, "1.0"),
    a2aJsonRpcTarget(ctx, "0.3"),
    ...a2aHttpTargets(ctx),
    a2aGrpcTarget(ctx),
    mcpTarget(ctx),
    ...last,
  ];
}

/** The truncate route stays last (see openapi-targets.ts). */
function splitLast(targets: FuzzTarget[]): [FuzzTarget[], FuzzTarget[]] {
  const index = targets.findIndex((t) => t.name === "POST /internal/truncate");
  return index < 0 ? [targets, []] : [targets.slice(0, index), targets.slice(index)];
}

/** A started server with its seeded world, ready for campaigns; `close` stops everything it started. */
export interface FuzzSession {
  server: ServerUnderTest;
  world: World;
  targets: FuzzTarget[];
  campaign(options: CampaignOptions, only?: (target: FuzzTarget) => boolean): Promise<CampaignReport>;
  /** `a2aBulkSweep`'s fixed requests (deep and wide input on every A2A binding) through the same oracles. */
  bulkSweep(options: CampaignOptions): Promise<CampaignReport>;
  close(): Promise<void>;
}

export async function openFuzzSession(options: { auth: boolean }): Promise<FuzzSession> {
  const dataDir = mkdtempSync(join(tmpdir(), "agent-server-fuzz-"));
  const sink = await startSink();
  let server: ServerUnderTest | undefined;
  try {
    server = await startServerUnderTest({ auth: options.auth, dataDir });
    const world = await seedWorld(server.url, options.auth, sink.url);
    // The first schema extraction of a graph takes seconds (it compiles the graph's TypeScript): done here,
    // it would spend a campaign's request limit and time budget on warming a cache.
    const headers = options.auth ? { "x-user": world.mine.user! } : undefined;
    await Promise.all(
      ["echo", "approval"].map((graph) => fetch(`${server!.url}/assistants/${graph}/schemas`, { headers }).then((r) => r.text())),
    );
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as OpenApiDocument;
    const targets = allTargets(doc, world);
    const started = server;
    const withCampaign = async (campaignOptions: CampaignOptions, use: (campaign: Campaign) => Promise<CampaignReport>) => {
      const campaign = new Campaign(started, world, campaignOptions);
      try {
        return await use(campaign);
      } finally {
        campaign.close();
      }
    };
    return {
      server: started,
      world,
      targets,
      campaign: (campaignOptions, only) => withCampaign(campaignOptions, (campaign) => campaign.run(only ? targets.filter(only) : targets)),
      bulkSweep: (campaignOptions) =>
        withCampaign(campaignOptions, (campaign) => campaign.sweep("A2A deep and wide input", a2aBulkSweep(world))),
      async close() {
        closeConnections();
        await started.stop();
        await sink.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await server?.stop();
    await sink.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}
