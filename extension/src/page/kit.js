// tabwire:kit — tabwire's private object in one document: tool discovery and the tool
// runner, compiled once, and the registry of the last discovery.
//
// An expression: a function (global, T, helpers, copySchema, discover, serialize,
// execute) returning the kit. The extension makes it once per document (see page.rs,
// KIT), keeps it as a remote object in an object group of its own and never hands it
// to the page: nothing the page can reach refers to it. Its methods, called by
// reference from the extension:
//   discover(budgetMs, listeners, limits)  runs discover.js, keeps the registry it
//     returns (replacing the last one) and resolves to the report text;
//   execute(toolName, groupName, argsJson, paths, limits, elements)  runs execute.js on
//     the registry and resolves to {status, text, nodes}: plain data the extension reads
//     by value (`nodes` is how many nodes the result holds; they wait in the kit until
//     takeNodes());
//   takeNodes()  the last run's nodes (an array), handed over once.
(function tabwireKit(global, T, helpers, copySchema, discover, serialize, execute) {
  'use strict';
  const H = helpers(T);
  let registry = null;
  let nodes = [];
  // Prototype-less, like everything handed back here: resolving a promise with it
  // looks for no `then` the page could have put on Object.prototype.
  return {
    __proto__: null,
    discover: async (budgetMs, listeners, limits) => {
      const found = await discover(global, T, H, copySchema, budgetMs, listeners, limits);
      registry = found;
      return found.report;
    },
    execute: async (toolName, groupName, argsJson, paths, limits, elements) => {
      nodes = [];
      if (registry === null) return { __proto__: null, status: 'notFound', text: '', nodes: 0 };
      const out = await execute(registry, serialize, toolName, groupName, argsJson, paths, elements, limits);
      const kept = [];
      for (let i = 2; i < out.length; i++) H.put(kept, out[i]);
      nodes = kept;
      return { __proto__: null, status: out[0], text: out[1], nodes: kept.length };
    },
    takeNodes: () => {
      const taken = nodes;
      nodes = [];
      return taken;
    },
  };
})
