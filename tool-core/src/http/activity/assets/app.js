// The live activity page: one cell per tool call, newest on top.
//
// Data comes from GET activity/records (the state so far) and GET activity/events (Server-
// Sent Events from then on; the browser resumes with Last-Event-ID by itself). Tool data is
// untrusted: it is written with textContent only, never parsed as HTML.
'use strict';
(function () {
  const MAX_CELLS = 500; // older finished cells leave the page
  const MAX_OUTPUT = 200000; // characters of streamed output kept per cell
  const cells = new Map(); // call id -> cell
  const toolsets = new Set();
  const filters = { toolset: '', status: '', hidden: false };
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
    return m + ' min ' + Math.round((ms % 60000) / 1000) + ' s';
  }

  function clock(ms) {
    return ms ? new Date(ms).toLocaleTimeString() : '';
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
      message: el('div', 'message'),
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
    root.append(head, dom.message, dom.error, dom.output, dom.input, dom.result);
    c = {
      id, name, dom, status: 'in_progress', toolsets: [], userFacing: true,
      started: 0, finished: 0, input: undefined, hasInput: false, result: undefined,
      hasResult: false, error: null, message: null, outLen: 0, outCut: false, placed: false,
    };
    cells.set(id, c);
    return c;
  }

  // Keeps the list sorted by start time, newest first.
  function place(c) {
    if (c.placed && c.dom.root.parentNode) return;
    let before = null;
    for (const node of list.children) {
      const other = cells.get(node.dataset.callId);
      if (other && other.started <= c.started) { before = node; break; }
    }
    list.insertBefore(c.dom.root, before);
    c.placed = true;
    trim();
  }

  function trim() {
    if (cells.size <= MAX_CELLS) return;
    const nodes = Array.from(list.children).reverse();
    for (const node of nodes) {
      if (cells.size <= MAX_CELLS) break;
      const c = cells.get(node.dataset.callId);
      if (c && c.status !== 'in_progress') { node.remove(); cells.delete(c.id); }
    }
  }

  function addToolsets(sets) {
    for (const s of sets) {
      if (toolsets.has(s)) continue;
      toolsets.add(s);
      $('f-toolset').append(el('option', null, s));
    }
  }

  function visible(c) {
    return (filters.hidden || c.userFacing)
      && (!filters.toolset || c.toolsets.includes(filters.toolset))
      && (!filters.status || c.status === filters.status);
  }

  function render(c) {
    const d = c.dom;
    d.root.dataset.status = c.status;
    d.root.dataset.tool = c.name;
    d.root.classList.toggle('not-user-facing', !c.userFacing);
    d.icon.textContent = c.status === 'success' ? '✓' : c.status === 'failure' ? '✗' : '';
    d.name.textContent = c.name;
    d.sets.replaceChildren(...c.toolsets.map((s) => el('span', 'set', s)));
    if (!c.userFacing) d.sets.append(el('span', 'internal', 'internal'));
    const label = c.status === 'in_progress' ? 'running' : c.status;
    const took = c.finished && c.started ? ' · ' + duration(c.finished - c.started)
      : c.status === 'in_progress' && c.started ? ' · ' + duration(Math.max(0, Date.now() - c.started)) : '';
    d.meta.textContent = label + took + (c.started ? ' · ' + clock(c.started) : '');
    d.message.textContent = c.status === 'in_progress' && c.message ? c.message : '';
    d.error.textContent = c.error ? errorText(c.error) : '';
    d.input.hidden = !c.hasInput;
    if (c.hasInput) d.inputPre.textContent = pretty(c.input);
    d.result.hidden = !(c.hasResult || c.error);
    if (c.error) {
      d.resultSummary.textContent = 'Error';
      d.resultPre.textContent = pretty(c.error);
    } else if (c.hasResult) {
      d.resultSummary.textContent = 'Result';
      d.resultPre.textContent = pretty(c.result);
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
    // A record never takes a cell back from finished to running.
    if (c.status !== 'in_progress' && r.status === 'in_progress') return;
    c.toolsets = r.toolsets || [];
    addToolsets(c.toolsets);
    c.userFacing = r.user_facing !== false;
    c.started = r.started_at_ms || c.started;
    c.finished = r.finished_at_ms || c.finished;
    c.input = r.input; c.hasInput = true;
    c.status = r.status;
    c.message = r.display_message || null;
    if (r.error) c.error = r.error;
    if (r.status !== 'in_progress' && !r.error) { c.result = r.data; c.hasResult = true; }
    render(c);
  }

  function applyEvent(e) {
    if (e.type === 'EVENTS_LOST') { loadRecords(); return; }
    if (!e.call_id) return;
    const c = cellFor(e.call_id, e.tool);
    c.toolsets = e.toolsets || c.toolsets;
    addToolsets(c.toolsets);
    c.userFacing = e.user_facing !== false;
    const data = e.data || {};
    switch (e.type) {
      case 'TOOL_CALL_START':
        if (!c.started) c.started = e.timestamp_ms;
        c.input = data.arguments; c.hasInput = true;
        break;
      case 'TOOL_OUTPUT_CHUNK':
        appendOutput(c, String(data.text));
        break;
      case 'PROGRESS':
        c.message = String(data.message);
        break;
      case 'TOOL_CALL_END':
        c.status = data.success ? 'success' : 'failure';
        c.result = data.result; c.hasResult = true;
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
    let shown = 0, running = 0, hidden = 0;
    for (const c of cells.values()) {
      const v = visible(c);
      c.dom.root.hidden = !v;
      if (v) shown++; else hidden++;
      if (c.status === 'in_progress') running++;
    }
    $('count').textContent = shown + ' shown · ' + running + ' running'
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
    $('f-toolset').addEventListener('change', (ev) => {
      filters.toolset = ev.target.value;
      refilter();
    });
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
    for (const c of cells.values()) if (c.status === 'in_progress') render(c);
  }, 1000);

  wireFilters();
  refilter();
  loadRecords().then(connect);
})();
