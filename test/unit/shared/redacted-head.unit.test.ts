import { mayHoldSecrets, redactedHead, redactText, redactTrackingLinks, redactUrl, registerSecret, REDACTED } from '../../../src/shared/redact';

const KEY_SECRET = 'Qx7Lm2Np9Rt4Vw6Yz8Bc3Df5Gh1Jk0Ms2Ab4Cd6Ef'; // 42 characters, as keySecret() makes them (40) and a bit
const secrets = [
  ['an API key', `svc_sk_live_abcdef123456_${KEY_SECRET}`, KEY_SECRET],
  ['an operator token', `op_${KEY_SECRET}`, KEY_SECRET],
  ['a driver token', `drv_${KEY_SECRET}`, KEY_SECRET],
  ['a signing secret', `whsec_${KEY_SECRET}+/=`, KEY_SECRET],
] as const;

/** Every 16-character piece of `secret`: none may be left in a head. */
const pieces = (secret: string) => Array.from({ length: secret.length - 15 }, (_, i) => secret.slice(i, i + 16));
const leaks = (head: string, secret: string) => pieces(secret).filter((p) => head.includes(p));

describe('redactedHead: a text redacted, then cut, with no part of a secret left at the cut', () => {
  it.each(secrets)(
    'when %s crosses the cut mark at any offset, then no 16 of its characters survive, and the head is at most max long',
    (_name, whole, secret) => {
      const max = 1024;
      for (let start = max - whole.length - 2; start <= max + 2; start += 1) {
        const text = `${'a b '.repeat(400).slice(0, start - 1)} ${whole} and the rest of the body ${'z'.repeat(200)}`;
        const head = redactedHead(text, max);
        expect({ start, leaks: leaks(head, secret) }).toEqual({ start, leaks: [] });
        expect(head.length).toBeLessThanOrEqual(max);
        // A plain cut then redaction, for contrast: a token cut short of its 32 characters is no longer recognised.
        if (start === max - 24 && /^(op|drv)_/.test(whole)) expect(leaks(redactText(text.slice(0, max)), secret).length).toBeGreaterThan(0);
      }
    },
  );

  it('when redactions before the mark shorten the text, then a secret that lands on the cut is caught all the same', () => {
    const many = Array.from({ length: 40 }, () => `op_${KEY_SECRET} `).join(''); // each 46 → 14 characters
    const text = `${many}${'x'.repeat(300)} svc_sk_test_abcdef123456_${KEY_SECRET} tail ${'y'.repeat(2000)}`;
    for (let max = 800; max < 1000; max += 7) expect({ max, leaks: leaks(redactedHead(text, max), KEY_SECRET) }).toEqual({ max, leaks: [] });
  });

  it('when a configured secret without a shape crosses the cut, then it is dropped; so is a credential field left open by the cut', () => {
    const configured = 'k9-Pr1vate.Callback~Token-0123456789';
    registerSecret(configured);
    const text = `${'.'.repeat(90)}"callback": "${configured}", "rest": 1`;
    for (let max = 95; max < 140; max += 1) expect({ max, leaks: leaks(redactedHead(text, max), configured) }).toEqual({ max, leaks: [] });

    const password = `correct horse battery staple, ${'and some more words of it '.repeat(10)}`;
    const open = redactedHead(`{"user": "ravi", "password": "${password}"}`, 50);
    expect(open).toBe(`{"user": "ravi", "password": "${REDACTED}`);
    expect(redactedHead(`a=1&client_secret=${KEY_SECRET}`, 30)).toBe(`a=1&client_secret=${REDACTED}`);
  });

  it('when the text fits, then it is only redacted; when an ordinary word is cut, at most that word is lost', () => {
    expect(redactedHead(`short op_${KEY_SECRET}`, 100)).toBe(`short op_${REDACTED}`);
    expect(redactedHead('The quick brown fox jumps', 12)).toBe('The quick ');
    expect(redactedHead('The quick brown fox jumps', 10)).toBe('The quick ');
    // A cut between two halves of a surrogate pair keeps no half.
    expect(redactedHead('ab😀cd', 3)).toBe('ab');
  });
});

describe('Tracking links by shape, and escaped secrets', () => {
  it('when a path or URL holds a tracking link (24 base62, or 64 hex), then its first 4 characters are kept and the rest redacted', () => {
    expect(redactUrl('/t/AbCd1234567890ABCDEFGHij')).toBe(`/t/AbCd${REDACTED}`);
    const hex = 'a3f1c2d4e5b647a8b9c0d1e2f3a4b5c6d7e8f90112234455a6b7c8d9e0f1a2b3';
    expect(redactUrl(`/t/${hex}`)).toBe(`/t/a3f1${REDACTED}`);
    expect(redactUrl(`/x?u=https%3A%2F%2Fh%2Ft%2FAbCd1234567890ABCDEFGHij`)).toBe(`/x?u=https%3A%2F%2Fh%2Ft%2FAbCd${REDACTED}`);
    expect(redactTrackingLinks(`opened https://lt.example/t/AbCd1234567890ABCDEFGHij today`)).toBe(`opened https://lt.example/t/AbCd${REDACTED} today`);
    // Not a link's token: other lengths, other paths.
    expect(redactUrl('/t/short')).toBe('/t/short');
    expect(redactUrl('/transfers/v1/bookings/AbCd1234567890ABCDEFGHij')).toBe('/transfers/v1/bookings/AbCd1234567890ABCDEFGHij');
    expect(redactUrl('/t/AbCd1234567890ABCDEFGHijK')).toBe('/t/AbCd1234567890ABCDEFGHijK');
  });

  it('when JSON text spells a secret or a credential name with \\u escapes, then it is sent the slow way, and text redaction sees through them', () => {
    expect(mayHoldSecrets('{"name": "Ayesha"}')).toBe(false);
    expect(mayHoldSecrets('{"name": "\\u0073vc_sk_test_abc_XYZ"}')).toBe(true);
    expect(redactText(`{"name": "\\u0073vc_sk_test_abcdef123456_\\u0051${KEY_SECRET}"}`)).toBe(`{"name": "svc_sk_test_abcdef123456_${REDACTED}"}`);
    expect(redactText(`{"\\u0074oken": "abc"}`)).toBe(`{"token": "${REDACTED}"}`);
    // Escapes that are not a secret's characters stay as written.
    expect(redactText('{"q": "\\u0022quoted\\u0022 caf\\u00e9"}')).toBe('{"q": "\\u0022quoted\\u0022 caf\\u00e9"}');
  });
});
