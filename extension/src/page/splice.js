// tabwire:splice — puts elements into a JSON value, for evaluate_script arguments
// that hold `{"uid": ...}` below their top level.
//
// An expression: a function (value, paths, elements) returning the value with
// elements[i] at paths[i] (a list of keys and indexes). The extension passes the
// result, by reference, as the argument of the agent's function.
(function tabwireSplice(value, paths, elements) {
  'use strict';
  let out = value;
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
