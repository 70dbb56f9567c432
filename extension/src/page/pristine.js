// tabwire:pristine — the builtins tabwire's page scripts use, captured before the
// page can replace them.
//
// An expression: a function of the page's global object that returns a frozen holder
// of builtins. The extension runs it in the main world of every new document before
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
    if (found && found.value && found.value.tabwire === 1) return found.value;
  } catch (e) {
    // Fall through and capture what is there.
  }
  const O = Object;
  const getter = (proto, name) => {
    try {
      const descriptor = O.getOwnPropertyDescriptor(proto, name);
      return descriptor && descriptor.get;
    } catch (e) {
      return undefined;
    }
  };
  const typedArrayProto = O.getPrototypeOf(Uint8Array.prototype);
  const T = O.create(null);
  const keep = {
    __proto__: null,
    tabwire: 1,
    apply: Reflect.apply,
    keys: O.keys,
    defineProperty: O.defineProperty,
    getOwnPropertyDescriptor: O.getOwnPropertyDescriptor,
    getPrototypeOf: O.getPrototypeOf,
    freeze: O.freeze,
    ObjectProto: O.prototype,
    isArray: Array.isArray,
    stringify: JSON.stringify,
    parse: JSON.parse,
    String: String,
    isFinite: Number.isFinite,
    charCodeAt: String.prototype.charCodeAt,
    slice: String.prototype.slice,
    indexOf: String.prototype.indexOf,
    lastIndexOf: String.prototype.lastIndexOf,
    toWellFormed: String.prototype.toWellFormed,
    isView: ArrayBuffer.isView,
    byteLength: getter(ArrayBuffer.prototype, 'byteLength'),
    Uint8Array: Uint8Array,
    typedTag: getter(typedArrayProto, Symbol.toStringTag),
    typedLength: getter(typedArrayProto, 'length'),
    dateGetTime: Date.prototype.getTime,
    dateToISOString: Date.prototype.toISOString,
    regexpSource: getter(RegExp.prototype, 'source'),
    regexpFlags: getter(RegExp.prototype, 'flags'),
    Map: Map,
    mapGet: Map.prototype.get,
    mapSet: Map.prototype.set,
    mapSize: getter(Map.prototype, 'size'),
    mapForEach: Map.prototype.forEach,
    setSize: getter(Set.prototype, 'size'),
    setForEach: Set.prototype.forEach,
    Error: Error,
    ErrorProto: Error.prototype,
    isError: typeof Error.isError === 'function' ? Error.isError : undefined,
    symbolToString: Symbol.prototype.toString,
    bigintToString: BigInt.prototype.toString,
    nodeType: typeof Node === 'function' ? getter(Node.prototype, 'nodeType') : undefined,
    Promise: Promise,
    setTimeout: global.setTimeout,
    clearTimeout: global.clearTimeout,
    CustomEvent: global.CustomEvent,
    dispatchEvent: EventTarget.prototype.dispatchEvent,
    addEventListener: EventTarget.prototype.addEventListener,
    removeEventListener: EventTarget.prototype.removeEventListener,
    errorMessage: typeof ErrorEvent === 'function' ? getter(ErrorEvent.prototype, 'message') : undefined,
    console: global.console,
    consoleError: global.console && global.console.error,
  };
  const names = O.keys(keep);
  for (let i = 0; i < names.length; i++) {
    O.defineProperty(T, names[i], { __proto__: null, value: keep[names[i]], enumerable: true });
  }
  O.freeze(T);
  try {
    O.defineProperty(global, KEY, { __proto__: null, value: T });
  } catch (e) {
    // The page took the name first (or froze its global): use the holder unstored.
  }
  return T;
})
