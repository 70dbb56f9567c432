// tabwire:splice — builds an evaluate_script argument in the page: from JSON text
// (chrome.debugger drops `null` members of objects passed by value, so arguments
// holding nulls travel as text), with elements put in where the agent passed
// `{"uid": ...}`.
//
// An expression: a function (T, json, paths, elements) returning the parsed value
// with elements[i] at paths[i] (a list of keys and indexes). The extension passes
// the result, by reference, as the argument of the agent's function.
(function tabwireSplice(T, json, paths, elements) {
  'use strict';
  // The page's own JSON.parse only if it broke it before tabwire attached.
  let out = T.parse ? T.parse(json) : JSON.parse(json);
  for (let i = 0; i < paths.length; i++) {
    const path = paths[i];
    if (path.length === 0) {
      out = elements[i];
      continue;
    }
    let container = out;
    for (let j = 0; j < path.length - 1; j++) container = container[path[j]];
    container[path[path.length - 1]] = elements[i];
  }
  return out;
})
