// tabwire:control — reads and sets form controls for `fill`.
//
// An expression: a function (T, H, el, op, value) of the pristine holder, the helpers
// and the element (page.rs, CONTROL, calls it on the element). `op` is `describe`
// (what kind of control it is), `selectAll` (select its text, before typing over it),
// `choose` (pick the <select> option whose trimmed text, else value, is `value`) or
// `set` (set an <input type=date|color|range|...> value through the native setter).
// Changes dispatch `input` and `change` as a user's would. Every property of the
// element is read, and every method called, through the builtins captured before the
// page ran (pristine.js), so a page that replaced them (or put setters on
// Array.prototype) changes nothing here. Everything read from the page is plain data;
// the extension checks it again.
(function tabwireControl(T, H, el, op, value) {
  'use strict';
  const { call, put } = H;
  const str = (v) => (typeof v === 'string' ? v : '');
  /** `el`'s property through a captured getter; '' or undefined where it has none
   * (a text node has no localName, an SVG element no isContentEditable). */
  const read = (get, self) => {
    try {
      return call(get, self, []);
    } catch (e) {
      return undefined;
    }
  };
  const tag = str(read(T.localName, el));
  const type = tag === 'input' ? call(T.toLowerCase, str(read(T.inputType, el)), []) : '';
  const VALUE_TYPES = {
    __proto__: null, date: true, 'datetime-local': true, month: true, time: true, week: true, color: true, range: true,
  };
  const OTHER_TYPES = { __proto__: null, button: true, submit: true, reset: true, image: true, hidden: true };
  const kind = () => {
    if (tag === 'textarea') return 'text';
    if (tag === 'select') return 'select';
    if (tag === 'input') {
      if (type === 'checkbox' || type === 'radio' || type === 'file') return type;
      if (VALUE_TYPES[type] === true) return 'value';
      if (OTHER_TYPES[type] === true) return 'other';
      return 'text';
    }
    if (read(T.isContentEditable, el) === true) return 'contenteditable';
    return 'other';
  };
  const fire = (name) => call(T.dispatchEvent, el, [new T.Event(name, { __proto__: null, bubbles: true })]);
  if (op === 'describe') {
    const checked = tag === 'input' && read(T.inputChecked, el) === true;
    return { __proto__: null, kind: kind(), tag, type, checked };
  }
  if (op === 'selectAll') {
    if (tag === 'input') {
      call(T.inputSelect, el, []);
    } else if (tag === 'textarea') {
      call(T.textAreaSelect, el, []);
    } else {
      const doc = call(T.ownerDocument, el, []);
      call(T.selectAllChildren, call(T.getSelection, doc, []), [el]);
    }
    return true;
  }
  if (op === 'choose') {
    const texts = [];
    const values = [];
    const length = read(T.selectLength, el);
    const count = typeof length === 'number' ? length : 0;
    for (let i = 0; i < count && i < 10000; i++) {
      const option = call(T.selectItem, el, [i]);
      put(texts, call(T.trim, str(read(T.optionText, option)), []));
      put(values, str(read(T.optionValue, option)));
    }
    const wanted = call(T.trim, value, []);
    let index = -1;
    for (let i = 0; i < texts.length && index < 0; i++) if (texts[i] === wanted) index = i;
    for (let i = 0; i < values.length && index < 0; i++) if (values[i] === value) index = i;
    if (index < 0) return { __proto__: null, chosen: false, options: texts };
    call(T.setSelectedIndex, el, [index]);
    fire('input');
    fire('change');
    return { __proto__: null, chosen: true, options: [] };
  }
  if (op === 'set') {
    call(T.setInputValue, el, [value]);
    fire('input');
    fire('change');
    return str(read(T.inputValue, el)) === value;
  }
  return false;
})
