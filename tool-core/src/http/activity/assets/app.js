// The live activity page: one cell per tool call, grouped by the conversation it belongs to
// (the group with the newest call on top, the newest call first in each).
//
// Data comes from GET activity/records (the state so far, read again every few seconds so
// calls other processes write to a shared store show too) and GET activity/events (Server-
// Sent Events from then on; the browser resumes with Last-Event-ID by itself). Tool data is
// untrusted: it is written with textContent only, never parsed as HTML.
'use strict';
(function () {
  const MAX_CELLS = 500; // older finished cells leave the page
  const MAX_OUTPUT = 200000; // characters of streamed output kept per cell
  const MAX_DATA_FIELD = 400; // characters of one live data field shown
  const RELOAD_MS = 5000; // how often the records are read again
  const cells = new Map(); // call id -> cell
  const groups = new Map(); // conversation key -> group
  const toolsets = new Set();
  const tools = new Set();
  const principals = new Set();
  const filters = { toolset: '', status: '', hidden: false, tool: '', principal: '' };
  let epoch = null;
  let lastSeq = 0;

  const $ = (id) => document.getElementById(id);
  const list = $('cells');

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function pretty(v) {
    if (typeof v === 'string') return v;
    try { return JSON.stringify(v, null, 2); } catch (_) { return String(v); }
  }

  function duration(ms) {
    if (ms < 1000) return ms + ' ms';
    if (ms < 60000) return (ms / 1000).toFixed(1) + ' s';
    const m = Math.floor(ms / 60000);
    if (m < 60) return m + ' min ' + Math.round((ms % 60000) / 1000) + ' s';
    const h = Math.floor(m / 60);
    if (h < 24) return h + ' h ' + (m % 60) + ' min';
    return Math.floor(h / 24) + ' d ' + (h % 24) + ' h';
  }

  // The time of day, with the date when it is not today.
  function clock(ms) {
    if (!ms) return '';
    const at = new Date(ms);
    const time = at.toLocaleTimeString();
    return at.toDateString() === new Date().toDateString()
      ? time : at.toLocaleDateString() + ' ' + time;
  }

  // Where a call stands, in order: a call never goes back to an earlier state.
  const RANK = { awaiting_approval: 0, in_progress: 1 };
  function rank(status) { return status in RANK ? RANK[status] : 2; }
  function open(c) { return rank(c.status) < 2; }

  // How a call came to run: "allowed by the user (once) after 5.0 s".
  const BY = {
    rule: 'a rule', user_once: 'the user (once)', user_session: 'the user (for the session)',
    approve_all: '--approve', approver: 'the approver',
  };
  function allowedText(a) {
    if (!a || typeof a !== 'object') return '';
    let text = a.by === 'rule' && a.rule ? 'allowed by the rule ' + a.rule
      : 'allowed by ' + (BY[a.by] || String(a.by));
    if (a.waited_ms > 0) text += ' after ' + (a.waited_ms / 1000).toFixed(1) + ' s';
    return text;
  }

  // What a call works on, from its arguments: the command it runs, the paths, pattern,
  // query or address it names (kept on the card once the call ends).
  const MAX_SUBJECT = 300;
  function subjectOf(input) {
    if (!input || typeof input !== 'object') return '';
    let text = '';
    if (typeof input.command === 'string') {
      text = '$ ' + input.command;
    } else {
      const parts = [];
      for (const k of ['pattern', 'query', 'query_or_url', 'url']) {
        if (typeof input[k] === 'string') parts.push(input[k]);
      }
      const paths = Array.isArray(input.paths) ? input.paths
        : typeof input.path === 'string' ? [input.path] : [];
      for (const p of paths) parts.push(String(p));
      text = parts.join(' \u00b7 ');
    }
    return text.length > MAX_SUBJECT ? text.slice(0, MAX_SUBJECT) + '\u2026' : text;
  }

  function cellFor(id, name) {
    let c = cells.get(id);
    if (c) return c;
    const root = el('article', 'cell');
    root.dataset.callId = id;
    const head = el('div', 'head');
    const dom = {
      root,
      icon: el('span', 'icon'),
      name: el('span', 'name'),
      sets: el('span', 'sets'),
      meta: el('span', 'meta'),
      subject: el('div', 'subject'),
      approval: el('div', 'approval'),
      message: el('div', 'message'),
      statusLine: el('div', 'status-line'),
      preview: el('div', 'preview'),
      data: el('dl', 'data'),
      error: el('div', 'error'),
      output: el('pre', 'output'),
      input: el('details', 'input'),
      inputPre: el('pre'),
      result: el('details', 'result'),
      resultSummary: el('summary', null, 'Result'),
      resultPre: el('pre'),
    };
    dom.icon.setAttribute('aria-hidden', 'true');
    head.append(dom.icon, dom.name, dom.sets, dom.meta);
    dom.input.append(el('summary', null, 'Input'), dom.inputPre);
    dom.result.append(dom.resultSummary, dom.resultPre);
    root.append(head, dom.subject, dom.approval, dom.message, dom.statusLine, dom.preview, dom.data, dom.error,
      dom.output, dom.input, dom.result);
    c = {
      id, name, dom, status: 'in_progress', toolsets: [], userFacing: true,
      started: 0, finished: 0, input: undefined, hasInput: false, result: undefined,
      hasResult: false, error: null, message: null, outLen: 0, outCut: false, placed: null,
      data: {}, statusLine: null, preview: null, conversation: null, askedBy: null,
      allowed: null,
    };
    cells.set(id, c);
    return c;
  }

  // A conversation's key (calls without one are grouped as "other").
  function keyOf(conv) {
    return conv && typeof conv.key === 'string' ? conv.key : '';
  }

  // One line naming a conversation: the client and version, agent, principal, session.
  function labelOf(conv) {
    if (!conv) return 'Other calls';
    const parts = [];
    if (conv.client_name) parts.push(conv.client_name + (conv.client_version ? ' ' + conv.client_version : ''));
    if (conv.agent) parts.push('agent ' + conv.agent);
    if (conv.principal) parts.push('principal ' + conv.principal);
    if (conv.session_id) parts.push('session ' + String(conv.session_id).slice(0, 8));
    else if (!parts.length) parts.push(conv.key);
    return parts.join(' · ');
  }

  function groupFor(conv) {
    const key = keyOf(conv);
    let g = groups.get(key);
    if (g) {
      if (conv && !g.conv) { g.conv = conv; renderGroup(g); }
      return g;
    }
    const root = el('section', 'group');
    root.dataset.key = key;
    const head = el('header', 'group-head');
    const title = el('h2', 'group-title');
    const info = el('span', 'group-info');
    head.append(title, info);
    const items = el('div', 'group-cells');
    root.append(head, items);
    g = { key, conv, root, title, info, items, latest: 0 };
    groups.set(key, g);
    renderGroup(g);
    return g;
  }

  function renderGroup(g) {
    g.title.textContent = labelOf(g.conv);
    const bits = [];
    if (g.conv && g.conv.transport) bits.push(g.conv.transport);
    g.info.textContent = bits.join(' · ');
    if (g.conv && g.conv.principal && !principals.has(g.conv.principal)) {
      principals.add(g.conv.principal);
      $('f-principal').append(el('option', null, g.conv.principal));
    }
  }

  // Keeps the cell in its conversation's group, newest first, and the groups ordered by their
  // newest call.
  function place(c) {
    const g = groupFor(c.conversation);
    if (c.placed === g && c.dom.root.parentNode === g.items) return;
    let before = null;
    for (const node of g.items.children) {
      const other = cells.get(node.dataset.callId);
      if (other && other !== c && other.started <= c.started) { before = node; break; }
    }
    g.items.insertBefore(c.dom.root, before);
    c.placed = g;
    if (c.started > g.latest || !g.root.parentNode) {
      g.latest = Math.max(g.latest, c.started);
      let first = null;
      for (const node of list.children) {
        const other = groups.get(node.dataset.key);
        if (other && other !== g && other.latest <= g.latest) { first = node; break; }
      }
      if (first !== g.root) list.insertBefore(g.root, first);
    }
    trim();
  }

  function trim() {
    if (cells.size <= MAX_CELLS) return;
    const all = Array.from(cells.values()).sort((a, b) => a.started - b.started);
    for (const c of all) {
      if (cells.size <= MAX_CELLS) break;
      if (!open(c)) { c.dom.root.remove(); cells.delete(c.id); }
    }
  }

  function addToolsets(sets) {
    for (const s of sets) {
      if (toolsets.has(s)) continue;
      toolsets.add(s);
      $('f-toolset').append(el('option', null, s));
    }
  }

  function addTool(name) {
    if (!name || tools.has(name)) return;
    tools.add(name);
    $('f-tool').append(el('option', null, name));
  }

  function visible(c) {
    const principal = c.conversation && c.conversation.principal;
    return (filters.hidden || c.userFacing)
      && (!filters.toolset || c.toolsets.includes(filters.toolset))
      && (!filters.status || c.status === filters.status)
      && (!filters.tool || c.name === filters.tool)
      && (!filters.principal || principal === filters.principal);
  }

  // The data of a cell, one row a field: a running call's live data; a finished call's
  // result fields that fit a line (the whole result is under Result).
  function renderData(c) {
    const rows = [];
    const running = open(c);
    const fields = running ? c.data
      : c.result && typeof c.result === 'object' && !Array.isArray(c.result) ? c.result : {};
    for (const [k, v] of Object.entries(fields)) {
      const long = typeof v === 'string' && (v.length > 120 || v.includes('\n'));
      if (!running && (k === 'type' || (v !== null && typeof v === 'object') || long)) continue;
      let text = typeof v === 'string' ? v : pretty(v);
      if (text.length > MAX_DATA_FIELD) text = text.slice(0, MAX_DATA_FIELD) + '\u2026';
      const row = el('div', 'field');
      row.dataset.field = k;
      row.append(el('dt', null, k), el('dd', null, text));
      rows.push(row);
    }
    c.dom.data.replaceChildren(...rows);
  }

  function render(c) {
    const d = c.dom;
    d.root.dataset.status = c.status;
    d.root.dataset.tool = c.name;
    d.root.classList.toggle('not-user-facing', !c.userFacing);
    // A tool that answers at once runs without the spinner (seed 004).
    d.root.classList.toggle('quiet', c.quiet === true);
    d.icon.textContent = c.status === 'success' ? '✓' : c.status === 'failure' ? '✗' : '';
    d.name.textContent = c.name;
    d.sets.replaceChildren(...c.toolsets.map((s) => el('span', 'set', s)));
    if (!c.userFacing) d.sets.append(el('span', 'internal', 'internal'));
    const label = c.status === 'in_progress' ? 'running'
      : c.status === 'awaiting_approval' ? 'awaiting approval' : c.status;
    const took = c.finished && c.started ? ' · ' + duration(c.finished - c.started)
      : open(c) && c.started ? ' · ' + duration(Math.max(0, Date.now() - c.started)) : '';
    d.meta.textContent = label + took + (c.started ? ' · ' + clock(c.started) : '');
    d.subject.textContent = subjectOf(c.input);
    d.approval.textContent = c.status === 'awaiting_approval'
      ? 'waiting for approval' + (c.askedBy ? ', asked by ' + c.askedBy : '')
      : allowedText(c.allowed);
    d.message.textContent = c.status === 'in_progress' && c.message ? c.message : '';
    d.statusLine.textContent = !open(c) && c.statusLine ? c.statusLine : '';
    d.preview.textContent = c.status === 'success' && c.preview && c.preview !== c.statusLine
      ? c.preview : '';
    // A plan (update_plan) is shown as its checklist.
    const plan = c.result && c.result.type === 'plan_updated' && Array.isArray(c.result.plan)
      ? c.result.plan : null;
    d.preview.classList.toggle('checklist', plan !== null);
    if (plan) {
      const mark = { completed: '\u2611', in_progress: '\u25B6', pending: '\u2610' };
      d.preview.textContent = plan
        .map(s => (mark[s.status] || '\u2610') + ' ' + String(s.step)).join('\n');
    }
    renderData(c);
    d.error.textContent = c.error ? errorText(c.error) : '';
    d.input.hidden = !c.hasInput;
    if (c.hasInput) d.inputPre.textContent = pretty(c.input);
    d.result.hidden = !(c.hasResult || c.error);
    // A result that reports a failure (a command that exited non-zero) keeps its output;
    // its error is the line above.
    if (c.hasResult) {
      d.resultSummary.textContent = 'Result';
      d.resultPre.textContent = pretty(c.result);
    } else if (c.error) {
      d.resultSummary.textContent = 'Error';
      d.resultPre.textContent = pretty(c.error);
    }
    d.root.hidden = !visible(c);
    place(c);
  }

  function errorText(err) {
    if (typeof err === 'string') return err;
    if (err && typeof err.error === 'string') {
      return (err.error_type ? err.error_type + ': ' : '') + err.error;
    }
    return pretty(err);
  }

  function appendOutput(c, text) {
    if (c.outCut) return;
    const room = MAX_OUTPUT - c.outLen;
    if (text.length > room) {
      c.dom.output.append(document.createTextNode(text.slice(0, room)));
      c.dom.output.append(el('span', 'cut', '\n… (output cut at ' + MAX_OUTPUT
        + ' characters; the whole result is under Result when the call ends)'));
      c.outCut = true;
      c.outLen = MAX_OUTPUT;
      return;
    }
    c.dom.output.append(document.createTextNode(text));
    c.outLen += text.length;
    c.dom.output.scrollTop = c.dom.output.scrollHeight;
  }

  function applyRecord(r) {
    const c = cellFor(r.id, r.name);
    // A record never takes a cell back (from finished to running, or from running to
    // awaiting approval).
    if (rank(r.status) < rank(c.status)) return;
    c.toolsets = r.toolsets || [];
    addToolsets(c.toolsets);
    addTool(r.name);
    if (r.conversation) c.conversation = r.conversation;
    c.statusLine = r.status_line || c.statusLine;
    c.preview = r.preview || c.preview;
    if (rank(r.status) < 2) c.data = r.data || {};
    c.userFacing = r.user_facing !== false;
    c.quiet = r.suppress_execution_animation === true;
    c.started = r.started_at_ms || c.started;
    c.finished = r.finished_at_ms || c.finished;
    c.input = r.input; c.hasInput = true;
    c.status = r.status;
    if (r.allowed) c.allowed = r.allowed;
    c.message = r.display_message || null;
    if (r.error) c.error = r.error;
    if (rank(r.status) === 2 && r.data && Object.keys(r.data).length > 0) {
      c.result = r.data; c.hasResult = true;
      // A finished call read from the store shows the output it printed, as it did live.
      if (c.outLen === 0 && typeof r.data.output === 'string' && r.data.output) {
        appendOutput(c, r.data.output);
      }
    }
    render(c);
  }

  function applyEvent(e) {
    if (e.type === 'EVENTS_LOST') { loadRecords(); return; }
    // A call another replica runs, as its record stands.
    if (e.type === 'ACTIVITY_RECORD') { if (e.record && e.record.id) applyRecord(e.record); return; }
    if (!e.call_id) return;
    const c = cellFor(e.call_id, e.tool);
    c.toolsets = e.toolsets || c.toolsets;
    addToolsets(c.toolsets);
    addTool(e.tool);
    if (e.conversation && !c.conversation) c.conversation = e.conversation;
    c.userFacing = e.user_facing !== false;
    c.quiet = e.suppress_execution_animation === true;
    const data = e.data || {};
    switch (e.type) {
      case 'TOOL_CALL_START':
        if (!c.started) c.started = e.timestamp_ms;
        c.input = data.arguments; c.hasInput = true;
        break;
      case 'TOOL_OUTPUT_CHUNK':
        appendOutput(c, String(data.text));
        break;
      case 'AWAITING_APPROVAL':
        if (open(c) && !c.allowed) c.status = 'awaiting_approval';
        c.askedBy = data.asked_by || null;
        break;
      case 'APPROVED':
        if (rank(c.status) < 1) c.status = 'in_progress';
        c.allowed = data.allowed || null;
        break;
      case 'PROGRESS':
        c.message = String(data.message);
        break;
      case 'ACTIVITY_UPDATE':
        if (data.set) Object.assign(c.data, data.set);
        for (const k of data.deleted || []) delete c.data[k];
        if (data.display_message_cleared) c.message = null;
        break;
      case 'TOOL_CALL_END':
        c.status = data.success ? 'success' : 'failure';
        c.result = data.result; c.hasResult = true;
        c.statusLine = data.status_line || null;
        c.preview = data.preview || null;
        if (data.error) c.error = data.error;
        c.finished = e.timestamp_ms;
        break;
      case 'ERROR':
        c.status = 'failure';
        c.error = data.error;
        c.finished = e.timestamp_ms;
        break;
    }
    if (!c.started) c.started = e.timestamp_ms;
    render(c);
  }

  function refilter() {
    let shown = 0, running = 0, hidden = 0, waiting = 0;
    const groupShown = new Map();
    for (const c of cells.values()) {
      const v = visible(c);
      c.dom.root.hidden = !v;
      if (v) shown++; else hidden++;
      if (c.status === 'in_progress') running++;
      if (c.status === 'awaiting_approval') waiting++;
      if (v && c.placed) groupShown.set(c.placed, (groupShown.get(c.placed) || 0) + 1);
    }
    for (const g of groups.values()) {
      const n = groupShown.get(g) || 0;
      g.root.hidden = n === 0;
      g.root.dataset.count = String(n);
    }
    $('count').textContent = shown + ' shown · ' + running + ' running'
      + (waiting ? ' · ' + waiting + ' awaiting approval' : '')
      + (hidden ? ' · ' + hidden + ' hidden' : '');
    $('empty').hidden = cells.size > 0;
  }

  function setConn(state, text) {
    const c = $('conn');
    c.dataset.state = state;
    c.textContent = text;
  }

  async function loadRecords() {
    try {
      const r = await fetch('activity/records?limit=200', { credentials: 'same-origin' });
      if (!r.ok) { setConn('reconnecting', 'records: HTTP ' + r.status); return; }
      const j = await r.json();
      for (const rec of j.records) applyRecord(rec);
      refilter();
    } catch (err) {
      setConn('reconnecting', 'records unavailable');
    }
  }

  function connect() {
    const es = new EventSource('activity/events');
    es.addEventListener('hello', (m) => {
      const h = JSON.parse(m.data);
      if (h.epoch !== epoch) { epoch = h.epoch; lastSeq = 0; }
      setConn('live', 'live');
    });
    es.onmessage = (m) => {
      let e;
      try { e = JSON.parse(m.data); } catch (_) { return; }
      // A replay after a reset repeats what this page has seen: skip it.
      if (typeof e.seq === 'number') {
        if (e.seq <= lastSeq) return;
        lastSeq = e.seq;
      }
      applyEvent(e);
      refilter();
    };
    es.addEventListener('reset', () => { loadRecords(); });
    es.addEventListener('dropped', () => setConn('reconnecting', 'catching up…'));
    es.onerror = () => setConn('reconnecting', 'reconnecting…');
  }

  function wireFilters() {
    for (const [id, key] of [['f-toolset', 'toolset'], ['f-tool', 'tool'], ['f-principal', 'principal']]) {
      $(id).addEventListener('change', (ev) => {
        filters[key] = ev.target.value;
        refilter();
      });
    }
    $('f-hidden').addEventListener('change', (ev) => {
      filters.hidden = ev.target.checked;
      refilter();
    });
    for (const b of $('f-status').querySelectorAll('button')) {
      b.addEventListener('click', () => {
        filters.status = b.dataset.status;
        for (const o of $('f-status').querySelectorAll('button')) {
          o.setAttribute('aria-pressed', String(o === b));
        }
        refilter();
      });
    }
  }

  // Running cells show their elapsed time.
  setInterval(() => {
    for (const c of cells.values()) if (open(c)) render(c);
  }, 1000);

  wireFilters();
  refilter();
  loadRecords().then(connect);
  // Other processes sharing the store write calls this page has no events of.
  setInterval(loadRecords, RELOAD_MS);
})();
