import ts from "typescript";

/** A node of a graph that may be a subgraph: the module-level names its `addNode` argument mentions. */
export interface SubgraphCandidate {
  /** `parent_node|child_node`, as LangGraph names subgraph namespaces. */
  namespace: string;
  /** Module-level variables or imports named in the node's argument, in source order. */
  names: string[];
}

/**
 * Finds, by syntax alone, where a graph export may embed subgraphs: every `.addNode("name", arg)` in the
 * export's initializer (or, when it adds no nodes itself, in the initializers of the module-level
 * variables it mentions), then recursively, with the namespace extended, in the initializers of the
 * module-level variables `arg` mentions. Which of those names really are graphs is for the type
 * checker to say; this only proposes them, so it costs no compiler program of its own.
 */
export function findSubgraphCandidates(fileName: string, sourceText: string, exportName: string): SubgraphCandidate[] {
  const source = ts.createSourceFile(fileName, sourceText, ts.ScriptTarget.Latest, true);
  const moduleNames = new Map<string, ts.Node | undefined>();
  const exportAliases = new Map<string, string>();
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name)) moduleNames.set(declaration.name.text, declaration.initializer);
      }
    } else if (ts.isImportDeclaration(statement) && statement.importClause && !statement.importClause.isTypeOnly) {
      const { name, namedBindings } = statement.importClause;
      if (name) moduleNames.set(name.text, undefined);
      if (namedBindings && ts.isNamedImports(namedBindings)) {
        for (const element of namedBindings.elements) if (!element.isTypeOnly) moduleNames.set(element.name.text, undefined);
      }
    } else if (
      ts.isExportDeclaration(statement) &&
      !statement.moduleSpecifier &&
      statement.exportClause &&
      ts.isNamedExports(statement.exportClause)
    ) {
      for (const element of statement.exportClause.elements) {
        exportAliases.set(element.name.text, (element.propertyName ?? element.name).getText(source));
      }
    }
  }
  const found: SubgraphCandidate[] = [];
  // Each module-level name is explored once per namespace: a module's references may form cycles.
  const explored = new Set<string>();
  const explore = (name: string, namespace: string[]) => {
    const key = `${namespace.join("|")}\u0000${name}`;
    const initializer = moduleNames.get(name);
    if (!initializer || explored.has(key)) return;
    explored.add(key);
    let addsNodes = false;
    const walk = (node: ts.Node) => {
      const call = addNodeCall(node);
      if (call) {
        addsNodes = true;
        const names = mentionedNames(call.arg, moduleNames);
        if (names.length > 0) {
          const childNamespace = [...namespace, call.name];
          found.push({ namespace: childNamespace.join("|"), names });
          for (const child of names) explore(child, childNamespace);
        }
      }
      ts.forEachChild(node, walk);
    };
    walk(initializer);
    // `export const graph = workflow.compile()`: the nodes are added where `workflow` is defined.
    if (!addsNodes) for (const mentioned of mentionedNames(initializer, moduleNames)) explore(mentioned, namespace);
  };
  explore(exportAliases.get(exportName) ?? exportName, []);
  return found;
}

function addNodeCall(node: ts.Node): { name: string; arg: ts.Node } | undefined {
  if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression)) return undefined;
  if (node.expression.name.text !== "addNode") return undefined;
  const [name, arg] = node.arguments;
  if (!name || !arg || !ts.isStringLiteralLike(name)) return undefined;
  return { name: name.text, arg };
}

function mentionedNames(node: ts.Node, moduleNames: Map<string, unknown>): string[] {
  const names: string[] = [];
  const walk = (child: ts.Node) => {
    // `x.compile()` mentions x; `obj.x` does not mention a module-level x.
    if (ts.isIdentifier(child) && moduleNames.has(child.text) && !isPropertyName(child) && !names.includes(child.text)) {
      names.push(child.text);
    }
    ts.forEachChild(child, walk);
  };
  walk(node);
  return names;
}

function isPropertyName(identifier: ts.Identifier): boolean {
  const parent = identifier.parent;
  return (
    (ts.isPropertyAccessExpression(parent) && parent.name === identifier) || (ts.isPropertyAssignment(parent) && parent.name === identifier)
  );
}
