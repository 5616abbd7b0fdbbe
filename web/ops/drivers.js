// @ts-check
/*
 * Drivers (#drivers[/<driver_id>]): the roster (the drivers on it, by name, with their base and usual vehicle) and
 * one driver's panel: their base — where their day starts and ends, a place located as quotes locate places —, the
 * vehicle they usually drive, and their working hours (driver-hours.js). Every role reads them; a dispatcher sets
 * them (PATCH /drivers/{id}, PUT /drivers/{id}/shifts). A base the API cannot locate is refused in its words, next
 * to the field.
 */
import { api, failed, fieldsOf, handler, refusal } from './api.js';
import { $, append, clear, h, maybe, resultArea, say, tbody } from './dom.js';
import { hoursSection } from './driver-hours.js';
import { FLEET_NAMES, FLEET_ORDER } from './format.js';
import { registerView } from './router.js';
import { can } from './state.js';

/** @typedef {import('./api.js').Driver} Driver */
/** @typedef {import('./api.js').Vehicle} Vehicle */

/** `vehicles`: every vehicle, those out of service too (a usual vehicle may be one). @type {{ drivers: Driver[], vehicles: Vehicle[], open: string | null }} */
const roster = { drivers: [], vehicles: [], open: null };

/** @param {string | null} driverId */
async function openDrivers(driverId) {
  roster.open = driverId;
  await loadRoster();
  if (driverId) return showDriver(driverId);
  $('driver-detail').hidden = true;
}

async function loadRoster() {
  const [drivers, vehicles] = await Promise.all([api('listDrivers', 'GET', '/drivers?active=true'), api('listVehicles', 'GET', '/vehicles')]);
  if (!drivers.ok) return say($('drivers-status'), 'Could not load the drivers: ' + refusal(drivers), 'error');
  roster.drivers = drivers.json.data;
  if (vehicles.ok) roster.vehicles = vehicles.json.data;
  $('drivers-status').textContent = roster.drivers.length + (roster.drivers.length === 1 ? ' driver' : ' drivers') + ' on the roster.';
  renderRoster();
}

/** @param {string | null} id */
const vehicleOf = (id) => roster.vehicles.find((v) => v.vehicle_id === id);

/** "CAB-4821 · Toyota Axio, Standard car". @param {Vehicle} v */
const vehicleText = (v) => v.plate + ' · ' + v.brand + ' ' + v.model + ', ' + FLEET_NAMES[v.fleet_code] + (v.active ? '' : ' (out of service)');

/** The base as given → where the API located it. @param {Driver['base']} b */
function baseText(b) {
  return b ? b.name + ' → ' + b.resolved_name + ' (' + b.lat.toFixed(5) + ', ' + b.lon.toFixed(5) + ')' : 'Not set';
}

function renderRoster() {
  const body = clear(tbody('drivers-table'));
  if (!roster.drivers.length)
    body.appendChild(h('tr', {}, h('td', { colspan: '3', class: 'empty' }, 'No driver on the roster: register them with the operator API or the CLI.')));
  roster.drivers.forEach((d) => {
    const open = roster.open === d.driver_id;
    const v = vehicleOf(d.usual_vehicle_id);
    body.appendChild(
      h(
        'tr',
        { class: open ? 'selected' : null, 'data-driver': d.driver_id },
        h(
          'td',
          { 'data-label': 'Driver' },
          h(
            'div',
            {},
            h('a', { href: '#drivers/' + encodeURIComponent(d.driver_id), 'aria-current': open ? 'true' : null }, d.name),
            h('span', { class: 'meta block' }, d.phone),
          ),
        ),
        h('td', { 'data-label': 'Base' }, d.base ? d.base.name : h('span', { class: 'meta' }, 'not set')),
        h('td', { 'data-label': 'Usual vehicle' }, v ? v.plate : h('span', { class: 'meta' }, d.usual_vehicle_id ? d.usual_vehicle_id : 'none')),
      ),
    );
  });
}

/** One driver's panel: who they are, their base and usual vehicle, their hours. @param {string} driverId */
async function showDriver(driverId) {
  const detail = $('driver-detail');
  const d = roster.drivers.find((x) => x.driver_id === driverId);
  clear(detail).hidden = false;
  if (!d) return append(detail, h('p', { class: 'status error', role: 'alert' }, 'No driver ' + driverId + ' on the roster.'));
  const shifts = await api('getDriverShifts', 'GET', '/drivers/' + encodeURIComponent(driverId) + '/shifts');
  if (roster.open !== driverId) return;
  clear(detail);
  append(detail, [
    h(
      'div',
      { class: 'panel-head' },
      h('h2', { id: 'driver-detail-title', tabindex: '-1' }, d.name),
      h('a', { href: '#drivers', class: 'close-link', 'aria-label': 'Close ' + d.name + '’s panel' }, 'Close'),
    ),
    h('p', { class: 'meta' }, h('code', {}, d.driver_id), ' · ' + d.phone + (d.languages.length ? ' · speaks ' + d.languages.join(', ') : '')),
    profileSection(d),
    shifts.ok ? hoursSection(d.driver_id, shifts.json) : h('p', { class: 'status error', role: 'alert' }, 'Could not load the hours: ' + refusal(shifts)),
  ]);
  if (detail.getBoundingClientRect().top > window.innerHeight * 0.6) detail.scrollIntoView();
  $('driver-detail-title').focus({ preventScroll: true });
}

