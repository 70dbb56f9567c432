// tabwire:serialize — a third-party tool's result as JSON text an agent can read.
//
// An expression: a function (T, H, value, limits) returning {text, elements}. The
// text is JSON except that each DOM node is written as `@<index into elements>`
// (outside any string, so page data can never forge one); the extension swaps those
// for `{"uid": ...}`. Rules, the reference's first:
//   a DOM node → its element; an array → element-wise; an object met again while
//   inside itself → "<Circular reference>"; an object whose prototype is not
//   Object.prototype (or null) → "<ClassName instance>"; a function →
//   "<Function object>"; strings, finite numbers, booleans, null → as they are.
// And ours: undefined → left out of objects, null in arrays and at the top; a bigint →
//   "123n"; NaN and ±Infinity → "NaN", "Infinity", "-Infinity"; a Date → its ISO
//   string ("Invalid Date" if invalid); a Map → {"<Map>": [[k, v], ...]}; a Set →
//   {"<Set>": [v, ...]}; a typed array or ArrayBuffer → {"<Uint8Array>": [first 1,000
//   values], "length": n}; a RegExp → "/source/flags"; an Error → {"<Error>": {name,
//   message, stack}}; a symbol → "Symbol(description)"; a getter that throws →
//   "<Getter threw: message>"; nesting deeper than limits.depth → "<Too deep>";
//   a string whole, unless it would take the text past limits.total: then as much of
//   it as fits, saying how long it was; the whole text capped near limits.total, the
//   cut marked with "<Truncated: ...>".
(function tabwireSerialize(T, H, root, limits) {
  'use strict';
  const { call, put, quote, number, message, protoOf, className, isPlain } = H;
  const maxItems = 1000;
  let out = '';
  let full = false;
  const elements = [];
  const elementIndex = new T.Map();
  const inside = [];
  let insideCount = 0;

  const leaf = (text) => {
    if (full) {
      out += 'null';
      return;
    }
    if (out.length + text.length > limits.total) {
      full = true;
      out += quote('<Truncated: the result is longer than ' + limits.total +
        ' characters; the rest was left out>');
      return;
    }
    out += text;
  };

  /** Room kept past a cut string for its marker. */
  const markerRoom = 100;

  /** A string whole, or, where it would take the text past limits.total, as much as
   * fits, saying how long it was. */
  const string = (text) => {
    const room = limits.total - out.length - markerRoom;
    if (text.length <= room) return quote(text);
    let cut = room > 0 ? room : 0;
    const last = cut > 0 ? call(T.charCodeAt, text, [cut - 1]) : 0;
    if (last >= 0xd800 && last <= 0xdbff) cut -= 1;
    return quote(call(T.slice, text, [0, cut]) + '…<truncated: ' + text.length + ' characters in all>');
  };

  const isNode = (value, proto) => {
    if (T.nodeType === undefined || isPlain(proto)) return false;
    try {
      return typeof call(T.nodeType, value, []) === 'number';
    } catch (e) {
      return false;
    }
  };

  const elementToken = (node) => {
    let index = call(T.mapGet, elementIndex, [node]);
    if (index === undefined) {
      index = elements.length;
      put(elements, node);
      call(T.mapSet, elementIndex, [node, index]);
    }
    return '@' + index;
  };

  /** Reads `value[key]`; a getter that throws gives a marker string instead. */
  const read = (value, key) => {
    try {
      return value[key];
    } catch (e) {
      return '<Getter threw: ' + message(e) + '>';
    }
  };

  const write = (value, depth) => {
    if (full) return leaf('null');
    switch (typeof value) {
      case 'string': return leaf(string(value));
      case 'number':
        if (T.isFinite(value)) return leaf(number(value));
        return leaf(quote(value !== value ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity'));
      case 'boolean': return leaf(value ? 'true' : 'false');
      case 'undefined': return leaf('null');
      case 'bigint': return leaf(quote(call(T.bigintToString, value, []) + 'n'));
      case 'symbol': return leaf(quote(call(T.symbolToString, value, [])));
      case 'function': return leaf(quote('<Function object>'));
      default: break;
    }
    if (value === null) return leaf('null');
    let isArray;
    try {
      isArray = T.isArray(value);
    } catch (e) {
      return leaf(quote('<Unreadable value: ' + message(e) + '>'));
    }
    const proto = isArray ? undefined : protoOf(value);
    if (!isArray && isNode(value, proto)) return leaf(elementToken(value));
    for (let i = 0; i < insideCount; i++) {
      if (inside[i] === value) return leaf(quote('<Circular reference>'));
    }
    if (depth >= limits.depth) return leaf(quote('<Too deep>'));
    H.store(inside, insideCount++, value);
    try {
      if (isArray) writeArray(value, depth);
      else if (isPlain(proto)) writeObject(value, depth);
      else writeSpecial(value, proto, depth);
    } catch (e) {
      leaf(quote('<Unreadable value: ' + message(e) + '>'));
    } finally {
      insideCount--;
    }
  };

  const writeArray = (array, depth) => {
    const length = array.length;
    out += '[';
    for (let i = 0; i < length && !full; i++) {
      if (i > 0) out += ',';
      write(read(array, i), depth + 1);
    }
    out += ']';
  };

  const writeObject = (object, depth) => {
    const keys = T.keys(object);
    out += '{';
    let first = true;
    for (let i = 0; i < keys.length && !full; i++) {
      const item = read(object, keys[i]);
      if (item === undefined) continue;
      if (!first) out += ',';
      first = false;
      out += string(keys[i]) + ':';
      write(item, depth + 1);
    }
    out += '}';
  };

  /** `{"<tag>": [items], ...extra}` with items written by `each`. */
  const tagged = (tag, depth, each, extra) => {
    out += '{' + quote('<' + tag + '>') + ':[';
    let count = 0;
    each((item) => {
      if (full) return;
      if (count++ > 0) out += ',';
      write(item, depth + 2);
    });
    out += ']';
    if (extra !== undefined) out += ',' + extra;
    out += '}';
  };

  const writeSpecial = (value, proto, depth) => {
    const tag = T.typedTag && call(T.typedTag, value, []);
    if (typeof tag === 'string') {
      const length = call(T.typedLength, value, []);
      return tagged(tag, depth, (add) => {
        for (let i = 0; i < length && i < maxItems; i++) add(value[i]);
      }, '"length":' + length);
    }
    const bytes = attempt(T.byteLength, value);
    if (bytes !== NOT) {
      const view = new T.Uint8Array(value, 0, bytes < maxItems ? bytes : maxItems);
      return tagged('ArrayBuffer', depth, (add) => {
        for (let i = 0; i < view.length; i++) add(view[i]);
      }, '"length":' + bytes);
    }
    const time = attempt(T.dateGetTime, value);
    if (time !== NOT) {
      return leaf(quote(time !== time ? 'Invalid Date' : call(T.dateToISOString, value, [])));
    }
    const source = attempt(T.regexpSource, value);
    if (source !== NOT) return leaf(quote('/' + source + '/' + call(T.regexpFlags, value, [])));
    if (attempt(T.mapSize, value) !== NOT) {
      return tagged('Map', depth, (add) => {
        call(T.mapForEach, value, [(v, k) => add([k, v])]);
      });
    }
    if (attempt(T.setSize, value) !== NOT) {
      return tagged('Set', depth, (add) => {
        call(T.setForEach, value, [(v) => add(v)]);
      });
    }
    if (isError(value, proto)) {
      out += '{"<Error>":{';
      const fields = ['name', 'message', 'stack'];
      let first = true;
      for (let i = 0; i < 3 && !full; i++) {
        let item = read(value, fields[i]);
        if (item === undefined) continue;
        if (i === 2 && typeof item === 'string') item = H.trimStack(item);
        if (!first) out += ',';
        first = false;
        out += '"' + fields[i] + '":';
        write(item, depth + 2);
      }
      out += '}}';
      return;
    }
    return leaf(quote('<' + className(proto) + ' instance>'));
  };

  /** Calls a brand-checking builtin (a getter that throws on the wrong kind of
   * object); NOT if `value` is not of its kind. */
  const NOT = {};
  const attempt = (fn, value) => {
    if (fn === undefined) return NOT;
    try {
      return call(fn, value, []);
    } catch (e) {
      return NOT;
    }
  };

  const isError = (value, proto) => {
    if (T.isError) return call(T.isError, null, [value]);
    for (let p = proto, hops = 0; p !== null && p !== undefined && hops < 100; p = protoOf(p), hops++) {
      if (p === T.ErrorProto) return true;
    }
    return false;
  };

  write(root, 0);
  return { __proto__: null, text: out, elements };
})
