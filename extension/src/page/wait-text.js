// tabwire:wait-text — waits until one of some texts is visible in the page.
//
// An expression: a function (T, global, texts, budgetMs) returning a promise of the
// first text found in the page's visible text (`document.body.innerText`, and the
// title), checked at once and then after each batch of DOM changes (no polling).
// Past `budgetMs` the observer disconnects itself and the promise resolves to
// `undefined`, so an abandoned wait leaves nothing running in the page.
(function tabwireWaitText(T, global, texts, budgetMs) {
  'use strict';
  const doc = global.document;
  const now = () => T.apply(T.now, T.performance, []);
  const deadline = now() + budgetMs;
  const visibleText = () => {
    let text = '';
    try {
      const body = T.apply(T.body, doc, []);
      if (body) text = T.apply(T.innerText, body, []);
    } catch (e) {
      // No body yet, or a document without HTML elements.
    }
    try {
      text += '\n' + T.apply(T.title, doc, []);
    } catch (e) {
      // No title.
    }
    return text;
  };
  const find = () => {
    const text = visibleText();
    for (let i = 0; i < texts.length; i++) {
      if (T.apply(T.indexOf, text, [texts[i]]) >= 0) return texts[i];
    }
    return undefined;
  };
  return new T.Promise((resolve) => {
    const found = find();
    if (found !== undefined) {
      resolve(found);
      return;
    }
    let done = false;
    const observer = new T.MutationObserver(() => {
      if (done) return;
      const hit = find();
      if (hit !== undefined || now() > deadline) {
        done = true;
        T.apply(T.disconnect, observer, []);
        resolve(hit);
      }
    });
    T.apply(T.observe, observer, [doc, {
      __proto__: null, subtree: true, childList: true, attributes: true, characterData: true,
    }]);
    T.apply(T.setTimeout, global, [() => {
      if (done) return;
      done = true;
      T.apply(T.disconnect, observer, []);
      resolve(undefined);
    }, budgetMs]);
  });
})