/** The options of the usual vehicle: none, then the vehicles in service by class (and the one set, if it is not). @param {Driver} d */
function vehicleOptions(d) {
  const shown = roster.vehicles.filter((v) => v.active || v.vehicle_id === d.usual_vehicle_id);
  return [
    h('option', { value: '' }, 'None'),
    FLEET_ORDER.filter((c) => shown.some((v) => v.fleet_code === c)).map((c) =>
      h(
        'optgroup',
        { label: FLEET_NAMES[c] },
        shown
          .filter((v) => v.fleet_code === c)
          .map((v) => h('option', { value: v.vehicle_id, selected: v.vehicle_id === d.usual_vehicle_id }, v.plate + ' · ' + v.brand + ' ' + v.model)),
      ),
    ),
    d.usual_vehicle_id && !vehicleOf(d.usual_vehicle_id) ? h('option', { value: d.usual_vehicle_id, selected: true }, d.usual_vehicle_id + ' (unknown)') : null,
  ];
}

/** The base and the usual vehicle: read, and for a dispatcher set (only what changed is sent). @param {Driver} d */
function profileSection(d) {
  const v = vehicleOf(d.usual_vehicle_id);
  const facts = h(
    'dl',
    { class: 'facts', id: 'driver-facts' },
    h('div', { class: 'wide' }, h('dt', {}, 'Base, as given → as located'), h('dd', { 'data-fact': 'Base' }, baseText(d.base))),
    h('div', { class: 'wide' }, h('dt', {}, 'Usual vehicle'), h('dd', { 'data-fact': 'Usual vehicle' }, v ? vehicleText(v) : d.usual_vehicle_id || 'None')),
  );
  const section = h('section', { 'aria-labelledby': 'profile-title', id: 'driver-profile' }, h('h3', { id: 'profile-title' }, 'Base and usual vehicle'), facts);
  if (!can('dispatcher')) return section;

  const base = h('input', {
    id: 'driver-base',
    name: 'base',
    type: 'text',
    maxlength: '300',
    value: d.base ? d.base.name : '',
    placeholder: 'a town, an airport or a hotel address',
    autocomplete: 'off',
    'aria-describedby': 'driver-base-hint driver-base-error',
  });
  const baseError = h('p', { id: 'driver-base-error', class: 'field-error', hidden: true });
  const vehicle = h('select', { id: 'driver-vehicle', name: 'usual_vehicle_id' }, vehicleOptions(d));
  const result = resultArea('driver-profile-result');
  /** Marks the base as refused (or not). @param {string} [message] */
  const baseRefused = (message) => {
    baseError.hidden = !message;
    baseError.textContent = message ? 'Could not locate this place: ' + message : '';
    baseError.setAttribute('role', message ? 'alert' : 'none');
    if (message) base.setAttribute('aria-invalid', 'true');
    else base.removeAttribute('aria-invalid');
  };
  append(section, [
    h(
      'form',
      {
        class: 'fields',
        id: 'driver-profile-form',
        onsubmit: handler(async (e) => {
          e.preventDefault();
          baseRefused();
          /** @type {import('./api.js').RequestBody<'updateDriver'>} */
          const body = {};
          const place = base.value.trim();
          if (place !== (d.base ? d.base.name : '')) body.base = place ? { name: place } : null;
          if (vehicle.value !== (d.usual_vehicle_id || '')) body.usual_vehicle_id = vehicle.value || null;
          if (!Object.keys(body).length) return say(result, 'Nothing to save: the base and the vehicle are as set.');
          say(result, 'Saving…');
          const r = await api('updateDriver', 'PATCH', '/drivers/' + encodeURIComponent(d.driver_id), body);
          if (!r.ok) {
            const refusedBase = fieldsOf(r).find((f) => f.field === 'base');
            if (!refusedBase) return failed(result, r);
            say(result);
            baseRefused(refusedBase.message);
            return base.focus();
          }
          saved(r.json, body);
        }),
      },
      h(
        'div',
        { class: 'grow' },
        h('label', { for: 'driver-base' }, 'Base'),
        base,
        h('span', { id: 'driver-base-hint', class: 'meta' }, 'Where the day starts and ends. Empty: none.'),
        baseError,
      ),
      h('div', { class: 'grow' }, h('label', { for: 'driver-vehicle' }, 'Usual vehicle'), vehicle),
      h('div', { class: 'submit' }, h('button', { type: 'submit', class: 'primary', id: 'driver-profile-save' }, 'Save base and vehicle')),
    ),
    result,
  ]);
  return section;
}

/**
 * The driver as the API now has them: the roster's row and this section afresh (the hours, perhaps being edited,
 * are left as they are), and what was done in words.
 * @param {Driver} d
 * @param {import('./api.js').RequestBody<'updateDriver'>} body
 */
function saved(d, body) {
  roster.drivers = roster.drivers.map((x) => (x.driver_id === d.driver_id ? d : x));
  renderRoster();
  maybe('driver-profile')?.replaceWith(profileSection(d));
  const v = vehicleOf(d.usual_vehicle_id);
  const said = [];
  if ('base' in body) said.push(d.base ? 'base ' + d.base.name + ', located as ' + d.base.resolved_name : 'no base');
  if ('usual_vehicle_id' in body) said.push(v ? 'usual vehicle ' + v.plate : 'no usual vehicle');
  say($('driver-profile-result'), 'Saved: ' + said.join('; ') + '.', 'ok');
  $('driver-profile-save').focus();
}

export function setUpDrivers() {
  registerView('drivers', {
    open: openDrivers,
    reset: () => {
      roster.drivers = [];
      roster.vehicles = [];
      roster.open = null;
      clear($('driver-detail')).hidden = true;
      clear(tbody('drivers-table'));
    },
  });
}
