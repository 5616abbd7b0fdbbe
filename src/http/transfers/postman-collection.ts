/**
 * The Postman collection of the Transfers contract, as a run that tests itself: openapi-to-postmanv2 converts the
 * served contract (one request per operation: URL, parameters, headers, example body and responses, all from the
 * contract), then each request is given its place in the run, the body and variables that chain it to the requests
 * before it, and its `pm.test` assertions (RUN below, by operationId). An operation the contract gains before RUN
 * names it goes to a last folder with a test of its documented success status, so the collection never leaves one
 * out (test/unit/http/postman-collection.unit.test.ts fails until it has its step).
 *
 * The chain, through collection variables set by the test scripts: the quote's `quoteId` and `offerId` → the
 * booking → its `bookingRef` and `etag` → read, change, sandbox helpers, cancel, statement, events, request log.
 * The key is the collection variable `apiKey` (empty here), the address `baseUrl`, the webhook target `webhookUrl`.
 */

type Script = string[];

/** One request of the run: the operation, what it sends beyond the contract's defaults, and what it checks. */
export interface Step {
  operationId: string;
  /** Path variables (`{{var}}` welcome). */
  path?: Record<string, string>;
  /** Query parameters set and switched on (the others keep the converter's: optional ones off). */
  query?: Record<string, string>;
  /** Headers set and switched on. */
  headers?: Record<string, string>;
  /** The JSON body (strings may hold `{{var}}`). */
  body?: unknown;
  prerequest?: Script;
  test: Script;
}

export interface Folder {
  name: string;
  description: string;
  steps: Step[];
}

/** A script's lines from a template literal, its common indentation removed (no `${}` in scripts: plain JS only). */
function js(strings: TemplateStringsArray): Script {
  const lines = String.raw(strings).replace(/^\n/, '').replace(/\s+$/, '').split('\n');
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => /^ */.exec(l)![0].length));
  return lines.map((l) => l.slice(indent));
}

const status = (code: number, text: string): Script => [`pm.test('${code} ${text}', () => pm.response.to.have.status(${code}));`];

/** Every run variable, documented where it is declared (values are set by the scripts). */
const RUN_VARIABLES: Record<string, string> = {
  pickupDatetime: 'The quote’s pickup: 3 days ahead, 09:30 in Sri Lanka (set before every request).',
  changedPickupDatetime: 'The change quote’s pickup: the same day at 11:30 (set before every request).',
  partnerReference: 'Your reference for the booking (set before the booking).',
  quoteId: 'From the quote.',
  offerId: 'The offer booked (a Standard Car when offered).',
  offerPrice: 'Its price.',
  otherOfferId: 'Another offer of the quote, for the expire helper.',
  quoteExpiresAt: 'When the quote’s offers expire.',
  bookingRef: 'From the booking.',
  bookingRequestId: 'The booking request’s X-Request-Id, read back from your request log.',
  etag: 'The booking’s last ETag, sent as If-Match.',
  version: 'The booking’s version.',
  flightNumber: 'The booking’s flight.',
  pickupDate: 'The booking’s pickup date in Sri Lanka (flights, statement).',
  changeQuoteId: 'From the change quote.',
  changeOfferId: 'The change offer applied.',
  changePrice: 'Its price.',
  cancellationFee: 'What the preview said cancelling costs.',
  endpointId: 'The webhook endpoint registered for the run (deleted at its end).',
  pingEventId: 'The test ping’s event: events written after it are this run’s.',
  eventId: 'The booking.confirmed event, redelivered.',
  eventsTries: 'How often the events list was asked before the booking’s events were listed.',
};

/**
 * Before every request. The pickup: 3 days ahead (more than the 24 hours' notice, well within the cancellation
 * policy's free period) at 09:30 in Sri Lanka (+05:30, no daylight saving). A live key stops the run: it books.
 */
const COLLECTION_PREREQUEST = js`
  if (/^svc_sk_live_/.test(pm.variables.get('apiKey') || '')) {
    pm.test('a sandbox key: this collection books, changes and cancels (request not sent)', () => pm.expect.fail('apiKey is a live key'));
    pm.execution.skipRequest();
  }
  const colombo = new Date(Date.now() + 5.5 * 3600 * 1000);
  const day = new Date(Date.UTC(colombo.getUTCFullYear(), colombo.getUTCMonth(), colombo.getUTCDate() + 3)).toISOString().slice(0, 10);
  pm.collectionVariables.set('pickupDatetime', day + 'T09:30:00+05:30');
  pm.collectionVariables.set('changedPickupDatetime', day + 'T11:30:00+05:30');
`;

/** After every request: what any answer carries. */
const COLLECTION_TEST = js`
  pm.test('X-Request-Id is answered (quote it when you contact us)', () => pm.response.to.have.header('X-Request-Id'));
`;

const PASSENGER = { first_name: 'Ayesha', last_name: 'Perera', email: 'ayesha@example.com', phone: '+94771234567' };

