// tabwire:schema — a tool's inputSchema copied as plain JSON text, strictly.
//
// An expression: a function (T, H, value, limits) returning {text} or {error}.
// Unlike a result, a schema must be JSON already: a function, a symbol, a bigint, a
// non-finite number, a class instance (Date, Map, ...), a cycle, a getter that throws,
// nesting deeper than limits.depth or text longer than limits.total make it invalid,
// and the error says what was found where. `undefined` members are left out of
// objects and become null in arrays, as JSON.stringify does.
(function tabwireSchema(T, H, root, limits) {
  'use strict';
  const { quote, number, message, typeName, protoOf, className, isPlain } = H;
  let failure = null;
  const stop = (what, path) => {
    failure = what + ' at ' + (path === '' ? 'its top level' : path);
    throw failure;
  };
  const inside = [];
  let insideCount = 0;
  let out = '';

  const walk = (value, path, depth) => {
    if (out.length > limits.total) stop('more than ' + limits.total + ' characters of JSON', path);
    switch (typeof value) {
      case 'string': out += quote(value); return;
      case 'boolean': out += value ? 'true' : 'false'; return;
      case 'number':
        if (!T.isFinite(value)) stop('the number ' + T.String(value), path);
        out += number(value);
        return;
      case 'undefined': out += 'null'; return;
      case 'object': break;
      default: stop(typeName(value), path);
    }
    if (value === null) {
      out += 'null';
      return;
    }
    for (let i = 0; i < insideCount; i++) {
      if (inside[i] === value) stop('a circular reference', path);
    }
    if (depth >= limits.depth) stop('nesting deeper than ' + limits.depth + ' levels', path);
    H.store(inside, insideCount++, value);
    const read = (key, at) => {
      try {
        return value[key];
      } catch (e) {
        return stop('a getter that threw (' + message(e) + ')', at);
      }
    };
    if (T.isArray(value)) {
      out += '[';
      const length = value.length;
      for (let i = 0; i < length; i++) {
        if (i > 0) out += ',';
        const at = path + '[' + i + ']';
        walk(read(i, at), at, depth + 1);
      }
      out += ']';
    } else {
      const proto = protoOf(value);
      if (!isPlain(proto)) stop('a ' + (proto === undefined ? 'unreadable' : className(proto)) + ' object', path);
      out += '{';
      const keys = T.keys(value);
      let first = true;
      for (let i = 0; i < keys.length; i++) {
        const at = path === '' ? keys[i] : path + '.' + keys[i];
        const item = read(keys[i], at);
        if (item === undefined) continue;
        if (!first) out += ',';
        first = false;
        out += quote(keys[i]) + ':';
        walk(item, at, depth + 1);
      }
      out += '}';
    }
    insideCount--;
  };

  try {
    walk(root, '', 0);
    return { __proto__: null, text: out };
  } catch (e) {
    return { __proto__: null, error: failure !== null ? failure : message(e) };
  }
})
