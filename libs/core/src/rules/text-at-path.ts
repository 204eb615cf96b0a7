/**
 * The texts at a JSON path of a store value, as LangGraph's in-memory store reads `index.fields`
 * (`@langchain/langgraph-checkpoint` store/utils `getTextAtPath`, which the package root does not export:
 * the root's `getTextAtPath` is an older one without `$`, `*` or `{a,b}`). Supported: `$` (the whole
 * value), `a.b`, `a[0]`, `a[-1]`, `a[*]`, `a.*`, `{a,b.c}`. Strings, numbers and booleans as text, objects
 * and arrays as indented JSON; a path that finds nothing gives no text.
 */
export function textsAtPath(value: unknown, path: string): string[] {
  if (!path || path === "$") return [JSON.stringify(value, null, 2)];
  return extract(value, tokenizePath(path), 0);
}

function asText(value: unknown): string[] {
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return [String(value)];
  if (value !== null && typeof value === "object") return [JSON.stringify(value, null, 2)];
  return [];
}

function extract(value: unknown, tokens: string[], pos: number): string[] {
  if (pos >= tokens.length) return asText(value);
  const token = tokens[pos]!;
  const results: string[] = [];
  if (pos === 0 && token === "$") results.push(JSON.stringify(value, null, 2));
  if (token.startsWith("[") && token.endsWith("]")) {
    if (!Array.isArray(value)) return [];
    const index = token.slice(1, -1);
    if (index === "*") for (const item of value) results.push(...extract(item, tokens, pos + 1));
    else {
      let i = Number.parseInt(index, 10);
      if (Number.isNaN(i)) return [];
      if (i < 0) i = value.length + i;
      if (i >= 0 && i < value.length) results.push(...extract(value[i], tokens, pos + 1));
    }
  } else if (token.startsWith("{") && token.endsWith("}")) {
    if (value === null || typeof value !== "object") return [];
    for (const field of token
      .slice(1, -1)
      .split(",")
      .map((f) => f.trim())) {
      let current: unknown = value;
      for (const part of tokenizePath(field)) {
        current =
          current !== null && typeof current === "object" && part in current ? (current as Record<string, unknown>)[part] : undefined;
        if (current === undefined) break;
      }
      if (current !== undefined) results.push(...asText(current));
    }
  } else if (token === "*") {
    const children = Array.isArray(value) ? value : value !== null && typeof value === "object" ? Object.values(value) : [];
    for (const child of children) results.push(...extract(child, tokens, pos + 1));
  } else if (value !== null && typeof value === "object" && token in value) {
    results.push(...extract((value as Record<string, unknown>)[token], tokens, pos + 1));
  }
  return results;
}

/** `"a.b[*].c{d,e}"` -> `["a", "b", "[*]", "c", "{d,e}"]`; brackets and braces nest. */
export function tokenizePath(path: string): string[] {
  const tokens: string[] = [];
  let current = "";
  let i = 0;
  while (i < path.length) {
    const char = path[i]!;
    if (char === "[" || char === "{") {
      if (current) tokens.push(current);
      current = "";
      const close = char === "[" ? "]" : "}";
      let depth = 1;
      let group = char;
      i += 1;
      while (i < path.length && depth > 0) {
        if (path[i] === char) depth += 1;
        else if (path[i] === close) depth -= 1;
        group += path[i];
        i += 1;
      }
      tokens.push(group);
      continue;
    }
    if (char === ".") {
      if (current) tokens.push(current);
      current = "";
    } else current += char;
    i += 1;
  }
  if (current) tokens.push(current);
  return tokens;
}
