import { marketplaceUrl, signMarketplaceRequest, verifyMarketplaceSignature } from '../../../src/shared/signing/marketplace-signature';

const KEY = 'test-private-key';
const URL_ = 'https://supplier.example.lk/marketplace/search/';
const BODY = '{"adults":2,"from":{"iata":"CMB"}}';

describe('Marketplace request signature', () => {
  /**
   * Known answers computed outside this code base, with the shell (LC_ALL=C.UTF-8; openssl dgst -sha1 agrees):
   *   printf '%s' "$url$body$key" | sha1sum
   * and, for the raw byte body (Latin-1 "café", not UTF-8):
   *   { printf '%s' "$url"; printf 'caf\xe9'; printf '%s' "$key"; } | sha1sum
   */
  const VECTORS: Array<[name: string, url: string, body: string | Buffer, expected: string]> = [
    // printf '%s' 'https://supplier.example.lk/marketplace/search/{"adults":2,"from":{"iata":"CMB"}}test-private-key' | sha1sum
    ['a JSON POST body', URL_, BODY, '01c08b70f4be4d36e583b2fde3e820bd3db7d6cf'],
    // printf '%s' 'http://marketplace.test/apiin/1001/booking/INT-700123/test-private-key' | sha1sum
    ['a GET (empty body)', 'http://marketplace.test/apiin/1001/booking/INT-700123/', '', 'ffeeda80b6c3b1f1f7ede953ecdfd22122b8496c'],
    // printf '%s' 'https://supplier.example.lk/marketplace/booking/update/{"order_id":"INT-9","comment":"Zoë – කොළඹ → யாழ்ப்பாணம்"}test-private-key' | sha1sum
    [
      'non-ASCII text (hashed as UTF-8)',
      'https://supplier.example.lk/marketplace/booking/update/',
      '{"order_id":"INT-9","comment":"Zoë – කොළඹ → யாழ்ப்பாணம்"}',
      '77359326a78eeed26fb6ef89d542cde7ada2886f',
    ],
    // { printf '%s' 'http://marketplace.test/apiin/1001/booking/A%2FB%20C/?lang=si'; printf 'caf\xe9'; printf '%s' 'test-private-key'; } | sha1sum
    [
      'raw bytes that are not UTF-8, and an escaped path with a query',
      'http://marketplace.test/apiin/1001/booking/A%2FB%20C/?lang=si',
      Buffer.from([0x63, 0x61, 0x66, 0xe9]),
      'e718536a192aaec0e9d0305db009e2cae372ca2a',
    ],
  ];

  it.each(VECTORS)(
    'when signing %s, then it is the lowercase hex SHA-1 over URL + raw body bytes + key computed outside the code',
    (_name, url, body, expected) => {
      expect(signMarketplaceRequest(url, body, KEY)).toBe(expected);
      // A string body and its UTF-8 bytes sign alike; the verifier accepts the known answer.
      if (typeof body === 'string') expect(signMarketplaceRequest(url, Buffer.from(body, 'utf8'), KEY)).toBe(expected);
      expect(verifyMarketplaceSignature(url, body, KEY, expected)).toEqual({ ok: true });
    },
  );

  it('when the signature is right (any letter case), then it verifies', () => {
    const sig = VECTORS[0][3];
    expect(verifyMarketplaceSignature(URL_, BODY, KEY, sig)).toEqual({ ok: true });
    expect(verifyMarketplaceSignature(URL_, BODY, KEY, sig.toUpperCase())).toEqual({ ok: true });
  });

  it.each([
    ['missing', undefined, 'missing'],
    ['empty', '', 'missing'],
    ['malformed', 'not-hex', 'malformed'],
    ['too short', 'abcdef', 'malformed'],
    ['with whitespace', ` ${signMarketplaceRequest(URL_, BODY, KEY)}`, 'malformed'],
  ])('when the header is %s, then it fails as %s', (_name, presented, reason) => {
    expect(verifyMarketplaceSignature(URL_, BODY, KEY, presented as string | undefined)).toEqual({ ok: false, reason });
  });

  it('when the URL, the body bytes or the key differ, then it fails', () => {
    const sig = signMarketplaceRequest(URL_, BODY, KEY);
    expect(verifyMarketplaceSignature(`${URL_}?x=1`, BODY, KEY, sig)).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifyMarketplaceSignature('https://supplier.example.lk/marketplace/booking/', BODY, KEY, sig).ok).toBe(false);
    expect(verifyMarketplaceSignature(URL_, BODY.replace('2', '3'), KEY, sig).ok).toBe(false);
    // Same JSON value, different bytes: the raw body counts, not its meaning.
    expect(verifyMarketplaceSignature(URL_, BODY.replace(':', ': '), KEY, sig).ok).toBe(false);
    expect(verifyMarketplaceSignature(URL_, BODY, `${KEY} `, sig).ok).toBe(false);
  });

  it('when joining base and path, then exactly one slash separates them', () => {
    expect(marketplaceUrl('http://h/marketplace/', '/search/')).toBe('http://h/marketplace/search/');
    expect(marketplaceUrl('http://h/marketplace', 'search/?a=1')).toBe('http://h/marketplace/search/?a=1');
  });
});
