// tabwire:helpers — small tools shared by tabwire's page scripts, built only on the
// pristine builtins (see pristine.js), never on what the page may have replaced.
//
// An expression: a function of the pristine holder returning the helpers.
(function tabwireHelpers(T) {
  'use strict';
  /** Calls `fn` with `self` as `this` (no Function.prototype.call involved). */
  const call = (fn, self, args) => T.apply(fn, self, args);

  /** Appends to an array we own without touching Array.prototype. */
  const put = (array, value) => {
    T.defineProperty(array, array.length, {
      __proto__: null, value, writable: true, enumerable: true, configurable: true,
    });
  };

  /** Sets `array[index]` on an array we own without calling setters the page put on
   * Array.prototype (or Object.prototype) for that index. */
  const store = (array, index, value) => {
    T.defineProperty(array, index, {
      __proto__: null, value, writable: true, enumerable: true, configurable: true,
    });
  };

  /** A promise of ours, made safe to `await` or hand to Chrome: `await` (and
   * `then`) read its `constructor`, which would otherwise be looked up on
   * Promise.prototype, where the page may have put a getter that is then handed the
   * promise itself (and through it, what it resolves to). An own data property
   * holding the pristine Promise is found first and runs no page code. */
  const guard = (promise) => {
    T.defineProperty(promise, 'constructor', { __proto__: null, value: T.Promise });
    return promise;
  };

  /** Freezes an object of ours (a no-op if the page broke Object.freeze before
   * tabwire attached). */
  const freeze = (object) => {
    if (T.freeze) T.freeze(object);
    return object;
  };

  /** A string as JSON text: well-formed (lone surrogates replaced) and quoted. */
  const quote = (text) => {
    let s = text;
    if (T.toWellFormed) s = call(T.toWellFormed, s, []);
    if (T.stringify) return call(T.stringify, null, [s]);
    // JSON.stringify was broken before tabwire attached: escape by hand.
    let out = '"';
    for (let i = 0; i < s.length; i++) {
      const c = call(T.charCodeAt, s, [i]);
      if (c === 34) out += '\\"';
      else if (c === 92) out += '\\\\';
      else if (c < 32) out += '\\u' + (c < 16 ? '000' : '00') + c.toString(16);
      else out += s[i];
    }
    return out + '"';
  };

  /** A finite number as JSON text. */
  const number = (value) => (T.stringify ? call(T.stringify, null, [value]) : '' + value);

  /** A thrown value's message, whatever was thrown. */
  const message = (error) => {
    try {
      if (error !== null && (typeof error === 'object' || typeof error === 'function')) {
        const text = error.message;
        if (typeof text === 'string') return text;
      }
      return T.String(error);
    } catch (e) {
      return 'an unprintable value';
    }
  };

  /** A thrown value as an agent should see it: the stack (which starts with the
   * message) for errors, else the message. */
  const describeError = (error) => {
    const text = message(error);
    try {
      if (error !== null && typeof error === 'object') {
        const stack = error.stack;
        if (typeof stack === 'string' && stack !== '') {
          return stack.indexOf(text) >= 0 ? stack : text + '\n' + stack;
        }
      }
    } catch (e) {
      // No stack to be had.
    }
    return text;
  };

  /** A stack without tabwire's own frames: everything from the line that names the
   * tool runner on is cut. */
  const trimStack = (text) => {
    try {
      const ours = call(T.indexOf, text, ['tabwireExecute']);
      const cut = ours < 0 ? -1 : call(T.lastIndexOf, text, ['\n', ours]);
      return cut < 0 ? text : call(T.slice, text, [0, cut]);
    } catch (e) {
      return text;
    }
  };

  /** `a string`, `an array`, `null`, ... for problem lines. */
  const typeName = (value) => {
    if (value === null) return 'null';
    if (value === undefined) return 'undefined';
    try {
      if (T.isArray(value)) return 'an array';
    } catch (e) {
      return 'an unreadable object';
    }
    const type = typeof value;
    return (type === 'object' || type === 'undefined' ? 'an ' : 'a ') + type;
  };

  /** The prototype of `value`, or `undefined` if it cannot be read. */
  const protoOf = (value) => {
    try {
      return T.getPrototypeOf(value);
    } catch (e) {
      return undefined;
    }
  };

  /** The name of the class `proto` belongs to, read without running page code. */
  const className = (proto) => {
    try {
      const ctor = T.getOwnPropertyDescriptor(proto, 'constructor');
      const fn = ctor && ctor.value;
      if (typeof fn === 'function') {
        const name = T.getOwnPropertyDescriptor(fn, 'name');
        if (name && typeof name.value === 'string' && name.value !== '') return name.value;
      }
    } catch (e) {
      // Unreadable: anonymous.
    }
    return 'anonymous class';
  };

  /** Whether an object is plain: made by `{}` or `Object.create(null)` in any frame. */
  const isPlain = (proto) => {
    if (proto === T.ObjectProto || proto === null) return true;
    if (proto === undefined) return false;
    return protoOf(proto) === null && className(proto) === 'Object';
  };

  return {
    __proto__: null, call, put, store, guard, freeze, quote, number, message, describeError, trimStack, typeName, protoOf, className, isPlain,
  };
})
