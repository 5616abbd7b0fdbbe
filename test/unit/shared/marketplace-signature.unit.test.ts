import { createHash } from 'node:crypto';
import { marketplaceUrl, signMarketplaceRequest, verifyMarketplaceSignature } from '../../../src/shared/signing/marketplace-signature';

const KEY = 'test-private-key';
const URL_ = 'https://supplier.example.lk/marketplace/search/';
const BODY = '{"adults":2,"from":{"iata":"CMB"}}';

describe('Marketplace request signature', () => {
  it('when signing, then it is lowercase hex SHA-1 over URL + raw body + key', () => {
    const expected = createHash('sha1').update(URL_ + BODY + KEY).digest('hex');
    expect(signMarketplaceRequest(URL_, BODY, KEY)).toBe(expected);
    expect(signMarketplaceRequest(URL_, Buffer.from(BODY), KEY)).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{40}$/);
  });

  it('when the signature is right (any letter case), then it verifies', () => {
    const sig = signMarketplaceRequest(URL_, BODY, KEY);
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
