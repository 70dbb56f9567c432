// tabwire:splice — builds an argument in the page: from JSON text (chrome.debugger
// drops `null` members of objects passed by value, so arguments holding nulls travel
// as text), with elements put in where the agent passed `{"uid": ...}`. Used for an
// evaluate_script argument (page.rs, SPLICE) and a third-party tool's input
// (execute.js).
//
// An expression: a function (parse, json, paths, elements) returning `parse(json)`
// (a pristine JSON.parse) with elements[i] at paths[i] (a list of keys and indexes;
// an empty path means the value is the element itself).
(function tabwireSplice(parse, json, paths, elements) {
  'use strict';
  let out = parse(json);
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
