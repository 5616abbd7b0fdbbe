import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ManualClock } from '../../../src/shared/clock';
import { HOTEL, PASSENGER } from '../../support/bookings';
import { backend } from '../../support/test-app';
import { useTestApp } from '../../support/use-test-app';

const NOW = '2026-11-21T08:00:00Z';

/**
 * AI agents through the MCP server (/mcp), driven by the official SDK's own client: the tools and their schemas,
 * quoting with a decline an agent can correct, the confirmation step, idempotency, tokens that confirm once for one
 * key, the operator's limits under concurrency, cancelling only after a preview, and the audit trail.
 */
describe(`The MCP server (${backend})`, () => {
  const clock = new ManualClock(NOW);
  const svc = useTestApp({ clock, partner: 'Agent Travel', resetClock: true });
  const clients: Client[] = [];

  /** Every HTTP request the SDK's clients sent, by key. */
  const sent = new Map<string, number>();
  async function connect(key: string): Promise<Client> {
    const client = new Client({ name: 'test-agent', version: '1.0.0' });
    const counting: typeof fetch = (input, init) => {
      sent.set(key, (sent.get(key) ?? 0) + 1);
      return fetch(input, init);
    };
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${svc.app.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } }, fetch: counting }),
    );
    clients.push(client);
    return client;
  }
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
  });

  const policy = async (partnerId: string, body: Record<string, unknown>) => {
    const r = await svc.ops.call('PUT', `/partners/${partnerId}/agent-policy`, { body });
    expect(r.status).toBe(200);
    return r;
  };
  const structured = (r: unknown) => (r as { structuredContent: any }).structuredContent;
  const quoteArgs = (over: Record<string, unknown> = {}) => ({
    pickup: { iata: 'CMB' },
    dropoff: { name: HOTEL },
    pickup_datetime: '2026-12-01T09:30:00+05:30',
    passengers: { adults: 2, luggage: 2 },
    ...over,
  });
  let seq = 0;
  async function prepared(client: Client, over: Record<string, unknown> = {}) {
    const q = structured(await client.callTool({ name: 'quote_transfer', arguments: quoteArgs() }));
    seq += 1;
    const r = await client.callTool({
      name: 'prepare_booking',
      arguments: {
        quote_id: q.quote_id,
        offer_id: q.offers[0].offer_id,
        passenger: PASSENGER,
        passengers: { adults: 2, luggage: 2 },
        flight_number: 'UL504',
        partner_reference: `MCP-${seq}`,
        ...over,
      },
    });
    expect(r.isError).toBeFalsy();
    return { quote: q, prep: structured(r) };
  }

  it('lists its tools with input and output schemas and annotations, all from the contracts', async () => {
    const client = await connect(svc.partner.testKey);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'amend_booking',
        'cancel_booking',
        'confirm_booking',
        'find_place',
        'get_booking',
        'list_bookings',
        'prepare_booking',
        'preview_cancellation',
        'quote_transfer',
      ].sort(),
    );
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type).toBe('object');
      expect(t.description!.length).toBeGreaterThan(60);
      expect(typeof t.annotations?.readOnlyHint).toBe('boolean');
    }
    const quote = tools.find((t) => t.name === 'quote_transfer')!;
    expect(quote.inputSchema.required).toEqual(['pickup', 'dropoff', 'pickup_datetime', 'passengers']);
    expect(tools.find((t) => t.name === 'cancel_booking')!.annotations).toMatchObject({ destructiveHint: true });
    expect(client.getServerVersion()).toMatchObject({ name: 'lanka-transfers' });
  });

  it('without a valid key, then 401 with WWW-Authenticate naming the protected resource metadata, which is served', async () => {
    const r = await fetch(`${svc.app.url}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(r.status).toBe(401);
    const challenge = r.headers.get('www-authenticate')!;
    expect(challenge).toMatch(/^Bearer resource_metadata="http.*\/\.well-known\/oauth-protected-resource\/mcp"$/);
    expect(await r.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32001 } });
    const meta = await fetch(`${svc.app.url}/.well-known/oauth-protected-resource/mcp`);
    expect([meta.status, meta.status === 200 ? '' : await meta.text()]).toEqual([200, '']);
    expect(await meta.json()).toMatchObject({ resource: expect.stringMatching(/\/mcp$/), bearer_methods_supported: ['header'] });
    await expect(connect('svc_sk_test_nope_nope')).rejects.toThrow();
  });

  it("when a request's params are not what the protocol says, then -32602 Invalid params naming the field, not an internal error", async () => {
    const rpc = async (message: unknown): Promise<[number, any]> => {
      const r = await fetch(`${svc.app.url}/mcp`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${svc.partner.testKey}` },
        body: JSON.stringify(message),
      });
      return [r.status, await r.json()];
    };
    expect(await rpc({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'quote_transfer', arguments: 'CMB to Kandy' } })).toEqual([
      200,
      { jsonrpc: '2.0', id: 7, error: { code: -32602, message: expect.stringMatching(/^Invalid params for tools\/call: params\.arguments: /) } },
    ]);
    expect(await rpc({ jsonrpc: '2.0', id: 'x', method: 'tools/call', params: {} })).toEqual([
      200,
      { jsonrpc: '2.0', id: 'x', error: { code: -32602, message: expect.stringMatching(/^Invalid params for tools\/call: params\.name: /) } },
    ]);
    // A request the SDK takes is answered as it was.
    const [, listed] = await rpc({ jsonrpc: '2.0', id: 8, method: 'tools/list' });
    expect(listed.result.tools.length).toBeGreaterThan(5);
  });

  it('a decline is a normal result with its reason and hint; quoting again as hinted gives offers', async () => {
    const client = await connect(svc.partner.testKey);
    const tooSoon = await client.callTool({ name: 'quote_transfer', arguments: quoteArgs({ pickup_datetime: '2026-11-21T15:00:00+05:30' }) });
    expect(tooSoon.isError).toBeFalsy();
    const declined = structured(tooSoon).declined;
    expect(declined).toMatchObject({ reason: 'short_notice', hint: { earliest_pickup_datetime: expect.any(String) } });
    expect((tooSoon.content as Array<{ text: string }>)[0].text).toContain('short_notice');
    const again = structured(
      await client.callTool({ name: 'quote_transfer', arguments: quoteArgs({ pickup_datetime: declined.hint.earliest_pickup_datetime }) }),
    );
    expect(again.declined).toBeNull();
    expect(again.offers.length).toBeGreaterThan(0);
  });

  it('prepare books nothing and summarises; confirm books once; the same idempotency key returns the same booking', async () => {
    const client = await connect(svc.partner.testKey);
    const { quote, prep } = await prepared(client);
    expect(prep.confirmation_token).toMatch(/^mcpc_/);
    expect(prep.summary).toMatchObject({
      passenger: { first_name: 'Ayesha' },
      price: quote.offers[0].price,
      pickup_local: 'Tue 1 Dec 2026, 09:30 (Sri Lanka time)',
    });
    expect(prep.summary.cancellation).toMatch(/^Free to cancel until /);
    expect(await svc.app.db('bookings').where({ quoteId: quote.quote_id }).first()).toBeUndefined();

    const confirm = (key: string) =>
      client.callTool({ name: 'confirm_booking', arguments: { confirmation_token: prep.confirmation_token, idempotency_key: key } });
    const first = await confirm('agent-key-1');
    expect(first.isError).toBeFalsy();
    const booking = structured(first);
    expect(booking).toMatchObject({ status: 'confirmed', price: quote.offers[0].price, passenger: { last_name: 'Perera' } });
    const again = structured(await confirm('agent-key-1'));
    expect(again.booking_ref).toBe(booking.booking_ref);
    const reused = await confirm('agent-key-2');
    expect(reused.isError).toBe(true);
    expect(structured(reused).error).toMatchObject({ code: 'confirmation_invalid', details: { reason: 'used' } });
    expect(await svc.app.db('bookings').where({ quoteId: quote.quote_id }).count({ n: '*' })).toEqual([{ n: expect.anything() }]);
    expect(Number((await svc.app.db('bookings').where({ quoteId: quote.quote_id }).count({ n: '*' }))[0].n)).toBe(1);
  });

  it('finds places, reads, lists and amends bookings, each result valid against its outputSchema', async () => {
    const client = await connect(svc.partner.testKey);
    const kandy = structured(await client.callTool({ name: 'find_place', arguments: { query: 'kandy' } }));
    expect(kandy.places[0]).toMatchObject({ name: 'Kandy', kind: expect.any(String), as_place: { name: 'Kandy' } });
    const airport = structured(await client.callTool({ name: 'find_place', arguments: { query: 'CMB' } }));
    expect(airport.places[0]).toMatchObject({ kind: 'airport', iata: 'CMB', as_place: { iata: 'CMB' } });
    const nowhere = await client.callTool({ name: 'find_place', arguments: { query: 'Atlantis Grand Hotel' } });
    expect(structured(nowhere).places).toEqual([]);
    expect((nowhere.content as Array<{ text: string }>)[0].text).toMatch(/^No place in Sri Lanka matches/);

    const { prep } = await prepared(client);
    const booking = structured(
      await client.callTool({ name: 'confirm_booking', arguments: { confirmation_token: prep.confirmation_token, idempotency_key: `read-${seq}` } }),
    );
    const read = structured(await client.callTool({ name: 'get_booking', arguments: { booking_ref: booking.booking_ref } }));
    expect(read).toMatchObject({ booking_ref: booking.booking_ref, version: 1 });
    const listed = structured(await client.callTool({ name: 'list_bookings', arguments: { from: '2026-12-01', to: '2026-12-01', status: 'confirmed' } }));
    expect(listed.bookings.map((b: { booking_ref: string }) => b.booking_ref)).toContain(booking.booking_ref);
    const amended = structured(
      await client.callTool({ name: 'amend_booking', arguments: { booking_ref: booking.booking_ref, changes: { notes: 'Sign: Perera family' } } }),
    );
    expect(amended).toMatchObject({ version: 2, notes: 'Sign: Perera family' });
    const unknown = await client.callTool({ name: 'get_booking', arguments: { booking_ref: 'ZZZZ9999' } });
    expect(structured(unknown).error).toMatchObject({ code: 'not_found' });
  });

  it('an expired token, or one handed to another key, is refused and books nothing', async () => {
    const client = await connect(svc.partner.testKey);
    const other = await svc.ops.partnerWithKeys('Other Agents');
    const otherClient = await connect(other.testKey);
    const { quote, prep } = await prepared(client);
    const stolen = await otherClient.callTool({
      name: 'confirm_booking',
      arguments: { confirmation_token: prep.confirmation_token, idempotency_key: 'k-other' },
    });
    expect(structured(stolen).error).toMatchObject({ code: 'confirmation_invalid', details: { reason: 'unknown' } });
    clock.advance(10 * 60_000 + 1000);
    const late = await client.callTool({ name: 'confirm_booking', arguments: { confirmation_token: prep.confirmation_token, idempotency_key: 'k-late' } });
    expect(structured(late).error).toMatchObject({ code: 'confirmation_invalid', details: { reason: 'expired' } });
    expect(await svc.app.db('bookings').where({ quoteId: quote.quote_id }).first()).toBeUndefined();
  });

  it('a live key books only once an operator allows it, within the amount per booking', async () => {
    await svc.ops.vehicle('standard_car');
    const client = await connect(svc.partner.liveKey);
    const q = structured(await client.callTool({ name: 'quote_transfer', arguments: quoteArgs() }));
    const args = { quote_id: q.quote_id, offer_id: q.offers[0].offer_id, passenger: PASSENGER, passengers: { adults: 2, luggage: 2 }, flight_number: 'UL504' };
    const closed = await client.callTool({ name: 'prepare_booking', arguments: args });
    expect(structured(closed).error).toMatchObject({ code: 'limit_exceeded', details: { limit: 'live_bookings' } });
    const set = await policy(svc.partner.partner_id, { enabled: true, live_bookings: true, max_booking_amount: 1 });
    expect(set.body).toMatchObject({ live_bookings: true, max_booking_amount: 1, max_daily_amount: null, updated_by: 'bootstrap' });
    const tooMuch = await client.callTool({ name: 'prepare_booking', arguments: args });
    expect(structured(tooMuch).error).toMatchObject({ code: 'limit_exceeded', details: { limit: 'max_booking_amount', max: 1 } });
    await policy(svc.partner.partner_id, { enabled: true, live_bookings: true, max_booking_amount: null });
    const ok = await client.callTool({ name: 'prepare_booking', arguments: args });
    expect(ok.isError).toBeFalsy();
    const booked = await client.callTool({
      name: 'confirm_booking',
      arguments: { confirmation_token: structured(ok).confirmation_token, idempotency_key: 'live-1' },
    });
    expect(structured(booked)).toMatchObject({ env: 'production', status: 'confirmed' });
    const after = await svc.ops.call('GET', `/partners/${svc.partner.partner_id}/agent-policy`);
    expect(after.body.booked_today.production).toEqual({ amount: structured(booked).price, bookings: 1 });
    await policy(svc.partner.partner_id, { enabled: true, live_bookings: false });
  });

  it('10 concurrent confirms against a daily amount: one total, never over, the rest refused with nothing booked', async () => {
    const partner = await svc.ops.partnerWithKeys('Busy Agents');
    const client = await connect(partner.testKey);
    const preps = [];
    for (let i = 0; i < 10; i++) preps.push((await prepared(client)).prep);
    const price = preps[0].summary.price as number;
    await policy(partner.partner_id, { enabled: true, live_bookings: false, max_daily_amount: price * 3 + price / 2 });
    const results = await Promise.all(
      preps.map(async (p, i) => {
        const c = await connect(partner.testKey);
        return c.callTool({ name: 'confirm_booking', arguments: { confirmation_token: p.confirmation_token, idempotency_key: `daily-${i}` } });
      }),
    );
    const booked = results.filter((r) => !r.isError);
    const refused = results.filter((r) => r.isError).map((r) => structured(r).error);
    expect(booked).toHaveLength(3);
    expect(refused).toHaveLength(7);
    for (const e of refused) expect(e).toMatchObject({ code: 'limit_exceeded', details: { limit: 'max_daily_amount' } });
    const [day] = await svc.app.db('agent_daily_amounts').where({ partnerId: partner.partner_id });
    expect(Number(day.amount)).toBeCloseTo(price * 3, 2);
    const rows = await svc.app.db('bookings').where({ partnerId: partner.partner_id });
    expect(rows).toHaveLength(3);
  });

  it('an operator can close agents off: acting tools refuse with limit_exceeded, reading stays open; a bad or unknown policy is refused', async () => {
    const partner = await svc.ops.partnerWithKeys('Closed Agents');
    await policy(partner.partner_id, { enabled: false, live_bookings: false });
    const client = await connect(partner.testKey);
    const q = structured(await client.callTool({ name: 'quote_transfer', arguments: quoteArgs() }));
    expect(q.offers.length).toBeGreaterThan(0);
    const r = await client.callTool({
      name: 'prepare_booking',
      arguments: { quote_id: q.quote_id, offer_id: q.offers[0].offer_id, passenger: PASSENGER, passengers: { adults: 2 }, flight_number: 'UL504' },
    });
    expect(structured(r).error).toMatchObject({ code: 'limit_exceeded', details: { limit: 'enabled' } });
    const bad = await svc.ops.call('PUT', `/partners/${partner.partner_id}/agent-policy`, {
      body: { enabled: true, live_bookings: true, max_daily_amount: -5 },
    });
    expect(bad.status).toBe(400);
    const unknown = await svc.ops.call('PUT', '/partners/ptn_nobody/agent-policy', { body: { enabled: true, live_bookings: true } });
    expect(unknown.status).toBe(404);
  });

  it('cancels only with the token its preview gave, for that booking', async () => {
    const client = await connect(svc.partner.testKey);
    const { prep } = await prepared(client);
    const booking = structured(
      await client.callTool({ name: 'confirm_booking', arguments: { confirmation_token: prep.confirmation_token, idempotency_key: `c-${seq}` } }),
    );
    const blind = await client.callTool({
      name: 'cancel_booking',
      arguments: { booking_ref: booking.booking_ref, confirmation_token: prep.confirmation_token },
    });
    expect(structured(blind).error).toMatchObject({ code: 'confirmation_invalid' });
    const preview = structured(await client.callTool({ name: 'preview_cancellation', arguments: { booking_ref: booking.booking_ref } }));
    expect(preview).toMatchObject({ cancellable: true, fee: 0, confirmation_token: expect.stringMatching(/^mcpc_/) });
    const cancelled = await client.callTool({
      name: 'cancel_booking',
      arguments: { booking_ref: booking.booking_ref, confirmation_token: preview.confirmation_token },
    });
    expect(structured(cancelled)).toMatchObject({ booking_ref: booking.booking_ref, status: 'cancelled' });
    const twice = await client.callTool({
      name: 'cancel_booking',
      arguments: { booking_ref: booking.booking_ref, confirmation_token: preview.confirmation_token },
    });
    expect(structured(twice).error).toMatchObject({ code: 'confirmation_invalid', details: { reason: 'used' } });
  });

  it('unknown tools and bad arguments are JSON-RPC errors; every call has one audit row, in the request log, the traveller sealed', async () => {
    const partner = await svc.ops.partnerWithKeys('Audited Agents');
    const client = await connect(partner.testKey);
    await expect(client.callTool({ name: 'book_everything', arguments: {} })).rejects.toThrow(/Unknown tool/);
    await expect(client.callTool({ name: 'quote_transfer', arguments: { pickup: 'CMB' } })).rejects.toThrow(/Invalid arguments/);
    await prepared(client);
    const rows = await svc.app.db('audit_log').where({ surface: 'mcp', partnerId: partner.partner_id });
    // initialize, initialized, the SDK's tools/list, 2 refused calls, quote, prepare: each request one row
    expect(rows.length).toBe(sent.get(partner.testKey));
    expect(rows.length).toBeGreaterThanOrEqual(6);
    for (const r of rows) {
      expect(JSON.stringify(r)).not.toContain(PASSENGER.email);
      expect(JSON.stringify(r)).not.toContain('77 Galle Road');
    }
    const log = await svc.call('GET', '/transfers/v1/requests?limit=50', { key: partner.testKey });
    expect(log.status).toBe(200);
    expect(log.body.data.filter((x: { path: string }) => x.path === '/mcp')).toHaveLength(rows.length);
  });
});
