// tabwire:execute — runs one third-party tool and makes its result JSON-safe.
//
// An expression: an async function (registry, serialize, splice, toolName, groupName,
// argsJson, paths, elements, limits) returning a prototype-less record {status, text,
// nodes} (kit.js hands the extension its status and text by value, and the nodes when
// asked):
//   status 'ok'        text is the result (see serialize.js), nodes the nodes it mentions;
//   status 'threw'     text is what the tool threw: message and stack;
//   status 'notFound'  no tool of that name (in that group).
// Prototype-less, because resolving this function's promise with an object looks up
// its `then`: through Array.prototype or Object.prototype, a page getter would be
// handed the record to rewrite.
// `registry` is what discover.js returned. The arguments come as JSON text
// (chrome.debugger drops `null` members of objects passed by value); each element the
// agent passed by uid is then put in by splice.js: paths[i] is where elements[i] goes.
// `groupName` is a string, or absent for "the first group that has the tool".
(async function tabwireExecute(registry, serialize, splice, toolName, groupName, argsJson, paths, elements, limits) {
  'use strict';
  const T = registry.T;
  const H = registry.H;
  const input = splice(T.parse, argsJson, paths, elements);

  let tool = null;
  const groups = registry.groups;
  for (let g = 0; g < groups.length && tool === null; g++) {
    if (typeof groupName === 'string' && groups[g].name !== groupName) continue;
    const tools = groups[g].tools;
    for (let t = 0; t < tools.length; t++) {
      if (tools[t].name === toolName) {
        tool = tools[t];
        break;
      }
    }
  }
  const outcome = (status, text, nodes) => ({ __proto__: null, status, text, nodes });
  if (tool === null) return outcome('notFound', '', []);

  let result;
  try {
    // Awaited without the page's Promise methods, and a plain object taken as it is
    // even if the page put a `then` on Object.prototype (helpers.js, settle).
    result = (await H.settle(T.apply(tool.execute, tool.self, [input]))).value;
  } catch (error) {
    return outcome('threw', H.trimStack(H.describeError(error)), []);
  }
  const safe = serialize(T, H, result, limits);
  return outcome('ok', safe.text, safe.elements);
})
