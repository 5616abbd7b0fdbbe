// @ts-check
/*
 * A driver's working hours on their panel (drivers.js): a weekly pattern (per weekday: off, or one or more shifts)
 * and exceptions for single days (off, or other hours), in Sri Lanka time. A shift whose end is earlier than its
 * start runs past midnight into the next day: the row says so ("overnight, until Tue 06:00"). Every role reads them;
 * a dispatcher edits them here and saves them whole (PUT /drivers/{id}/shifts); a refusal lists the API's messages
 * (overlaps, shifts of no length) and leaves what was typed in place.
 */
import { api, failedWithFields, handler } from './api.js';
import { $, h, resultArea, say, timeField } from './dom.js';
import { addDays, dayAfter, dayName, exceptionText, hoursText, overnight, todayInSriLanka, untilText, WEEKDAYS, when } from './format.js';
import { can } from './state.js';

/** @typedef {import('./api.js').DriverShifts} DriverShifts */
/** @typedef {import('./api.js').WeeklyShift} WeeklyShift */
/** @typedef {import('./api.js').ShiftException} ShiftException */
/** @typedef {import('./format.js').Hours} Hours */

const WEEK = [1, 2, 3, 4, 5, 6, 7];

let ids = 0;
/** A fresh element id for a row's fields. @param {string} what */
const nextId = (what) => 'hours-' + what + '-' + ++ids;

/**
 * Two time fields, "starts to ends", each labelled for screen readers, and the overnight note kept up to date.
 * @param {string} label what the shift is ("Monday", "Exception 2")
 * @param {Hours} s
 * @param {() => string} nextDay the day the shift would end on, short
 */
function timePair(label, s, nextDay) {
  const starts = timeField({ id: nextId('starts'), required: true, value: s.starts, 'data-part': 'starts' });
  const ends = timeField({ id: nextId('ends'), required: true, value: s.ends, 'data-part': 'ends' });
  const note = h('span', { class: 'overnight', 'aria-live': 'polite' });
  const update = () => {
    const night = overnight({ starts: starts.value, ends: ends.value });
    note.hidden = !night;
    note.textContent = night ? '☾ ' + untilText(ends.value, nextDay()) : '';
  };
  starts.addEventListener('input', update);
  ends.addEventListener('input', update);
  update();
  return h(
    'span',
    { class: 'time-pair' },
    h('label', { class: 'sr-only', for: starts.id }, label + ' starts'),
    starts,
    h('span', { class: 'to', 'aria-hidden': 'true' }, 'to'),
    h('label', { class: 'sr-only', for: ends.id }, label + ' ends'),
    ends,
    note,
  );
}

/** The hours of a row's time fields. @param {Element} row */
function hoursOf(row) {
  /** @param {string} part */
  const value = (part) => /** @type {HTMLInputElement} */ (row.querySelector('input[data-part="' + part + '"]')).value;
  return { starts: value('starts'), ends: value('ends') };
}

/** One weekday: its shifts (or "Off"), and a button to add one. @param {number} weekday @param {Hours[]} shifts */
function weekdayRow(weekday, shifts) {
  const name = WEEKDAYS[weekday - 1];
  const list = h('div', { class: 'day-shifts' });
  const off = h('span', { class: 'off' }, 'Off');
  const add = h('button', { type: 'button', class: 'add', 'aria-label': 'Add hours on ' + name }, '+ Hours');
  const refresh = () => {
    off.hidden = list.children.length > 0;
    add.textContent = list.children.length ? '+ Shift' : '+ Hours';
    add.setAttribute('aria-label', (list.children.length ? 'Add another shift on ' : 'Add hours on ') + name);
  };
  /** @param {Hours} s @param {boolean} [focus] */
  const addShift = (s, focus) => {
    const row = h(
      'div',
      { class: 'shift' },
      timePair(name, s, () => dayAfter(weekday)),
      h(
        'button',
        {
          type: 'button',
          class: 'danger-quiet',
          'aria-label': 'Remove this ' + name + ' shift',
          onclick: () => {
            row.remove();
            refresh();
            add.focus();
          },
        },
        'Remove',
      ),
    );
    list.appendChild(row);
    refresh();
    if (focus) /** @type {HTMLInputElement} */ (row.querySelector('input')).focus();
  };
  shifts.forEach((s) => addShift(s));
  refresh();
  // A new day's hours start as the nearest day before's (Tuesday as Monday), else a working day's.
  add.addEventListener('click', () => {
    const rows = [...(add.closest('.week-days')?.querySelectorAll('.week-day') ?? [])];
    const before = rows.slice(0, weekday - 1).reverse();
    const from = before.map((r) => r.querySelector('.shift')).find((x) => x);
    addShift(list.children.length ? { starts: '', ends: '' } : from ? hoursOf(from) : { starts: '08:00', ends: '17:00' }, true);
  });
  return h('li', { class: 'week-day', 'data-weekday': weekday }, h('span', { class: 'day-name' }, name), h('div', { class: 'day-body' }, off, list), add);
}

