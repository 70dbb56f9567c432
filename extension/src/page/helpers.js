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

  /** What a guarded promise gives as its `constructor`: an object whose species is
   * the default, so `then` makes its promise with the pristine Promise. */
  const speciesless = { __proto__: null };
  if (T.species !== undefined) T.defineProperty(speciesless, T.species, { __proto__: null, value: undefined });
  if (T.freeze) T.freeze(speciesless);

  /** A promise of ours, made safe to `await` or hand to Chrome. `then` (Chrome's,
   * and the one `await` calls) reads the promise's `constructor` and that
   * constructor's `Symbol.species`, and `await` may look up `then` itself: through
   * Promise.prototype and Promise, where the page may have put getters (handed the
   * promise, and through it what it resolves to) or a `then` of its own. Own data
   * properties are found first and run no page code: a `constructor` without a
   * species, and the pristine `then`. */
  const guard = (promise) => {
    T.defineProperty(promise, 'constructor', { __proto__: null, value: speciesless });
    if (typeof T.promiseThen === 'function') {
      T.defineProperty(promise, 'then', { __proto__: null, value: T.promiseThen });
    }
    return promise;
  };

  /** `value.then` as `await` would find it, but for a `then` the page put on
   * Object.prototype: that one makes no object a thenable (else every plain object
   * handed over would be waited on by a `then` the page wrote). Reading it may
   * throw. */
  const thenOf = (value) => {
    let holder = value;
    for (let depth = 0; depth < 10000 && holder !== null; depth++) {
      if (holder === T.ObjectProto) return undefined;
      if (T.getOwnPropertyDescriptor(holder, 'then') !== undefined) return value.then;
      holder = T.getPrototypeOf(holder);
    }
    return holder === null ? undefined : value.then;
  };

  /** Waits for a value the page handed over (a tool's result, an answer to
   * respondWith) as `await` would, without the page's hands on it: a promise made
   * with the page's Promise is awaited (which calls none of its methods), another
   * promise through the pristine `then`, a thenable through its own `then` (see
   * thenOf), anything else is taken as it is. A guarded promise of
   * `{value}` (prototype-less: resolving with the value itself would look up its
   * `then` again); it rejects with what the page's promise rejects with or its
   * getters throw. */
  const settle = (value) => guard(new T.Promise((resolve, reject) => {
    const done = (settled) => resolve({ __proto__: null, value: settled });
    if (value === null || (typeof value !== 'object' && typeof value !== 'function')) {
      done(value);
      return;
    }
    if (value.constructor === T.Promise) {
      const wait = async () => {
        try {
          done(await value);
        } catch (e) {
          reject(e);
        }
      };
      wait();
      return;
    }
    try {
      call(T.promiseThen, value, [done, reject]);
      return;
    } catch (e) {
      // Not a promise (or one whose Promise the page broke): a thenable, or a value.
    }
    const then = thenOf(value);
    if (typeof then !== 'function') {
      done(value);
      return;
    }
    call(then, value, [(next) => call(T.promiseThen, settle(next), [resolve, reject]), reject]);
  }));

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

  /** How much of a thrown object's JSON an error shows. */
  const THROWN_JSON_CHARS = 4000;

  /** A thrown value as an agent should see it: the stack (which starts with the
   * message) for errors; an object without a stack as its JSON, after its name and
   * message when it has them; else the message. */
  const describeError = (error) => {
    const text = message(error);
    try {
      if (error !== null && typeof error === 'object') {
        const stack = error.stack;
        if (typeof stack === 'string' && stack !== '') {
          return stack.indexOf(text) >= 0 ? stack : text + '\n' + stack;
        }
        const json = T.stringify ? call(T.stringify, null, [error]) : undefined;
        if (typeof json === 'string' && json !== '{}') {
          const name = error.name;
          const said = typeof error.message === 'string'
            ? (typeof name === 'string' && name !== '' ? name + ': ' : '') + error.message + ' '
            : '';
          const shown = json.length > THROWN_JSON_CHARS
            ? call(T.slice, json, [0, THROWN_JSON_CHARS]) + '… (' + json.length + ' characters)'
            : json;
          return said + shown;
        }
      }
    } catch (e) {
      // No stack and no JSON to be had (a cycle, a getter that throws).
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
    __proto__: null, call, put, store, guard, thenOf, settle, freeze, quote, number, message, describeError, trimStack, typeName, protoOf, className, isPlain,
  };
})
