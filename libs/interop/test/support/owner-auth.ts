import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";

/**
 * The "resource owner" auth of the A2A auth tests: tokens alice, bob and carol; threads belong to their creator
 * (metadata.owner) and each user sees only their own; carol may not start conversations (a 403 with a message).
 */
export const ownerAuth = new Auth()
  .authenticate((request: Request) => {
    const token = request.headers.get("authorization")?.replace(/^Bearer /, "");
    if (!token || !["alice", "bob", "carol"].includes(token)) throw new HTTPException(401, { message: "Invalid token" });
    return { identity: token, permissions: [`role:${token}`] };
  })
  .on("threads:create", ({ value, user }) => {
    if (user.identity === "carol") throw new HTTPException(403, { message: "carol may not start conversations" });
    value.metadata ??= {};
    value.metadata.owner = user.identity;
    return { owner: user.identity };
  })
  .on("threads", ({ user }) => ({ owner: user.identity }));