/** One exception: its date, off or other hours, and a button to remove it. @param {ShiftException} e @param {number} n */
function exceptionRow(e, n) {
  const label = 'Exception ' + n;
  const date = h('input', { id: nextId('date'), type: 'date', required: true, value: e.date, 'data-part': 'date' });
  const weekday = h('span', { class: 'meta date-day', 'aria-hidden': 'true' });
  const named = () => {
    weekday.textContent = date.value ? dayName(date.value) : '';
  };
  date.addEventListener('input', named);
  named();
  const kind = h(
    'select',
    { id: nextId('kind'), 'data-part': 'kind' },
    h('option', { value: 'off', selected: 'off' in e }, 'Day off'),
    h('option', { value: 'hours', selected: !('off' in e) }, 'Other hours'),
  );
  const times = timePair(label, 'off' in e ? { starts: '08:00', ends: '17:00' } : e, () =>
    date.value ? dayName(addDays(date.value, 1)).slice(0, 3) : 'next day',
  );
  const show = () => {
    times.hidden = kind.value === 'off';
    times.querySelectorAll('input').forEach((i) => {
      i.disabled = kind.value === 'off';
    });
  };
  kind.addEventListener('change', show);
  show();
  const row = h(
    'li',
    { class: 'exception' },
    h('label', { class: 'sr-only', for: date.id }, label + ': date'),
    date,
    weekday,
    h('label', { class: 'sr-only', for: kind.id }, label + ': off or other hours'),
    kind,
    times,
    h(
      'button',
      {
        type: 'button',
        class: 'danger-quiet',
        'aria-label': 'Remove exception ' + n,
        onclick: () => {
          const list = row.parentElement;
          row.remove();
          /** @type {HTMLButtonElement | null | undefined} */ (list?.closest('fieldset')?.querySelector('button.add'))?.focus();
        },
      },
      'Remove',
    ),
  );
  return row;
}

/** The hours as the form has them now, in the API's shape. @param {HTMLElement} form */
function hoursFromForm(form) {
  /** @type {WeeklyShift[]} */
  const weekly = [];
  form.querySelectorAll('.week-day').forEach((day) => {
    const weekday = Number(day.getAttribute('data-weekday'));
    day.querySelectorAll('.shift').forEach((row) => weekly.push({ weekday, ...hoursOf(row) }));
  });
  /** @type {ShiftException[]} */
  const exceptions = [];
  form.querySelectorAll('.exception').forEach((row) => {
    const date = /** @type {HTMLInputElement} */ (row.querySelector('[data-part="date"]')).value;
    const off = /** @type {HTMLSelectElement} */ (row.querySelector('[data-part="kind"]')).value === 'off';
    exceptions.push(off ? { date, off: true } : { date, ...hoursOf(row) });
  });
  return { weekly, exceptions };
}

/** A weekday's shifts. @param {DriverShifts} s @param {number} weekday */
const shiftsOn = (s, weekday) => s.weekly.filter((w) => w.weekday === weekday);

/** When the hours were last set, in words. @param {DriverShifts} s */
function updatedText(s) {
  return s.updated_at ? 'Last set ' + when(s.updated_at) + '.' : 'Never set: the driver is not held to any hours when assigned.';
}

