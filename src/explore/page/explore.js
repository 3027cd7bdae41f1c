// The page of `labs explore` (docs/explore.md): draws the view the server sends after every
// request; every request carries the session's token. No library, no build step.
'use strict';

const TOKEN = new URLSearchParams(location.search).get('token') || '';
const SVG = 'http://www.w3.org/2000/svg';
const COLOURS = ['#1a66d6', '#d93025', '#188038', '#9334e6', '#e37400', '#00838f', '#b3006b', '#5f6b76',
  '#795548', '#3949ab'];
let view = null;
let busy = false;

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v; else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function svgEl(tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  return e;
}

function say(text, kind) {
  const m = $('message');
  m.textContent = text || '';
  m.className = kind || '';
}

async function call(method, path, body) {
  if (busy) return null;
  busy = true;
  document.body.classList.add('busy');
  try {
    const r = await fetch(path, {
      method,
      headers: { 'X-Labs-Token': TOKEN, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const d = await r.json();
    if (!r.ok) {
      say(d.error || ('error ' + r.status), 'bad');
      if (r.status === 409) { busy = false; await refresh(); }
      return null;
    }
    render(d);
    if (d.message) say(d.message, d.found === true ? 'found' : d.found === false ? 'bad' : '');
    return d;
  } catch (e) {
    say('the server does not answer (was labs explore stopped?)', 'bad');
    return null;
  } finally {
    busy = false;
    document.body.classList.remove('busy');
  }
}

const refresh = () => call('GET', '/api/state');
const goto = (at) => call('POST', '/api/goto', { at });
const take = (index) => call('POST', '/api/step', { rev: view.rev, index });

// A value of the state's JSON form as text.
function shown(v) {
  return v === undefined ? '—' : String(v);
}

function render(d) {
  view = d;
  $('spec').textContent = d.spec;
  const ex = Object.entries(d.externs).map(([k, v]) => `${k}=${v}`).join(' ');
  $('externs').textContent = ex || '(none)';
  $('scheduling').textContent = d.fair ? 'round-robin (--fair)' : 'interleaving';
  let origin = 'your own run';
  if (d.origin) {
    origin = d.origin.intact ? d.origin.title
      : `branched off ${d.origin.title} at state ${d.origin.branched_at}`;
  }
  $('origin').textContent = origin;
  $('until-predicate').placeholder = examplePredicate(d.state);
  $('cursor').textContent = d.cursor;
  $('length').textContent = d.length;
  $('state-no').textContent = d.cursor;
  $('first').disabled = $('back').disabled = d.cursor === 0;
  $('forward').disabled = $('last').disabled = d.cursor === d.length;
  const slider = $('slider');
  slider.max = d.length;
  slider.value = d.cursor;
  const same = $('same-as');
  same.hidden = d.same_as === null;
  same.textContent = d.same_as === null ? '' : `↻ same as state ${d.same_as}`;
  $('last-step').textContent = d.last_step ? `step ${d.cursor}: ${d.last_step}` : '';
  renderEnabled(d);
  renderState(d);
  renderGrid(d, d.state, null);
  renderProperties(d);
  renderChart(d);
  renderTraces(d);
  const q = `?token=${encodeURIComponent(TOKEN)}`;
  $('export-trace').href = '/api/export/trace.json' + q;
  $('export-report').href = '/api/export/report.html' + q;
}

// A predicate of this spec to show as an example: on the first agent type's first variable.
function examplePredicate(state) {
  const a = state.agents[0];
  const name = a && (Object.keys(a.attributes)[0] || Object.keys(a.stigmergy)[0]);
  if (name) return `e.g. forall ${a.agent_type} a, ${name} of a = 0`;
  const env = Object.keys(state.environment)[0];
  return env ? `e.g. ${env} = 0` : 'a predicate, as in the check section';
}

function renderEnabled(d) {
  const list = $('enabled');
  list.replaceChildren();
  $('enabled-count').textContent = `(${d.enabled.length})`;
  const err = $('runtime-error');
  err.hidden = !d.runtime_error;
  err.textContent = d.runtime_error ? `a step of this state meets a run-time error: ${d.runtime_error}` : '';
  if (d.enabled.length === 0) {
    list.append(el('li', { class: 'none' }, 'none: this state is a deadlock'));
  }
  d.enabled.forEach((s) => {
    const text = el('div', { class: 'step-text' }, el('span', { class: 'num' }, String(s.index + 1)), s.text);
    if (d.next_in_history === s.index) text.append(el('span', { class: 'next-tag' }, 'next in the history'));
    const changes = el('ul', { class: 'changes' });
    for (const c of s.changes) changes.append(el('li', {}, `${c.label}: ${c.from} → ${c.to}`));
    const b = el('button', { type: 'button', 'data-index': String(s.index) }, text, changes);
    b.addEventListener('click', () => take(s.index));
    b.addEventListener('mouseenter', () => renderGrid(d, s.state, d.state, s.event));
    b.addEventListener('mouseleave', () => renderGrid(d, d.state, null));
    list.append(el('li', { class: d.next_in_history === s.index ? 'next' : '' }, b));
  });
}

function renderState(d) {
  const box = $('state');
  box.replaceChildren();
  const changed = new Set(d.last_changes.map((c) => c.key));
  const actor = d.last_event ? d.last_event.agent : null;
  d.state.agents.forEach((a, i) => {
    const rows = el('tbody');
    for (const [name, v] of Object.entries(a.attributes)) {
      const cls = changed.has(`agents.${i}.attributes.${name}`) ? 'chg' : '';
      rows.append(el('tr', {}, el('td', { class: 'name' }, name), el('td', { class: cls }, shown(v)), el('td')));
    }
    for (const [name, s] of Object.entries(a.stigmergy)) {
      const cls = changed.has(`agents.${i}.stigmergy.${name}`) ? 'chg' : '';
      rows.append(el('tr', {}, el('td', { class: 'name stig-name' }, name), el('td', { class: cls }, shown(s.value)),
        el('td', { class: 'ts ' + cls }, '@' + s.timestamp)));
    }
    const pend = el('div', { class: 'pending' });
    const pp = changed.has(`agents.${i}.pending_propagate`) ? 'chg' : '';
    const pc = changed.has(`agents.${i}.pending_confirm`) ? 'chg' : '';
    if (a.pending_propagate.length) {
      pend.append(el('span', { class: pp }, el('span', { class: 'p' }, 'put pending: '), a.pending_propagate.join(' ')), ' ');
    }
    if (a.pending_confirm.length) {
      pend.append(el('span', { class: pc }, el('span', { class: 'c' }, 'qry pending: '), a.pending_confirm.join(' ')));
    }
    if (!a.pending_propagate.length && !a.pending_confirm.length) {
      pend.append(el('span', { class: pp || pc }, 'no message pending'));
    }
    const sw = el('span', { class: 'swatch' });
    sw.style.background = COLOURS[i % COLOURS.length];
    const turn = d.state.turn === i ? ' · has the turn' : '';
    const head = el('h4', {}, sw, d.agents[i],
      el('span', { class: 'ctl', title: 'program point of its behaviour' }, `${a.control_point}${turn}`));
    const card = el('div', { class: 'agent-card' + (actor === i ? ' actor' : ''), 'data-agent': String(i) },
      head, el('table', {}, rows), pend);
    box.append(card);
  });
  const env = Object.entries(d.state.environment);
  if (env.length) {
    const rows = el('tbody');
    for (const [name, v] of env) {
      const cls = changed.has(`environment.${name}`) ? 'chg' : '';
      rows.append(el('tr', {}, el('td', { class: 'name' }, name), el('td', { class: cls }, shown(v))));
    }
    box.append(el('div', { class: 'agent-card env' }, el('h4', {}, 'environment'), el('table', {}, rows)));
  }
}

// The value of variable `name` of an agent in a state's JSON form: an attribute, or the
// agent's own copy of a stigmergic variable.
function agentValue(a, name) {
  if (name in a.attributes) return a.attributes[name];
  if (name in a.stigmergy) return a.stigmergy[name].value;
  return undefined;
}

// The agents on a grid: `state`, with `ghost` (where they were) dashed and the messages of
// `event` as lines from the sender to its receivers.
function renderGrid(d, state, ghost, event) {
  const v = d.view;
  const box = $('grid-box');
  box.hidden = !v;
  if (!v) return;
  $('grid-title').textContent = `Agents at (${v.x}, ${v.y})` + (v.dx ? `, heading (${v.dx}, ${v.dy})` : '');
  const pos = (a) => [agentValue(a, v.x), agentValue(a, v.y)];
  const placed = state.agents.map(pos);
  const range = (given, k) => {
    if (given) return given;
    const vals = placed.map((p) => p[k]).filter((x) => typeof x === 'number');
    return vals.length ? [Math.min(0, ...vals), Math.max(...vals)] : [0, 1];
  };
  const [x0, x1] = range(v.x_range, 0);
  const [y0, y1] = range(v.y_range, 1);
  const cols = x1 - x0 + 1;
  const rows = y1 - y0 + 1;
  const cell = Math.max(16, Math.min(56, Math.floor(400 / Math.max(cols, rows))));
  const pad = 22;
  const svg = $('grid');
  svg.replaceChildren();
  svg.setAttribute('width', pad + cols * cell + 8);
  svg.setAttribute('height', rows * cell + pad + 8);
  const cx = (x) => pad + (x - x0 + 0.5) * cell;
  const cy = (y) => 8 + (y1 - y + 0.5) * cell;
  for (let x = x0; x <= x1; x++) {
    for (let y = y0; y <= y1; y++) {
      svg.append(svgEl('rect', { class: 'cell', x: cx(x) - cell / 2, y: cy(y) - cell / 2, width: cell, height: cell }));
    }
    const t = svgEl('text', { class: 'axis', x: cx(x), y: rows * cell + 8 + 15, 'text-anchor': 'middle' });
    t.textContent = x;
    svg.append(t);
  }
  for (let y = y0; y <= y1; y++) {
    const t = svgEl('text', { class: 'axis', x: pad - 6, y: cy(y) + 4, 'text-anchor': 'end' });
    t.textContent = y;
    svg.append(t);
  }
  // Agents sharing a cell are spread around its centre.
  const centres = (st) => {
    const at = st.agents.map(pos);
    const groups = new Map();
    at.forEach((p, i) => {
      const k = p.join(',');
      if (!groups.has(k)) groups.set(k, []);
      groups.get(k).push(i);
    });
    const out = [];
    for (const members of groups.values()) {
      members.forEach((i, j) => {
        const [x, y] = at[i];
        if (typeof x !== 'number' || typeof y !== 'number') return;
        const n = members.length;
        const r = n > 1 ? cell * 0.24 : 0;
        const ang = (2 * Math.PI * j) / n - Math.PI / 2;
        out[i] = [cx(x) + r * Math.cos(ang), cy(y) + r * Math.sin(ang), n];
      });
    }
    return out;
  };
  const draw = (st, cls) => {
    const c = centres(st);
    const actor = event ? event.agent : d.last_event && st === state ? d.last_event.agent : null;
    st.agents.forEach((a, i) => {
      if (!c[i]) return;
      const [px, py, n] = c[i];
      const radius = Math.max(6, cell * (n > 1 ? 0.17 : 0.24));
      const g = svgEl('g', { class: `agent ${cls}${actor === i && cls === '' ? ' actor' : ''}`, 'data-agent': String(i) });
      const colour = COLOURS[i % COLOURS.length];
      if (v.dx) {
        const hx = agentValue(a, v.dx);
        const hy = agentValue(a, v.dy);
        if (typeof hx === 'number' && typeof hy === 'number' && (hx || hy)) {
          const len = Math.hypot(hx, hy);
          const l = radius + cell * 0.3;
          const ex = px + (hx / len) * l;
          const ey = py - (hy / len) * l;
          g.append(svgEl('line', { class: 'heading', x1: px, y1: py, x2: ex, y2: ey, stroke: colour }));
          const ang = Math.atan2(ey - py, ex - px);
          const h = 8;
          const p1 = [ex - h * Math.cos(ang - 0.5), ey - h * Math.sin(ang - 0.5)];
          const p2 = [ex - h * Math.cos(ang + 0.5), ey - h * Math.sin(ang + 0.5)];
          g.append(svgEl('polygon', { points: `${ex},${ey} ${p1} ${p2}`, fill: colour }));
        }
      }
      g.append(svgEl('circle', { cx: px, cy: py, r: radius, fill: colour }));
      const t = svgEl('text', { x: px, y: py + 4, 'text-anchor': 'middle' });
      t.textContent = a.id;
      g.append(t);
      const title = svgEl('title');
      title.textContent = `${d.agents[i]}: ${v.x}=${shown(agentValue(a, v.x))} ${v.y}=${shown(agentValue(a, v.y))}`
        + (v.dx ? ` ${v.dx}=${shown(agentValue(a, v.dx))} ${v.dy}=${shown(agentValue(a, v.dy))}` : '');
      g.append(title);
      svg.append(g);
    });
    return c;
  };
  if (ghost) draw(ghost, 'ghost');
  const c = draw(state, '');
  const ev = event || d.last_event;
  if (ev && (ev.kind === 'propagate' || ev.kind === 'confirm') && c[ev.agent]) {
    for (const r of ev.receivers) {
      if (!c[r]) continue;
      svg.append(svgEl('line', {
        class: 'msg-line ' + (ev.kind === 'propagate' ? 'put' : 'qry'),
        x1: c[ev.agent][0], y1: c[ev.agent][1], x2: c[r][0], y2: c[r][1],
      }));
    }
  }
}

function renderProperties(d) {
  const body = $('props').tBodies[0];
  body.replaceChildren();
  const complete = d.loop_start !== null ? `by the loop back to state ${d.loop_start}`
    : d.ends_in_deadlock ? 'by the deadlock at the end' : null;
  const cell = (s, at, run) => {
    const td = el('td', { class: 'status ' + s }, s);
    if (at !== null) {
      const where = run && at === d.length && complete && s !== 'undecided' ? complete : `at state ${at}`;
      td.append(el('span', { class: 'progress' }, where));
    }
    return td;
  };
  for (const p of d.properties) {
    const here = cell(p.status, p.at, false);
    if (p.progress) here.append(el('span', { class: 'progress' }, p.progress));
    const run = cell(p.run_status, p.run_at, true);
    const name = el('td', { title: p.text }, el('span', { class: 'pname' }, p.property), ' ',
      el('span', { class: 'modality' }, p.modality));
    body.append(el('tr', { 'data-property': p.property }, name, here, run));
  }
  if (d.properties.length === 0) body.append(el('tr', {}, el('td', { colspan: '3' }, 'the spec has no properties')));
  const pe = $('property-error');
  pe.hidden = !d.property_error;
  pe.textContent = d.property_error || '';
  const sel = $('until-property');
  const keep = sel.value;
  sel.replaceChildren(...d.properties.map((p) => el('option', { value: p.property }, p.property)));
  if (keep) sel.value = keep;
}

function renderChart(d) {
  const box = $('chart');
  // The chart is the report's SVG, built by the server from the history (its text escaped).
  box.innerHTML = d.chart;
  for (const a of box.querySelectorAll('a')) {
    const m = /#h-s(\d+)$/.exec(a.getAttribute('href') || '');
    if (!m) continue;
    a.addEventListener('click', (e) => { e.preventDefault(); goto(Number(m[1])); });
  }
  highlightRow(box, d.cursor);
}

// A band behind the chart's row of state `at` (0: the initial row).
function highlightRow(box, at) {
  const svgs = box.querySelectorAll('svg.msc-segment');
  if (!svgs.length) return;
  const numberOf = (t) => Number(t.textContent);
  for (const svg of svgs) {
    const nums = [...svg.querySelectorAll('text.stepno')];
    let top = null;
    let bottom = null;
    if (at === 0 && svg === svgs[0]) {
      const inits = [...svg.querySelectorAll('g.initial rect')];
      if (inits.length) {
        top = Math.min(...inits.map((r) => Number(r.getAttribute('y')))) - 6;
        bottom = nums.length ? Number(nums[0].getAttribute('y')) - 17
          : Math.max(...inits.map((r) => Number(r.getAttribute('y')) + Number(r.getAttribute('height')))) + 6;
      }
    } else {
      const i = nums.findIndex((t) => numberOf(t) === at);
      if (i < 0) continue;
      nums[i].classList.add('current');
      top = Number(nums[i].getAttribute('y')) - 17;
      bottom = i + 1 < nums.length ? Number(nums[i + 1].getAttribute('y')) - 17 : top + 34;
    }
    if (top === null) continue;
    const band = svgEl('rect', { class: 'cursor-row', x: 0, y: top, width: svg.getAttribute('width') || '100%', height: Math.max(12, bottom - top) });
    svg.insertBefore(band, svg.firstChild);
    // Keep the row in view inside the chart's own box.
    const r = band.getBoundingClientRect();
    const b = box.getBoundingClientRect();
    if (r.top < b.top || r.bottom > b.bottom) box.scrollTop += r.top - b.top - b.height / 3;
  }
}

function renderTraces(d) {
  const sel = $('trace-select');
  const keep = sel.value;
  sel.replaceChildren(...d.traces.map((t) => el('option', { value: String(t.index) }, t.title)));
  if (keep && Number(keep) < d.traces.length) sel.value = keep;
  $('trace-row').hidden = !d.trace_file;
}

function wire() {
  $('first').addEventListener('click', () => goto(0));
  $('back').addEventListener('click', () => view && goto(Math.max(0, view.cursor - 1)));
  $('forward').addEventListener('click', () => view && goto(Math.min(view.length, view.cursor + 1)));
  $('last').addEventListener('click', () => view && goto(view.length));
  $('slider').addEventListener('change', (e) => goto(Number(e.target.value)));
  $('random-form').addEventListener('submit', (e) => {
    e.preventDefault();
    call('POST', '/api/random', { rev: view.rev, steps: Number($('random-steps').value), seed: Number($('random-seed').value) });
  });
  $('until-kind').addEventListener('change', () => {
    const k = $('until-kind').value;
    $('until-predicate').hidden = k !== 'predicate';
    $('until-property').hidden = k !== 'violated';
  });
  $('until-form').addEventListener('submit', (e) => {
    e.preventDefault();
    call('POST', '/api/until', {
      rev: view.rev,
      kind: $('until-kind').value,
      predicate: $('until-predicate').value,
      property: $('until-property').value,
      max_steps: Number($('until-max').value),
      seed: Number($('until-seed').value),
    });
  });
  $('restart-first').addEventListener('click', () => call('POST', '/api/restart', {}));
  $('restart-random').addEventListener('click', () => call('POST', '/api/restart', { seed: Number($('restart-seed').value) }));
  $('trace-load').addEventListener('click', () => {
    call('POST', '/api/load', { file: view.trace_file, index: Number($('trace-select').value || 0) });
  });
  $('trace-upload').addEventListener('change', async (e) => {
    const f = e.target.files[0];
    if (!f) return;
    const text = await f.text();
    await call('POST', '/api/load', { json: text, index: 0 });
    e.target.value = '';
  });
  document.addEventListener('keydown', (e) => {
    if (!view || e.target.closest('input, select, textarea')) return;
    if (e.key === 'ArrowLeft' && view.cursor > 0) goto(view.cursor - 1);
    else if (e.key === 'ArrowRight' && view.cursor < view.length) goto(view.cursor + 1);
    else if (e.key === 'Home') goto(0);
    else if (e.key === 'End') goto(view.length);
    else if (/^[1-9]$/.test(e.key) && Number(e.key) <= view.enabled.length) take(Number(e.key) - 1);
    else return;
    e.preventDefault();
  });
}

wire();
refresh();
