import { jsonbText, storable, unparsedBody } from '../../../src/data/repositories/audit-repository';

describe('What the audit log stores for a body', () => {
  it('when a value holds NUL or a lone surrogate, then they are kept as visible escapes and everything else as it is', () => {
    const text = jsonbText({ a: 'x\u0000y', b: 'A\ud800', c: '😀', d: 'back\\u0000slash', e: 1e308 })!;
    expect(text).toBe('{"a":"x\\\\u0000y","b":"A\\\\ud800","c":"😀","d":"back\\\\u0000slash","e":1e+308}');
    expect(JSON.parse(text)).toEqual({ a: 'x\\u0000y', b: 'A\\ud800', c: '😀', d: 'back\\u0000slash', e: 1e308 });
  });

  it('when a serialised response holds the escapes jsonb refuses, then they are kept visible and nothing else changes', () => {
    expect(storable('{"m":"token \\u0000 here","ok":"\\\\u0000"}')).toBe('{"m":"token \\\\u0000 here","ok":"\\\\u0000"}');
    expect(storable(null)).toBeNull();
  });

  it('when bytes are UTF-8 text, then they are stored as text; otherwise as base64, with the reason and size', () => {
    expect(JSON.parse(unparsedBody(Buffer.from('not json ✓'), 'body must be valid JSON'))).toEqual({
      $unparsed: { reason: 'body must be valid JSON', bytes: 12, text: 'not json ✓' },
    });
    const bytes = Buffer.from([0xc3, 0x28, 0x00, 0xff]);
    expect(JSON.parse(unparsedBody(bytes, 'body must be UTF-8 encoded text'))).toEqual({
      $unparsed: { reason: 'body must be UTF-8 encoded text', bytes: 4, base64: bytes.toString('base64') },
    });
    expect(JSON.parse(unparsedBody(Buffer.from('a\u0000b'), 'x')).$unparsed.base64).toBe(Buffer.from('a\u0000b').toString('base64'));
  });
});
