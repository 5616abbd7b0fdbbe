// @ts-check
/*
 * "Your requests": the partner's request log (GET /requests) as a table, newest first, filtered by status and path
 * prefix and paged with `next` ("Older"); a row (click it, or Enter on its path) opens its exchange
 * (GET /requests/{request_id}).
 */
import { $ } from './key.js';
import { cell, cellOf, h, keyReady, message, note, PAGE, readPage, showExchange, statusBadge, timeOf } from './workbench.js';

/** @typedef {import('../../src/generated/transfers-v1').components['schemas']} Schemas */
/** @typedef {import('./workbench.js').Panel} Panel */

/** @returns {Panel} */
export function requestsPanel() {
  const rows = $('requests-body');
  const line = $('requests-note');
  const older = $('requests-older', HTMLButtonElement);
  const exchange = $('requests-exchange');
  const statusChoice = $('requests-status', HTMLSelectElement);
  const code = $('requests-code', HTMLInputElement);
  const prefix = $('requests-path', HTMLInputElement);
  /** What the table shows: read yet, its filters (as a query string) and where the next page starts. */
  const state = { loaded: false, query: '', filtered: false, next: /** @type {string | null} */ (null), count: 0, reads: 0 };

  /** The filters as a query string (a code typed wins over the class chosen). */
  function filters() {
    const c = code.value.trim();
    if (c && !/^[1-5][0-9][0-9]$/.test(c)) throw new Error('A status code is three digits, e.g. 409.');
    const status = c || statusChoice.value;
    let p = prefix.value.trim();
    if (p && !p.startsWith('/')) p = '/' + p;
    // The log keeps full paths; "/bookings/GM32DFCW" means the API's own.
    if (p && !p.startsWith('/transfers/')) p = '/transfers/v1' + p;
    state.filtered = !!(status || p);
    return (status ? '&status=' + encodeURIComponent(status) : '') + (p ? '&path_prefix=' + encodeURIComponent(p) : '');
  }

  /** @param {HTMLTableRowElement} tr @param {string} requestId */
  function open(tr, requestId) {
    rows.querySelectorAll('tr[aria-current]').forEach((r) => r.removeAttribute('aria-current'));
    tr.setAttribute('aria-current', 'true');
    void showExchange(exchange, requestId);
  }

  /** @param {Schemas['RequestSummary']} s */
  function row(s) {
    const tr = h(
      'tr',
      { class: 'wb-row', 'data-request-id': s.request_id },
      cellOf('wb-c-time', 'Time', timeOf(s.at)),
      cellOf('wb-c-method', 'Method', h('span', { class: 'wb-method' }, s.method)),
      cellOf('wb-c-path', 'Path', h('button', { type: 'button', class: 'wb-open wb-path', title: 'Open this exchange' }, s.path)),
      cellOf('wb-c-status', 'Status', statusBadge(s.status)),
      cellOf('wb-c-duration', 'Duration', s.duration_ms + ' ms'),
      cell('Error code', s.error_code ? h('code', {}, s.error_code) : '—'),
      cell('Idempotency key', s.idempotency_key ? h('code', { class: 'wb-key' }, s.idempotency_key) : '—'),
    );
    // The whole row opens it; the path is the row's button, so Tab reaches it and Enter opens it too.
    tr.addEventListener('click', () => open(tr, s.request_id));
    return tr;
  }

  /** Reads the first page with the filters as they are now, or (`more`) the next older page. @param {boolean} more */
  async function load(more) {
    if (!keyReady(line)) return;
    let query = state.query;
    if (!more) {
      try {
        query = filters();
      } catch (err) {
        note(line, message(err), 'error');
        return;
      }
    }
    older.disabled = true;
    note(line, more ? 'Reading older requests…' : 'Reading your requests…');
    try {
      const list = await readPage('/requests', query, more, { state, rows, older, line, what: 'The request log', render: row });
      if (!list) return;
      if (!state.count) note(line, state.filtered ? 'No request of the last 30 days matches these filters.' : 'No requests from this key in the last 30 days.');
      else
        note(
          line,
          state.count +
            (state.count === 1 ? ' request' : ' requests') +
            (state.filtered ? ' matching' : '') +
            ', newest first' +
            (list.next ? '; Older reads the next ' + PAGE + '.' : state.count > PAGE ? '; that is all of the last 30 days.' : '.'),
          'ok',
        );
    } catch (err) {
      note(line, message(err), 'error');
    } finally {
      older.disabled = false;
    }
  }

  $('requests-filter', HTMLFormElement).addEventListener('submit', (e) => {
    e.preventDefault();
    void load(false);
  });
  statusChoice.addEventListener('change', () => {
    code.value = '';
    void load(false);
  });
  $('requests-refresh').addEventListener('click', () => void load(false));
  older.addEventListener('click', () => void load(true));

  return {
    show: () => {
      if (!state.loaded) void load(false);
    },
    reset: () => {
      Object.assign(state, { loaded: false, query: '', next: null, count: 0, reads: state.reads + 1 });
      rows.replaceChildren();
      older.hidden = true;
      exchange.hidden = true;
      exchange.replaceChildren();
      note(line, '');
    },
  };
}
