import { redactBody, redactBytes, redactHeaders, redactUrl, REDACTED } from '../../../src/shared/redact';

describe('Redaction before the audit log', () => {
  it('when secret headers are present, then they are redacted, keeping only an API key prefix', () => {
    expect(
      redactHeaders({
        Authorization: 'Bearer svc_sk_live_abcdef123456_SECRETSECRETSECRET',
        'X-Api-Key': 'svc_sk_test_abcdef123456_SECRET',
        PrivateKey: 'a94a8fe5ccb19ba61c4c0873d391e987982fbbd3',
        'X-Callback-Token': 'tok',
        'Content-Type': 'application/json',
      }),
    ).toEqual({
      authorization: `Bearer svc_sk_live_abcdef123456_${REDACTED}`,
      'x-api-key': `svc_sk_test_abcdef123456_${REDACTED}`,
      privatekey: REDACTED,
      'x-callback-token': REDACTED,
      'content-type': 'application/json',
    });
    expect(redactHeaders({ authorization: 'Bearer op_operatortoken' }).authorization).toBe(REDACTED);
  });

  it('when a token travels in the query, then it is redacted and the rest kept', () => {
    expect(redactUrl('/marketplace/callback?token=s3cret&type=new')).toBe(`/marketplace/callback?token=${encodeURIComponent(REDACTED)}&type=new`);
    expect(redactUrl('/transfers/v1/ping')).toBe('/transfers/v1/ping');
  });

  it('when bodies hold keys or secrets, then they are redacted deeply and the rest is kept as it is', () => {
    expect(
      redactBody({
        key: 'svc_sk_test_abcdef123456_XYZ',
        nested: [{ token: 't', note: 'a\u0000b' }],
        text: 'use svc_sk_live_abcdef123456_XYZ',
        hook: 'whsec_c2VjcmV0',
      }),
    ).toEqual({
      key: `svc_sk_test_abcdef123456_${REDACTED}`,
      nested: [{ token: REDACTED, note: 'a\u0000b' }],
      text: `use svc_sk_live_abcdef123456_${REDACTED}`,
      hook: `whsec_${REDACTED}`,
    });
  });

  it('when a body has a "__proto__" key, then the copy keeps it as a key', () => {
    const copy = redactBody(JSON.parse('{"__proto__": {"polluted": true}, "a": 1}')) as Record<string, unknown>;
    expect(Object.keys(copy)).toEqual(['__proto__', 'a']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('when raw bytes carry a key, then it is redacted and every other byte kept', () => {
    const raw = Buffer.concat([Buffer.from([0xff, 0x00]), Buffer.from('key=svc_sk_live_abcdef123456_SECRET')]);
    expect(redactBytes(raw)).toEqual(Buffer.concat([Buffer.from([0xff, 0x00]), Buffer.from(`key=svc_sk_live_abcdef123456_${REDACTED}`)]));
  });
});
