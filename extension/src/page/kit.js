// tabwire:kit — tabwire's private object in one document: tool discovery and the tool
// runner, compiled once, and the registry of the last discovery.
//
// An expression: a function (global, T, helpers, copySchema, discover, serialize,
// splice, execute) returning the kit. The extension makes it once per document (see page.rs,
// KIT), keeps it as a remote object in an object group of its own and never hands it
// to the page: nothing the page can reach refers to it. Its methods, called by
// reference from the extension:
//   discover(budgetMs, listeners, limits)  runs discover.js, keeps the registry it
//     returns (replacing the last one) and resolves to the report text;
//   execute(toolName, groupName, argsJson, paths, limits, elements)  runs execute.js on
//     the registry and resolves to {status, text, nodes, run}: plain data the extension
//     reads by value (`nodes` is how many nodes the result holds; they wait in the kit,
//     filed under the run's number `run`, until takeNodes(run));
//   takeNodes(run)  that run's nodes (an array), handed over once. A run the extension
//     gave up on (timed out) may finish while another one is between its execute and
//     its takeNodes: each run's nodes are its own, so it never gets another's.
//
// Nothing the page can reach runs on the kit's own objects: every promise of ours is
// guarded (helpers.js, guard) before it is awaited or handed to Chrome, whose `then`
// reads its `constructor`; what a promise resolves to is a string or prototype-less
// (resolving looks for a `then`); the helpers and the registry are frozen.
(function tabwireKit(global, T, helpers, copySchema, discover, serialize, splice, execute) {
  'use strict';
  const H = helpers(T);
  H.freeze(H);
  const { guard, freeze, put } = H;
  let registry = null;
  // Nodes waiting for takeNodes, by run number; only the last KEPT runs' are kept (a
  // run whose nodes are never taken, because the extension gave up on it, is let go).
  const KEPT = 16;
  const waiting = { __proto__: null };
  let runs = 0;

  const keep = (found) => {
    const groups = found.groups;
    for (let g = 0; g < groups.length; g++) {
      const tools = groups[g].tools;
      for (let t = 0; t < tools.length; t++) freeze(tools[t]);
      freeze(tools);
      freeze(groups[g]);
    }
    freeze(groups);
    return freeze(found);
  };

  return freeze({
    __proto__: null,
    discover: (budgetMs, listeners, limits) => guard((async () => {
      const found = await guard(discover(global, T, H, copySchema, budgetMs, listeners, limits));
      registry = keep(found);
      return found.report;
    })()),
    execute: (toolName, groupName, argsJson, paths, limits, elements) => guard((async () => {
      const run = ++runs;
      if (registry === null) return { __proto__: null, status: 'notFound', text: '', nodes: 0, run };
      const out = await guard(execute(registry, serialize, splice, toolName, groupName, argsJson, paths, elements, limits));
      const kept = [];
      for (let i = 0; i < out.nodes.length; i++) put(kept, out.nodes[i]);
      if (kept.length > 0) {
        waiting[run] = kept;
        delete waiting[run - KEPT];
      }
      return { __proto__: null, status: out.status, text: out.text, nodes: kept.length, run };
    })()),
    takeNodes: (run) => {
      const taken = waiting[run];
      delete waiting[run];
      return taken === undefined ? [] : taken;
    },
  });
})
