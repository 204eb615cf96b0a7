import dagre from "@dagrejs/dagre";
import { useMemo, useState } from "preact/hooks";
import { html } from "./ui.js";

const SPECIAL = new Set(["__start__", "__end__"]);

/**
 * The graph of `/assistants/{id}/graph?xray=true` as nodes and edges to draw. Folded, every node of a
 * subgraph (`parent:child`) stands for its parent; edges between the same two drawn nodes are drawn once.
 */
export function foldGraph(graph, folded) {
  const shown = (id) => (folded && id.includes(":") ? id.split(":")[0] : id);
  const nodes = new Map();
  for (const node of graph?.nodes ?? []) {
    const id = shown(String(node.id));
    const inner = id !== String(node.id);
    const existing = nodes.get(id);
    nodes.set(id, { id, subgraph: Boolean(existing?.subgraph || inner), label: node.name ?? node.data?.name ?? id });
  }
  const edges = new Map();
  for (const edge of graph?.edges ?? []) {
    const source = shown(String(edge.source));
    const target = shown(String(edge.target));
    if (source === target) continue;
    for (const end of [source, target]) if (!nodes.has(end)) nodes.set(end, { id: end, subgraph: false, label: end });
    const key = `${source}\u0000${target}`;
    const seen = edges.get(key);
    edges.set(key, {
      source,
      target,
      conditional: Boolean(edge.conditional) && (seen ? seen.conditional : true),
      label: typeof edge.data === "string" ? edge.data : undefined,
    });
  }
  return { nodes: [...nodes.values()], edges: [...edges.values()] };
}

function layout({ nodes, edges }) {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: "TB", nodesep: 30, ranksep: 40, marginx: 12, marginy: 12 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const node of nodes) g.setNode(node.id, { width: Math.max(70, node.label.length * 7.5 + 24), height: 34 });
  for (const edge of edges) g.setEdge(edge.source, edge.target);
  dagre.layout(g);
  const { width = 200, height = 100 } = g.graph();
  return {
    width,
    height,
    nodes: nodes.map((n) => ({ ...n, ...g.node(n.id) })),
    edges: edges.map((e) => ({ ...e, points: g.edge(e.source, e.target)?.points ?? [] })),
  };
}

/**
 * The drawing: an image named "Graph of <graph id>", one group per node named by the node. `active` is
 * the node running now, `visited` the ones that ran in this run.
 */
export function GraphDrawing({ graph, graphId, active, visited = [] }) {
  const [folded, setFolded] = useState(true);
  const hasSubgraphs = (graph?.nodes ?? []).some((n) => String(n.id).includes(":"));
  const drawn = useMemo(() => {
    try {
      return { ok: layout(foldGraph(graph, folded)) };
    } catch (error) {
      return { error };
    }
  }, [graph, folded]);
  if (drawn.error) return html`<div class="error" role="alert">The graph could not be drawn: ${drawn.error.message}</div>`;
  const { width, height, nodes, edges } = drawn.ok;
  const activeRoot = active ? (folded ? String(active).split(":")[0] : active) : undefined;
  const visitedRoots = new Set(visited.map((v) => (folded ? String(v).split(":")[0] : v)));
  return html`<div class="graph">
    ${
      hasSubgraphs &&
      html`<button type="button" class="secondary" aria-pressed=${!folded} onClick=${() => setFolded(!folded)}>
        ${folded ? "Unfold subgraphs" : "Fold subgraphs"}
      </button>`
    }
    <svg role="img" aria-label=${`Graph of ${graphId}`} viewBox=${`0 0 ${width} ${height}`} width=${width} height=${height}>
      <defs>
        <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
          <path d="M 0 0 L 10 5 L 0 10 z" fill="#6e7781" />
        </marker>
      </defs>
      ${edges.map(
        (e) =>
          html`<g class=${`edge${e.conditional ? " conditional" : ""}`} data-source=${e.source} data-target=${e.target}>
            <path d=${e.points.map((p, i) => `${i ? "L" : "M"}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(" ")} marker-end="url(#arrow)" />
          </g>`,
      )}
      ${nodes.map((n) => {
        const classes = ["node"];
        if (SPECIAL.has(n.id)) classes.push("special");
        if (n.subgraph) classes.push("subgraph");
        if (visitedRoots.has(n.id)) classes.push("visited");
        if (activeRoot === n.id) classes.push("active");
        return html`<g
          class=${classes.join(" ")}
          data-node=${n.id}
          aria-label=${n.id}
          aria-current=${activeRoot === n.id ? "step" : undefined}
        >
          <title>${n.id}${n.subgraph ? " (subgraph)" : ""}</title>
          <rect x=${n.x - n.width / 2} y=${n.y - n.height / 2} width=${n.width} height=${n.height} rx=${SPECIAL.has(n.id) ? 17 : 6} />
          <text x=${n.x} y=${n.y + 4} text-anchor="middle">${n.id}</text>
        </g>`;
      })}
    </svg>
    <p class="note">Solid edges always run; dashed edges are conditional.${hasSubgraphs ? " Dotted boxes are subgraphs." : ""}</p>
  </div>`;
}
