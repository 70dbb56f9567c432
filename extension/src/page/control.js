// tabwire:control — reads and sets form controls for `fill`.
//
// A function declaration called on the element: `op` is `describe` (what kind of
// control it is), `selectAll` (select its text, before typing over it), `choose`
// (pick the <select> option whose trimmed text, else value, is `value`) or `set`
// (set an <input type=date|color|range|...> value through the native setter).
// Changes dispatch `input` and `change` as a user's would. Everything read from the
// page is plain data; the extension checks it again.
function tabwireControl(op, value) {
  'use strict';
  const el = this;
  const str = (v) => (typeof v === 'string' ? v : '');
  const tag = str(el.localName);
  const type = tag === 'input' ? str(el.type).toLowerCase() : '';
  const kind = () => {
    if (tag === 'textarea') return 'text';
    if (tag === 'select') return 'select';
    if (tag === 'input') {
      if (type === 'checkbox' || type === 'radio' || type === 'file') return type;
      if (['date', 'datetime-local', 'month', 'time', 'week', 'color', 'range'].indexOf(type) >= 0) {
        return 'value';
      }
      if (['button', 'submit', 'reset', 'image', 'hidden'].indexOf(type) >= 0) return 'other';
      return 'text';
    }
    if (el.isContentEditable === true) return 'contenteditable';
    return 'other';
  };
  const fire = (name) => el.dispatchEvent(new Event(name, { bubbles: true }));
  if (op === 'describe') {
    return { kind: kind(), tag, type, checked: el.checked === true };
  }
  if (op === 'selectAll') {
    if (tag === 'input' || tag === 'textarea') {
      el.select();
    } else {
      el.ownerDocument.getSelection().selectAllChildren(el);
    }
    return true;
  }
  if (op === 'choose') {
    const options = [];
    const list = el.options;
    const count = list ? list.length : 0;
    for (let i = 0; i < count && i < 10000; i++) {
      options.push({ text: str(list[i].text).trim(), value: str(list[i].value) });
    }
    const wanted = value.trim();
    let index = options.findIndex((o) => o.text === wanted);
    if (index < 0) index = options.findIndex((o) => o.value === value);
    if (index < 0) return { chosen: false, options: options.map((o) => o.text) };
    el.selectedIndex = index;
    fire('input');
    fire('change');
    return { chosen: true, options: [] };
  }
  if (op === 'set') {
    const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
    setter.call(el, value);
    fire('input');
    fire('change');
    return str(el.value) === value;
  }
  return false;
}
