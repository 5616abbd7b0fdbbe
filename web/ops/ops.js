/*
 * The operator console: a client of the operator API (/ops/v1) and nothing else. The page holds no data of its own;
 * every list, form and button calls the API with the operator token, which this tab keeps in sessionStorage only
 * (signing out, or closing the tab, forgets it). What the API refuses is shown in its own words.
 *
 * Views (the address's #fragment): #board (dispatch, polled), #partners[/<partner_id>], #deliveries (polled),
 * #audit[?request_id=…], #operators. All times are Sri Lanka time (UTC+05:30 all year), whatever the browser's zone.
 *
 * Roles: who is signed in comes from GET /me; what the page offers follows the role, ranked as the API ranks them
 * (each operation's `x-required-role` in ops-v1.yaml): what a role may not do is not shown at all (elements marked
 * `data-needs="dispatcher|admin"`, and the forms built here). The API decides still: a 403 is shown in its words.
 */
(function () {
  'use strict';

  var ROOT = document.documentElement.getAttribute('data-root') || '';
  var API = ROOT + '/ops/v1';
  var TOKEN_KEY = 'lanka-ops-token';
  var POLL_MS = 10000;
  var SLT_MS = 330 * 60000;
  var HOUR = 3600000;
  var FLEET = [
    ['small_car', 'Small car'], ['standard_car', 'Standard car'], ['premium_car', 'Premium car'], ['suv', 'SUV'],
    ['standard_van', 'Standard van'], ['premium_van', 'Premium van'], ['large_van', 'Large van'], ['standard_bus', 'Standard bus'],
  ];
  var FLEET_NAMES = {};
  FLEET.forEach(function (f) { FLEET_NAMES[f[0]] = f[1]; });
  var REFUSALS = {
    assignment_conflict: 'Double booking refused',
    vehicle_too_small: 'Vehicle too small',
    job_conflict: 'Not possible for this job',
    not_found: 'Not found',
    invalid_request: 'Not accepted',
    already_exists: 'Already exists',
    forbidden: 'Not allowed for your role',
    rate_limited: 'Too many requests',
  };
  /** The roles by rank: a role may do everything a lower one may (as the API has it). */
  var ROLES = ['viewer', 'dispatcher', 'admin'];
  /** The least role each view needs (the operations it reads); the others need a viewer. */
  var VIEW_NEEDS = { audit: 'dispatcher', operators: 'admin' };
  var ENVS = ['sandbox', 'production'];
  var MARKETPLACE_KINDS = {
    confirm_order: 'confirm order', decline_order: 'decline order', driver_info: 'driver info', driver_location: 'driver location',
    change_confirmation: 'change confirmation', no_show: 'no-show report', brand_list: 'brand list',
  };

  var token = null;
  var me = null; // { operator_id, name, role } from GET /me
  var clockOffset = 0; // the service's clock minus the browser's
  var pollTimer = null;
  var view = null;

  // --- little helpers -------------------------------------------------------------------------------------------

  var $ = function (id) { return document.getElementById(id); };

  /** An element: h('td', { class: 'x', 'data-label': 'Kind' }, 'text', child, …). Text is always text, never HTML. */
  function h(tag, attrs) {
    var el = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      var v = attrs[k];
      if (v === undefined || v === null || v === false) return;
      if (k === 'onclick' || k === 'onsubmit' || k === 'onchange') el.addEventListener(k.slice(2), v);
      else if (k === 'text') el.textContent = v;
      else el.setAttribute(k, v === true ? '' : String(v));
    });
    for (var i = 2; i < arguments.length; i++) append(el, arguments[i]);
    return el;
  }
  function append(el, child) {
    if (child === undefined || child === null || child === false) return;
    if (Array.isArray(child)) child.forEach(function (c) { append(el, c); });
    else el.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
  function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); return el; }

  function say(el, text, kind) {
    el.hidden = !text;
    el.textContent = text || '';
    el.className = 'status' + (kind ? ' ' + kind : '');
    if (kind === 'error') el.setAttribute('role', 'alert');
    else el.setAttribute('role', 'status');
  }

  // Sri Lanka time, computed from the instant (never the browser's zone).
  function slt(iso) { return new Date(new Date(iso).getTime() + SLT_MS).toISOString(); }
  function hhmm(iso) { return slt(iso).slice(11, 16); }
  var MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  var DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  function dayName(date) {
    var d = new Date(date + 'T00:00:00Z');
    return DAYS[d.getUTCDay()] + ' ' + d.getUTCDate() + ' ' + MONTHS[d.getUTCMonth()];
  }
  function when(iso, seconds) {
    if (!iso) return '—';
    var s = slt(iso);
    return Number(s.slice(8, 10)) + ' ' + MONTHS[Number(s.slice(5, 7)) - 1] + ' ' + s.slice(11, seconds ? 19 : 16);
  }
  function addDays(date, n) { return new Date(Date.parse(date + 'T00:00:00Z') + n * 86400000).toISOString().slice(0, 10); }
  function serviceNow() { return Date.now() + clockOffset; }
  function todayInSriLanka() { return new Date(serviceNow() + SLT_MS).toISOString().slice(0, 10); }
  function dayStart(date) { return Date.parse(date + 'T00:00:00+05:30'); }
  function ago(iso) {
    var min = Math.round((serviceNow() - Date.parse(iso)) / 60000);
    if (min < 1) return 'just now';
    if (min < 120) return min + ' min ago';
    return Math.round(min / 60) + ' h ago';
  }
  function place(p) {
    if (!p) return '';
    var name = p.iata ? p.resolved_name + ' (' + p.iata + ')' : p.name;
    return p.name !== p.resolved_name && !p.iata ? p.name + ' — ' + p.resolved_name : name;
  }
  function shortPlace(p) { return p.iata || p.resolved_name || p.name; }
  function party(j) { return j.passengers.adults + (j.passengers.adults === 1 ? ' adult, ' : ' adults, ') + j.passengers.luggage + (j.passengers.luggage === 1 ? ' bag' : ' bags'); }
  function whoFor(j) { return j.booking_ref ? 'Booking ' + j.booking_ref : 'Marketplace order ' + j.order_id; }
  function whereabouts(j) {
    var l = j.last_location;
    if (!l) return 'No position reported yet';
    return l.lat.toFixed(5) + ', ' + l.lon.toFixed(5) + ' at ' + hhmm(l.at) + ' (' + ago(l.at) + ')';
  }

  // --- the operator API -----------------------------------------------------------------------------------------

  /**
   * One request to the operator API with the token. Resolves with the answer (any status); a 401 while signed in
   * means the token is no longer accepted: the console forgets it and asks again.
   */
  function api(method, path, body, opts) {
    opts = opts || {};
    var headers = { Authorization: 'Bearer ' + (opts.token || token), Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (opts.etag) headers['If-None-Match'] = opts.etag;
    return fetch(API + path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' }).then(function (res) {
      return res.text().then(function (text) {
        var json;
        try { json = text ? JSON.parse(text) : undefined; } catch (e) { json = undefined; }
        var r = { status: res.status, ok: res.ok, json: json, text: text, etag: res.headers.get('ETag'), retryAfter: res.headers.get('Retry-After'), requestId: res.headers.get('X-Request-Id') };
        if (res.status === 401 && !opts.token) {
          signOut('The operator API no longer accepts this token (' + refusal(r) + '). Sign in again.', 'error');
          throw new Error('signed out');
        }
        return r;
      });
    }, function (err) {
      return { status: 0, ok: false, json: undefined, text: String(err && err.message), networkError: true };
    });
  }

  /** The API's refusal in words: what kind of refusal, its message, and the fields it names. */
  function refusal(r) {
    if (r.networkError) return 'The service could not be reached (' + r.text + ').';
    var e = r.json && r.json.error;
    if (!e) return 'HTTP ' + r.status + (r.text ? ': ' + r.text.slice(0, 200) : '');
    var title = REFUSALS[e.code];
    var fields = ((e.details && e.details.fields) || []).map(function (f) { return f.field + ' ' + f.message; });
    var text = (title ? title + ': ' : e.code + ': ') + e.message;
    if (fields.length && e.message.indexOf(fields[0]) < 0) text += ' (' + fields.join('; ') + ')';
    return text;
  }
  function failed(el, r) {
    say(el, refusal(r), 'error');
    if (r.requestId) el.appendChild(h('span', { class: 'request-id' }, 'Request ' + r.requestId + ' in the audit log'));
  }

  // --- session --------------------------------------------------------------------------------------------------

  /** Whether the operator signed in may do what `role` may. */
  function can(role) { return !!me && ROLES.indexOf(me.role) >= ROLES.indexOf(role); }

  /**
   * Checks a token (GET /ping, which also gives the service's clock) and asks whom it belongs to (GET /me).
   * Resolves with the first answer that is not a 200, or with nothing once both are and the session is set.
   */
  function establish(candidate) {
    return api('GET', '/ping', undefined, { token: candidate }).then(function (ping) {
      if (ping.status !== 200) return ping;
      return api('GET', '/me', undefined, { token: candidate }).then(function (who) {
        if (who.status !== 200) return who;
        token = candidate;
        me = who.json;
        clockOffset = Date.parse(ping.json.time) - Date.now();
        return undefined;
      });
    });
  }

  function signIn(candidate) {
    var status = $('signin-status');
    say(status, 'Checking the token…');
    return establish(candidate).then(function (r) {
      if (!r) {
        sessionStorage.setItem(TOKEN_KEY, candidate);
        $('token-input').value = '';
        say(status, '');
        started();
        return true;
      }
      var text = 'Refused: the operator API answered ' + r.status + (r.json && r.json.error ? ' ' + r.json.error.code + ': ' + r.json.error.message : '');
      if (r.retryAfter) text += ' Too many wrong tokens came from this address: every token is refused for another ' + r.retryAfter + ' seconds.';
      say(status, r.networkError ? refusal(r) : text, 'error');
      return false;
    });
  }

  function started() {
    applyRole();
    $('sections').hidden = false;
    $('session').hidden = false;
    tickClock();
    if (!location.hash || location.hash === '#signin') location.hash = '#board';
    else route();
  }

  /** Who is signed in, in the header; and only what the role may do, on the page. */
  function applyRole() {
    $('whoami-name').textContent = me.name;
    $('whoami-role').textContent = me.role;
    $('whoami').title = 'Signed in as ' + me.name + ' (' + me.operator_id + '), ' + me.role;
    document.querySelectorAll('[data-needs]').forEach(function (el) { el.hidden = !can(el.getAttribute('data-needs')); });
  }

  /** Forgets the token and everything shown with it. */
  function signOut(message, kind) {
    token = null;
    me = null;
    view = null;
    sessionStorage.removeItem(TOKEN_KEY);
    stopPolling();
    board.jobs = [];
    board.etag = null;
    board.selected = null;
    board.scrolledFor = null;
    ['timeline', 'unassigned', 'job-panel', 'partner-detail', 'audit-detail', 'new-operator', 'whoami-name', 'whoami-role'].forEach(function (id) { clear($(id)); });
    ['#partners-table tbody', '#deliveries-table tbody', '#audit-table tbody', '#operators-table tbody'].forEach(function (sel) { clear(document.querySelector(sel)); });
    $('new-operator').hidden = true;
    say($('operator-form-status'), '');
    $('sections').hidden = true;
    $('session').hidden = true;
    show('signin');
    if (location.hash) history.replaceState(null, '', location.pathname + location.search);
    say($('signin-status'), message || '', kind);
  }

  function tickClock() {
    var now = new Date(serviceNow()).toISOString();
    $('service-clock').textContent = 'Service time ' + dayName(todayInSriLanka()) + ' ' + hhmm(now);
  }

  // --- views and polling ----------------------------------------------------------------------------------------

  var VIEWS = ['signin', 'board', 'partners', 'deliveries', 'audit', 'operators'];
  function show(name) {
    VIEWS.forEach(function (v) { $('view-' + v).hidden = v !== name; });
    document.querySelectorAll('#sections a').forEach(function (a) {
      if (a.getAttribute('href') === '#' + name) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    });
    var titles = { signin: 'Sign in', board: 'Dispatch', partners: 'Partners', deliveries: 'Deliveries', audit: 'Audit log', operators: 'Operators' };
    document.title = titles[name] + ' · Operator console · Lanka Transfers';
  }

  function route() {
    if (!token) return show('signin');
    var hash = location.hash.replace(/^#/, '');
    var m = /^([a-z]+)(?:\/([^?]*))?(?:\?(.*))?$/.exec(hash) || [];
    var name = VIEWS.indexOf(m[1]) > 0 ? m[1] : 'board';
    // A view the role may not read is not offered: its address opens the board.
    if (VIEW_NEEDS[name] && !can(VIEW_NEEDS[name])) {
      name = 'board';
      history.replaceState(null, '', '#board');
    }
    var changed = name !== view;
    // The token shown once goes with the view it was shown in.
    if (changed && view === 'operators') { clear($('new-operator')).hidden = true; }
    view = name;
    show(name);
    stopPolling();
    if (changed) {
      var title = $(name + '-title');
      if (title) title.focus({ preventScroll: true });
    }
    if (name === 'board') openBoard();
    if (name === 'partners') openPartners(m[2] ? decodeURIComponent(m[2]) : null);
    if (name === 'deliveries') loadDeliveries().then(poll);
    if (name === 'audit') openAudit(new URLSearchParams(m[3] || ''));
    if (name === 'operators') loadOperators();
  }

  /** Keeps the current view fresh while the tab is visible (board and deliveries). */
  function poll() {
    stopPolling();
    pollTimer = setTimeout(function () {
      if (!token) return;
      tickClock();
      var next = document.hidden ? Promise.resolve() : view === 'board' ? loadJobs() : view === 'deliveries' ? loadDeliveries() : null;
      if (next) next.then(poll, poll);
    }, POLL_MS);
  }
  function stopPolling() { clearTimeout(pollTimer); pollTimer = null; }
  document.addEventListener('visibilitychange', function () {
    if (!document.hidden && token && (view === 'board' || view === 'deliveries')) route();
  });

  // --- dispatch board -------------------------------------------------------------------------------------------

  var board = { day: 0, date: null, etag: null, jobs: [], vehicles: [], drivers: [], selected: null, shownStatus: null, scrolledFor: null, result: null };

  function openBoard() {
    board.date = addDays(todayInSriLanka(), board.day);
    $('day-today').textContent = 'Today, ' + dayName(addDays(todayInSriLanka(), 0));
    $('day-tomorrow').textContent = 'Tomorrow, ' + dayName(addDays(todayInSriLanka(), 1));
    $('day-today').setAttribute('aria-pressed', String(board.day === 0));
    $('day-tomorrow').setAttribute('aria-pressed', String(board.day === 1));
    return Promise.all([api('GET', '/vehicles?active=true'), api('GET', '/drivers?active=true')]).then(function (rs) {
      if (rs[0].ok) board.vehicles = rs[0].json.data;
      if (rs[1].ok) board.drivers = rs[1].json.data;
      board.etag = null;
      return loadJobs();
    }).then(poll, function () {});
  }

  /** The day's jobs; with the last ETag, an unchanged list costs a 304. */
  function loadJobs() {
    var date = board.date;
    return api('GET', '/jobs?date=' + date + '&limit=500', undefined, { etag: board.etag }).then(function (r) {
      if (date !== board.date) return;
      var checked = 'Checked at ' + hhmm(new Date(serviceNow()).toISOString()) + '; updates every ' + POLL_MS / 1000 + ' s.';
      if (r.status === 304) { $('board-status').textContent = checked; return; }
      if (!r.ok) { $('board-status').textContent = 'Could not load the jobs: ' + refusal(r); return; }
      board.etag = r.etag;
      board.jobs = r.json.data.filter(function (j) { return j.status !== 'cancelled'; });
      var cancelled = r.json.data.length - board.jobs.length;
      $('board-status').textContent = board.jobs.length + (board.jobs.length === 1 ? ' job' : ' jobs') + (cancelled ? ' (and ' + cancelled + ' cancelled)' : '') + '. ' + checked;
      renderBoard();
    });
  }

  function renderBoard() {
    renderTimeline();
    renderUnassigned();
    renderJobPanel();
  }

  /**
   * The hours the timeline shows: the day's jobs (and now, today) with an hour either side, at least 12 hours,
   * within the day. Ticks every 2 or 3 hours.
   */
  function timelineRange(start) {
    var times = [];
    board.jobs.forEach(function (j) { times.push(Date.parse(j.pickup_at), Date.parse(j.ends_at)); });
    var now = serviceNow();
    if (now >= start && now < start + 24 * HOUR) times.push(now);
    var lo = times.length ? Math.max(0, Math.floor((Math.min.apply(null, times) - start) / HOUR) - 1) : 0;
    var hi = times.length ? Math.min(24, Math.ceil((Math.max.apply(null, times) - start) / HOUR) + 1) : 24;
    var tick = hi - lo > 16 ? 3 : 2;
    lo -= lo % tick;
    if (hi - lo < 12) hi = Math.min(24, lo + 12);
    if (hi - lo < 12) lo = Math.max(0, hi - 12);
    return { from: start + lo * HOUR, hours: hi - lo, first: lo, tick: tick };
  }

  function renderTimeline() {
    var start = dayStart(board.date);
    var range = timelineRange(start);
    var span = range.hours * HOUR;
    var rows = [];
    var byVehicle = {};
    board.jobs.forEach(function (j) {
      if (!j.vehicle) return;
      (byVehicle[j.vehicle.vehicle_id] = byVehicle[j.vehicle.vehicle_id] || []).push(j);
    });
    var vehicles = board.vehicles.slice();
    // A vehicle taken out of service keeps the jobs it holds on the board.
    Object.keys(byVehicle).forEach(function (id) {
      if (!vehicles.some(function (v) { return v.vehicle_id === id; })) vehicles.push(byVehicle[id][0].vehicle);
    });
    var order = FLEET.map(function (f) { return f[0]; });
    vehicles.sort(function (a, b) { return order.indexOf(a.fleet_code) - order.indexOf(b.fleet_code) || (a.plate < b.plate ? -1 : 1); });

    var hours = h('div', { class: 'tl-row tl-hours', 'aria-hidden': 'true' }, h('div', { class: 'tl-label' }));
    var scale = h('div', { class: 'tl-track' });
    for (var i = 0; i < range.hours; i += range.tick) {
      var hour = range.first + i;
      scale.appendChild(h('span', { class: 'tl-hour', style: 'left:' + (i / range.hours) * 100 + '%' }, (hour < 10 ? '0' : '') + hour + ':00'));
    }
    hours.appendChild(scale);
    rows.push(hours);

    var grid = 'background-size:' + (range.tick / range.hours) * 100 + '% 100%';
    var nowPct = ((serviceNow() - range.from) / span) * 100;
    var newTrack = function () {
      var track = h('div', { class: 'tl-track', style: grid });
      if (nowPct >= 0 && nowPct <= 100) track.appendChild(h('span', { class: 'tl-now', style: 'left:' + nowPct + '%', 'aria-hidden': 'true' }));
      return track;
    };
    vehicles.forEach(function (v) {
      var track = newTrack();
      (byVehicle[v.vehicle_id] || []).forEach(function (j) { track.appendChild(jobBlock(j, range.from, span)); });
      rows.push(h('div', { class: 'tl-row', role: 'group', 'aria-label': v.plate + ', ' + FLEET_NAMES[v.fleet_code] },
        h('div', { class: 'tl-label' }, h('strong', {}, v.plate), h('span', {}, FLEET_NAMES[v.fleet_code])),
        track));
    });
    // Jobs closed without a vehicle (a no-show before anyone was assigned).
    var loose = board.jobs.filter(function (j) { return !j.vehicle && j.status !== 'confirmed'; });
    if (loose.length) {
      var track = newTrack();
      loose.forEach(function (j) { track.appendChild(jobBlock(j, range.from, span)); });
      rows.push(h('div', { class: 'tl-row' }, h('div', { class: 'tl-label' }, h('strong', {}, 'No vehicle'), h('span', {}, 'closed')), track));
    }
    if (vehicles.length === 0) rows.push(h('p', { class: 'empty' }, 'No active vehicle: register the fleet with the operator API or the CLI (vehicle add).'));
    var tl = clear($('timeline'));
    append(tl, h('div', { class: 'tl-grid' }, rows));
    // When the day's timeline is wider than the screen, it opens two hours before now (today) or at the first job.
    if (board.scrolledFor !== board.date) {
      board.scrolledFor = board.date;
      var first = tl.querySelector('.tl-track');
      tl.scrollLeft = nowPct >= 0 && nowPct <= 100 ? Math.max(0, ((serviceNow() - 2 * HOUR - range.from) / span) * first.clientWidth) : 0;
    }
  }

  function jobBlock(j, origin, span) {
    var from = Math.max(0, (Date.parse(j.pickup_at) - origin) / span);
    var to = Math.min(1, (Date.parse(j.ends_at) - origin) / span);
    var label = 'Job ' + j.job_id + ', ' + hhmm(j.pickup_at) + ' to ' + hhmm(j.ends_at) + ', ' + shortPlace(j.pickup) + ' to ' + shortPlace(j.dropoff) +
      ', ' + statusText(j) + (j.driver ? ', driver ' + j.driver.name : '');
    return h('button', {
      type: 'button',
      class: 'tl-job ' + j.status + (j.last_location ? ' located' : '') + (board.selected === j.job_id ? ' selected' : ''),
      style: 'left:' + from * 100 + '%;width:' + Math.max(1.5, (to - from) * 100) + '%',
      title: label + '. ' + whereabouts(j),
      'aria-label': label,
      'data-job': j.job_id,
      onclick: function () { selectJob(j.job_id); },
    }, h('span', {}, hhmm(j.pickup_at) + ' ' + shortPlace(j.pickup) + ' → ' + shortPlace(j.dropoff)), j.driver ? h('span', { class: 'who' }, j.driver.name) : null);
  }

  function statusText(j) {
    return { confirmed: 'unassigned', driver_assigned: 'assigned', completed: 'completed', no_show: 'no-show', cancelled: 'cancelled' }[j.status] || j.status;
  }

  function renderUnassigned() {
    var open = board.jobs.filter(function (j) { return j.status === 'confirmed'; });
    $('unassigned-count').textContent = String(open.length);
    var list = clear($('unassigned'));
    if (!open.length) list.appendChild(h('li', { class: 'empty' }, board.jobs.length ? 'Every job of the day has a driver.' : 'No job on this day.'));
    open.forEach(function (j) {
      list.appendChild(h('li', {}, h('button', {
        type: 'button',
        class: 'job-card' + (board.selected === j.job_id ? ' selected' : ''),
        'data-job': j.job_id,
        onclick: function () { selectJob(j.job_id); },
      },
      h('span', { class: 'when' }, hhmm(j.pickup_at) + '–' + hhmm(j.ends_at), h('span', { class: 'id' }, 'Job ' + j.job_id)),
      h('span', { class: 'route' }, shortPlace(j.pickup) + ' → ' + shortPlace(j.dropoff)),
      h('span', { class: 'what' }, FLEET_NAMES[j.fleet_code] + ' · ' + party(j) + ' · ' + whoFor(j)),
      h('span', { class: 'where' }, whereabouts(j)))));
    });
  }

  function selectJob(id) {
    board.selected = id;
    board.shownStatus = null;
    board.result = null;
    renderBoard();
    var panel = $('job-panel');
    // Wide screens: the side column scrolls by itself; narrow ones: the panel is above the timeline.
    if (getComputedStyle(panel.parentNode).position === 'sticky') panel.parentNode.scrollTop = 0;
    else panel.scrollIntoView({ block: 'nearest' });
    var title = $('job-title');
    if (title) title.focus({ preventScroll: true });
  }

  function overlaps(a, b) { return Date.parse(a.pickup_at) < Date.parse(b.ends_at) && Date.parse(b.pickup_at) < Date.parse(a.ends_at); }

  function renderJobPanel() {
    var panel = $('job-panel');
    var j = board.jobs.filter(function (x) { return x.job_id === board.selected; })[0];
    if (!j) { panel.hidden = true; clear(panel); return; }
    panel.hidden = false;
    // [name, value, spans both columns]
    var facts = [
      ['Pickup', hhmm(j.pickup_at) + ' · ' + place(j.pickup) + (j.flight_number ? ' · flight ' + j.flight_number : ''), true],
      ['Drop-off', place(j.dropoff), true],
      ['Holds a vehicle', hhmm(j.pickup_at) + '–' + hhmm(j.ends_at)],
      ['Party', party(j) + ' · ' + FLEET_NAMES[j.fleet_code]],
      ['Passenger', j.passenger.name + (j.passenger.phone ? ', ' + j.passenger.phone : '')],
      ['For', whoFor(j)],
      ['Driver', j.driver ? j.driver.name + ', ' + j.driver.phone : 'none yet'],
      ['Vehicle', j.vehicle ? j.vehicle.plate + ' · ' + j.vehicle.brand + ' ' + j.vehicle.model + ' (' + j.vehicle.colour + ')' : 'none yet'],
      ['Last known location', whereabouts(j), true],
    ];
    var info = h('div', { id: 'job-info' },
      h('div', { class: 'panel-head' },
        h('h2', { id: 'job-title', tabindex: '-1' }, 'Job ' + j.job_id),
        h('span', { class: 'chip ' + j.status }, statusText(j)),
        h('button', { type: 'button', class: 'quiet close', 'aria-label': 'Close the job', onclick: function () { board.selected = null; renderBoard(); } }, 'Close')),
      h('dl', { class: 'facts' }, facts.map(function (f) { return h('div', { class: f[2] ? 'wide' : null }, h('dt', {}, f[0]), h('dd', { 'data-fact': f[0] }, f[1])); })));
    // The forms are rebuilt only when the job or its state changes, so a poll never wipes what is being typed.
    var key = j.job_id + ':' + j.status;
    var old = $('job-info');
    if (old && board.shownStatus === key) { panel.replaceChild(info, old); return; }
    board.shownStatus = key;
    clear(panel);
    panel.appendChild(info);
    if (!can('dispatcher')) {
      panel.appendChild(h('p', { class: 'hint' }, 'Assigning and finishing jobs needs the dispatcher role; you are a ' + me.role + '.'));
    } else if (j.status === 'confirmed' || j.status === 'driver_assigned') {
      // (Re)assignment ends at the pickup time, as the API has it; completion and no-shows start there.
      if (serviceNow() < Date.parse(j.pickup_at)) panel.appendChild(assignForm(j));
      else panel.appendChild(h('p', { class: 'hint' }, 'The pickup time has passed: the job can no longer be (re)assigned.'));
      panel.appendChild(closeForms(j));
    } else {
      panel.appendChild(h('p', { class: 'hint' }, 'This job is ' + statusText(j) + ': nothing more can be done with it.'));
      panel.appendChild(resultArea('finish-result'));
    }
    // What the last action answered, shown next to the form it came from.
    if (board.result) say($(board.result.id) || h('p'), board.result.text, board.result.kind);
  }

  function resultArea(id) { return h('p', { id: id, class: 'status', role: 'status', 'aria-live': 'polite', hidden: true }); }

  function assignForm(j) {
    var busy = function (resource, id) {
      var other = board.jobs.filter(function (x) {
        return x.job_id !== j.job_id && x.status === 'driver_assigned' && (resource === 'driver' ? x.driver && x.driver.driver_id === id : x.vehicle && x.vehicle.vehicle_id === id) && overlaps(x, j);
      })[0];
      return other ? ' (busy ' + hhmm(other.pickup_at) + '–' + hhmm(other.ends_at) + ', job ' + other.job_id + ')' : '';
    };
    var drivers = h('select', { id: 'assign-driver', name: 'driver_id', required: true }, h('option', { value: '' }, 'Choose a driver'),
      board.drivers.map(function (d) { return h('option', { value: d.driver_id, selected: j.driver && j.driver.driver_id === d.driver_id }, d.name + busy('driver', d.driver_id)); }));
    var groups = {};
    board.vehicles.forEach(function (v) { (groups[v.fleet_code] = groups[v.fleet_code] || []).push(v); });
    var codes = [j.fleet_code].concat(FLEET.map(function (f) { return f[0]; }).filter(function (c) { return c !== j.fleet_code; }));
    var vehicles = h('select', { id: 'assign-vehicle', name: 'vehicle_id', required: true }, h('option', { value: '' }, 'Choose a vehicle'),
      codes.filter(function (c) { return groups[c]; }).map(function (c) {
        return h('optgroup', { label: FLEET_NAMES[c] + (c === j.fleet_code ? ' (the job’s class)' : '') }, groups[c].map(function (v) {
          return h('option', { value: v.vehicle_id, selected: j.vehicle && j.vehicle.vehicle_id === v.vehicle_id }, v.plate + ' · ' + v.brand + ' ' + v.model + busy('vehicle', v.vehicle_id));
        }));
      }));
    return h('form', { class: 'fields job-form', id: 'assign-form', onsubmit: function (e) {
      e.preventDefault();
      act(j, 'assign', 'assign-result', { driver_id: drivers.value, vehicle_id: vehicles.value }, function (job) {
        return 'Assigned: ' + job.driver.name + ' with ' + job.vehicle.plate + ' to job ' + job.job_id + '.';
      });
    } },
    h('h3', {}, j.driver ? 'Reassign (until pickup)' : 'Assign a driver and a vehicle'),
    h('div', {}, h('label', { for: 'assign-driver' }, 'Driver'), drivers),
    h('div', {}, h('label', { for: 'assign-vehicle' }, 'Vehicle'), vehicles),
    h('div', { class: 'submit' }, h('button', { type: 'submit', class: 'primary' }, j.driver ? 'Reassign' : 'Assign')),
    resultArea('assign-result'));
  }

  function closeForms(j) {
    var note = h('textarea', { id: 'no-show-note', name: 'note', rows: '2', maxlength: '1000', required: true, 'aria-describedby': 'no-show-hint', placeholder: 'Waited at arrivals with a name board until 70 minutes after landing.' });
    return h('div', { class: 'job-close' },
      h('h3', {}, 'Finish the job'),
      h('p', { class: 'hint', id: 'no-show-hint' }, 'From the pickup time (' + hhmm(j.pickup_at) + '); a no-show within 24 hours of it. The note goes with the no-show report as evidence.'),
      h('button', { type: 'button', id: 'complete-job', onclick: function () {
        act(j, 'complete', 'finish-result', undefined, function (job) { return 'Job ' + job.job_id + ' is completed.'; });
      } }, 'Mark completed'),
      h('form', { class: 'fields', id: 'no-show-form', onsubmit: function (e) {
        e.preventDefault();
        act(j, 'no-show', 'finish-result', { note: note.value }, function (job) { return 'Job ' + job.job_id + ' is recorded as a no-show.'; });
      } },
      h('div', { class: 'grow' }, h('label', { for: 'no-show-note' }, 'No-show note'), note),
      h('div', { class: 'submit' }, h('button', { type: 'submit' }, 'Report no-show'))),
      resultArea('finish-result'));
  }

  /**
   * One job action through the API; its answer, or its refusal in words, is shown under the form it came from
   * (`resultId`), and stays there when the panel is redrawn (a success changes the job, so it always is).
   */
  function act(j, action, resultId, body, success) {
    board.result = null;
    say($(resultId), 'Sending…');
    return api('POST', '/jobs/' + encodeURIComponent(j.job_id) + '/' + action, body).then(function (r) {
      if (r.ok) {
        board.result = { id: resultId, text: success(r.json), kind: 'ok' };
        board.etag = null;
        return loadJobs();
      }
      failed($(resultId), r);
    }, function () {});
  }

  document.addEventListener('keydown', function (e) {
    if (e.key === 'Escape' && view === 'board' && board.selected) {
      var id = board.selected;
      board.selected = null;
      renderBoard();
      var back = document.querySelector('[data-job="' + id + '"]');
      if (back) back.focus();
    }
  });
  $('day-today').addEventListener('click', function () { board.day = 0; board.selected = null; openBoard(); });
  $('day-tomorrow').addEventListener('click', function () { board.day = 1; board.selected = null; openBoard(); });
  $('board-refresh').addEventListener('click', function () { openBoard(); });

  // --- partners -------------------------------------------------------------------------------------------------

  var partners = { list: [], open: null };

  function openPartners(partnerId) {
    partners.open = partnerId;
    return loadPartners().then(function () {
      if (partnerId) return showPartner(partnerId);
      $('partner-detail').hidden = true;
    }, function () {});
  }

  function loadPartners() {
    return api('GET', '/partners').then(function (r) {
      if (!r.ok) return failed($('partner-form-status'), r);
      partners.list = r.json.data;
      var body = clear(document.querySelector('#partners-table tbody'));
      if (!partners.list.length) body.appendChild(h('tr', {}, h('td', { colspan: '4', class: 'empty' }, 'No partner yet.')));
      partners.list.forEach(function (p) {
        body.appendChild(h('tr', { class: partners.open === p.partner_id ? 'selected' : null },
          h('td', { 'data-label': 'Name' }, h('a', { href: '#partners/' + encodeURIComponent(p.partner_id), 'aria-current': partners.open === p.partner_id ? 'true' : null }, p.name)),
          h('td', { 'data-label': 'Partner id' }, h('code', {}, p.partner_id)),
          h('td', { 'data-label': 'Currency' }, p.currency),
          h('td', { 'data-label': 'Quoting' }, h('span', { class: 'chip ' + (p.paused ? 'paused' : 'active') }, p.paused ? 'paused' : 'active'))));
      });
    });
  }

  function showPartner(partnerId) {
    var detail = $('partner-detail');
    return Promise.all([
      api('GET', '/partners/' + encodeURIComponent(partnerId)),
      api('GET', '/partners/' + encodeURIComponent(partnerId) + '/keys'),
      api('GET', '/partners/' + encodeURIComponent(partnerId) + '/vehicle-codes'),
    ]).then(function (rs) {
      clear(detail);
      detail.hidden = false;
      if (!rs[0].ok) return append(detail, h('p', { class: 'status error', role: 'alert' }, refusal(rs[0])));
      var p = rs[0].json;
      var status = h('p', { id: 'partner-status', class: 'status', role: 'status', 'aria-live': 'polite', hidden: true });
      append(detail, [
        h('div', { class: 'panel-head' },
          h('h2', { id: 'partner-detail-title', tabindex: '-1' }, p.name),
          h('span', { class: 'chip ' + (p.paused ? 'paused' : 'active') }, p.paused ? 'quoting paused' : 'quoting'),
          can('admin') && h('button', { type: 'button', id: 'pause-toggle', onclick: function () {
            api('POST', '/partners/' + encodeURIComponent(p.partner_id) + (p.paused ? '/resume' : '/pause')).then(function (r) {
              if (!r.ok) return failed(status, r);
              loadPartners();
              showPartner(p.partner_id).then(function () { say($('partner-status'), r.json.paused ? 'Paused: its quotes decline with partner_paused.' : 'Resumed: it quotes again.', 'ok'); });
            }, function () {});
          } }, p.paused ? 'Resume quoting' : 'Pause quoting')),
        h('p', { class: 'meta' }, h('code', {}, p.partner_id), ' · bills in ' + p.currency + ' · since ' + when(p.created_at)),
        status,
        keysSection(p, rs[1].ok ? rs[1].json.data : [], status),
        rateLimitSection(p, status),
        vocabularySection(p, rs[2].ok ? rs[2].json.data : [], status),
      ]);
      if (detail.getBoundingClientRect().top > window.innerHeight) detail.scrollIntoView();
    }, function () {});
  }

  function keysSection(p, keys, status) {
    var env = h('select', { id: 'key-env', name: 'env' }, h('option', { value: 'sandbox' }, 'sandbox (svc_sk_test_…)'), h('option', { value: 'production' }, 'production (svc_sk_live_…)'));
    var shown = h('div', { id: 'new-key', class: 'new-key', hidden: true });
    var rows = keys.map(function (k) {
      var action = h('td', { 'data-label': '' });
      if (!k.revoked_at && can('admin')) {
        action.appendChild(h('button', { type: 'button', class: 'danger-quiet', 'data-revoke': k.key_id, onclick: function () { confirmRevoke(action, p, k, status); } }, 'Revoke'));
      }
      return h('tr', {},
        h('td', { 'data-label': 'Key' }, h('code', {}, k.prefix + '…')),
        h('td', { 'data-label': 'Environment' }, k.env),
        h('td', { 'data-label': 'Issued' }, when(k.created_at)),
        h('td', { 'data-label': 'Last used' }, k.last_used_at ? when(k.last_used_at) : 'never'),
        h('td', { 'data-label': 'State' }, k.revoked_at ? h('span', { class: 'chip revoked' }, 'revoked ' + when(k.revoked_at)) : h('span', { class: 'chip active' }, 'active')),
        action);
    });
    return h('section', { 'aria-labelledby': 'keys-title' },
      h('h3', { id: 'keys-title' }, 'API keys'),
      can('admin') && h('form', { class: 'fields', id: 'key-form', onsubmit: function (e) {
        e.preventDefault();
        api('POST', '/partners/' + encodeURIComponent(p.partner_id) + '/keys', { env: env.value }).then(function (r) {
          if (!r.ok) return failed(status, r);
          showPartner(p.partner_id).then(function () { showNewKey(r.json); });
        }, function () {});
      } },
      h('div', {}, h('label', { for: 'key-env' }, 'Environment'), env),
      h('div', { class: 'submit' }, h('button', { type: 'submit', class: 'primary' }, 'Issue a key'))),
      shown,
      keys.length ? h('table', { class: 'data responsive', id: 'keys-table' },
        h('thead', {}, h('tr', {}, ['Key', 'Environment', 'Issued', 'Last used', 'State'].map(function (c) { return h('th', { scope: 'col' }, c); }), h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')))),
        h('tbody', {}, rows)) : h('p', { class: 'empty' }, 'No key yet.'));
  }

  /** The new key, once: a warning, the key, a copy button. Nothing keeps it after this. */
  function showNewKey(k) {
    var box = clear($('new-key'));
    var input = h('input', { id: 'new-key-value', type: 'text', readonly: true, value: k.key, spellcheck: 'false', 'aria-label': 'The new key' });
    var copied = h('p', { id: 'copy-status', class: 'meta', role: 'status', 'aria-live': 'polite' });
    append(box, [
      h('p', { class: 'warning', role: 'alert' }, h('strong', {}, 'Copy this key now. '), 'It is shown this once and cannot be retrieved again: the service keeps only its hash. Send it to the partner over a secure channel; a lost key is replaced, not recovered.'),
      h('label', { for: 'new-key-value' }, 'New ' + k.env + ' key ' + k.key_id),
      h('div', { class: 'row' }, input,
        h('button', { type: 'button', id: 'copy-key', class: 'primary', onclick: function () { copy(input, copied); } }, 'Copy'),
        h('button', { type: 'button', id: 'key-done', onclick: function () { clear(box); box.hidden = true; } }, 'Done, hide it')),
      copied,
    ]);
    box.hidden = false;
    input.focus();
    input.select();
  }

  function copy(input, status) {
    var done = function () { status.textContent = 'Copied to the clipboard.'; };
    var manual = function () {
      input.focus();
      input.select();
      var ok = false;
      try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
      if (ok) done();
      else status.textContent = 'The browser did not allow copying: the text is selected, press Ctrl+C (⌘C).';
    };
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(input.value).then(done, manual);
    else manual();
  }

  function confirmRevoke(cell, p, k, status) {
    clear(cell);
    append(cell, h('span', { class: 'confirm' }, 'Revoke ' + k.key_id + '? Requests with it fail from now on. ',
      h('button', { type: 'button', class: 'danger', id: 'confirm-revoke', onclick: function () {
        api('POST', '/keys/' + encodeURIComponent(k.key_id) + '/revoke').then(function (r) {
          if (!r.ok) return failed(status, r);
          showPartner(p.partner_id).then(function () { say($('partner-status'), 'Key ' + k.key_id + ' is revoked.', 'ok'); });
        }, function () {});
      } }, 'Yes, revoke'),
      h('button', { type: 'button', class: 'quiet', onclick: function () { showPartner(p.partner_id); } }, 'Keep it')));
    $('confirm-revoke').focus();
  }

  function rateText(l) {
    if (!l) return 'No limit';
    return l.requests_per_second + (l.requests_per_second === 1 ? ' request' : ' requests') + ' a second, bursts of up to ' + l.burst;
  }
  function envName(env) { return env === 'sandbox' ? 'Sandbox' : 'Production'; }

  /**
   * The partner's rate limit in each environment (PUT /partners/{id}/rate-limit): shown to every role, set or
   * removed by an admin. An empty burst is the API's default (twice the rate).
   */
  function rateLimitSection(p, status) {
    var limits = p.rate_limits || { sandbox: null, production: null };
    var table = h('table', { class: 'data responsive', id: 'rate-table' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Environment'), h('th', { scope: 'col' }, 'Limit'))),
      h('tbody', {}, ENVS.map(function (env) {
        return h('tr', { 'data-env': env }, h('td', { 'data-label': 'Environment' }, envName(env)),
          h('td', { 'data-label': 'Limit' }, limits[env] ? rateText(limits[env]) : h('span', { class: 'meta' }, 'No limit')));
      })));
    var section = h('section', { 'aria-labelledby': 'rate-title' },
      h('h3', { id: 'rate-title' }, 'Rate limits'),
      h('p', { class: 'hint' }, 'A token bucket per environment, shared by every instance: over it the partner\'s requests get 429 rate_limited with Retry-After. None by default.'),
      table);
    if (!can('admin')) return section;

    var env = h('select', { id: 'rate-env', name: 'env' }, ENVS.map(function (e) { return h('option', { value: e }, envName(e)); }));
    var rps = h('input', { id: 'rate-rps', name: 'requests_per_second', type: 'number', min: '0.01', max: '100000', step: 'any', required: true, inputmode: 'decimal' });
    var burst = h('input', { id: 'rate-burst', name: 'burst', type: 'number', min: '1', max: '1000000', step: '1', inputmode: 'numeric', placeholder: '2 × rate', 'aria-describedby': 'rate-burst-hint' });
    var none = h('button', { type: 'button', id: 'rate-none', class: 'danger-quiet' }, 'Remove the limit');
    var fill = function () {
      var l = limits[env.value];
      rps.value = l ? String(l.requests_per_second) : '';
      burst.value = l ? String(l.burst) : '';
      none.hidden = !l;
    };
    env.addEventListener('change', fill);
    fill();
    var put = function (body, done) {
      api('PUT', '/partners/' + encodeURIComponent(p.partner_id) + '/rate-limit', body).then(function (r) {
        if (!r.ok) return failed(status, r);
        var l = r.json.rate_limits[body.env];
        showPartner(p.partner_id).then(function () {
          if ($('rate-env')) { $('rate-env').value = body.env; $('rate-env').dispatchEvent(new Event('change')); }
          say($('partner-status'), envName(body.env) + ': ' + done(l), 'ok');
        });
      }, function () {});
    };
    none.addEventListener('click', function () {
      put({ env: env.value, requests_per_second: null }, function () { return 'no limit from the partner\'s next request.'; });
    });
    append(section, h('form', { class: 'fields', id: 'rate-form', onsubmit: function (e) {
      e.preventDefault();
      var body = { env: env.value, requests_per_second: Number(rps.value) };
      if (burst.value.trim() !== '') body.burst = Number(burst.value);
      put(body, function (l) { return rateText(l).toLowerCase() + ', from the partner\'s next request.'; });
    } },
    h('div', {}, h('label', { for: 'rate-env' }, 'Environment'), env),
    h('div', {}, h('label', { for: 'rate-rps' }, 'Requests a second'), rps),
    h('div', {}, h('label', { for: 'rate-burst' }, 'Burst'), burst),
    h('div', { class: 'submit' }, h('button', { type: 'submit' }, 'Set the limit'), none),
    h('p', { id: 'rate-burst-hint', class: 'meta grow-all' }, 'Burst: the most requests at once; empty for twice the rate.')));
    return section;
  }

  function vocabularySection(p, codes, status) {
    var code = h('input', { id: 'vocab-code', name: 'code', type: 'text', maxlength: '64', required: true, spellcheck: 'false', placeholder: 'e.g. SEDAN' });
    var vehicle = h('select', { id: 'vocab-vehicle', name: 'vehicle' }, FLEET.map(function (f) { return h('option', { value: f[0] }, f[1] + ' (' + f[0] + ')'); }));
    var path = function (c) { return '/partners/' + encodeURIComponent(p.partner_id) + '/vehicle-codes/' + encodeURIComponent(c); };
    var rows = codes.map(function (c) {
      return h('tr', {},
        h('td', { 'data-label': 'Their code' }, h('code', {}, c.code)),
        h('td', { 'data-label': 'Our vehicle' }, FLEET_NAMES[c.vehicle] + ' (' + c.vehicle + ')'),
        can('admin') && h('td', { 'data-label': '' }, h('button', { type: 'button', class: 'danger-quiet', 'aria-label': 'Remove ' + c.code, onclick: function () {
          api('DELETE', path(c.code)).then(function (r) {
            if (!r.ok) return failed(status, r);
            showPartner(p.partner_id).then(function () { say($('partner-status'), 'Removed ' + c.code + '.', 'ok'); });
          }, function () {});
        } }, 'Remove')));
    });
    return h('section', { 'aria-labelledby': 'vocab-title' },
      h('h3', { id: 'vocab-title' }, 'Vehicle vocabulary'),
      h('p', { class: 'hint' }, 'The partner\'s own vehicle codes, mapped to our fleet: its quotes may ask for them, and its offers carry them.'),
      codes.length ? h('table', { class: 'data responsive', id: 'vocab-table' },
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Their code'), h('th', { scope: 'col' }, 'Our vehicle'), can('admin') && h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')))),
        h('tbody', {}, rows)) : h('p', { class: 'empty' }, 'No mapping yet: offers carry our own codes.'),
      can('admin') && h('form', { class: 'fields', id: 'vocab-form', onsubmit: function (e) {
        e.preventDefault();
        api('PUT', path(code.value.trim()), { vehicle: vehicle.value }).then(function (r) {
          if (!r.ok) return failed(status, r);
          showPartner(p.partner_id).then(function () { say($('partner-status'), 'Mapped ' + r.json.code + ' to ' + FLEET_NAMES[r.json.vehicle] + '.', 'ok'); });
        }, function () {});
      } },
      h('div', {}, h('label', { for: 'vocab-code' }, 'Their code'), code),
      h('div', {}, h('label', { for: 'vocab-vehicle' }, 'Our vehicle'), vehicle),
      h('div', { class: 'submit' }, h('button', { type: 'submit' }, 'Save mapping'))));
  }

  $('partner-form').addEventListener('submit', function (e) {
    e.preventDefault();
    var status = $('partner-form-status');
    api('POST', '/partners', { name: $('partner-name').value.trim(), currency: $('partner-currency').value }).then(function (r) {
      if (!r.ok) return failed(status, r);
      $('partner-name').value = '';
      say(status, 'Created ' + r.json.name + ' (' + r.json.partner_id + '). Issue it a key next.', 'ok');
      location.hash = '#partners/' + encodeURIComponent(r.json.partner_id);
    }, function () {});
  });

  // --- deliveries -----------------------------------------------------------------------------------------------

  /**
   * Outbox messages that failed, and pending ones whose last attempt failed (retrying). Generic over the listing:
   * a webhook delivery names its endpoint in `webhook`; a marketplace call its order.
   */
  function loadDeliveries() {
    return Promise.all([api('GET', '/outbox?status=failed&limit=200'), api('GET', '/outbox?status=pending&limit=200')]).then(function (rs) {
      var bad = rs.filter(function (r) { return !r.ok; })[0];
      if (bad) { $('deliveries-status').textContent = 'Could not load the outbox: ' + refusal(bad); return; }
      var failedOnes = rs[0].json.data;
      var retrying = rs[1].json.data.filter(function (m) { return m.last_error !== null || m.last_status !== null; });
      var all = failedOnes.concat(retrying).sort(function (a, b) { return Number(b.id) - Number(a.id); });
      $('deliveries-status').textContent = failedOnes.length + ' failed, ' + retrying.length + ' retrying. Checked at ' + hhmm(new Date(serviceNow()).toISOString()) + '.';
      var body = clear(document.querySelector('#deliveries-table tbody'));
      $('deliveries-empty').hidden = all.length > 0;
      $('deliveries-table').hidden = all.length === 0;
      all.forEach(function (m) { body.appendChild(deliveryRow(m)); });
    }, function () {});
  }

  function kindText(m) {
    if (m.webhook || m.kind === 'webhook') return 'Webhook' + (m.webhook && m.webhook.event_type ? ': ' + m.webhook.event_type : '');
    return MARKETPLACE_KINDS[m.kind] ? 'Marketplace: ' + MARKETPLACE_KINDS[m.kind] : m.kind;
  }
  function targetText(m) {
    if (m.webhook) return [m.webhook.url, h('span', { class: 'meta block' }, m.webhook.partner_id + ' · ' + m.webhook.env + (m.webhook.booking_ref ? ' · booking ' + m.webhook.booking_ref : ''))];
    return m.order_id ? 'Order ' + m.order_id : 'The marketplace';
  }

  function deliveryRow(m) {
    var state = m.status === 'failed' ? 'failed' : 'retrying';
    var result = h('span', { class: 'meta block', role: 'status', 'aria-live': 'polite' });
    var attempts = h('div', { class: 'attempts', hidden: true });
    var row = h('tr', { 'data-message': m.id },
      h('td', { 'data-label': 'Message' }, h('div', {}, h('code', {}, m.id), h('span', { class: 'meta block' }, 'queued ' + when(m.created_at)))),
      h('td', { 'data-label': 'Kind' }, kindText(m)),
      h('td', { 'data-label': 'Target', class: 'wrap' }, h('div', {}, targetText(m))),
      h('td', { 'data-label': 'State' }, h('span', { class: 'chip ' + state }, state)),
      h('td', { 'data-label': 'Attempts' }, m.attempts + ' of ' + m.max_attempts),
      h('td', { 'data-label': 'Last answer', class: 'wrap' }, (m.last_status ? m.last_status + ' ' : '') + (m.last_error || '—')),
      h('td', { 'data-label': 'Next attempt' }, m.status === 'failed' ? (can('dispatcher') ? 'none (needs you)' : 'none (needs a dispatcher)') : when(m.next_attempt_at)),
      // Retrying needs a dispatcher; the attempts are read from the audit log, which does too.
      can('dispatcher') && h('td', { 'data-label': '' },
        h('div', { class: 'actions' },
          h('button', { type: 'button', class: 'primary', 'data-retry': m.id, onclick: function (e) {
            var button = e.currentTarget;
            button.disabled = true;
            api('POST', '/outbox/' + encodeURIComponent(m.id) + '/retry').then(function (r) {
              if (!r.ok) { button.disabled = false; result.textContent = refusal(r); return; }
              result.textContent = 'Due now: attempt ' + (r.json.attempts + 1) + ' goes out with the next delivery round.';
              setTimeout(function () { if (view === 'deliveries') loadDeliveries(); }, 2000);
            }, function () {});
          } }, 'Retry'),
          h('button', { type: 'button', 'aria-expanded': 'false', onclick: function (e) { toggleAttempts(e.currentTarget, m, attempts); } }, 'Attempts')),
        result, attempts));
    return row;
  }

  /** Each attempt's audit row (request id outbox_<id>_a<n>), with a link to it in the audit log. */
  function toggleAttempts(button, m, box) {
    var open = button.getAttribute('aria-expanded') === 'true';
    button.setAttribute('aria-expanded', String(!open));
    box.hidden = open;
    if (open) return;
    clear(box).appendChild(h('p', { class: 'meta' }, 'Loading…'));
    var ids = [];
    for (var n = 1; n <= m.attempts; n++) ids.push('outbox_' + m.id + '_a' + n);
    Promise.all(ids.map(function (id) { return api('GET', '/audit?limit=1&direction=outbound&request_id=' + encodeURIComponent(id)); })).then(function (rs) {
      var list = h('ol', { class: 'attempt-list' });
      rs.forEach(function (r, i) {
        var row = r.ok && r.json.data[0];
        list.appendChild(h('li', {}, row
          ? [h('a', { href: '#audit?request_id=' + encodeURIComponent(ids[i]) }, when(row.at, true)), ' — ' + (row.status || 'no answer') + (row.error ? ' · ' + row.error : '') + ' · ' + row.duration_ms + ' ms']
          : ids[i] + ': not in the audit log (not sent yet)'));
      });
      append(clear(box), m.attempts ? list : h('p', { class: 'meta' }, 'No attempt yet.'));
    }, function () {});
  }

  $('deliveries-refresh').addEventListener('click', function () { loadDeliveries(); });

  // --- operators (admin) ----------------------------------------------------------------------------------------

  function roleChip(role) { return h('span', { class: 'chip role-' + role }, role); }

  /** The named operators, newest first: who created each (by name when known), and whether it is revoked. */
  function loadOperators() {
    return api('GET', '/operators').then(function (r) {
      var body = clear(document.querySelector('#operators-table tbody'));
      if (!r.ok) return failed($('operators-status'), r);
      var list = r.json.data;
      var names = { bootstrap: 'Bootstrap admin' };
      list.forEach(function (o) { names[o.operator_id] = o.name; });
      if (!list.length) body.appendChild(h('tr', {}, h('td', { colspan: '6', class: 'empty' }, 'No named operator yet: only the bootstrap token (OPERATOR_TOKEN).')));
      list.forEach(function (o) {
        var action = h('td', { 'data-label': '' });
        var self = me && me.operator_id === o.operator_id;
        if (!o.revoked_at && !self) {
          action.appendChild(h('button', { type: 'button', class: 'danger-quiet', 'data-revoke-operator': o.operator_id, 'aria-label': 'Revoke ' + o.name, onclick: function () { confirmRevokeOperator(action, o); } }, 'Revoke'));
        }
        body.appendChild(h('tr', { 'data-operator': o.operator_id },
          h('td', { 'data-label': 'Name' }, h('div', {}, h('strong', {}, o.name), self ? ' (you)' : null, h('code', { class: 'meta block' }, o.operator_id))),
          h('td', { 'data-label': 'Role' }, roleChip(o.role)),
          h('td', { 'data-label': 'Created' }, when(o.created_at)),
          h('td', { 'data-label': 'Created by' }, names[o.created_by] || o.created_by),
          h('td', { 'data-label': 'State' }, o.revoked_at ? h('span', { class: 'chip revoked' }, 'revoked ' + when(o.revoked_at)) : h('span', { class: 'chip active' }, 'active')),
          action));
      });
    }, function () {});
  }

  function confirmRevokeOperator(cell, o) {
    clear(cell);
    append(cell, h('span', { class: 'confirm' }, 'Revoke ' + o.name + '? Their token is refused from their next request, on every instance. ',
      h('button', { type: 'button', class: 'danger', id: 'confirm-revoke-operator', onclick: function () {
        api('POST', '/operators/' + encodeURIComponent(o.operator_id) + '/revoke').then(function (r) {
          if (!r.ok) return failed($('operators-status'), r);
          loadOperators().then(function () { say($('operators-status'), o.name + ' (' + o.operator_id + ') is revoked.', 'ok'); });
        }, function () {});
      } }, 'Yes, revoke'),
      h('button', { type: 'button', class: 'quiet', onclick: function () { loadOperators(); } }, 'Keep')));
    $('confirm-revoke-operator').focus();
  }

  /** The new operator's token, once: a warning, the token, a copy button. Nothing keeps it after this. */
  function showNewToken(o) {
    var box = clear($('new-operator'));
    var input = h('input', { id: 'new-operator-token', type: 'text', readonly: true, value: o.token, spellcheck: 'false', 'aria-label': 'The new token' });
    var copied = h('p', { id: 'copy-token-status', class: 'meta', role: 'status', 'aria-live': 'polite' });
    append(box, [
      h('p', { class: 'warning', role: 'alert' }, h('strong', {}, 'Copy this token now. '), 'It is shown this once and cannot be retrieved again: the service keeps only its hash. Give it to ' + o.name + ' over a secure channel; a lost token is replaced (revoke it, name them again), not recovered.'),
      h('label', { for: 'new-operator-token' }, 'Token of ' + o.name + ' (' + o.role + ', ' + o.operator_id + ')'),
      h('div', { class: 'row' }, input,
        h('button', { type: 'button', id: 'copy-token', class: 'primary', onclick: function () { copy(input, copied); } }, 'Copy'),
        h('button', { type: 'button', id: 'token-done', onclick: function () { clear(box); box.hidden = true; } }, 'Done, hide it')),
      copied,
    ]);
    box.hidden = false;
    input.focus();
    input.select();
  }

  $('operator-form').addEventListener('submit', function (e) {
    e.preventDefault();
    var status = $('operator-form-status');
    clear($('new-operator')).hidden = true;
    api('POST', '/operators', { name: $('operator-name').value.trim(), role: $('operator-role').value }).then(function (r) {
      if (!r.ok) return failed(status, r);
      $('operator-name').value = '';
      say(status, 'Created ' + r.json.name + ' (' + r.json.operator_id + '), ' + (r.json.role === 'admin' ? 'an ' : 'a ') + r.json.role + '.', 'ok');
      showNewToken(r.json);
      loadOperators();
    }, function () {});
  });

  // --- audit log ------------------------------------------------------------------------------------------------

  var audit = { query: null, pages: [], rows: [] };
  var AUDIT_FIELDS = ['request_id', 'partner_id', 'path', 'surface', 'direction', 'from', 'to'];

  /** A datetime-local value (Sri Lanka time) as an instant, and back. */
  function fromLocal(v) { return v ? new Date(v + (v.length === 16 ? ':00' : '') + '+05:30').toISOString() : ''; }
  function toLocal(iso) { return iso ? slt(iso).slice(0, 19) : ''; }

  function openAudit(params) {
    var form = $('audit-form');
    var given = AUDIT_FIELDS.some(function (f) { return params.has(f); });
    if (given) {
      AUDIT_FIELDS.forEach(function (f) {
        var v = params.get(f) || '';
        form.elements[f].value = f === 'from' || f === 'to' ? toLocal(v) : v;
      });
    }
    if (given || !audit.query) return search();
  }

  function search() {
    var form = $('audit-form');
    var q = new URLSearchParams();
    AUDIT_FIELDS.forEach(function (f) {
      var v = form.elements[f].value.trim();
      if (f === 'from' || f === 'to') v = fromLocal(v);
      if (v) q.set(f, v);
    });
    audit.query = q;
    audit.pages = [null];
    return loadAuditPage();
  }

  function loadAuditPage() {
    var q = new URLSearchParams(audit.query);
    q.set('limit', '25');
    var before = audit.pages[audit.pages.length - 1];
    if (before) q.set('before_id', before);
    $('audit-status').textContent = 'Searching…';
    return api('GET', '/audit?' + q.toString()).then(function (r) {
      var body = clear(document.querySelector('#audit-table tbody'));
      clear($('audit-detail')).hidden = true;
      if (!r.ok) { $('audit-status').textContent = refusal(r); return; }
      audit.rows = r.json.data;
      $('audit-status').textContent = audit.rows.length ? '' : 'No entry matches.';
      $('audit-page').textContent = 'Page ' + audit.pages.length;
      $('audit-newer').disabled = audit.pages.length < 2;
      $('audit-older').disabled = audit.rows.length < 25;
      audit.rows.forEach(function (e) {
        body.appendChild(h('tr', { 'data-entry': e.id },
          h('td', { 'data-label': 'Time' }, h('button', { type: 'button', class: 'link', 'aria-label': 'Show entry ' + e.id + ' (' + e.request_id + ')', onclick: function () { showEntry(e); } }, when(e.at, true))),
          h('td', { 'data-label': 'Surface' }, e.surface + (e.direction === 'outbound' ? ' (out)' : '')),
          h('td', { 'data-label': 'Method and path', class: 'wrap' }, h('code', {}, e.method + ' ' + e.path)),
          h('td', { 'data-label': 'Status' }, h('span', { class: 'http s' + String(e.status || 0).charAt(0) }, e.status === null ? 'none' : String(e.status))),
          h('td', { 'data-label': 'Partner' }, e.partner_id || '—'),
          h('td', { 'data-label': 'Request id' }, h('code', {}, e.request_id))));
      });
      if (audit.rows.length === 1) showEntry(audit.rows[0]);
    }, function () {});
  }

  function pretty(v) {
    if (v === null || v === undefined) return '(empty)';
    return typeof v === 'string' ? v : JSON.stringify(v, null, 2);
  }

  /** The request and the response, side by side (as stored: secrets redacted). */
  function showEntry(e) {
    var detail = clear($('audit-detail'));
    document.querySelectorAll('#audit-table tr.selected').forEach(function (tr) { tr.classList.remove('selected'); });
    var tr = document.querySelector('#audit-table tr[data-entry="' + e.id + '"]');
    if (tr) tr.classList.add('selected');
    detail.hidden = false;
    append(detail, [
      h('h2', { id: 'audit-detail-title', tabindex: '-1' }, e.method + ' ' + e.path),
      h('p', { class: 'meta' }, when(e.at, true) + ' · ' + e.surface + ' · ' + e.direction + ' · request ', h('code', {}, e.request_id), ' · ' + e.duration_ms + ' ms' +
        (e.partner_id ? ' · partner ' + e.partner_id + ' (' + (e.env || 'no environment') + ')' : '') + (e.attempt ? ' · attempt ' + e.attempt : '') + (e.error ? ' · ' + e.error : '')),
      h('div', { class: 'pair' },
        h('section', { 'aria-labelledby': 'audit-request-title' },
          h('h3', { id: 'audit-request-title' }, 'Request'),
          h('h4', {}, 'Headers'), h('pre', { class: 'code', id: 'audit-request-headers' }, pretty(e.request_headers)),
          h('h4', {}, 'Body'), h('pre', { class: 'code', id: 'audit-request-body' }, pretty(e.request_body))),
        h('section', { 'aria-labelledby': 'audit-response-title' },
          h('h3', { id: 'audit-response-title' }, 'Response ' + (e.status === null ? '(none)' : e.status)),
          h('h4', {}, 'Headers'), h('pre', { class: 'code', id: 'audit-response-headers' }, pretty(e.response_headers)),
          h('h4', {}, 'Body'), h('pre', { class: 'code', id: 'audit-response-body' }, pretty(e.response_body)))),
    ]);
  }

  $('audit-form').addEventListener('submit', function (e) { e.preventDefault(); search(); });
  $('audit-clear').addEventListener('click', function () { $('audit-form').reset(); search(); });
  $('audit-older').addEventListener('click', function () {
    audit.pages.push(audit.rows[audit.rows.length - 1].id);
    loadAuditPage();
  });
  $('audit-newer').addEventListener('click', function () {
    audit.pages.pop();
    loadAuditPage();
  });

  // --- start ----------------------------------------------------------------------------------------------------

  $('signin-form').addEventListener('submit', function (e) {
    e.preventDefault();
    var candidate = $('token-input').value.trim();
    if (!candidate) return say($('signin-status'), 'Paste the operator token first.', 'error');
    signIn(candidate);
  });
  $('sign-out').addEventListener('click', function () { signOut('Signed out: this tab has forgotten the token.', 'ok'); });
  window.addEventListener('hashchange', route);

  var kept = sessionStorage.getItem(TOKEN_KEY);
  if (kept) {
    // A reload keeps the session: the token is checked again (and the service's clock read) before anything shows.
    establish(kept).then(function (r) {
      if (!r) started();
      else signOut(r.status === 401 ? 'The operator API no longer accepts the token this tab kept. Sign in again.' : refusal(r), 'error');
    });
  } else show('signin');
})();
