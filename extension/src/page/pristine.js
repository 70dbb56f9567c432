// tabwire:pristine — the builtins tabwire's page scripts use, captured before the
// page can replace them.
//
// An expression: a function of the page's global object that returns a frozen,
// prototype-less holder of builtins. The extension runs it in the main world of every new document before
// the page's own scripts (Page.addScriptToEvaluateOnNewDocument), which stores the
// holder in a non-writable, non-configurable, non-enumerable `__tabwire` property of
// the global object. Later calls find it there, by a plain read: an own data property
// that cannot change, so reading it calls nothing the page may have replaced (not
// even Object.getOwnPropertyDescriptor). A document that loaded before the debugger
// attached has no holder yet (what the read finds there is the page's doing, and only
// taken if it says it is a holder of this version): the builtins are then captured as
// they are (the best there is), and stored the same way. `tabwire` is the holder's
// version: a document keeps the holder it started with, so one made by an older
// extension, which lacks builtins this one uses, is not taken.
(function tabwirePristine(global) {
  'use strict';
  const KEY = '__tabwire';
  try {
    const found = global[KEY];
    if (found !== null && typeof found === 'object' && found.tabwire === 6) return found;
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
  const setter = (proto, name) => get(() => O.getOwnPropertyDescriptor(proto, name).set);
  const typedArrayProto = get(() => Reflect.getPrototypeOf(Uint8Array.prototype));
  // An object literal: making it runs no page code.
  const T = {
    __proto__: null,
    tabwire: 6,
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
    promiseThen: get(() => Promise.prototype.then),
    species: get(() => Symbol.species),
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
    getEntriesByType: get(() => global.Performance.prototype.getEntriesByType),
    body: get(() => getter(global.Document.prototype, 'body')),
    innerText: get(() => getter(global.HTMLElement.prototype, 'innerText')),
    title: get(() => getter(global.Document.prototype, 'title')),
    // Reading and setting form controls (control.js).
    trim: get(() => String.prototype.trim),
    toLowerCase: get(() => String.prototype.toLowerCase),
    Event: get(() => global.Event),
    localName: get(() => getter(global.Element.prototype, 'localName')),
    ownerDocument: get(() => getter(global.Node.prototype, 'ownerDocument')),
    getSelection: get(() => global.Document.prototype.getSelection),
    selectAllChildren: get(() => global.Selection.prototype.selectAllChildren),
    isContentEditable: get(() => getter(global.HTMLElement.prototype, 'isContentEditable')),
    inputType: get(() => getter(global.HTMLInputElement.prototype, 'type')),
    inputChecked: get(() => getter(global.HTMLInputElement.prototype, 'checked')),
    inputValue: get(() => getter(global.HTMLInputElement.prototype, 'value')),
    setInputValue: get(() => setter(global.HTMLInputElement.prototype, 'value')),
    inputSelect: get(() => global.HTMLInputElement.prototype.select),
    textAreaSelect: get(() => global.HTMLTextAreaElement.prototype.select),
    selectLength: get(() => getter(global.HTMLSelectElement.prototype, 'length')),
    selectItem: get(() => global.HTMLSelectElement.prototype.item),
    setSelectedIndex: get(() => setter(global.HTMLSelectElement.prototype, 'selectedIndex')),
    optionText: get(() => getter(global.HTMLOptionElement.prototype, 'text')),
    optionValue: get(() => getter(global.HTMLOptionElement.prototype, 'value')),
    // Clicking from the keyboard (keyclick.js).
    parentElement: get(() => getter(global.Node.prototype, 'parentElement')),
    getAttribute: get(() => global.Element.prototype.getAttribute),
    hasAttribute: get(() => global.Element.prototype.hasAttribute),
    matches: get(() => global.Element.prototype.matches),
    focus: get(() => global.HTMLElement.prototype.focus),
    getRootNode: get(() => global.Node.prototype.getRootNode),
    documentActiveElement: get(() => getter(global.Document.prototype, 'activeElement')),
    shadowActiveElement: get(() => getter(global.ShadowRoot.prototype, 'activeElement')),
  };
  get(() => O.freeze(T));
  try {
    O.defineProperty(global, KEY, { __proto__: null, value: T });
  } catch (e) {
    // The page took the name first (or froze its global): use the holder unstored.
  }
  return T;
})