/** The run, in order. */
export const RUN: Folder[] = [
  {
    name: '1. Your key',
    description: 'Checks that `apiKey` is a sandbox key.',
    steps: [
      {
        operationId: 'getPing',
        test: [
          ...status(200, 'OK'),
          ...js`
            const b = pm.response.json();
            pm.test('the key works, in sandbox', () => {
              pm.expect(pm.response.code, 'set the collection variable apiKey to your sandbox key (svc_sk_test_…)').to.equal(200);
              pm.expect(b.ok).to.equal(true);
              pm.expect(b.env, 'this collection books: use a sandbox key').to.equal('sandbox');
              pm.expect(pm.response.headers.get('X-Service-Env')).to.equal('sandbox');
              pm.expect(b.partner).to.be.a('string').and.not.empty;
            });
          `,
        ],
      },
    ],
  },
  {
    name: '2. Webhooks: register an endpoint',
    description: 'Registers `webhookUrl` for every booking event (deleted at the end of the run), pings it and rotates its secret.',
    steps: [
      {
        operationId: 'createWebhookEndpoint',
        body: { url: '{{webhookUrl}}' },
        test: [
          ...status(201, 'Created'),
          ...js`
            const e = pm.response.json();
            pm.test('an enabled endpoint with its signing secret, shown this once', () => {
              pm.expect(e.id).to.match(/^we_[0-9a-z]{10}$/);
              pm.expect(e.status).to.equal('enabled');
              pm.expect(e.secret).to.match(/^whsec_[A-Za-z0-9+\/]+=*$/);
              pm.expect(e.events).to.include('booking.confirmed');
            });
            pm.collectionVariables.set('endpointId', e.id);
          `,
        ],
      },
      {
        operationId: 'listWebhookEndpoints',
        test: [
          ...status(200, 'OK'),
          ...js`
            const list = pm.response.json();
            pm.test('lists the endpoint, without its secret', () => {
              const e = list.data.find((x) => x.id === pm.collectionVariables.get('endpointId'));
              pm.expect(e, 'the endpoint registered').to.be.an('object');
              pm.expect(e).to.not.have.property('secret');
            });
          `,
        ],
      },
      {
        operationId: 'testWebhookEndpoint',
        path: { endpoint_id: '{{endpointId}}' },
        test: [
          ...status(202, 'Accepted'),
          ...js`
            const ev = pm.response.json();
            pm.test('a ping event is queued for the endpoint', () => {
              pm.expect(ev.id).to.match(/^evt_[0-9a-f]{24}$/);
              pm.expect(ev.type).to.equal('ping');
              pm.expect(ev.data.endpoint_id).to.equal(pm.collectionVariables.get('endpointId'));
            });
            pm.collectionVariables.set('pingEventId', ev.id);
          `,
        ],
      },
      {
        operationId: 'rotateWebhookSecret',
        path: { endpoint_id: '{{endpointId}}' },
        test: [
          ...status(200, 'OK'),
          ...js`
            const e = pm.response.json();
            pm.test('a new secret; the previous one still signs for 24 hours', () => {
              pm.expect(e.id).to.equal(pm.collectionVariables.get('endpointId'));
              pm.expect(e.secret).to.match(/^whsec_/);
              pm.expect(Date.parse(e.previous_secret_expires_at)).to.be.above(Date.parse(e.created_at));
            });
          `,
        ],
      },
    ],
  },
  {
    name: '3. Quote',
    description: 'CMB airport → a Colombo hotel, two adults and two bags, 3 days ahead (`pickupDatetime`).',
    steps: [
      {
        operationId: 'createQuote',
        body: {
          pickup: { iata: 'CMB' },
          dropoff: { name: 'Cinnamon Grand, 77 Galle Road, Colombo 03' },
          pickup_datetime: '{{pickupDatetime}}',
          passengers: { adults: 2, luggage: 2 },
        },
        test: [
          ...status(200, 'OK'),
          ...js`
            const q = pm.response.json();
            pm.test('a quote with offers, not declined', () => {
              pm.expect(q.quote_id).to.match(/^[0-9a-f]{32}$/);
              pm.expect(q.declined, JSON.stringify(q.declined)).to.equal(null);
              pm.expect(q.offers).to.be.an('array').that.is.not.empty;
              pm.expect(q.journey_type).to.equal('arrival');
            });
            pm.test('every offer has offer_id, price, currency and cancellation_policy, cheapest first', () => {
              q.offers.forEach((o, i) => {
                pm.expect(o.offer_id).to.match(/^[0-9a-f]{32}$/);
                pm.expect(o.price).to.be.a('number').and.above(0);
                pm.expect(o.currency).to.equal(q.currency);
                pm.expect(o.cancellation_policy).to.include.all.keys('free_until', 'fees', 'no_show_fee');
                pm.expect(o.max_passengers).to.be.at.least(2);
                if (i > 0) pm.expect(o.price).to.be.at.least(q.offers[i - 1].price);
              });
            });
            const offer = q.offers.find((o) => o.vehicle_code === 'standard_car') || q.offers[0];
            const other = q.offers.find((o) => o !== offer);
            pm.collectionVariables.set('quoteId', q.quote_id);
            pm.collectionVariables.set('quoteExpiresAt', q.expires_at);
            pm.collectionVariables.set('offerId', offer ? offer.offer_id : '');
            pm.collectionVariables.set('offerPrice', offer ? offer.price : '');
            pm.collectionVariables.set('otherOfferId', other ? other.offer_id : '');
          `,
        ],
      },
    ],
  },
  {
    name: '4. Book and read',
    description: 'Books the offer (a fresh `Idempotency-Key` per send) and reads the booking back.',
    steps: [
      {
        operationId: 'createBooking',
        body: {
          quote_id: '{{quoteId}}',
          offer_id: '{{offerId}}',
          partner_reference: '{{partnerReference}}',
          passenger: PASSENGER,
          passengers: { adults: 2, luggage: 2 },
          flight_number: 'UL504',
        },
        prerequest: js`
          pm.collectionVariables.set('partnerReference', 'POSTMAN-' + Date.now());
        `,
        test: [
          ...status(201, 'Created'),
          ...js`
            const b = pm.response.json();
            const v = (k) => pm.collectionVariables.get(k);
            pm.test('confirmed, at version 1, for the offer quoted at its price', () => {
              pm.expect(b.booking_ref).to.be.a('string').and.not.empty;
              pm.expect(b.status).to.equal('confirmed');
              pm.expect(b.version).to.equal(1);
              pm.expect(b.quote_id).to.equal(v('quoteId'));
              pm.expect(b.offer_id).to.equal(v('offerId'));
              pm.expect(b.partner_reference).to.equal(v('partnerReference'));
              pm.expect(String(b.price)).to.equal(String(v('offerPrice')));
              pm.expect(Date.parse(b.pickup_datetime)).to.equal(Date.parse(v('pickupDatetime')));
            });
            pm.test('what the passenger needs: meeting instructions, emergency phone, tracking link', () => {
              pm.expect(b.meeting_instructions).to.be.a('string').and.not.empty;
              pm.expect(b.emergency_phone).to.be.a('string').and.not.empty;
              pm.expect(b.tracking_url).to.match(/^https?:\/\//);
            });
            pm.test('ETag "1"', () => pm.response.to.have.header('ETag', '"1"'));
            pm.collectionVariables.set('bookingRef', b.booking_ref);
            pm.collectionVariables.set('bookingRequestId', pm.response.headers.get('X-Request-Id'));
            pm.collectionVariables.set('etag', pm.response.headers.get('ETag'));
            pm.collectionVariables.set('version', b.version);
            pm.collectionVariables.set('flightNumber', b.flight_number);
            pm.collectionVariables.set('pickupDate', String(b.pickup_datetime).slice(0, 10));
          `,
        ],
      },
      {
        operationId: 'getBooking',
        path: { booking_ref: '{{bookingRef}}' },
        test: [
          ...status(200, 'OK'),
          ...js`
            const b = pm.response.json();
            pm.test('the same booking, confirmed, with the same ETag', () => {
              pm.expect(b.booking_ref).to.equal(pm.collectionVariables.get('bookingRef'));
              pm.expect(b.status).to.equal('confirmed');
              pm.expect(pm.response.headers.get('ETag')).to.equal(pm.collectionVariables.get('etag'));
            });
          `,
        ],
      },
    ],
  },
  {
    name: '5. Change',
    description: 'A free amendment, then a priced change of time (a change quote, applied), each with `If-Match: {{etag}}`.',
    steps: [
      {
        operationId: 'amendBooking',
        path: { booking_ref: '{{bookingRef}}' },
        headers: { 'If-Match': '{{etag}}' },
        body: { passenger: { phone: '+94 77 765 4321' }, flight_number: 'UL506', notes: 'Sign: Perera family' },
        test: [
          ...status(200, 'OK'),
          ...js`
            const b = pm.response.json();
            pm.test('amended at the next version, with its new ETag', () => {
              pm.expect(b.version).to.equal(Number(pm.collectionVariables.get('version')) + 1);
              pm.expect(pm.response.headers.get('ETag')).to.equal('"' + b.version + '"');
              pm.expect(b.passenger.phone).to.equal('+94 77 765 4321');
              pm.expect(b.flight_number).to.equal('UL506');
              pm.expect(b.notes).to.equal('Sign: Perera family');
            });
            pm.collectionVariables.set('etag', pm.response.headers.get('ETag'));
            pm.collectionVariables.set('version', b.version);
            pm.collectionVariables.set('flightNumber', b.flight_number);
          `,
        ],
      },
      {
        operationId: 'createChangeQuote',
        path: { booking_ref: '{{bookingRef}}' },
        body: { pickup_datetime: '{{changedPickupDatetime}}' },
        test: [
          ...status(200, 'OK'),
          ...js`
            const c = pm.response.json();
            pm.test('offers for the new time, each with its price difference and policy', () => {
              pm.expect(c.change_quote_id).to.match(/^[0-9a-f]{32}$/);
              pm.expect(c.booking_ref).to.equal(pm.collectionVariables.get('bookingRef'));
              pm.expect(c.declined, JSON.stringify(c.declined)).to.equal(null);
              pm.expect(c.offers).to.be.an('array').that.is.not.empty;
              c.offers.forEach((o) => {
                pm.expect(o.price_difference).to.be.a('number');
                pm.expect(o.cancellation_policy).to.include.all.keys('free_until', 'fees', 'no_show_fee');
              });
            });
            const offer = c.offers.find((o) => o.vehicle_code === 'standard_car') || c.offers[0];
            pm.collectionVariables.set('changeQuoteId', c.change_quote_id);
            pm.collectionVariables.set('changeOfferId', offer ? offer.offer_id : '');
            pm.collectionVariables.set('changePrice', offer ? offer.price : '');
          `,
        ],
      },
      {
        operationId: 'applyBookingChange',
        path: { booking_ref: '{{bookingRef}}' },
        headers: { 'If-Match': '{{etag}}' },
        body: { change_quote_id: '{{changeQuoteId}}', offer_id: '{{changeOfferId}}' },
        test: [
          ...status(200, 'OK'),
          ...js`
            const b = pm.response.json();
            pm.test('changed to the new time and price, at the next version', () => {
              pm.expect(b.version).to.equal(Number(pm.collectionVariables.get('version')) + 1);
              pm.expect(pm.response.headers.get('ETag')).to.equal('"' + b.version + '"');
              pm.expect(Date.parse(b.pickup_datetime)).to.equal(Date.parse(pm.collectionVariables.get('changedPickupDatetime')));
              pm.expect(String(b.price)).to.equal(String(pm.collectionVariables.get('changePrice')));
            });
            pm.collectionVariables.set('etag', pm.response.headers.get('ETag'));
            pm.collectionVariables.set('version', b.version);
            pm.collectionVariables.set('pickupDate', String(b.pickup_datetime).slice(0, 10));
          `,
        ],
      },
    ],
  },
  {
    name: '6. Sandbox: what happens next',
    description: 'Sandbox test helpers: the flight is delayed, a driver is assigned, an offer expires, quoting pauses and resumes.',
    steps: [
      {
        operationId: 'setSandboxFlight',
        body: { flight_number: '{{flightNumber}}', date: '{{pickupDate}}', delay_minutes: 45 },
        test: [
          ...status(200, 'OK'),
          ...js`
            const f = pm.response.json();
            pm.test('the flight is delayed, and the booking follows it', () => {
              pm.expect(f.status).to.equal('delayed');
              pm.expect(f.delay_minutes).to.equal(45);
              const b = f.bookings.find((x) => x.booking_ref === pm.collectionVariables.get('bookingRef'));
              pm.expect(b, 'the booking on that flight').to.be.an('object');
              pm.expect(b.pickup_estimated_at, 'the new pickup estimate').to.be.a('string');
            });
          `,
        ],
      },
      {
        operationId: 'advanceSandboxBooking',
        path: { booking_ref: '{{bookingRef}}' },
        body: { to: 'driver_assigned' },
        test: [
          ...status(200, 'OK'),
          ...js`
            const b = pm.response.json();
            pm.test('a (fictitious) driver is assigned; dispatch does not change the version', () => {
              pm.expect(b.status).to.equal('driver_assigned');
              pm.expect(b.driver).to.include.all.keys('name', 'phone', 'vehicle', 'plate');
              pm.expect(b.version).to.equal(Number(pm.collectionVariables.get('version')));
            });
          `,
        ],
      },
      {
        operationId: 'expireOffer',
        path: { offer_id: '{{otherOfferId}}' },
        test: [
          ...status(200, 'OK'),
          ...js`
            const o = pm.response.json();
            pm.test('the other offer of the quote now expires (booking it would be 410 offer_expired)', () => {
              pm.expect(o.offer_id).to.equal(pm.collectionVariables.get('otherOfferId'));
              pm.expect(o.quote_id).to.equal(pm.collectionVariables.get('quoteId'));
              pm.expect(Date.parse(o.expires_at)).to.be.below(Date.parse(pm.collectionVariables.get('quoteExpiresAt')));
            });
          `,
        ],
      },
      {
        operationId: 'pauseSandboxAccount',
        test: [...status(200, 'OK'), `pm.test('sandbox quoting is paused', () => pm.expect(pm.response.json().paused).to.equal(true));`],
      },
      {
        operationId: 'resumeSandboxAccount',
        test: [...status(200, 'OK'), `pm.test('sandbox quoting is resumed', () => pm.expect(pm.response.json().paused).to.equal(false));`],
      },
      {
        operationId: 'getIntegrationReport',
        test: [
          ...status(200, 'OK'),
          ...js`
            const r = pm.response.json();
            pm.test('your integration graded from your sandbox requests', () => {
              pm.expect(r.requests_seen).to.be.above(0);
              pm.expect(r.requirements).to.be.an('array').that.is.not.empty;
              r.requirements.forEach((q) => pm.expect(q.status).to.be.oneOf(['pass', 'fail', 'not_seen']));
              pm.expect(r.summary.pass + r.summary.fail + r.summary.not_seen).to.equal(r.requirements.length);
            });
          `,
        ],
      },
    ],
  },
  {
    name: '7. Cancel and bill',
    description: 'What cancelling costs, the cancellation at that fee, and the statement of the pickup date.',
    steps: [
      {
        operationId: 'getCancellation',
        path: { booking_ref: '{{bookingRef}}' },
        test: [
          ...status(200, 'OK'),
          ...js`
            const c = pm.response.json();
            pm.test('cancellable, and at what fee', () => {
              pm.expect(c.booking_ref).to.equal(pm.collectionVariables.get('bookingRef'));
              pm.expect(c.cancellable).to.equal(true);
              pm.expect(c.fee).to.be.a('number').and.at.least(0);
              pm.expect(c.free_until).to.be.a('string');
            });
            pm.collectionVariables.set('cancellationFee', c.fee);
          `,
        ],
      },
      {
        operationId: 'cancelBooking',
        path: { booking_ref: '{{bookingRef}}' },
        test: [
          ...status(200, 'OK'),
          ...js`
            const b = pm.response.json();
            pm.test('cancelled, at the fee the preview said', () => {
              pm.expect(b.booking_ref).to.equal(pm.collectionVariables.get('bookingRef'));
              pm.expect(b.status).to.equal('cancelled');
              pm.expect(String(b.cancellation_fee)).to.equal(String(pm.collectionVariables.get('cancellationFee')));
              pm.expect(b.cancelled_at).to.be.a('string');
            });
          `,
        ],
      },
      {
        operationId: 'getStatement',
        query: { from: '{{pickupDate}}', to: '{{pickupDate}}' },
        headers: { Accept: 'application/json' },
        test: [
          ...status(200, 'OK'),
          ...js`
            const s = pm.response.json();
            const line = s.lines.find((l) => l.booking_ref === pm.collectionVariables.get('bookingRef'));
            pm.test('the cancelled booking owes its cancellation fee, finally', () => {
              pm.expect(line, 'the booking on the statement').to.be.an('object');
              pm.expect(line.status).to.equal('cancelled');
              pm.expect(String(line.amount_due)).to.equal(String(pm.collectionVariables.get('cancellationFee')));
              pm.expect(line.final).to.equal(true);
              pm.expect(s.totals.bookings).to.equal(s.lines.length);
            });
          `,
        ],
      },
    ],
  },
  {
    name: '8. Events and deliveries',
    description: 'The booking’s events (listed after the test ping), one redelivered, and the endpoint’s deliveries.',
    steps: [
      {
        operationId: 'listEvents',
        query: { after: '{{pingEventId}}', limit: '100' },
        prerequest: js`
          // An event is listed once every transaction that began before it has ended: normally at once.
          const tries = Number(pm.collectionVariables.get('eventsTries') || 0);
          if (tries > 0) setTimeout(() => {}, 250);
        `,
        test: [
          ...status(200, 'OK'),
          ...js`
            const ref = pm.collectionVariables.get('bookingRef');
            const mine = pm.response.json().data.filter((e) => e.data.booking && e.data.booking.booking_ref === ref);
            const types = mine.map((e) => e.type);
            const tries = Number(pm.collectionVariables.get('eventsTries') || 0);
            if (!types.includes('booking.cancelled') && tries < 40) {
              pm.collectionVariables.set('eventsTries', tries + 1);
              pm.execution.setNextRequest(pm.info.requestId);
            } else {
              pm.collectionVariables.set('eventsTries', 0);
              pm.test("the booking's events, in sequence", () => {
                pm.expect(types).to.include.members(['booking.confirmed', 'booking.amended', 'booking.driver_assigned', 'booking.cancelled']);
                mine.forEach((e, i) => pm.expect(e.sequence).to.equal(i + 1));
                mine.forEach((e) => pm.expect(e.id).to.match(/^evt_[0-9a-f]{24}$/));
              });
              const confirmed = mine.find((e) => e.type === 'booking.confirmed');
              pm.collectionVariables.set('eventId', confirmed ? confirmed.id : '');
            }
          `,
        ],
      },
      {
        operationId: 'redeliverEvent',
        path: { event_id: '{{eventId}}' },
        body: { endpoint_id: '{{endpointId}}' },
        test: [
          ...status(202, 'Accepted'),
          ...js`
            const r = pm.response.json();
            pm.test('one new delivery, to the endpoint', () => {
              pm.expect(r.event_id).to.equal(pm.collectionVariables.get('eventId'));
              pm.expect(r.deliveries).to.have.lengthOf(1);
              pm.expect(r.deliveries[0].endpoint_id).to.equal(pm.collectionVariables.get('endpointId'));
            });
          `,
        ],
      },
      {
        operationId: 'listWebhookDeliveries',
        query: { endpoint_id: '{{endpointId}}' },
        test: [
          ...status(200, 'OK'),
          ...js`
            const d = pm.response.json().data;
            pm.test("the endpoint's deliveries, with where each stands", () => {
              pm.expect(d).to.be.an('array').that.is.not.empty;
              d.forEach((x) => {
                pm.expect(x.endpoint_id).to.equal(pm.collectionVariables.get('endpointId'));
                pm.expect(x.status).to.be.oneOf(['pending', 'delivered', 'failed']);
              });
              pm.expect(d.map((x) => x.event_id)).to.include(pm.collectionVariables.get('eventId'));
            });
          `,
        ],
      },
    ],
  },
  {
    name: '9. Your requests',
    description: 'Your request log, the booking request as we recorded it (your key redacted), and the booking’s timeline.',
    steps: [
      {
        operationId: 'listRequests',
        query: { path_prefix: '/transfers/v1/bookings/{{bookingRef}}', limit: '50' },
        test: [
          ...status(200, 'OK'),
          ...js`
            const l = pm.response.json();
            const prefix = '/transfers/v1/bookings/' + pm.collectionVariables.get('bookingRef');
            pm.test("the booking's requests, newest first", () => {
              pm.expect(l.data).to.be.an('array').that.is.not.empty;
              l.data.forEach((r, i) => {
                pm.expect(r.path.startsWith(prefix), r.path).to.equal(true);
                pm.expect(r.request_id).to.be.a('string');
                if (i > 0) pm.expect(Date.parse(r.at)).to.be.at.most(Date.parse(l.data[i - 1].at));
              });
              pm.expect(l.data.map((r) => r.method + ' ' + r.status)).to.include('POST 200');
            });
          `,
        ],
      },
      {
        operationId: 'getRequest',
        path: { request_id: '{{bookingRequestId}}' },
        test: [
          ...status(200, 'OK'),
          ...js`
            const r = pm.response.json();
            pm.test('the booking request and our answer, as recorded', () => {
              pm.expect(r.request_id).to.equal(pm.collectionVariables.get('bookingRequestId'));
              pm.expect(r.method).to.equal('POST');
              pm.expect(r.path).to.equal('/transfers/v1/bookings');
              pm.expect(r.status).to.equal(201);
              pm.expect(r.idempotency_key).to.be.a('string');
              pm.expect(r.response.body.booking_ref).to.equal(pm.collectionVariables.get('bookingRef'));
            });
            pm.test('your key is not kept, only its public prefix', () => {
              const key = pm.variables.get('apiKey');
              pm.expect(pm.response.text().includes(key)).to.equal(false);
            });
          `,
        ],
      },
      {
        operationId: 'getBookingTimeline',
        path: { booking_ref: '{{bookingRef}}' },
        test: [
          ...status(200, 'OK'),
          ...js`
            const t = pm.response.json();
            pm.test('requests and events in time order, from the booking request to the cancellation', () => {
              pm.expect(t.booking_ref).to.equal(pm.collectionVariables.get('bookingRef'));
              t.data.forEach((e, i) => i > 0 && pm.expect(Date.parse(e.at)).to.be.at.least(Date.parse(t.data[i - 1].at)));
              pm.expect(t.data.map((e) => e.request_id)).to.include(pm.collectionVariables.get('bookingRequestId'));
              const events = t.data.filter((e) => e.kind === 'event').map((e) => e.type);
              pm.expect(events).to.include.members(['booking.confirmed', 'booking.cancelled']);
            });
          `,
        ],
      },
    ],
  },
  {
    name: '10. Clean up',
    description: 'Deletes the webhook endpoint of the run (an environment has at most 10).',
    steps: [
      {
        operationId: 'deleteWebhookEndpoint',
        path: { endpoint_id: '{{endpointId}}' },
        test: [
          ...status(200, 'OK'),
          ...js`
            const e = pm.response.json();
            pm.test('deleted', () => {
              pm.expect(e.id).to.equal(pm.collectionVariables.get('endpointId'));
              pm.expect(e.status).to.equal('deleted');
            });
          `,
        ],
      },
    ],
  },
  {
    name: '11. The contract',
    description: 'The contract documents, served without a key.',
    steps: [
      {
        operationId: 'getContractJson',
        test: [
          ...status(200, 'OK'),
          ...js`
            const c = pm.response.json();
            pm.test('OpenAPI 3.0.3, naming this deployment', () => {
              pm.expect(c.openapi).to.equal('3.0.3');
              pm.expect(c.servers[0].url).to.equal(pm.variables.get('baseUrl'));
              pm.expect(c.paths).to.have.property('/quotes');
            });
          `,
        ],
      },
      {
        operationId: 'getContractYaml',
        test: [
          ...status(200, 'OK'),
          ...js`
            pm.test('the same document as YAML', () => {
              pm.response.to.have.header('Content-Type', 'application/yaml; charset=utf-8');
              pm.expect(pm.response.text()).to.match(/^openapi: 3\.0\.3$/m);
            });
          `,
        ],
      },
      {
        operationId: 'getPostmanCollection',
        test: [
          ...status(200, 'OK'),
          ...js`
            const c = pm.response.json();
            pm.test('this collection (v2.1), the key in {{apiKey}}', () => {
              pm.expect(c.info.schema).to.include('/v2.1.0/');
              pm.expect(c.auth.bearer[0].value).to.equal('{{apiKey}}');
              pm.expect(c.item).to.be.an('array').that.is.not.empty;
            });
          `,
        ],
      },
    ],
  },
];

