/**
 * langgraph-a2a.json `a2a.extended_card`: what an authenticated caller sees besides the public card
 * (A2A v1.0 JSON in, v1.0 JSON out).
 */
export function extendCard(card: Record<string, unknown>, context: { user: { identity: string } | null }): Record<string, unknown> {
  const identity = context.user?.identity ?? "nobody";
  return {
    ...card,
    description: `${String(card.description)} Signed in as ${identity}.`,
    skills: [
      ...(card.skills as unknown[]),
      { id: "account", name: "Account", description: `The account of ${identity}`, tags: ["account"] },
    ],
  };
}
