// tabwire:keyclick — readies an element to be clicked from the keyboard.
//
// An expression: a function (T, H, el) of the pristine holder, the helpers and the
// element (page.rs, KEYCLICK, calls it on the element). Used where a mouse press would
// bring the user's window forward (engine/input/keyclick.rs). It finds what a press on
// `el` would activate: `el` or its nearest ancestor that is a link, a button, a
// <summary>, an <input> of type submit, button, reset, image, checkbox or radio, or an
// element with the role of one; and the key that clicks it, as browsers do: Enter for
// links, buttons and <summary>, Space for checkboxes and radios (Enter would submit
// their form). It focuses that element (which raises no window) and counts the click
// events that reach it (a listener on it, capture phase: also those aimed at its
// descendants). Returns `{read, stop}`: `read()` is `[key, what, native, trusted,
// clicks]`: the key ('Enter', 'Space', or '' when the keyboard cannot click it), what
// the element is for the agent ('a <div> element', 'a disabled <button> element'),
// whether the browser itself turns the key into a click (false for a role, where the
// page's own key handler must), and how many trusted click events, and click events at
// all, reached it since; `stop()` removes the listener. Every property is read through
// the builtins captured before the page ran (pristine.js).
(function tabwireKeyclick(T, H, el) {
  'use strict';
  const { call } = H;
  const str = (v) => (typeof v === 'string' ? v : '');
  const read = (get, self) => {
    try {
      return call(get, self, []);
    } catch (e) {
      return undefined;
    }
  };
  const method = (fn, self, args) => {
    try {
      return call(fn, self, args);
    } catch (e) {
      return undefined;
    }
  };
  const lower = (s) => call(T.toLowerCase, s, []);
  const ENTER_INPUTS = { __proto__: null, submit: true, button: true, reset: true, image: true };
  const SPACE_INPUTS = { __proto__: null, checkbox: true, radio: true };
  const ENTER_ROLES = { __proto__: null, button: true, link: true, menuitem: true, tab: true };
  const SPACE_ROLES = {
    __proto__: null, checkbox: true, switch: true, radio: true, menuitemcheckbox: true, menuitemradio: true,
  };
  const typeOf = (node) => lower(str(read(T.inputType, node)));
  /** The key with which the browser clicks `node`, '' if none. */
  const nativeKey = (node, tag) => {
    if ((tag === 'a' || tag === 'area') && method(T.hasAttribute, node, ['href']) === true) return 'Enter';
    if (tag === 'button' || tag === 'summary') return 'Enter';
    if (tag === 'input') {
      const type = typeOf(node);
      if (ENTER_INPUTS[type] === true) return 'Enter';
      if (SPACE_INPUTS[type] === true) return 'Space';
    }
    return '';
  };
  /** The key a page implementing `node`'s role (its first) handles, '' if none. */
  const roleKey = (node) => {
    let role = lower(call(T.trim, str(method(T.getAttribute, node, ['role'])), []));
    const space = call(T.indexOf, role, [' ']);
    if (space >= 0) role = call(T.slice, role, [0, space]);
    if (ENTER_ROLES[role] === true) return 'Enter';
    if (SPACE_ROLES[role] === true) return 'Space';
    return '';
  };
  const describe = (node, tag) => {
    if (tag === '') return 'not an element';
    return 'a <' + tag + (tag === 'input' ? ' type=' + typeOf(node) : '') + '> element';
  };

  let node = el;
  if (read(T.nodeType, node) !== 1) node = read(T.parentElement, node);
  const firstTag = str(read(T.localName, node));
  let what = describe(node, firstTag);
  let found = null;
  let key = '';
  let native = false;
  for (let depth = 0; node !== null && node !== undefined && depth < 64; depth++) {
    const tag = str(read(T.localName, node));
    key = nativeKey(node, tag);
    native = key !== '';
    if (key === '') key = roleKey(node);
    if (key !== '') {
      found = node;
      what = describe(node, tag);
      break;
    }
    node = read(T.parentElement, node);
  }
  if (found !== null && method(T.matches, found, [':disabled']) === true) {
    what = 'a disabled ' + call(T.slice, what, [2, what.length]);
    key = '';
  }
  const counts = [0, 0];
  const listener = (event) => {
    counts[1] += 1;
    if (event.isTrusted === true) counts[0] += 1;
  };
  // The focused element of `node`'s document or shadow root (`:focus` would also ask
  // that the window have the focus, which here it has not).
  const focused = (node) => {
    const root = method(T.getRootNode, node, []);
    const active = read(T.documentActiveElement, root);
    return active !== undefined ? active : read(T.shadowActiveElement, root);
  };
  if (key !== '') {
    method(T.focus, found, []);
    if (focused(found) !== found) {
      what = what + ' that cannot take the focus (hidden or inert)';
      key = '';
    } else {
      method(T.addEventListener, found, ['click', listener, true]);
    }
  }
  return {
    __proto__: null,
    read: () => [key, what, native, counts[0], counts[1]],
    stop: () => {
      if (key !== '') method(T.removeEventListener, found, ['click', listener, true]);
    },
  };
})
