// tabwire:snapshot — the page's snapshot, computed from the DOM in tabwire's isolated world.
//
// An expression, evaluated in a world made with `Page.createIsolatedWorld {worldName:
// "tabwire"}`: the first evaluation installs the walker as the world's non-enumerable
// global `__tabwireSnapshot` and every evaluation evaluates to it (state kept). The world
// has its own builtins and DOM wrappers, so what the page does to its own (replaced
// prototypes, custom-element accessors) never reaches this code; the page can only change
// the DOM, which is what a snapshot shows.
//
// Roles, names, values and states follow HTML-AAM and accname as Chrome computes them,
// with Chrome's role names; the lines kept are the ones the accessibility-tree path keeps
// (controls, focusable nodes, named leaves, named containers, dialogs, alerts, options,
// iframes and frame roots; no noise text), and every pinned node in its DOM place.
//
// Methods (all synchronous):
// - `take(number, opts)` → text: line 0 is `<gen>\t<location.href>`, then, only when
//   there are some, `\task=<uid> <uid>…` (the custom-element hosts to ask Chrome about,
//   see `adopt`) and `\tclosed=<uid> <uid>…` (hosts of closed shadow roots to look up,
//   see `addRoot`); then one line per node, pre-order,
//   `uid\tdepth\trole\tname\tvalue\tstate…`, each field escaped (`\\`, `\t`, `\n`,
//   `\r`). New nodes get uids `<number>_<n>`; a node keeps its uid. `opts`: `verbose`
//   (every node the walk sees), `viewport` (only lines on screen, plus their
//   ancestors), `since` (a generation: `=<gen>` alone if nothing changed since; never for a
//   viewport take).
// - `resolve(uid)` → the node, or null (unknown, or no longer in its document).
// - `uidOf(node, number)` → the node's uid (a new one numbered by `number`).
// - `pin(uid)` / `unpin(uid)` → whether the uid names a node: pinned nodes are always
//   shown, as `<tag>` with the state `not-in-accessibility-tree` where the rules drop them.
// - `candidates()` → the latest take's `ask` list; `adopt([[uid, facts]…])` keeps
//   Chrome's answers (`{role, name, value, states}`, or null: none) for those hosts and
//   says how many changed.
// - `addRoot(uid, root)` → whether a closed shadow root (or `null`: the host has none)
//   was taken for its host's uid.
// At most 50,000 uids are remembered, by weak reference except pinned nodes.
(() => {
  'use strict';
  const G = globalThis;
  const KEY = '__tabwireSnapshot';
  const had = Object.getOwnPropertyDescriptor(G, KEY);
  if (had !== undefined) return had.value;

  const MAX_UIDS = 50000;
  const MAX_URL_CHARS = 500;
  const FRAME_NOT_CAPTURED = 'frame-not-captured';
  const NOT_IN_TREE = 'not-in-accessibility-tree';
  const CLOSED_ROOT = 'shadow-root=closed';

  // ---- uids ----
  // node → uid; uid → {ref, strong (pinned node), seen (take count), pseudo (0, 1 before, 2 after)}
  const uidByNode = new WeakMap();
  const pseudoUids = new WeakMap(); // element → [before uid, after uid]
  const entries = new Map();
  let takes = 0;
  let curNumber = -1;
  let nextN = 1;
  const checkNumber = (number) => {
    if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 0) {
      throw new TypeError('the snapshot number must be a non-negative integer');
    }
  };
  const mint = (number) => {
    if (number !== curNumber) { curNumber = number; nextN = 1; }
    let uid = number + '_' + nextN++;
    while (entries.has(uid)) uid = number + '_' + nextN++;
    return uid;
  };
  const uidFor = (node, number) => {
    let uid = uidByNode.get(node);
    if (uid === undefined) {
      uid = mint(number);
      uidByNode.set(node, uid);
      entries.set(uid, { ref: new WeakRef(node), strong: null, seen: takes, pseudo: 0 });
    } else {
      const e = entries.get(uid);
      if (e !== undefined) e.seen = takes;
    }
    return uid;
  };
  const pseudoUidFor = (el, which, number) => {
    let pair = pseudoUids.get(el);
    if (pair === undefined) { pair = [null, null]; pseudoUids.set(el, pair); }
    let uid = pair[which - 1];
    if (uid === null) {
      uid = mint(number);
      pair[which - 1] = uid;
      entries.set(uid, { ref: new WeakRef(el), strong: null, seen: takes, pseudo: which });
    } else {
      const e = entries.get(uid);
      if (e !== undefined) e.seen = takes;
    }
    return uid;
  };
  const forget = (uid, e) => {
    entries.delete(uid);
    const node = e.ref.deref();
    if (node === undefined) return;
    if (e.pseudo === 0) {
      if (uidByNode.get(node) === uid) uidByNode.delete(node);
    } else {
      const pair = pseudoUids.get(node);
      if (pair !== undefined && pair[e.pseudo - 1] === uid) pair[e.pseudo - 1] = null;
    }
  };
  // Forgets unpinned uids the latest take did not see, then (if still over) the oldest.
  const trim = () => {
    if (entries.size <= MAX_UIDS) return;
    for (const [uid, e] of entries) {
      if (e.strong === null && (e.seen !== takes || e.ref.deref() === undefined)) forget(uid, e);
    }
    if (entries.size <= MAX_UIDS) return;
    for (const [uid, e] of entries) {
      if (entries.size <= MAX_UIDS) break;
      if (e.strong === null) forget(uid, e);
    }
  };
  let pinnedCount = 0;
  const pinnedNode = (node) => {
    if (pinnedCount === 0) return false;
    const uid = uidByNode.get(node);
    if (uid === undefined) return false;
    const e = entries.get(uid);
    return e !== undefined && e.strong !== null;
  };

  // ---- what changed: a generation counter ----
  let gen = 0;
  const bump = () => { gen++; };
  // Chrome's answers for custom elements (adopt). The engine asks again at every
  // snapshot, so they need no invalidation here; they count only while the element is
  // still a candidate (its own role generic, no role attribute).
  const adopted = new WeakMap();
  const noted = (records) => {
    if (records.length) gen++;
  };
  const observer = new MutationObserver(noted);
  const observed = new WeakSet();
  const EVENTS = ['input', 'change', 'focusin', 'focusout', 'toggle', 'scroll', 'load'];
  const observe = (root) => {
    if (observed.has(root)) return;
    observed.add(root);
    observer.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
    if (root.nodeType === 9) {
      for (const t of EVENTS) root.addEventListener(t, bump, { capture: true, passive: true });
      const view = root.defaultView;
      if (view) view.addEventListener('resize', bump, { capture: true, passive: true });
    }
  };
  const settle = () => noted(observer.takeRecords());
  const deepActive = () => {
    let a = document.activeElement;
    for (let i = 0; a && i < 64; i++) {
      if (a.shadowRoot && a.shadowRoot.activeElement) { a = a.shadowRoot.activeElement; continue; }
      if (a.tagName === 'IFRAME') {
        let d = null;
        try { d = a.contentDocument; } catch (e) { d = null; }
        if (d && d.activeElement && d.activeElement !== d.body) { a = d.activeElement; continue; }
      }
      break;
    }
    return a;
  };
  // Form controls' state is not in the DOM's attributes: read again for `since`.
  let controls = [];
  const fingerprint = (list) => {
    let f = '';
    for (const el of list) {
      if (!el.isConnected) { f += '!'; continue; }
      if (el.tagName === 'SELECT') {
        f += el.selectedIndex + ',';
        if (el.multiple) for (const o of el.options) f += o.selected ? '1' : '0';
      } else {
        f += el.value.length + ':' + el.value + (el.checked ? '1' : '0') + (el.indeterminate ? '1' : '0');
      }
      f += '\u0001';
    }
    return f;
  };
  let last = null; // {gen, active, fingerprint}

  // ---- text helpers ----
  const ESC = /[\\\t\n\r]/;
  const esc = (s) => (ESC.test(s)
    ? s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r')
    : s);
  const collapse = (s) => s.replace(/[\s\u200b]+/g, ' ').trim();

  // ---- roles (Chrome's names where they differ from ARIA) ----
  const VALID = new Set(('alert alertdialog application article banner blockquote button caption cell checkbox code ' +
    'columnheader combobox complementary contentinfo definition deletion dialog directory document emphasis feed figure ' +
    'form generic grid gridcell group heading img image insertion link list listbox listitem log main mark marquee math ' +
    'meter menu menubar menuitem menuitemcheckbox menuitemradio navigation none note option paragraph presentation ' +
    'progressbar radio radiogroup region row rowgroup rowheader scrollbar search searchbox separator slider spinbutton ' +
    'status strong subscript superscript switch tab table tablist tabpanel term textbox time timer toolbar tooltip tree ' +
    'treegrid treeitem').split(' '));
  const INPUT_ROLE = {
    button: 'button', submit: 'button', reset: 'button', image: 'button', file: 'button', checkbox: 'checkbox',
    radio: 'radio', range: 'slider', number: 'spinbutton', search: 'searchbox', email: 'textbox', tel: 'textbox',
    text: 'textbox', url: 'textbox', password: 'textbox', color: 'ColorWell', date: 'Date',
    'datetime-local': 'DateTime', month: 'DateTime', time: 'InputTime', week: 'DateTime',
  };
  const SECTIONING = 'article,aside,main,nav,section,[role=article],[role=complementary],[role=main],[role=navigation],[role=region]';
  const named = (el) => el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') || el.hasAttribute('title');
  const implicitRole = (el, tag) => {
    switch (tag) {
      case 'A': case 'AREA': return el.hasAttribute('href') ? 'link' : null;
      case 'ARTICLE': return 'article';
      case 'ASIDE': return 'complementary';
      case 'BLOCKQUOTE': return 'blockquote';
      case 'BUTTON': return 'button';
      case 'CAPTION': return 'caption';
      case 'CODE': return 'code';
      case 'DATALIST': return 'listbox';
      case 'DD': return 'definition';
      case 'DEL': return 'deletion';
      case 'DETAILS': return 'group';
      case 'DFN': return 'term';
      case 'DIALOG': return 'dialog';
      case 'DT': return 'term';
      case 'EM': return 'emphasis';
      case 'FIELDSET': return 'group';
      case 'FIGURE': return 'figure';
      case 'FOOTER': return el.parentElement && el.parentElement.closest(SECTIONING) ? null : 'contentinfo';
      case 'FORM': return named(el) ? 'form' : null;
      case 'H1': case 'H2': case 'H3': case 'H4': case 'H5': case 'H6': return 'heading';
      case 'HEADER': return el.parentElement && el.parentElement.closest(SECTIONING) ? null : 'banner';
      case 'HR': return 'separator';
      case 'IMG': return el.getAttribute('alt') === '' && !el.title ? 'none' : 'image';
      case 'INPUT': {
        const t = (el.type || 'text').toLowerCase();
        if (t === 'hidden') return null;
        if ((t === 'text' || t === 'search' || t === 'email' || t === 'tel' || t === 'url') && el.list) return 'combobox';
        return INPUT_ROLE[t] || 'textbox';
      }
      case 'INS': return 'insertion';
      case 'LI': return 'listitem';
      case 'MAIN': return 'main';
      case 'MARK': return 'mark';
      case 'MENU': case 'OL': case 'UL': return 'list';
      case 'METER': return 'meter';
      case 'NAV': return 'navigation';
      case 'OPTGROUP': return 'group';
      case 'OPTION': return 'option';
      case 'OUTPUT': return 'status';
      case 'P': return 'paragraph';
      case 'PROGRESS': return 'progressbar';
      case 'SEARCH': return 'search';
      case 'SECTION': return named(el) ? 'region' : null;
      case 'SELECT': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'STRONG': return 'strong';
      case 'SUB': return 'subscript';
      case 'SUP': return 'superscript';
      case 'SUMMARY': return 'DisclosureTriangle';
      case 'svg': case 'SVG': return 'image';
      case 'TABLE': return 'table';
      case 'TBODY': case 'THEAD': case 'TFOOT': return 'rowgroup';
      case 'TD': return 'cell';
      case 'TH': return 'columnheader';
      case 'TR': return 'row';
      case 'TEXTAREA': return 'textbox';
      case 'TIME': return 'time';
      case 'IFRAME': return 'Iframe';
      case 'LABEL': case 'LEGEND': return 'LabelText';
    }
    return null;
  };
  const editableRoot = (el) => el.isContentEditable && (!el.parentElement || !el.parentElement.isContentEditable);
  const nativelyFocusable = (el, tag) => {
    switch (tag) {
      case 'BUTTON': case 'SELECT': case 'TEXTAREA': return !el.matches(':disabled');
      case 'INPUT': return el.type !== 'hidden' && !el.matches(':disabled');
      case 'IFRAME': return true;
      case 'A': case 'AREA': return el.hasAttribute('href');
      case 'SUMMARY': return !!el.parentElement && el.parentElement.tagName === 'DETAILS';
    }
    return editableRoot(el);
  };
  const focusable = (el, tag) => nativelyFocusable(el, tag) || (el.hasAttribute('tabindex') && !el.disabled);
  const roleOf = (el, tag) => {
    const attr = el.getAttribute('role');
    let explicit = null;
    if (attr) {
      for (const r of attr.trim().split(/\s+/)) if (VALID.has(r)) { explicit = r; break; }
    }
    if (explicit === 'img') explicit = 'image';
    if (explicit === 'none' || explicit === 'presentation') {
      if (focusable(el, tag) || el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby')) explicit = null;
      else return 'none';
    }
    // Chrome makes an element with the popover attribute a group.
    return explicit || implicitRole(el, tag) || (el.hasAttribute('popover') ? 'group' : 'generic');
  };

  // ---- names (accname, with Chrome's habits) ----
  const FROM_CONTENT = new Set(['button', 'cell', 'checkbox', 'columnheader', 'gridcell', 'heading', 'link', 'menuitem',
    'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'row', 'rowheader', 'switch', 'tab', 'tooltip', 'treeitem',
    'DisclosureTriangle', 'LabelText']);
  const NO_CONTENT = new Set(['group', 'dialog', 'alertdialog']);
  const PROHIBITED = new Set(['caption', 'code', 'definition', 'deletion', 'emphasis', 'generic', 'insertion', 'mark',
    'paragraph', 'none', 'strong', 'subscript', 'superscript', 'term', 'time']);

  // Per take: computed styles, name-from-content texts, which trees' sheets set `content`.
  let styles = new Map();
  let contents = new Map();
  let contentRoots = new Map();
  // Per take and tree: control → its <label>s. `el.labels` searches the whole tree for
  // every control, which a page of many controls cannot afford.
  let labelMaps = new Map();
  const labelsOf = (el) => {
    if (!LABELABLE.has(el.tagName)) return null;
    const root = el.getRootNode();
    let map = labelMaps.get(root);
    if (map === undefined) {
      map = new Map();
      if (root.querySelectorAll) {
        for (const label of root.querySelectorAll('label')) {
          const c = label.control;
          if (!c) continue;
          const list = map.get(c);
          if (list === undefined) map.set(c, [label]); else list.push(label);
        }
      }
      labelMaps.set(root, map);
    }
    return map.get(el) || null;
  };
  const LABELABLE = new Set(['BUTTON', 'INPUT', 'METER', 'OUTPUT', 'PROGRESS', 'SELECT', 'TEXTAREA']);
  const styleOf = (el) => {
    let s = styles.get(el);
    if (s === undefined) {
      const cs = getComputedStyle(el);
      s = {
        display: cs.display, visibility: cs.visibility, skips: cs.contentVisibility === 'hidden',
        transform: cs.textTransform,
      };
      styles.set(el, s);
    }
    return s;
  };
  // Text as layout shows it: Chrome's names carry text-transform.
  const transformed = (t, parent) => {
    if (!parent || parent.nodeType !== 1) return t;
    const how = styleOf(parent).transform;
    if (how === 'none') return t;
    if (how === 'uppercase') return t.toUpperCase();
    if (how === 'lowercase') return t.toLowerCase();
    if (how === 'capitalize') return t.replace(/(^|[\s\u00a0])(\p{L})/gu, (m, a, b) => a + b.toUpperCase());
    return t;
  };
  const CONTENT_RULE = /(?:^|[^-\w])content\s*:/;
  const sheetsSetContent = (sheets) => {
    for (const sheet of sheets) {
      let rules;
      try { rules = sheet.cssRules; } catch (e) { return true; }
      for (const rule of rules) if (CONTENT_RULE.test(rule.cssText)) return true;
    }
    return false;
  };
  const treeSetsContent = (root) => {
    let v = contentRoots.get(root);
    if (v === undefined) {
      v = sheetsSetContent(root.styleSheets || []) || sheetsSetContent(root.adoptedStyleSheets || []);
      contentRoots.set(root, v);
    }
    return v;
  };
  // The literal text of `::before`/`::after`, read only where a style sheet could set it.
  // The text of `::before`/`::after`, read only where a style sheet could set it:
  // strings, attr(), quotes (the first pair of `quotes`, curly by default) and, after a
  // `/`, the alternative text that replaces the rest. Counters need layout: left out.
  const CONTENT_TOKEN = /"((?:[^"\\]|\\.)*)"|attr\(\s*([-\w]+)\s*\)|(open-quote|close-quote)|(\/)/g;
  const QUOTE_PAIR = /"((?:[^"\\]|\\.)*)"\s*"((?:[^"\\]|\\.)*)"/;
  const pseudo = (el, which) => {
    const own = rootOf(el);
    if (!treeSetsContent(el.getRootNode()) && !(own !== null && treeSetsContent(own))) return '';
    const cs = getComputedStyle(el, which);
    const c = cs.content;
    if (!c || c === 'none' || c === 'normal') return '';
    let out = '';
    CONTENT_TOKEN.lastIndex = 0;
    for (let m = CONTENT_TOKEN.exec(c); m !== null; m = CONTENT_TOKEN.exec(c)) {
      if (m[1] !== undefined) out += m[1].replace(/\\(.)/g, '$1');
      else if (m[2] !== undefined) out += el.getAttribute(m[2]) || '';
      else if (m[3] !== undefined) {
        const pair = QUOTE_PAIR.exec(cs.quotes);
        out += pair ? pair[m[3] === 'open-quote' ? 1 : 2] : (m[3] === 'open-quote' ? '\u201c' : '\u201d');
      } else if (m[4] !== undefined) out = ''; // the alternative text follows
    }
    return out;
  };
  const idrefs = (el, attr) => {
    const v = el.getAttribute(attr);
    if (!v) return [];
    const root = el.getRootNode();
    const out = [];
    for (const id of v.trim().split(/\s+/)) {
      const r = root.getElementById ? root.getElementById(id) : null;
      if (r) out.push(r);
    }
    return out;
  };
  // Closed shadow roots handed in by the engine (addRoot): host → root.
  const closedRoots = new WeakMap();
  // Hosts the engine looked up and found no closed root on: shown as they are.
  const noRoot = new WeakSet();
  const rootOf = (el) => el.shadowRoot || closedRoots.get(el) || null;
  const childNodesOf = (el) => {
    if (el.tagName === 'SLOT') {
      const a = el.assignedNodes({ flatten: true });
      return a.length ? a : el.childNodes;
    }
    const root = rootOf(el);
    return root !== null ? root.childNodes : el.childNodes;
  };
  const controlValue = (el, role) => {
    if (role === 'textbox' || role === 'searchbox' || role === 'spinbutton') {
      return typeof el.value === 'string' ? el.value : el.textContent;
    }
    if (role === 'combobox' && el.tagName === 'SELECT') {
      const o = el.selectedOptions[0];
      return o ? collapse(o.text) : '';
    }
    if (role === 'combobox' && el.tagName === 'INPUT') return el.value;
    if (role === 'combobox') return collapse(textFrom(el, VALUE_CONTEXT));
    if (role === 'button' && el.tagName === 'INPUT' && el.type === 'file') {
      const files = el.files;
      const n = files ? files.length : 0;
      return n === 0 ? 'No file chosen' : n === 1 ? files[0].name : n + ' files';
    }
    if (role === 'ColorWell' || role === 'Date' || role === 'DateTime' || role === 'InputTime') return el.value;
    if (role === 'slider') return typeof el.value === 'string' ? el.value : (el.getAttribute('aria-valuenow') || '');
    return null;
  };
  // A combobox that is not a field takes its value from its content, as a name would.
  const VALUE_CONTEXT = { labelledBy: false, refHidden: false, target: null, treeitem: false };
  const textFrom = (el, ctx) => {
    let out = '';
    const b = pseudo(el, '::before');
    if (b) out += b;
    for (const n of childNodesOf(el)) {
      if (n.nodeType === 3) { out += transformed(n.data, n.parentNode); continue; }
      if (n.nodeType !== 1) continue;
      const t = altText(n, ctx, true);
      if (t) {
        const d = styleOf(n).display;
        out += d === 'inline' || d === 'contents' ? t : ' ' + t + ' ';
      }
    }
    const a = pseudo(el, '::after');
    if (a) out += a;
    return out;
  };
  const altText = (el, ctx, recursing) => {
    const tag = el.tagName;
    if (ctx.target === el) return '';
    if (tag === 'SCRIPT' || tag === 'STYLE' || tag === 'TEMPLATE' || tag === 'NOSCRIPT') return '';
    const style = styleOf(el);
    if (!ctx.refHidden && (style.display === 'none' || style.visibility === 'hidden' ||
        el.getAttribute('aria-hidden') === 'true')) return '';
    if (!ctx.labelledBy) {
      const t = refsText(el, 'aria-labelledby');
      if (t) return t;
    }
    const role = roleOf(el, tag);
    if (recursing && ctx.treeitem && (role === 'group' || role === 'tree')) return '';
    // Groups (but <details>) and dialogs inside give a name nothing of their content.
    if (recursing && !ctx.labelledBy && NO_CONTENT.has(role) && tag !== 'DETAILS' &&
        !el.hasAttribute('aria-label')) return '';
    if (recursing) {
      const v = controlValue(el, role);
      if (v !== null && role !== 'slider') return v;
    }
    const label = el.getAttribute('aria-label');
    if (label && label.trim()) return label;
    if (tag === 'INPUT') {
      const t = el.type;
      if (t === 'submit' || t === 'reset' || t === 'button') {
        return el.value || (t === 'submit' ? 'Submit' : t === 'reset' ? 'Reset' : '');
      }
      if (t === 'image') return el.alt || el.value || 'Submit';
    }
    const labels = recursing ? null : labelsOf(el);
    if (labels !== null) {
      const sub = { labelledBy: ctx.labelledBy, refHidden: ctx.refHidden, target: el };
      let t = '';
      for (const l of labels) {
        const part = collapse(altText(l, sub, true));
        if (part) t += (t ? ' ' : '') + part;
      }
      if (t) return t;
    }
    if (tag === 'IMG' || tag === 'AREA') {
      const alt = el.getAttribute('alt');
      if (alt) return alt;
    }
    if (tag === 'FIELDSET') {
      const lg = el.querySelector(':scope > legend');
      if (lg) return altText(lg, ctx, true);
    }
    if (tag === 'TABLE') {
      const c = el.caption;
      if (c) return altText(c, ctx, true);
    }
    if (tag === 'svg' || tag === 'SVG') {
      const t = el.querySelector(':scope > title');
      if (t && t.textContent.trim()) return t.textContent;
    }
    if (recursing || FROM_CONTENT.has(role)) {
      if (!(recursing && (role === 'textbox' || role === 'combobox'))) {
        const cached = !ctx.target && !ctx.treeitem;
        let t = cached ? contents.get(el) : undefined;
        if (t === undefined) {
          t = textFrom(el, ctx);
          if (cached) contents.set(el, t);
        }
        if (t.trim()) return t;
      }
    }
    const title = el.getAttribute('title');
    if (title) return title;
    if (!recursing && (tag === 'INPUT' || tag === 'TEXTAREA')) {
      const p = el.getAttribute('placeholder');
      if (p) return p;
    }
    return '';
  };
  const nameOf = (el, role) => {
    if (PROHIBITED.has(role) && !el.hasAttribute('aria-label') && !el.hasAttribute('aria-labelledby')) return '';
    return collapse(altText(el, { labelledBy: false, refHidden: false, target: null, treeitem: role === 'treeitem' }, false));
  };
  // A <label> Chrome leaves out: it labels a visible checkbox or radio and holds only
  // text or only that control (and is not inline-block, which Chrome keeps).
  const redundantLabel = (label) => {
    const c = label.control;
    if (!c || c.tagName !== 'INPUT' || (c.type !== 'checkbox' && c.type !== 'radio')) return false;
    if (c.hasAttribute('aria-label') || c.hasAttribute('aria-labelledby')) return false;
    if (getComputedStyle(c).visibility !== 'visible') return false;
    if (getComputedStyle(label).display === 'inline-block') return false;
    const f = label.firstElementChild;
    if (!f) return true;
    return f === c && !f.nextElementSibling;
  };
  // A custom element whose closed shadow root renders instead of its light children.
  const closedHost = (el, tag) => {
    if (tag.indexOf('-') < 0 || rootOf(el) !== null) return false;
    let child = false;
    for (const c of el.childNodes) {
      if (c.nodeType === 1) {
        child = true;
        const d = styleOf(c).display;
        if (d !== 'none' && d !== 'contents' && c.getClientRects().length === 0) return true;
      } else if (c.nodeType === 3 && c.data.trim()) {
        return false;
      }
    }
    if (child) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };

  // ---- the tree the rules see: parallel arrays, pre-order ----
  // kinds: 0 node, 1 ::before text, 2 ::after text, 3 pinned outside the tree
  let nodeA, roleA, nameA, parA, focA, kindA, flagA, depthA, kidsA;
  // F_INNER: the browser's own shadow tree holds content (a <meter>'s bar): not a leaf.
  const F_FRAME_ROOT = 1, F_NOT_CAPTURED = 2, F_CLOSED = 4, F_PINNED = 8, F_EDITABLE = 16, F_RICH = 32, F_INNER = 64;
  const add = (node, role, name, parent, foc, kind, flags) => {
    const i = roleA.length;
    nodeA.push(node); roleA.push(role); nameA.push(name); parA.push(parent); focA.push(foc);
    kindA.push(kind); flagA.push(flags); depthA.push(parent >= 0 ? depthA[parent] + 1 : 0); kidsA.push(0);
    if (parent >= 0) kidsA[parent]++;
    return i;
  };
  let pinAncestors = null; // the composed-tree ancestors of pinned nodes, this take
  // Custom-element hosts whose role may come from ElementInternals (see `candidates`),
  // at most MAX_ASK a take; closed-root hosts to look up; the answers used this take.
  const MAX_ASK = 200;
  let candidates = null;
  let lastCandidates = [];
  let closedAsk = null;
  let usedAdopt = null;
  const NATIVE = 'a[href],button,input,select,textarea,img,svg,[role],h1,h2,h3,h4,h5,h6,ul,ol,li,table,' +
    'nav,main,header,footer,aside,section,article,form,dialog,details,summary,progress,meter,label,fieldset';
  let modal = null; // an open modal dialog, and its ancestors: the rest is inert
  let modalPath = null;
  let owns = null; // aria-owns: owner → the elements it takes in, and the set of those
  let owned = null;
  const placing = new Set();
  const noteModalAndOwners = () => {
    modal = null; modalPath = null; owns = null; owned = null;
    const modals = document.querySelectorAll('dialog:modal');
    if (modals.length) {
      modal = modals[modals.length - 1];
      modalPath = new Set();
      for (let n = composedParent(modal); n; n = composedParent(n)) modalPath.add(n);
    }
    const owners = document.querySelectorAll('[aria-owns]');
    if (!owners.length) return;
    owns = new Map();
    owned = new Set();
    for (const owner of owners) {
      if (!canOwn(owner)) continue;
      const list = [];
      for (const o of idrefs(owner, 'aria-owns')) {
        if (o === owner || o.contains(owner) || owned.has(o)) continue;
        list.push(o);
        owned.add(o);
      }
      if (list.length) owns.set(owner, list);
    }
  };
  // Chrome ignores aria-owns on elements that hold no children: images, text fields,
  // and inputs other than buttons.
  const canOwn = (el) => {
    const tag = el.tagName;
    if (tag === 'IMG' || tag === 'TEXTAREA') return false;
    if (tag === 'INPUT') return el.type === 'button' || el.type === 'submit' || el.type === 'reset' || el.type === 'image';
    const role = roleOf(el, tag);
    return role !== 'textbox' && role !== 'searchbox' && role !== 'image';
  };
  const composedParent = (n) => {
    if (n.assignedSlot) return n.assignedSlot;
    const p = n.parentNode;
    if (!p) return null;
    if (p.nodeType === 11) return p.host || null;
    if (p.nodeType === 9) {
      const view = p.defaultView;
      return view && view.frameElement ? view.frameElement : null;
    }
    return p;
  };
  const notePins = () => {
    pinAncestors = null;
    if (pinnedCount === 0) return;
    pinAncestors = new Set();
    for (const e of entries.values()) {
      if (e.strong === null) continue;
      for (let n = composedParent(e.strong), i = 0; n && i < 4096; n = composedParent(n), i++) {
        if (pinAncestors.has(n)) break;
        pinAncestors.add(n);
      }
    }
  };
  // Pinned nodes inside what the rules leave out, as `<tag>` lines in their place.
  const walkPinnedOnly = (el, parent) => {
    if (pinnedNode(el)) {
      const i = add(el, el.nodeType === 1 ? el.localName : '#text', el.nodeType === 3 ? collapse(el.data) : '',
        parent, false, 3, F_PINNED);
      parent = i;
    }
    if (el.nodeType !== 1 || !pinAncestors.has(el)) return;
    const root = el.nodeType === 1 ? rootOf(el) : null;
    const kids = root !== null ? [...root.childNodes, ...el.childNodes] : el.childNodes;
    for (const c of kids) if (c.nodeType === 1 || c.nodeType === 3) walkPinnedOnly(c, parent);
    if (el.tagName === 'IFRAME') {
      let d = null;
      try { d = el.contentDocument; } catch (e) { d = null; }
      if (d && d.documentElement) walkPinnedOnly(d.documentElement, parent);
    }
  };
  const skipped = (el, parent) => { if (pinAncestors !== null && (pinAncestors.has(el) || pinnedNode(el))) walkPinnedOnly(el, parent); };

  const textLine = (n, parent) => {
    let t = n.data.replace(/[\s\u200b]+/g, ' ');
    if (!t.trim()) { if (pinAncestors !== null && pinnedNode(n)) add(n, 'StaticText', '', parent, false, 0, F_PINNED); return; }
    if (!n.previousSibling) t = t.replace(/^ /, '');
    if (!n.nextSibling) t = t.replace(/ $/, '');
    const p = n.parentNode;
    const rich = p && p.nodeType === 1 && p.isContentEditable;
    add(n, 'StaticText', transformed(t, p), parent, false, 0, rich ? F_EDITABLE | F_RICH : 0);
  };
  const pseudoLine = (el, which, parent) => {
    const t = pseudo(el, which === 1 ? '::before' : '::after');
    if (t.trim()) add(el, 'StaticText', t, parent, false, which, 0);
  };
  const walkChildren = (node, parent) => {
    for (const n of childNodesOf(node)) walkNode(n, parent);
  };
  const walkFrame = (iframe, i) => {
    let d = null;
    try { d = iframe.contentDocument; } catch (e) { d = null; }
    if (!d || !d.documentElement) { flagA[i] |= F_NOT_CAPTURED; return; }
    observe(d);
    const r = add(d, 'RootWebArea', d.title, i, true, 0, F_FRAME_ROOT);
    walkChildren(d.body || d.documentElement, r);
  };
  const walkNode = (n, parent) => {
    if (modal !== null && n !== modal && !modalPath.has(n)) {
      // Outside an open modal dialog everything is inert.
      if (n.nodeType === 1) skipped(n, parent);
      return;
    }
    if (n === modal) {
      const outside = modal;
      modal = null;
      walkNode(n, parent);
      modal = outside;
      return;
    }
    if (n.nodeType === 3) { textLine(n, parent); return; }
    if (n.nodeType !== 1) return;
    const el = n;
    if (owned !== null && owned.has(el) && !placing.has(el)) return; // shown under its aria-owns owner
    const tag = el.tagName;
    if (tag === 'SCRIPT' || tag === 'STYLE' || tag === 'TEMPLATE' || tag === 'NOSCRIPT' || tag === 'HEAD') {
      skipped(el, parent);
      return;
    }
    const style = styleOf(el);
    const display = style.display;
    if ((display === 'none' && tag !== 'SLOT') || el.getAttribute('aria-hidden') === 'true' || el.inert) {
      skipped(el, parent);
      return;
    }
    const root = rootOf(el);
    if (root !== null) observe(root);
    const pinned = pinAncestors !== null && pinnedNode(el);
    if (tag === 'LABEL' && !pinned && redundantLabel(el)) {
      const c = el.control;
      if (el.contains(c)) walkNode(c, parent);
      return;
    }
    if (tag === 'DETAILS' && !el.open) {
      const i = add(el, 'group', nameOf(el, 'group'), parent, false, 0, pinned ? F_PINNED : 0);
      const sm = el.querySelector(':scope > summary');
      if (sm) walkNode(sm, i);
      if (pinAncestors !== null && pinAncestors.has(el)) {
        for (const c of el.children) if (c !== sm) skipped(c, i);
      }
      return;
    }
    const visibility = style.visibility;
    const visible = visibility !== 'hidden' && visibility !== 'collapse';
    const own = roleOf(el, tag);
    let answer;
    if (own === 'generic' && candidates !== null && tag.indexOf('-') > 0 && !el.hasAttribute('role') &&
        (focusable(el, tag) || (root !== null && !root.querySelector(NATIVE)))) {
      answer = adopted.get(el);
      if (answer !== undefined) usedAdopt.set(el, answer);
      if (candidates.length < MAX_ASK) candidates.push(el);
    }
    const role = answer !== undefined ? answer.role : own;
    const given = answer !== undefined ? answer.name : null;
    const rich = el.isContentEditable;
    const flags = (pinned ? F_PINNED : 0) | (rich ? F_EDITABLE | F_RICH : 0);
    const closed = closedHost(el, tag) && !noRoot.has(el);
    if (closed && closedAsk !== null) closedAsk.push(el);
    // A closed root taken in: its host stays a line marked closed while it shows nothing.
    const taken = root !== null && closedRoots.get(el) === root;
    if (!visible || role === 'none' || role === 'generic' || role === 'LabelText') {
      const foc = visible && role === 'generic' && focusable(el, tag);
      if (foc || closed || (taken && visible)) {
        const i = add(el, role, given !== null ? given : nameOf(el, role), parent, foc, 0, flags | (closed ? F_CLOSED : 0));
        walkInside(el, tag, i, closed);
        if (taken && roleA.length === i + 1) flagA[i] |= F_CLOSED;
        return;
      }
      let p = parent;
      if (pinned) p = add(el, el.localName, '', parent, false, 3, F_PINNED);
      if (visible && role !== 'none') pseudoLine(el, 1, p);
      if (visible) walkInside(el, tag, p, closed);
      else walkHidden(el, p);
      if (visible && role !== 'none') pseudoLine(el, 2, p);
      return;
    }
    const i = add(el, role, given !== null ? given : nameOf(el, role), parent, focusable(el, tag), 0,
      flags | (closed ? F_CLOSED : 0) | (tag === 'METER' ? F_INNER : 0));
    if (tag === 'IFRAME') { walkFrame(el, i); return; }
    pseudoLine(el, 1, i);
    if (tag === 'SELECT') {
      for (const c of el.children) {
        if (c.tagName === 'OPTION') add(c, 'option', collapse(c.text), i, !c.disabled, 0, 0);
        else if (c.tagName === 'OPTGROUP') {
          const g = add(c, 'group', collapse(c.label), i, false, 0, 0);
          for (const o of c.children) if (o.tagName === 'OPTION') add(o, 'option', collapse(o.text), g, !o.disabled, 0, 0);
        }
      }
    } else if (tag === 'METER' || tag === 'PROGRESS') {
      // Their fallback content is not rendered.
    } else {
      walkInside(el, tag, i, closed);
      if (taken && roleA.length === i + 1) flagA[i] |= F_CLOSED;
    }
    pseudoLine(el, 2, i);
  };
  // The children of an element in the rendered tree; for a closed-root host, only the
  // light children its root renders.
  const walkInside = (el, tag, parent, closed) => {
    if (styleOf(el).skips) return; // content-visibility:hidden
    if (!closed) walkChildren(el, parent);
    else {
      for (const c of el.childNodes) {
        if (c.nodeType === 1 && c.getClientRects().length === 0 && styleOf(c).display !== 'contents') continue;
        walkNode(c, parent);
      }
    }
    if (owns !== null) {
      const list = owns.get(el);
      if (list !== undefined) {
        for (const o of list) { placing.add(o); walkNode(o, parent); placing.delete(o); }
      }
    }
  };
  // visibility:hidden: only descendants that are visible again count.
  const walkHidden = (el, parent) => {
    for (const c of childNodesOf(el)) {
      if (c.nodeType !== 1) {
        if (pinAncestors !== null && pinnedNode(c)) walkPinnedOnly(c, parent);
        continue;
      }
      const st = styleOf(c);
      if (st.display === 'none') { skipped(c, parent); continue; }
      if (st.visibility === 'visible') walkNode(c, parent);
      else if (pinAncestors !== null && pinnedNode(c)) {
        const p = add(c, c.localName, '', parent, false, 3, F_PINNED);
        walkHidden(c, p);
      } else walkHidden(c, parent);
    }
  };

  // ---- the rules of the accessibility-tree path ----
  const CONTROLS = new Set(['button', 'checkbox', 'ColorWell', 'combobox', 'DisclosureTriangle', 'listbox', 'menu',
    'menubar', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'radio', 'scrollbar', 'searchbox', 'slider',
    'spinbutton', 'switch', 'tab', 'textbox', 'tree', 'treeitem']);
  const LEAF_ROLES = new Set(['doc-cover', 'graphics-symbol', 'img', 'image', 'Meter', 'scrollbar', 'slider',
    'separator', 'progressbar']);
  const TEXT_ROLES = new Set(['LineBreak', 'text', 'InlineTextBox', 'StaticText']);
  const NAMED_CONTAINERS = new Set(['navigation', 'main', 'region', 'form', 'search', 'banner', 'contentinfo',
    'complementary', 'group', 'radiogroup', 'table', 'grid', 'treegrid', 'list', 'tablist', 'toolbar', 'tabpanel',
    'article', 'figure', 'note']);
  const ALWAYS = new Set(['dialog', 'alertdialog', 'alert', 'option', 'Iframe']);
  const FORM_TAGS = new Set(['BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'OPTION', 'OPTGROUP']);
  const EDITABLE_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'spinbutton', 'StaticText', 'InlineTextBox']);

  // ---- values and states of a line ----
  let shortenDoc = '', shortenOrigin = '';
  const shorten = (u) => {
    let s = u;
    if (shortenDoc && u.startsWith(shortenDoc) && u.charAt(shortenDoc.length) === '#') s = u.slice(shortenDoc.length);
    else if (shortenOrigin && u.startsWith(shortenOrigin) && u.charAt(shortenOrigin.length) === '/') s = u.slice(shortenOrigin.length);
    const chars = Array.from(s);
    return chars.length > MAX_URL_CHARS ? chars.slice(0, MAX_URL_CHARS).join('') + '…(' + chars.length + ' chars)' : s;
  };
  const valueOf = (i) => {
    const el = nodeA[i];
    if (kindA[i] !== 0 || !el || el.nodeType !== 1) return '';
    const answer = usedAdopt.get(el);
    if (answer !== undefined) return answer.value;
    const role = roleA[i];
    const v = controlValue(el, role);
    if (v) return v;
    if (editableRoot(el)) return el.innerText;
    if (role === 'progressbar' || role === 'meter') {
      return typeof el.value === 'number' ? String(el.value) : (el.getAttribute('aria-valuenow') || '');
    }
    if (role === 'slider' || role === 'spinbutton') return el.getAttribute('aria-valuenow') || '';
    return '';
  };
  // The text of the elements an IDREF list names (aria-labelledby, aria-describedby),
  // hidden ones included, each without following its own labelledby.
  const refsText = (el, attr) => {
    const sub = { labelledBy: true, refHidden: true, target: null };
    let t = '';
    for (const r of idrefs(el, attr)) {
      const part = collapse(altText(r, sub, true));
      if (part) t += (t ? ' ' : '') + part;
    }
    return t;
  };
  const descriptionOf = (el, nameUsedTitle) => {
    const described = refsText(el, 'aria-describedby');
    if (described) return described;
    const d = el.getAttribute('aria-description');
    if (d && d.trim()) return collapse(d);
    const title = el.getAttribute('title');
    if (title && !nameUsedTitle) return collapse(title);
    return '';
  };
  const statesOf = (i, active, out) => {
    const el = nodeA[i];
    const role = roleA[i];
    const flags = flagA[i];
    if (kindA[i] === 3) { out.push(NOT_IN_TREE); return; }
    if (kindA[i] !== 0 || !el) return;
    if (el.nodeType !== 1) {
      return;
    }
    const attr = (a) => el.getAttribute(a);
    const tag = el.tagName;
    if (el === active) out.push('focused');
    const answer = usedAdopt.get(el);
    if (answer !== undefined) {
      for (const s of answer.states) out.push(s);
      return;
    }
    if ((FORM_TAGS.has(tag) && el.matches(':disabled')) || el.closest('[aria-disabled=true]')) out.push('disabled');
    if (role === 'checkbox' || role === 'radio' || role === 'switch' || role === 'menuitemcheckbox' || role === 'menuitemradio') {
      const c = tag === 'INPUT' ? (el.indeterminate ? 'mixed' : String(el.checked)) : attr('aria-checked');
      if (c === 'true') out.push('checked');
      else if (c === 'mixed') out.push('checked=mixed');
    }
    const pr = attr('aria-pressed');
    if (pr === 'true') out.push('pressed');
    else if (pr === 'mixed') out.push('pressed=mixed');
    if ((tag === 'OPTION' && el.selected) || attr('aria-selected') === 'true') out.push('selected');
    let ex = attr('aria-expanded');
    if (tag === 'SUMMARY' && el.parentElement && el.parentElement.tagName === 'DETAILS') ex = String(el.parentElement.open);
    if (tag === 'SELECT' && role === 'combobox') ex = 'false';
    if (ex === 'true') out.push('expanded');
    else if (ex === 'false') out.push('collapsed');
    if (el.required === true || attr('aria-required') === 'true') out.push('required');
    if ((el.readOnly === true && (role === 'textbox' || role === 'searchbox')) || attr('aria-readonly') === 'true') out.push('readonly');
    const inv = attr('aria-invalid');
    if (inv && inv !== 'false') out.push(inv === 'true' ? 'invalid' : 'invalid=' + inv);
    if (tag === 'TEXTAREA' || attr('aria-multiline') === 'true' || (role === 'textbox' && editableRoot(el))) out.push('multiline');
    if ((tag === 'SELECT' && el.multiple) || attr('aria-multiselectable') === 'true') out.push('multiselectable');
    if (attr('aria-modal') === 'true' || (tag === 'DIALOG' && el.matches(':modal'))) out.push('modal');
    if (attr('aria-busy') === 'true') out.push('busy');
    if ((flags & F_EDITABLE) && !EDITABLE_ROLES.has(role)) out.push('editable');
    if (role === 'treeitem') {
      let l = 1;
      for (let a = el.parentElement; a; a = a.parentElement) {
        const r = a.getAttribute('role');
        if (r === 'tree') break;
        if (r === 'treeitem') l++;
      }
      out.push('level=' + (attr('aria-level') || l));
    } else if (role === 'heading') {
      const m = /^H([1-6])$/.exec(tag);
      out.push('level=' + (attr('aria-level') || (m ? m[1] : '2')));
    } else if (attr('aria-level')) {
      out.push('level=' + attr('aria-level'));
    }
    const hp = attr('aria-haspopup');
    if (hp && hp !== 'false') out.push('haspopup=' + (hp === 'true' ? 'menu' : hp));
    else if (tag === 'SELECT' && role === 'combobox') out.push('haspopup=menu');
    else if (role === 'combobox') out.push('haspopup=listbox');
    const ac = attr('aria-autocomplete');
    if (ac && ac !== 'none') out.push('autocomplete=' + ac);
    else if (tag === 'INPUT' && el.list) out.push('autocomplete=list');
    if (role === 'slider' || role === 'spinbutton' || role === 'progressbar' || role === 'meter' || role === 'scrollbar') {
      let mn = tag === 'INPUT' || tag === 'METER' || tag === 'PROGRESS' ? (el.min !== undefined && el.min !== '' ? el.min : null) : null;
      let mx = tag === 'INPUT' || tag === 'METER' || tag === 'PROGRESS' ? (el.max !== undefined && el.max !== '' ? el.max : null) : null;
      if (tag === 'PROGRESS') mn = 0;
      if (mn === null) mn = attr('aria-valuemin');
      if (mx === null) mx = attr('aria-valuemax');
      if (role === 'progressbar' || role === 'scrollbar' || (role === 'slider' && tag !== 'INPUT')) {
        if (mn == null) mn = 0;
        if (mx == null) mx = 100;
      }
      if (tag === 'INPUT' && el.type === 'range') {
        if (mn == null || mn === '') mn = 0;
        if (mx == null || mx === '') mx = 100;
      }
      if (mn != null && mx != null && +mn < +mx) { out.push('valuemin=' + +mn); out.push('valuemax=' + +mx); }
    }
    const vt = attr('aria-valuetext');
    if (vt && vt !== valueOf(i)) out.push('valuetext=' + vt);
    if (role === 'link' && typeof el.href === 'string' && el.href) out.push('url=' + shorten(el.href));
    const ks = attr('aria-keyshortcuts');
    if (ks) out.push('keyshortcuts=' + ks);
    const rd = attr('aria-roledescription');
    if (rd) out.push('roledescription=' + rd);
    const title = attr('title');
    const desc = descriptionOf(el, title !== null && nameA[i] === collapse(title));
    if (desc && desc !== nameA[i]) out.push('description=' + desc);
  };

  // ---- viewport: the lines whose node meets the screen ----
  const onScreen = (node, kind) => {
    let target = node;
    if (kind === 1 || kind === 2 || !target) return false;
    let rects;
    if (target.nodeType === 3) {
      const range = target.ownerDocument.createRange();
      range.selectNodeContents(target);
      rects = range.getClientRects();
    } else if (target.nodeType === 1) {
      rects = target.getClientRects();
    } else {
      return false;
    }
    // Offsets of same-origin frames on the way up.
    let dx = 0, dy = 0;
    let view = target.ownerDocument.defaultView;
    for (let k = 0; view && view !== G && view.frameElement && k < 32; k++) {
      const fr = view.frameElement.getBoundingClientRect();
      dx += fr.left; dy += fr.top;
      view = view.frameElement.ownerDocument.defaultView;
    }
    const w = innerWidth, h = innerHeight;
    for (const r of rects) {
      if (r.width === 0 && r.height === 0) continue;
      const left = r.left + dx, top = r.top + dy;
      if (left < w && top < h && left + r.width > 0 && top + r.height > 0) return true;
    }
    return false;
  };

  // ---- take ----
  const take = (number, opts) => {
    checkNumber(number);
    const verbose = !!(opts && opts.verbose);
    const viewport = !!(opts && opts.viewport);
    const since = opts && typeof opts.since === 'number' ? opts.since : null;
    observe(document);
    settle();
    // What is on screen moves with scrolling and layout, which no mutation shows: a
    // viewport take always walks.
    if (!viewport && since !== null && last !== null && since === gen && last.gen === gen &&
        last.active === deepActive() && fingerprint(controls) === last.fingerprint) {
      return '=' + gen;
    }
    takes++;
    candidates = [];
    closedAsk = [];
    usedAdopt = new Map();
    styles = new Map();
    contents = new Map();
    contentRoots = new Map();
    labelMaps = new Map();
    nodeA = []; roleA = []; nameA = []; parA = []; focA = []; kindA = []; flagA = []; depthA = []; kidsA = [];
    notePins();
    noteModalAndOwners();
    add(document, 'RootWebArea', document.title, -1, true, 0, 0);
    walkChildren(document.body || document.documentElement, 0);
    const count = roleA.length;

    // Children lists and, bottom-up, what is focusable or pinned below.
    const firstKid = new Int32Array(count).fill(-1), nextSib = new Int32Array(count).fill(-1), lastKid = new Int32Array(count).fill(-1);
    for (let i = 1; i < count; i++) {
      const p = parA[i];
      if (lastKid[p] < 0) firstKid[p] = i; else nextSib[lastKid[p]] = i;
      lastKid[p] = i;
    }
    const focBelow = new Uint8Array(count), pinBelow = new Uint8Array(count);
    for (let i = count - 1; i > 0; i--) {
      const p = parA[i];
      if (focA[i] || focBelow[i]) focBelow[p] = 1;
      if ((flagA[i] & F_PINNED) || pinBelow[i]) pinBelow[p] = 1;
    }
    const isLeaf = (i) => {
      const r = roleA[i];
      if (kidsA[i] === 0 && !(flagA[i] & F_INNER)) return true;
      if (r === 'Iframe') return false;
      const plainField = !(flagA[i] & F_RICH) && ((flagA[i] & F_EDITABLE) || r === 'textbox' || r === 'searchbox');
      if (plainField || TEXT_ROLES.has(r) || LEAF_ROLES.has(r)) return true;
      if (focBelow[i]) return false;
      return (focA[i] && nameA[i] !== '') || (r === 'heading' && nameA[i] !== '');
    };

    // Which nodes become lines, at which depth.
    const lineOf = [], lineDepth = [], lineParent = [];
    if (verbose) {
      for (let i = 0; i < count; i++) { lineOf.push(i); lineDepth.push(depthA[i]); }
      for (let k = 0; k < count; k++) lineParent.push(parA[k]);
    } else {
      const keptAt = new Int32Array(count).fill(-1); // line index of a kept node
      // stack entries: node, depth, insideControl, belowLeaf, keptParent (node), parentLine
      const stack = [[0, 0, false, false, -1, -1]];
      while (stack.length) {
        const [i, depth, inside, belowLeaf, keptParent, parentLine] = stack.pop();
        const r = roleA[i], name = nameA[i];
        const isRoot = i === 0;
        const leaf = isLeaf(i);
        const ctl = CONTROLS.has(r);
        let keep;
        if (flagA[i] & (F_PINNED | F_CLOSED)) keep = true;
        else if (belowLeaf) keep = false;
        else {
          const interesting = focA[i] || (flagA[i] & F_RICH) !== 0 || ctl || (!inside && leaf && name !== '');
          const extra = ALWAYS.has(r) || (flagA[i] & F_FRAME_ROOT) !== 0 || (NAMED_CONTAINERS.has(r) && name !== '');
          let noise = false;
          if (r === 'StaticText') {
            const t = name.trim();
            noise = t === '' || (keptParent >= 0 && (nameA[keptParent].trim() === t || valueOf(keptParent).trim() === t));
          }
          keep = isRoot || ((interesting || extra) && !noise);
        }
        let d = depth, kp = keptParent, pl = parentLine;
        if (keep) {
          keptAt[i] = lineOf.length;
          lineOf.push(i); lineDepth.push(depth); lineParent.push(parentLine);
          d = depth + 1; kp = i; pl = lineOf.length - 1;
        }
        let below = belowLeaf;
        if (leaf && !isRoot) {
          if (!pinBelow[i]) continue;
          below = true;
        }
        const kids = [];
        for (let c = firstKid[i]; c >= 0; c = nextSib[c]) kids.push(c);
        for (let k = kids.length - 1; k >= 0; k--) stack.push([kids[k], d, inside || ctl, below, kp, pl]);
      }
    }

    // Viewport: lines on screen and their ancestors.
    let show = null;
    if (viewport) {
      show = new Uint8Array(lineOf.length);
      show[0] = 1;
      for (let k = lineOf.length - 1; k > 0; k--) {
        const i = lineOf[k];
        if (show[k] || onScreen(nodeA[i], kindA[i]) || (kindA[i] !== 0 && kindA[i] !== 3 && onScreen(nodeA[i], 0))) {
          show[k] = 1;
          for (let p = lineParent[k]; p >= 0 && !show[p]; p = lineParent[p]) show[p] = 1;
        }
      }
    }

    // The text.
    const href = location.href;
    shortenDoc = href.split('#')[0];
    shortenOrigin = location.origin && location.origin !== 'null' ? location.origin : '';
    const active = deepActive();
    const activeEl = active && active !== document.body && active !== document.documentElement ? active : null;
    const listed = [];
    const parts = [''];
    const st = [];
    for (let k = 0; k < lineOf.length; k++) {
      if (show !== null && !show[k]) continue;
      const i = lineOf[k];
      const node = nodeA[i];
      const kind = kindA[i];
      const uid = kind === 1 || kind === 2 ? pseudoUidFor(node, kind, number) : uidFor(node, number);
      if (node && node.nodeType === 1 && (node.tagName === 'INPUT' || node.tagName === 'TEXTAREA' || node.tagName === 'SELECT')) listed.push(node);
      st.length = 0;
      statesOf(i, activeEl, st);
      if (flagA[i] & F_NOT_CAPTURED) st.push(FRAME_NOT_CAPTURED);
      if (flagA[i] & F_CLOSED) st.push(CLOSED_ROOT);
      let line = uid + '\t' + lineDepth[k] + '\t' + esc(roleA[i]) + '\t' + esc(nameA[i]) + '\t' + esc(valueOf(i));
      for (const s of st) line += '\t' + esc(s);
      parts.push(line);
    }
    // The header, with uids given after the lines' (a host not shown gets a later one).
    let head = gen + '\t' + esc(href);
    candidates = candidates.map((el) => uidFor(el, number));
    if (candidates.length) head += '\task=' + candidates.join(' ');
    if (closedAsk.length) head += '\tclosed=' + closedAsk.map((el) => uidFor(el, number)).join(' ');
    parts[0] = head;
    controls = listed;
    last = { gen, active, fingerprint: fingerprint(listed) };
    styles = new Map(); contents = new Map(); contentRoots = new Map(); labelMaps = new Map();
    nodeA = roleA = nameA = parA = focA = kindA = flagA = depthA = kidsA = null;
    pinAncestors = null;
    modal = modalPath = owns = owned = null;
    lastCandidates = candidates;
    candidates = closedAsk = usedAdopt = null;
    trim();
    return parts.join('\n');
  };

  const resolve = (uid) => {
    if (typeof uid !== 'string') return null;
    const e = entries.get(uid);
    if (e === undefined || e.pseudo !== 0) return null;
    const node = e.ref.deref();
    return node !== undefined && node.isConnected ? node : null;
  };
  const uidOf = (node, number) => {
    checkNumber(number);
    if (node === null || typeof node !== 'object' || typeof node.nodeType !== 'number') return null;
    return uidFor(node, number);
  };
  const pin = (uid) => {
    const node = resolve(uid);
    if (node === null) return false;
    const e = entries.get(uid);
    if (e.strong === null) { e.strong = node; pinnedCount++; gen++; }
    return true;
  };
  const unpin = (uid) => {
    const e = typeof uid === 'string' ? entries.get(uid) : undefined;
    if (e === undefined || e.strong === null) return false;
    e.strong = null;
    pinnedCount--;
    gen++;
    return true;
  };

  // The uids of the custom-element hosts the latest take saw whose own role is generic
  // (no role attribute), that are focusable or hold no native semantic element in their
  // shadow tree: their role may come from ElementInternals, which only Chrome's own
  // tree knows. Listed whether answered or not: the engine asks at every snapshot.
  const candidatesOf = () => lastCandidates.slice();
  // One of Chrome's answers checked: `{role, name, value, states}` as the snapshot
  // writes them, or null when malformed.
  const factsOf = (facts) => {
    if (facts === null || typeof facts !== 'object') return null;
    const role = facts.role, name = facts.name, value = facts.value, states = facts.states;
    if (typeof role !== 'string' || role === '' || role.length > 100) return null;
    if (name !== undefined && typeof name !== 'string') return null;
    if (value !== undefined && typeof value !== 'string') return null;
    if (states !== undefined && !Array.isArray(states)) return null;
    const list = [];
    for (const st of states || []) {
      if (typeof st !== 'string' || st === '' || st.length > 10000) return null;
      if (list.length < 64) list.push(st);
    }
    return {
      role, name: name === undefined ? '' : collapse(name).slice(0, 10000),
      value: value === undefined ? '' : value.slice(0, 10000), states: list,
    };
  };
  const same = (a, b) => a !== undefined && a.role === b.role && a.name === b.name && a.value === b.value &&
    a.states.length === b.states.length && a.states.every((x, k) => x === b.states[k]);
  // Keeps Chrome's answers (`[[uid, facts or null]…]`) for candidate elements; takes
  // use them while the element stays a candidate. How many answers changed.
  const adopt = (answers) => {
    if (!Array.isArray(answers)) return 0;
    let changed = 0;
    for (const pair of answers) {
      if (!Array.isArray(pair) || pair.length !== 2) continue;
      const node = resolve(pair[0]);
      if (node === null || node.nodeType !== 1) continue;
      const had = adopted.get(node);
      if (pair[1] === null) {
        if (had !== undefined) { adopted.delete(node); changed++; }
        continue;
      }
      const facts = factsOf(pair[1]);
      if (facts !== null && !same(had, facts)) {
        adopted.set(node, facts);
        changed++;
      }
    }
    if (changed) gen++;
    return changed;
  };

  // Walks a closed shadow root from now on, in place of its host's light children: the
  // engine finds it (DOM.describeNode {pierce}) for a host listed in `closed=` and
  // resolves it into this world. `null`: the host has none (it draws itself, say): no
  // longer shown or listed as closed.
  const addRoot = (uid, root) => {
    const host = resolve(uid);
    if (host === null || host.nodeType !== 1 || host.shadowRoot !== null) return false;
    if (root === null) { noRoot.add(host); gen++; return true; }
    if (typeof root !== 'object' || root.nodeType !== 11 || root.host !== host) return false;
    closedRoots.set(host, root);
    gen++;
    return true;
  };

  const api = Object.freeze({
    __proto__: null, take, resolve, uidOf, pin, unpin, candidates: candidatesOf, adopt, addRoot,
  });
  Object.defineProperty(G, KEY, { value: api, enumerable: false, writable: false, configurable: false });
  return api;
})()