/** The hours to read (a viewer's). @param {DriverShifts} s */
function readOnly(s) {
  return [
    h(
      'dl',
      { class: 'facts hours-facts', id: 'hours-week' },
      WEEK.map((d) => {
        const shifts = shiftsOn(s, d);
        return h('div', {}, h('dt', {}, WEEKDAYS[d - 1]), h('dd', {}, shifts.length ? shifts.map((w) => hoursText(w, dayAfter(d))).join(', ') : 'off'));
      }),
    ),
    h('h4', {}, 'Exceptions'),
    s.exceptions.length
      ? h(
          'ul',
          { class: 'plain', id: 'hours-exceptions' },
          s.exceptions.map((e) => h('li', {}, dayName(e.date) + ' ' + e.date.slice(0, 4) + ': ' + exceptionText(e))),
        )
      : h('p', { class: 'empty' }, 'None.'),
  ];
}

/**
 * The driver's hours: read, and for a dispatcher edited and saved whole.
 * @param {string} driverId
 * @param {DriverShifts} s
 */
export function hoursSection(driverId, s) {
  const head = [
    h('h3', { id: 'hours-title' }, 'Working hours ', h('span', { class: 'meta' }, '(Sri Lanka time)')),
    h(
      'p',
      { class: 'hint' },
      'A shift that ends before it starts runs past midnight into the next day. An exception replaces its day’s weekly hours. ' +
        'A driver with hours is assigned only jobs whose day — out from the base, back to it — fits in a shift.',
    ),
    h('p', { class: 'meta', id: 'hours-updated' }, updatedText(s)),
  ];
  if (!can('dispatcher')) return h('section', { 'aria-labelledby': 'hours-title', id: 'hours' }, head, readOnly(s));

  let n = 0;
  const exceptions = h(
    'ul',
    { class: 'exceptions' },
    s.exceptions.map((e) => exceptionRow(e, ++n)),
  );
  const result = resultArea('hours-result');
  const form = h(
    'form',
    {
      id: 'hours-form',
      onsubmit: handler(async (e) => {
        e.preventDefault();
        say(result, 'Saving…');
        const body = hoursFromForm(form);
        const r = await api('putDriverShifts', 'PUT', '/drivers/' + encodeURIComponent(driverId) + '/shifts', body);
        if (!r.ok) return failedWithFields(result, r);
        section.replaceWith(hoursSection(driverId, r.json));
        /** @param {number} k @param {string} what */
        const count = (k, what) => k + ' ' + what + (k === 1 ? '' : 's');
        const saved = count(r.json.weekly.length, 'weekly shift') + ' and ' + count(r.json.exceptions.length, 'exception');
        say($('hours-result'), 'Saved: ' + saved + '. They hold from the next assignment; jobs already assigned stay assigned.', 'ok');
        $('hours-save').focus();
      }),
    },
    h(
      'fieldset',
      { class: 'week' },
      h('legend', {}, 'Every week'),
      h(
        'ul',
        { class: 'week-days' },
        WEEK.map((d) => weekdayRow(d, shiftsOn(s, d))),
      ),
    ),
    h(
      'fieldset',
      { class: 'exceptions-set' },
      h('legend', {}, 'Exceptions ', h('span', { class: 'meta' }, 'single days: off, or other hours')),
      exceptions,
      h(
        'button',
        {
          type: 'button',
          class: 'add',
          id: 'hours-add-exception',
          onclick: () => {
            const row = exceptionRow({ date: addDays(todayInSriLanka(), 1), off: true }, exceptions.children.length + 1);
            exceptions.appendChild(row);
            /** @type {HTMLInputElement} */ (row.querySelector('input')).focus();
          },
        },
        '+ Exception',
      ),
    ),
    h('div', { class: 'submit' }, h('button', { type: 'submit', class: 'primary', id: 'hours-save' }, 'Save hours')),
    result,
  );
  const section = h('section', { 'aria-labelledby': 'hours-title', id: 'hours' }, head, form);
  return section;
}