// ---------------------------------------------------------------------------------------------------------------
// Assembly: the converter's output, rearranged by RUN.

interface Header {
  key: string;
  value: string;
  disabled?: boolean;
  description?: unknown;
}
interface KeyValue {
  key: string;
  value: string;
  disabled?: boolean;
}
interface Request {
  method: string;
  url: { path: string[]; query?: KeyValue[]; variable?: KeyValue[] };
  header?: Header[];
  body?: { mode: string; raw?: string; options?: unknown };
  auth?: unknown;
}
interface Item {
  id?: string;
  name: string;
  description?: unknown;
  item?: Item[];
  request?: Request;
  response?: unknown[];
  event?: Array<{ listen: 'prerequest' | 'test'; script: { type: 'text/javascript'; exec: string[] } }>;
}
interface Collection {
  info: { name: string; description?: { content: string; type: string } | string; schema: string };
  item: Item[];
  variable?: Array<{ key: string; value: string; type?: string; description?: string }>;
  auth?: unknown;
  event?: Item['event'];
}
interface Operation {
  operationId: string;
  security?: unknown[];
  responses?: Record<string, unknown>;
}
export interface ContractPaths {
  paths: Record<string, Record<string, unknown>>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** The contract's operations by "METHOD /path" (path templates as written). */
export function operationsByRoute(contract: ContractPaths): Map<string, Operation> {
  const out = new Map<string, Operation>();
  for (const [p, ops] of Object.entries(contract.paths))
    for (const [m, op] of Object.entries(ops)) if (METHODS.includes(m)) out.set(`${m.toUpperCase()} ${p}`, op as Operation);
  return out;
}

/** A converted request's route, as the contract writes it (`:booking_ref` → `{booking_ref}`). */
export const routeOf = (r: Request): string => `${r.method} /${r.url.path.map((s) => (s.startsWith(':') ? `{${s.slice(1)}}` : s)).join('/')}`;

const events = (prerequest: Script | undefined, test: Script): NonNullable<Item['event']> => [
  ...(prerequest ? [{ listen: 'prerequest' as const, script: { type: 'text/javascript' as const, exec: prerequest } }] : []),
  { listen: 'test', script: { type: 'text/javascript', exec: test } },
];

function setAll(list: KeyValue[] | undefined, values: Record<string, string> | undefined, what: string, operationId: string): KeyValue[] {
  const out = list ?? [];
  for (const [key, value] of Object.entries(values ?? {})) {
    const found = out.find((p) => p.key.toLowerCase() === key.toLowerCase());
    if (!found) {
      if (what === 'header') out.push({ key, value });
      else throw new Error(`postman collection: ${operationId} has no ${what} ${key} in the contract`);
    } else Object.assign(found, { value, disabled: false });
  }
  return out;
}

function applyStep(item: Item, step: Step, operation: Operation): void {
  const r = item.request!;
  r.url.variable = setAll(r.url.variable, step.path, 'path variable', step.operationId);
  r.url.query = setAll(r.url.query, step.query, 'query parameter', step.operationId);
  r.header = setAll(r.header, step.headers, 'header', step.operationId);
  if (step.body !== undefined) r.body = { mode: 'raw', raw: JSON.stringify(step.body, null, 2), options: { raw: { language: 'json' } } };
  if (operation.security?.length === 0) r.auth = { type: 'noauth' };
  item.event = events(step.prerequest, step.test);
}

/** An operation RUN does not name yet: sent as the contract's example, expecting its documented success. */
function unplannedStep(operation: Operation): Step {
  const codes = Object.keys(operation.responses ?? {}).filter((c) => /^2\d\d$/.test(c));
  return {
    operationId: operation.operationId,
    test: [`pm.test('a success the contract documents (${codes.join(', ')})', () => pm.expect(pm.response.code).to.be.oneOf([${codes.join(', ')}]));`],
  };
}

const RUN_DESCRIPTION = `**Run it, and it tests itself.** Set the collection variable \`apiKey\` to your **sandbox** key (\`svc_sk_test_…\`;
the run stops on a live key: it books, changes and cancels), and \`webhookUrl\` to a URL of yours that receives webhooks
(any http or https URL in sandbox). Then run the collection (Run collection, or \`npx newman run <this collection's URL>
--env-var apiKey=svc_sk_test_…\`). The folders run in order: each request's tests check its answer and pass what the
next requests need (the quote's \`quoteId\` and \`offerId\` to the booking, the booking's \`bookingRef\` and \`etag\` to the
changes and the cancellation…) through collection variables. The pickup is 3 days ahead (\`pickupDatetime\`, set
before every request). The run leaves a cancelled sandbox booking and deletes the webhook endpoint it registered.

`;

/** The converted collection, rearranged into the run. */
function arrangeCollection(converted: Collection, contract: ContractPaths): Collection {
  const byRoute = operationsByRoute(contract);
  const items = new Map<string, Item>();
  const walk = (list: Item[]) =>
    list.forEach((i) => (i.item ? walk(i.item) : i.request && items.set(byRoute.get(routeOf(i.request))?.operationId ?? routeOf(i.request), i)));
  walk(converted.item);
  const operations = new Map([...byRoute.values()].map((o) => [o.operationId, o]));

  const placed = new Set<string>();
  const folder = (name: string, description: string, steps: Step[]): Item => ({
    name,
    description,
    item: steps.flatMap((s) => {
      const item = items.get(s.operationId);
      const operation = operations.get(s.operationId);
      if (!item || !operation) return []; // RUN names an operation the contract no longer has (the unit test says so)
      placed.add(s.operationId);
      applyStep(item, s, operation);
      return [item];
    }),
  });
  const folders = RUN.map((f) => folder(f.name, f.description, f.steps));
  const rest = [...operations.values()].filter((o) => !placed.has(o.operationId) && items.has(o.operationId));
  if (rest.length) folders.push(folder('Not in the run yet', 'Operations of the contract the run does not chain yet.', rest.map(unplannedStep)));

  const description = typeof converted.info.description === 'string' ? converted.info.description : (converted.info.description?.content ?? '');
  return {
    ...converted,
    info: { ...converted.info, description: { content: RUN_DESCRIPTION + description, type: 'text/markdown' } },
    item: folders,
    auth: { type: 'bearer', bearer: [{ key: 'token', value: '{{apiKey}}', type: 'string' }] },
    variable: [
      ...(converted.variable ?? []).filter((v) => v.key === 'baseUrl'),
      { key: 'apiKey', value: '', type: 'string', description: 'Your sandbox key (svc_sk_test_…). The collection sends it as a bearer token.' },
      { key: 'webhookUrl', value: 'https://example.com/lanka-transfers-webhooks', type: 'string', description: 'Where the run’s webhook endpoint delivers.' },
      ...Object.entries(RUN_VARIABLES).map(([key, description]) => ({ key, value: '', type: 'string', description })),
    ],
    event: events(COLLECTION_PREREQUEST, COLLECTION_TEST),
  };
}

/** Every Idempotency-Key header on, with a new UUID per send (Postman's `{{$guid}}`): the safe default. */
function withFreshIdempotencyKeys(items: Item[]): void {
  for (const it of items) {
    if (it.item) withFreshIdempotencyKeys(it.item);
    for (const h of it.request?.header ?? []) if (h.key.toLowerCase() === 'idempotency-key') Object.assign(h, { value: '{{$guid}}', disabled: false });
  }
}

/**
 * The collection of the served contract (`servers[0].url` becomes `baseUrl`): converted by openapi-to-postmanv2 with
 * the contract's examples (optional parameters there but off), then arranged into the run.
 */
export function postmanCollection(contract: object): Promise<object> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const converter = require('openapi-to-postmanv2') as {
    convert(
      input: { type: 'json'; data: object },
      options: object,
      cb: (err: Error | null, r: { result: boolean; reason?: string; output: Array<{ data: Collection }> }) => void,
    ): void;
  };
  return new Promise((resolve, reject) =>
    converter.convert(
      { type: 'json', data: contract },
      { folderStrategy: 'Tags', requestParametersResolution: 'Example', exampleParametersResolution: 'Example', enableOptionalParameters: false },
      (err, r) => {
        if (err) reject(err);
        else if (!r.result) reject(new Error(`postman conversion: ${r.reason}`));
        else {
          try {
            const collection = arrangeCollection(r.output[0].data, contract as ContractPaths);
            withFreshIdempotencyKeys(collection.item);
            resolve(collection);
          } catch (e) {
            reject(e instanceof Error ? e : new Error(String(e)));
          }
        }
      },
    ),
  );
}
