// tabwire:pristine — the builtins tabwire's page scripts use, captured before the
// page can replace them.
//
// An expression: a function of the page's global object that returns a frozen,
// prototype-less holder of builtins. The extension runs it in the main world of every new document before
// the page's own scripts (Page.addScriptToEvaluateOnNewDocument), which stores the
// holder in a non-writable, non-configurable, non-enumerable `__tabwire` property of
// the global object. Later calls find it there. A document that loaded before the
// debugger attached has no holder yet: the builtins are then captured as they are
// (the best there is), and stored the same way.
(function tabwirePristine(global) {
  'use strict';
  const KEY = '__tabwire';
  try {
    const found = Object.getOwnPropertyDescriptor(global, KEY);
    if (found && found.value && found.value.tabwire === 3) return found.value;
  } catch (e) {
    // Fall through and capture what is there.
  }
  const O = Object;
  // Each builtin is captured on its own: one the page broke (before tabwire attached)
  // does not cost the others.
  const get = (read) => {
    try {
      return read();
    } catch (e) {
      return undefined;
    }
  };
  const getter = (proto, name) => get(() => O.getOwnPropertyDescriptor(proto, name).get);
  const typedArrayProto = get(() => Reflect.getPrototypeOf(Uint8Array.prototype));
  // An object literal: making it runs no page code.
  const T = {
    __proto__: null,
    tabwire: 3,
    apply: Reflect.apply,
    keys: get(() => O.keys),
    defineProperty: get(() => O.defineProperty),
    freeze: get(() => O.freeze),
    getOwnPropertyDescriptor: get(() => O.getOwnPropertyDescriptor),
    getPrototypeOf: get(() => Reflect.getPrototypeOf),
    ObjectProto: get(() => O.prototype),
    isArray: get(() => Array.isArray),
    // Kept only if they behave (a page that loaded before tabwire may have replaced
    // them); helpers.js has a fallback for quoting.
    stringify: get(() => (JSON.stringify('a"\n') === '"a\\"\\n"' ? JSON.stringify : undefined)),
    parse: get(() => (JSON.parse('[1]')[0] === 1 ? JSON.parse : undefined)),
    String: get(() => String),
    isFinite: get(() => Number.isFinite),
    charCodeAt: get(() => String.prototype.charCodeAt),
    slice: get(() => String.prototype.slice),
    indexOf: get(() => String.prototype.indexOf),
    lastIndexOf: get(() => String.prototype.lastIndexOf),
    toWellFormed: get(() => String.prototype.toWellFormed),
    byteLength: getter(ArrayBuffer.prototype, 'byteLength'),
    Uint8Array: get(() => Uint8Array),
    typedTag: getter(typedArrayProto, Symbol.toStringTag),
    typedLength: getter(typedArrayProto, 'length'),
    dateGetTime: get(() => Date.prototype.getTime),
    dateToISOString: get(() => Date.prototype.toISOString),
    regexpSource: getter(RegExp.prototype, 'source'),
    regexpFlags: getter(RegExp.prototype, 'flags'),
    Map: get(() => Map),
    mapGet: get(() => Map.prototype.get),
    mapSet: get(() => Map.prototype.set),
    mapSize: getter(Map.prototype, 'size'),
    mapForEach: get(() => Map.prototype.forEach),
    setSize: getter(Set.prototype, 'size'),
    setForEach: get(() => Set.prototype.forEach),
    Error: get(() => Error),
    ErrorProto: get(() => Error.prototype),
    isError: get(() => (typeof Error.isError === 'function' ? Error.isError : undefined)),
    symbolToString: get(() => Symbol.prototype.toString),
    bigintToString: get(() => BigInt.prototype.toString),
    nodeType: get(() => getter(Node.prototype, 'nodeType')),
    Promise: get(() => Promise),
    setTimeout: get(() => global.setTimeout),
    CustomEvent: get(() => global.CustomEvent),
    dispatchEvent: get(() => EventTarget.prototype.dispatchEvent),
    addEventListener: get(() => EventTarget.prototype.addEventListener),
    removeEventListener: get(() => EventTarget.prototype.removeEventListener),
    errorMessage: get(() => getter(ErrorEvent.prototype, 'message')),
    console: get(() => global.console),
    consoleError: get(() => global.console.error),
    // Watching the DOM (watch.js, wait-text.js).
    MutationObserver: get(() => global.MutationObserver),
    observe: get(() => global.MutationObserver.prototype.observe),
    disconnect: get(() => global.MutationObserver.prototype.disconnect),
    performance: get(() => global.performance),
    now: get(() => global.Performance.prototype.now),
    body: get(() => getter(global.Document.prototype, 'body')),
    innerText: get(() => getter(global.HTMLElement.prototype, 'innerText')),
    title: get(() => getter(global.Document.prototype, 'title')),
  };
  get(() => O.freeze(T));
  try {
    O.defineProperty(global, KEY, { __proto__: null, value: T });
  } catch (e) {
    // The page took the name first (or froze its global): use the holder unstored.
  }
  return T;
})
