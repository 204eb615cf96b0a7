import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";

/** Custom auth (langgraph.json `auth.path`): a request needs `x-api-key: fixture-secret`. */
export const auth = new Auth().authenticate(async (request: Request) => {
  if (request.headers.get("x-api-key") !== "fixture-secret") throw new HTTPException(401, { message: "bad api key" });
  return { identity: "fixture-user", permissions: [] };
});
