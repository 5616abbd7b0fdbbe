import { checkTargetUrl, guardedLookup, refusedAddress, type Resolve } from '../../../src/domain/webhooks/targets';
import { RETRY_SCHEDULE_MS, MAX_ATTEMPTS, signatureHeader, webhookChannel } from '../../../src/domain/webhooks/delivery';
import { testConfig } from '../../support/test-app';

const dns =
  (table: Record<string, string[]>): Resolve =>
  async (host) =>
    (table[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('Webhook targets', () => {
  it.each([
    ['93.184.215.14', false, null],
    ['2606:4700::1111', false, null],
    ['::ffff:8.8.8.8', false, null],
    ['127.0.0.1', false, 'loopback'],
    ['::1', false, 'loopback'],
    ['::ffff:127.0.0.1', false, 'loopback'],
    ['10.1.2.3', false, 'private'],
    ['172.16.0.1', false, 'private'],
    ['192.168.1.1', false, 'private'],
    ['100.64.0.1', false, 'carrierGradeNat'],
    ['fc00::1', false, 'uniqueLocal'],
    ['169.254.169.254', false, 'linkLocal'],
    ['fe80::1', false, 'linkLocal'],
    ['0.0.0.0', false, 'unspecified'],
    ['224.0.0.1', false, 'multicast'],
    ['198.18.0.1', false, 'reserved'],
    ['64:ff9b::7f00:1', false, 'rfc6052'],
    ['2002:7f00:1::', false, '6to4'],
    // With private targets allowed (sandbox): private, loopback and unique-local pass; link-local and the rest never.
    ['127.0.0.1', true, null],
    ['10.1.2.3', true, null],
    ['fc00::1', true, null],
    ['169.254.169.254', true, 'linkLocal'],
    ['0.0.0.0', true, 'unspecified'],
  ])('when %s is checked (private allowed: %s), then it is refused as %s', (address, allowPrivate, range) => {
    const refused = refusedAddress(address, allowPrivate);
    if (range === null) expect(refused).toBeNull();
    else expect(refused).toBe(`${address} is not a public address (${range})`);
  });

  it('when a URL is checked for registration, then production needs https and public addresses, sandbox with the flag may use private ones', async () => {
    const resolve = dns({ 'hooks.example.com': ['93.184.215.14'], 'intranet.example.com': ['10.0.0.1'] });
    await expect(checkTargetUrl('https://hooks.example.com/a?b=1', 'production', false, resolve)).resolves.toBe('https://hooks.example.com/a?b=1');
    await expect(checkTargetUrl('https://HOOKS.example.com:443/a', 'production', true, resolve)).resolves.toBe('https://hooks.example.com/a');
    await expect(checkTargetUrl('http://hooks.example.com/a', 'production', true, resolve)).rejects.toMatchObject({
      code: 'invalid_request',
      details: { fields: [{ field: 'url', message: 'must be an https URL for a production endpoint' }] },
    });
    await expect(checkTargetUrl('https://intranet.example.com/', 'production', true, resolve)).rejects.toMatchObject({
      details: { fields: [{ field: 'url' }] },
    });
    await expect(checkTargetUrl('http://intranet.example.com/', 'sandbox', true, resolve)).resolves.toBe('http://intranet.example.com/');
    await expect(checkTargetUrl('http://intranet.example.com/', 'sandbox', false, resolve)).rejects.toMatchObject({ code: 'invalid_request' });
    // Legacy IPv4 spellings are normalised by the URL parser before the check.
    await expect(checkTargetUrl('https://0x7f.1/', 'production', false, resolve)).rejects.toMatchObject({
      details: { fields: [{ message: 'must reach a public address: 127.0.0.1 is not a public address (loopback)' }] },
    });
    await expect(checkTargetUrl('ftp://hooks.example.com/', 'sandbox', false, resolve)).rejects.toMatchObject({
      details: { fields: [{ message: 'must be an http or https URL' }] },
    });
  });

  it('when a sandbox endpoint is refused a private address the setting would allow, then the message names WEBHOOKS_ALLOW_PRIVATE_TARGETS; otherwise it does not', async () => {
    const resolve = dns({ 'intranet.example.com': ['10.0.0.1'], 'metadata.example.com': ['169.254.169.254'] });
    const setting = '; the setting WEBHOOKS_ALLOW_PRIVATE_TARGETS=true lets sandbox endpoints reach private and loopback addresses';
    const message = (raw: string, env: 'sandbox' | 'production') =>
      checkTargetUrl(raw, env, false, resolve).then(
        () => null,
        (e: { details: { fields: Array<{ field: string; message: string }> } }) => e.details.fields[0].message,
      );
    expect(await message('http://127.0.0.1:8080/hooks', 'sandbox')).toBe(`must reach a public address: 127.0.0.1 is not a public address (loopback)${setting}`);
    expect(await message('http://intranet.example.com/', 'sandbox')).toBe(
      `must reach a public address: intranet.example.com resolves to 10.0.0.1 is not a public address (private)${setting}`,
    );
    // Not for production endpoints (never allowed), nor for what the setting does not open.
    expect(await message('https://127.0.0.1/hooks', 'production')).toBe('must reach a public address: 127.0.0.1 is not a public address (loopback)');
    expect(await message('http://metadata.example.com/', 'sandbox')).not.toContain('WEBHOOKS_ALLOW_PRIVATE_TARGETS');
    expect(await message('http://nowhere.example.com/', 'sandbox')).toBe('must reach a public address: nowhere.example.com does not resolve');
  });

  it('when the socket looks a host up, then it gets only checked addresses (one, or all when racing families), or an error naming the refused one', async () => {
    const lookup = guardedLookup(false, dns({ good: ['93.184.215.14', '2606:4700::1111'], bad: ['93.184.215.14', '10.0.0.1'] }));
    const call = (host: string, options: object) =>
      new Promise<unknown[]>((resolve) => (lookup as (...a: unknown[]) => void)(host, options, (...args: unknown[]) => resolve(args)));
    expect(await call('good', {})).toEqual([null, '93.184.215.14', 4]);
    expect(await call('good', { family: 6 })).toEqual([null, '2606:4700::1111', 6]);
    expect(await call('good', { all: true })).toEqual([
      null,
      [
        { address: '93.184.215.14', family: 4 },
        { address: '2606:4700::1111', family: 6 },
      ],
    ]);
    const [err] = await call('bad', { all: true });
    expect(err).toMatchObject({ code: 'EREFUSEDTARGET', message: 'refused: bad resolves to 10.0.0.1 is not a public address (private)' });
    expect((await call('nowhere', {}))[0]).toMatchObject({ code: 'ENOTFOUND' });
  });
});

describe('Webhook delivery', () => {
  it('when a delivery is signed, then the signature is the Standard Webhooks one (the published test vector), one per secret', () => {
    const vector = signatureHeader('msg_p5jXN8AQM9LWM0D4loKWxJek', new Date(1614265330 * 1000), '{"test": 2432232314}', [
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    ]);
    expect(vector).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
    const two = signatureHeader('msg_1', new Date(0), 'x', ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'whsec_dGVzdA==']);
    expect(two.split(' ')).toHaveLength(2);
  });

  it('when attempts fail, then the next one waits 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: 8 attempts', () => {
    expect(MAX_ATTEMPTS).toBe(8);
    const channel = webhookChannel(
      { db: null as never, logger: null as never, config: testConfig() },
      { timeoutMs: 15_000, post: async () => ({ ok: true, error: null, exchange: null as never }) },
    );
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => channel.retryDelayMs(n))).toEqual([...RETRY_SCHEDULE_MS]);
    expect(RETRY_SCHEDULE_MS).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(channel.leaseMs).toBe(25_000);
  });
});
