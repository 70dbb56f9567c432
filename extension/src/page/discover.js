// tabwire:discover — asks the page for its third-party developer tools.
//
// An expression: an async function (global, T, H, copySchema, budgetMs, listeners,
// limits) returning a private registry object, which the document's kit (kit.js) keeps
// and never exposes to the page: {T, H, groups: [{name, description, tools:
// [{name, execute, self}]}], report}. `report` is the JSON text the extension reads:
// {"groups": [{name, description?, tools: [{name, description, inputSchema}]}],
//  "problems": ["...", ...]}, at most limits.total characters of groups and
// limits.problems more of problems (and a short line counting those left out).
//
// Reference semantics: window.__dtmcp.toolGroups is reset to []; a
// CustomEvent('devtoolstooldiscovery') carrying respondWith(group) is dispatched on
// window; valid groups go to window.__dtmcp.toolGroups, and the first one installs
// window.__dtmcp.executeTool(name, args). Ours on top: an invalid tool is dropped
// alone (an invalid group only if its own fields are wrong), every drop is logged with
// console.error and reported; respondWith may be given a promise of a group; a
// listener that throws is reported (the others still run, as dispatchEvent does).
// If every listener answered during the dispatch, the answer is immediate; otherwise
// one setTimeout(0) is waited for late answers, and promises for at most budgetMs.
(async function tabwireDiscover(global, T, H, copySchema, budgetMs, listeners, limits) {
  'use strict';
  const { call, put, guard, thenOf, settle, quote, message, describeError, typeName } = H;
  const groups = [];
  const problems = [];
  const pageGroups = [];
  let open = true;
  let calls = 0;
  let pending = 0;
  let wake = null;

  const problem = (text) => {
    put(problems, text);
    try {
      call(T.consoleError, T.console, ['[tabwire] ' + text]);
    } catch (e) {
      // No console to tell.
    }
  };

  /** Reads `object[key]`, reporting a throwing getter through `fail`. */
  const field = (object, key, fail) => {
    try {
      return { __proto__: null, ok: true, value: object[key] };
    } catch (e) {
      fail('reading its ' + key + ' threw (' + message(e) + ')');
      return { __proto__: null, ok: false };
    }
  };

  const checkTool = (tool, index, groupName) => {
    const where = "in group '" + groupName + "'";
    if (tool === null || (typeof tool !== 'object' && typeof tool !== 'function')) {
      problem('Tool #' + (index + 1) + ' ' + where + ' was dropped: it is ' + typeName(tool) + ', not a tool object.');
      return null;
    }
    const reasons = [];
    const fail = (reason) => put(reasons, reason);
    const name = field(tool, 'name', fail);
    if (name.ok && typeof name.value !== 'string') fail('name must be a string (got ' + typeName(name.value) + ')');
    const description = field(tool, 'description', fail);
    if (description.ok && typeof description.value !== 'string') fail('description must be a string (got ' + typeName(description.value) + ')');
    const schema = field(tool, 'inputSchema', fail);
    let schemaText;
    if (schema.ok) {
      const value = schema.value;
      let isArray = false;
      try {
        isArray = T.isArray(value);
      } catch (e) {
        isArray = true;
      }
      if (value === null || typeof value !== 'object' || isArray) {
        fail('inputSchema must be an object (got ' + typeName(value) + ')');
      } else {
        const copied = copySchema(T, H, value, limits);
        if (copied.error !== undefined) fail('inputSchema is not plain JSON: ' + copied.error);
        else schemaText = copied.text;
      }
    }
    const execute = field(tool, 'execute', fail);
    if (execute.ok && typeof execute.value !== 'function') fail('execute must be a function (got ' + typeName(execute.value) + ')');
    if (reasons.length > 0) {
      const label = name.ok && typeof name.value === 'string' ? "Tool '" + name.value + "'" : 'Tool #' + (index + 1);
      let text = label + ' ' + where + ' was dropped: ';
      for (let i = 0; i < reasons.length; i++) text += (i > 0 ? '; ' : '') + reasons[i];
      problem(text + '.');
      return null;
    }
    return {
      __proto__: null,
      name: name.value,
      description: description.value,
      schemaText,
      execute: execute.value,
      self: tool,
    };
  };

  let installed = false;
  const executeTool = async function executeTool(name, args) {
    const list = global.__dtmcp.toolGroups;
    if (!list || list.length === 0) throw new T.Error('No tools found on the page');
    for (let g = 0; g < list.length; g++) {
      const tools = list[g].tools;
      for (let t = 0; t < tools.length; t++) {
        if (tools[t].name === name) return await tools[t].execute(args);
      }
    }
    throw new T.Error('Tool ' + name + ' not found');
  };

  const accept = (group) => {
    if (!open) return;
    if (group === null || (typeof group !== 'object' && typeof group !== 'function')) {
      problem('A tool group was dropped: respondWith() was given ' + typeName(group) + ', not a group object.');
      return;
    }
    const reasons = [];
    const fail = (reason) => put(reasons, reason);
    const name = field(group, 'name', fail);
    if (name.ok && typeof name.value !== 'string') fail('its name must be a string (got ' + typeName(name.value) + ')');
    const description = field(group, 'description', fail);
    if (description.ok && description.value !== undefined && typeof description.value !== 'string') {
      fail('its description must be a string if given (got ' + typeName(description.value) + ')');
    }
    const tools = field(group, 'tools', fail);
    let count = 0;
    if (tools.ok) {
      try {
        if (!T.isArray(tools.value)) fail('its tools must be an array (got ' + typeName(tools.value) + ')');
        else count = tools.value.length;
      } catch (e) {
        fail('its tools cannot be read (' + message(e) + ')');
      }
    }
    if (reasons.length > 0) {
      const label = name.ok && typeof name.value === 'string' ? "Tool group '" + name.value + "'" : 'A tool group';
      let text = label + ' was dropped: ';
      for (let i = 0; i < reasons.length; i++) text += (i > 0 ? '; ' : '') + reasons[i];
      problem(text + '.');
      return;
    }
    const kept = [];
    const originals = [];
    const shown = count < limits.tools ? count : limits.tools;
    for (let i = 0; i < shown; i++) {
      let tool;
      try {
        tool = tools.value[i];
      } catch (e) {
        problem('Tool #' + (i + 1) + " in group '" + name.value + "' was dropped: reading it threw (" + message(e) + ').');
        continue;
      }
      const checked = checkTool(tool, i, name.value);
      if (checked !== null) {
        put(kept, checked);
        put(originals, tool);
      }
    }
    if (count > shown) {
      problem("Tool group '" + name.value + "' offers " + count + ' tools; only the first ' + shown + ' were kept.');
    }
    put(groups, { __proto__: null, name: name.value, description: description.value, tools: kept });
    try {
      put(pageGroups, { name: name.value, description: description.value, tools: originals });
      if (!installed) {
        installed = true;
        global.__dtmcp.executeTool = executeTool;
      }
    } catch (e) {
      problem('window.__dtmcp could not be updated: ' + message(e));
    }
  };

  const respondWith = function respondWith(answer) {
    if (!open) return;
    calls++;
    let then;
    try {
      then = answer !== null && (typeof answer === 'object' || typeof answer === 'function') ? thenOf(answer) : undefined;
    } catch (e) {
      problem('respondWith() was given an object whose then threw (' + message(e) + ').');
      return;
    }
    if (typeof then !== 'function') {
      accept(answer);
      return;
    }
    pending++;
    let settled = false;
    const end = () => {
      if (settled) return;
      settled = true;
      pending--;
      if (pending === 0 && wake !== null) wake();
    };
    // Waited for without the page's Promise methods (helpers.js, settle): a `then`
    // that throws at once rejects.
    try {
      call(T.promiseThen, settle(answer), [
        (box) => {
          if (open && !settled) accept(box.value);
          end();
        },
        (error) => {
          if (open && !settled) problem('A promise given to respondWith() rejected: ' + describeError(error));
          end();
        },
      ]);
    } catch (e) {
      end();
      problem('A promise given to respondWith() could not be awaited: ' + message(e));
    }
  };

  try {
    let namespace = global.__dtmcp;
    if (namespace === null || typeof namespace !== 'object') {
      namespace = {};
      global.__dtmcp = namespace;
    }
    namespace.toolGroups = pageGroups;
  } catch (e) {
    problem('window.__dtmcp could not be set up: ' + message(e));
  }

  let event = null;
  try {
    event = new T.CustomEvent('devtoolstooldiscovery');
    T.defineProperty(event, 'respondWith', { __proto__: null, value: respondWith, enumerable: true });
  } catch (e) {
    problem('The discovery event could not be made (' + message(e) + '): the page replaced JavaScript ' +
      'builtins before tabwire attached. Reload it (navigate_page with type=reload) and look again.');
  }
  if (event !== null) {
    const thrown = [];
    const onError = (errorEvent) => {
      try {
        put(thrown, T.errorMessage ? call(T.errorMessage, errorEvent, []) : errorEvent.message);
      } catch (e) {
        put(thrown, 'an error');
      }
    };
    try {
      call(T.addEventListener, global, ['error', onError, true]);
    } catch (e) {
      // Throwing listeners go unreported.
    }
    try {
      call(T.dispatchEvent, global, [event]);
    } catch (e) {
      problem('Dispatching the discovery event failed (' + message(e) + '): if the page replaced JavaScript ' +
        'builtins before tabwire attached, reload it (navigate_page with type=reload) and look again.');
    }
    try {
      call(T.removeEventListener, global, ['error', onError, true]);
    } catch (e) {
      // Nothing to undo.
    }
    for (let i = 0; i < thrown.length; i++) {
      problem('A devtoolstooldiscovery listener threw: ' + thrown[i]);
    }
  }

  // Our promises are guarded before they are awaited (see helpers.js, guard).
  const sleep = (ms) => guard(new T.Promise((resolve) => {
    call(T.setTimeout, global, [resolve, ms]);
  }));
  if (calls < listeners || pending > 0) {
    await sleep(0);
    if (pending > 0) {
      await guard(new T.Promise((resolve) => {
        wake = resolve;
        call(T.setTimeout, global, [resolve, budgetMs]);
      }));
    }
  }
  open = false;
  if (pending > 0) {
    problem(pending + ' promise' + (pending === 1 ? '' : 's') + ' given to respondWith() did not settle within ' +
      budgetMs + ' ms; ' + (pending === 1 ? 'its group is' : 'their groups are') + ' missing.');
  }

  // The report, as JSON text built from parts that are JSON already.
  let report = '{"groups":[';
  let groupsWritten = 0;
  for (let g = 0; g < groups.length; g++) {
    const group = groups[g];
    let text = (groupsWritten > 0 ? ',' : '') + '{"name":' + quote(group.name);
    if (group.description !== undefined) text += ',"description":' + quote(group.description);
    text += ',"tools":[';
    if (report.length + text.length + 2 > limits.total) {
      problem('A tool group was dropped: its name and description exceed ' + limits.total + ' characters.');
      continue;
    }
    groupsWritten++;
    let first = true;
    for (let t = 0; t < group.tools.length; t++) {
      const tool = group.tools[t];
      const entry = '{"name":' + quote(tool.name) + ',"description":' + quote(tool.description) +
        ',"inputSchema":' + tool.schemaText + '}';
      if (report.length + text.length + entry.length > limits.total) {
        problem("Tool '" + tool.name + "' in group '" + group.name + "' was dropped: the tool descriptions exceed " +
          limits.total + ' characters.');
        continue;
      }
      text += (first ? '' : ',') + entry;
      first = false;
    }
    report += text + ']}';
  }
  // The problems get limits.problems characters more: past that, they are counted.
  report += '],"problems":[';
  let left = 0;
  let written = 0;
  for (let i = 0; i < problems.length; i++) {
    const entry = (written > 0 ? ',' : '') + quote(problems[i]);
    if (report.length + entry.length > limits.total + limits.problems) {
      left++;
      continue;
    }
    report += entry;
    written++;
  }
  if (left > 0) {
    report += (written > 0 ? ',' : '') + quote(left + ' more problem' + (left === 1 ? ' was' : 's were') +
      ' left out: the report would exceed ' + (limits.total + limits.problems) + ' characters.');
  }
  report += ']}';
  return { __proto__: null, T, H, groups, report };
})
