// tabwire:execute — runs one third-party tool and makes its result JSON-safe.
//
// An expression: an async function (registry, serialize, toolName, groupName, args,
// paths, elements, limits) returning an array the extension reads by reference:
//   ['ok', text, ...nodes]  the result (see serialize.js) and the nodes it mentions;
//   ['threw', text]         the tool threw: message and stack;
//   ['notFound', '']        no tool of that name (in that group).
// `registry` is what discover.js returned. Before the call, each element the agent
// passed by uid is put back into `args`: paths[i] is where elements[i] goes (a list
// of keys and indexes; an empty path means `args` is the element itself).
(async function tabwireExecute(registry, serialize, toolName, groupName, args, paths, elements, limits) {
  'use strict';
  const T = registry.T;
  const H = registry.H;
  const { put } = H;
  let input = args;
  for (let i = 0; i < paths.length; i++) {
    const path = paths[i];
    if (path.length === 0) {
      input = elements[i];
      continue;
    }
    let container = input;
    for (let j = 0; j < path.length - 1; j++) container = container[path[j]];
    container[path[path.length - 1]] = elements[i];
  }

  let tool = null;
  const groups = registry.groups;
  for (let g = 0; g < groups.length && tool === null; g++) {
    if (groupName !== null && groups[g].name !== groupName) continue;
    const tools = groups[g].tools;
    for (let t = 0; t < tools.length; t++) {
      if (tools[t].name === toolName) {
        tool = tools[t];
        break;
      }
    }
  }
  if (tool === null) return ['notFound', ''];

  let result;
  try {
    result = await T.apply(tool.execute, tool.self, [input]);
  } catch (error) {
    return ['threw', H.trimStack(H.describeError(error))];
  }
  const safe = serialize(T, H, result, limits);
  const out = ['ok', safe.text];
  for (let i = 0; i < safe.elements.length; i++) put(out, safe.elements[i]);
  return out;
})
