/*
 * The reference console: the Transfers contract rendered by Swagger UI (served by the service itself), a key box
 * that takes sandbox keys only, and a four-step flow. Every request the page sends goes through `guard`: a live key
 * is refused before anything is sent, and the request is marked with X-Reference-Console, which the server answers
 * with the uniform 401 when the key is a live one. The key lives in this tab's memory only.
 */
(function () {
  'use strict';

  var ROOT = document.documentElement.getAttribute('data-root'); // e.g. "/transfers/v1"
  var API = location.origin + ROOT;
  var CONSOLE_HEADER = 'X-Reference-Console';
  var LIVE_KEY = /svc_sk_live_/;
  var TEST_KEY = /^svc_sk_test_[a-z0-9]+_[A-Za-z0-9]+$/;
  var LIVE_REFUSED =
    'Refused by the console: this is a live key (svc_sk_live_…). The console reaches sandbox only and never sends a live key. Use your test key (svc_sk_test_…).';

  var key = null;
  var ui = null;

  var $ = function (id) { return document.getElementById(id); };
  var status = $('key-status');

  function say(text, kind) {
    status.textContent = text;
    status.className = 'status' + (kind ? ' ' + kind : '');
  }

  /** Throws when any header carries a live key; marks the request as the console's. */
  function guard(headers) {
    Object.keys(headers).forEach(function (name) {
      if (LIVE_KEY.test(String(headers[name]))) throw new Error(LIVE_REFUSED);
    });
    headers[CONSOLE_HEADER] = '1';
    return headers;
  }

  /** Swagger UI forgets the key (if it holds one). */
  function logout() {
    if (!ui) return;
    var held = ui.authSelectors.authorized();
    if (held && held.size) ui.authActions.logout(['bearerKey', 'headerKey']);
  }

  /**
   * A plugin for Swagger UI's own Authorize dialog: a live key never enters its state, so no try-it request can
   * carry one; the dialog says why.
   */
  function refuseLiveKeysPlugin() {
    return {
      statePlugins: {
        auth: {
          wrapActions: {
            authorize: function (original) {
              return function (payload) {
                var live = Object.keys(payload || {}).some(function (name) {
                  var v = payload[name] && payload[name].value;
                  return LIVE_KEY.test(typeof v === 'string' ? v : JSON.stringify(v || ''));
                });
                if (!live) return original(payload);
                say(LIVE_REFUSED, 'error');
                var dialog = document.querySelector('.dialog-ux .modal-ux-content');
                if (dialog && !dialog.querySelector('.console-refusal')) {
                  var p = document.createElement('p');
                  p.className = 'console-refusal';
                  p.setAttribute('role', 'alert');
                  p.textContent = LIVE_REFUSED;
                  dialog.insertBefore(p, dialog.firstChild);
                }
                return original({});
              };
            },
          },
        },
      },
    };
  }

  function masked(k) {
    var m = /^(svc_sk_test_[a-z0-9]+_)/.exec(k);
    return m ? m[1] + '…' : k.slice(0, 12) + '…';
  }

  function useKey(value) {
    var k = (value || '').trim();
    if (!k) {
      say('Paste a key first.', 'error');
      return false;
    }
    if (LIVE_KEY.test(k)) {
      key = null;
      logout();
      say(LIVE_REFUSED, 'error');
      return false;
    }
    if (!TEST_KEY.test(k)) {
      say('That does not look like an API key: keys look like svc_sk_test_<key id>_<secret>.', 'error');
      return false;
    }
    key = k;
    if (ui) ui.preauthorizeApiKey('bearerKey', k);
    say('Using ' + masked(k) + ' for every request from this page (try-it requests included).', 'ok');
    return true;
  }

  /** One request of the page's own (ping, the flow), guarded like Swagger UI's. */
  function call(method, path, body, extraHeaders) {
    if (!key) return Promise.reject(new Error('Use a sandbox key first.'));
    var headers = { Authorization: 'Bearer ' + key, Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    Object.keys(extraHeaders || {}).forEach(function (h) { headers[h] = extraHeaders[h]; });
    guard(headers);
    return fetch(API + path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body) }).then(function (res) {
      return res.text().then(function (text) {
        var json;
        try { json = text ? JSON.parse(text) : undefined; } catch (e) { json = undefined; }
        return { status: res.status, requestId: res.headers.get('X-Request-Id'), env: res.headers.get('X-Service-Env'), json: json, text: text, headers: headers, method: method, path: path, body: body };
      });
    });
  }

  function curl(r) {
    var lines = ['curl -s -X ' + r.method + " '" + API + r.path + "'"];
    Object.keys(r.headers).forEach(function (h) {
      if (h === CONSOLE_HEADER || h === 'Accept') return;
      var v = h === 'Authorization' ? 'Bearer $LANKA_KEY' : r.headers[h];
      lines.push("  -H '" + h + ': ' + v + "'");
    });
    if (r.body !== undefined) lines.push("  -d '" + JSON.stringify(r.body) + "'");
    return lines.join(' \\\n');
  }

  // --- the key box ---------------------------------------------------------------------------------------------
  $('key-form').addEventListener('submit', function (e) {
    e.preventDefault();
    useKey($('key-input').value);
  });
  $('forget-button').addEventListener('click', function () {
    key = null;
    $('key-input').value = '';
    logout();
    say('Key forgotten.', '');
  });
  $('ping-button').addEventListener('click', function () {
    if (!key && !useKey($('key-input').value)) return;
    call('GET', '/ping').then(function (r) {
      if (r.status === 200) say('Ping OK: ' + (r.json && r.json.partner) + ' on ' + r.env + ' (request ' + r.requestId + ').', 'ok');
      else say('Ping answered ' + r.status + ': ' + ((r.json && r.json.error && r.json.error.message) || r.text), 'error');
    }, function (err) { say(err.message, 'error'); });
  });

  // --- the flow ------------------------------------------------------------------------------------------------
  var flow = { quote: null, offer: null, booking: null };
  var steps = {
    quote: function () {
      var d = new Date(Date.now() + 3 * 86400000);
      var day = d.toISOString().slice(0, 10);
      return call('POST', '/quotes', {
        pickup: { iata: 'CMB' },
        dropoff: { name: 'Kandy' },
        pickup_datetime: day + 'T09:30:00+05:30',
        passengers: { adults: 2, luggage: 2 },
      }).then(function (r) {
        if (r.status === 200 && r.json.offers.length) {
          flow.quote = r.json;
          flow.offer = r.json.offers[0];
          return [r, 'Quote ' + r.json.quote_id + ': ' + r.json.offers.length + ' offers, the cheapest ' + flow.offer.vehicle + ' at ' + flow.offer.price + ' ' + flow.offer.currency + ', locked until ' + flow.offer.expires_at + '.', 'book'];
        }
        return [r, r.status === 200 ? 'Declined: ' + r.json.declined.reason + ' — ' + r.json.declined.message : 'Refused.'];
      });
    },
    book: function () {
      var idem = 'console-' + Math.random().toString(36).slice(2) + Date.now().toString(36);
      return call('POST', '/bookings', {
        quote_id: flow.quote.quote_id,
        offer_id: flow.offer.offer_id,
        partner_reference: 'CONSOLE-' + Date.now().toString(36).toUpperCase(),
        passenger: { first_name: 'Ayesha', last_name: 'Perera', email: 'ayesha@example.com', phone: '+94771234567' },
        passengers: { adults: 2, luggage: 2 },
        flight_number: 'UL504',
      }, { 'Idempotency-Key': idem }).then(function (r) {
        if (r.status === 201 || r.status === 200) {
          flow.booking = r.json;
          return [r, 'Booked ' + r.json.booking_ref + ' (' + r.json.status + '). Sending the same request again with the same Idempotency-Key returns this booking, never a second one.', 'read'];
        }
        return [r, 'Refused: ' + (r.json && r.json.error ? r.json.error.code : r.status) + '.'];
      });
    },
    read: function () {
      return call('GET', '/bookings/' + flow.booking.booking_ref).then(function (r) {
        return [r, 'Booking ' + flow.booking.booking_ref + ' is ' + (r.json && r.json.status) + '; driver: ' + (r.json && r.json.driver ? r.json.driver.name : 'not assigned yet') + '.', 'cancel'];
      });
    },
    cancel: function () {
      return call('POST', '/bookings/' + flow.booking.booking_ref + '/cancel').then(function (r) {
        return [r, 'Booking ' + flow.booking.booking_ref + ' is ' + (r.json && r.json.status) + '. Cancelling again returns the same answer.'];
      });
    },
  };
  var order = ['quote', 'book', 'read', 'cancel'];
  Array.prototype.forEach.call(document.querySelectorAll('[data-step]'), function (button) {
    button.addEventListener('click', function () {
      var name = button.getAttribute('data-step');
      if (!key && !useKey($('key-input').value)) return;
      button.disabled = true;
      steps[name]().then(function (out) {
        var r = out[0];
        $('flow-output').hidden = false;
        $('flow-step-title').textContent = button.textContent + ' — ' + r.method + ' ' + r.path + ' → ' + r.status;
        $('flow-curl').textContent = curl(r);
        $('flow-meta').textContent = out[1] + (r.requestId ? '  X-Request-Id: ' + r.requestId : '');
        $('flow-response').textContent = r.json ? JSON.stringify(r.json, null, 2) : r.text;
        var next = out[2];
        order.forEach(function (s) {
          var b = document.querySelector('[data-step="' + s + '"]');
          b.disabled = !(s === 'quote' || s === next);
          b.classList.toggle('primary', s === (next || 'quote'));
        });
      }, function (err) {
        button.disabled = false;
        say(err.message, 'error');
      });
    });
  });

  // --- the reference -------------------------------------------------------------------------------------------
  fetch(ROOT + '/openapi.json')
    .then(function (r) { return r.json(); })
    .then(function (spec) {
      // Try-it requests go to this page's own origin, whatever address the deployment advertises.
      spec.servers = [{ url: API, description: 'This deployment (the console sends sandbox requests only)' }];
      ui = window.SwaggerUIBundle({
        spec: spec,
        dom_id: '#swagger-ui',
        deepLinking: true,
        validatorUrl: null,
        docExpansion: 'list',
        defaultModelsExpandDepth: 0,
        displayRequestDuration: true,
        persistAuthorization: false,
        tryItOutEnabled: true,
        presets: [window.SwaggerUIBundle.presets.apis],
        plugins: [refuseLiveKeysPlugin],
        layout: 'BaseLayout',
        // The second line of defence: were a live key to reach a request anyway, it goes nowhere (an address the
        // browser cannot fetch), and the page says why. Throwing here would break Swagger UI's response panel.
        requestInterceptor: function (req) {
          try {
            req.headers = guard(req.headers || {});
          } catch (refusal) {
            say(refusal.message, 'error');
            req.url = 'about:blank#refused-live-key';
            req.headers = {};
          }
          return req;
        },
      });
      if (key) ui.preauthorizeApiKey('bearerKey', key);
    })
    .catch(function (err) { say('Could not load the contract: ' + err.message, 'error'); });
})();
