import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startWebhookReceiver, type WebhookReceiver } from '../../../simulators/partner/webhook-receiver';
import { operator } from '../../support/fixtures';
import { freePort } from '../../support/net';
import { describeIf, describeWithProgram, hasProgram } from '../../support/skip';
import { startTestApp, type TestApp } from '../../support/test-app';

/**
 * The shell examples of the partner guide and the webhooks guide (their ```sh blocks), run as a partner runs them:
 * by bash, as written, in the order the guides give them (a later example uses what an earlier one kept: the quote's
 * and the booking's ids, picked out with jq), against the service in-process. What the test changes in their text is
 * SUBSTITUTED, below; the examples it does not run are NOT_RUN, each with why. Every curl must exit 0 with a 2xx (curl
 * runs with --fail-with-body, and says each status on stderr), but where EXPECTED says otherwise.
 */

const ROOT = path.resolve(__dirname, '../../..');
const DOCS = ['docs/partner-guide.md', 'docs/webhooks.md'];

interface Block {
  doc: string;
  /** The line of its opening fence. */
  line: number;
  /** The section it is in (its `## ` heading). */
  section: string;
  text: string;
}

/** A guide's ```sh blocks, in order. */
function shellBlocks(doc: string): Block[] {
  const lines = fs.readFileSync(path.join(ROOT, doc), 'utf8').split('\n');
  const blocks: Block[] = [];
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].startsWith('## ')) section = lines[i].slice(3);
    if (lines[i].trim() !== '```sh') continue;
    const end = lines.findIndex((l, j) => j > i && l.trim() === '```');
    blocks.push({ doc, line: i + 1, section, text: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  return blocks;
}

const BLOCKS = DOCS.flatMap(shellBlocks);
const firstCommand = (b: Block) => b.text.split('\n').find((l) => l.trim() && !l.startsWith('#'));
/** Where a block is, for messages; `title`, without its line, names its test (stable while the guide is edited). */
const named = (b: Block) => `${b.doc}:${b.line} (${b.section}): ${firstCommand(b)}`;
const title = (b: Block) => `${b.doc} (${b.section}): ${firstCommand(b)}`;
const matching = (m: { doc: string; contains: string }) => BLOCKS.filter((b) => b.doc === m.doc && b.text.includes(m.contains));

/** The examples not run, each with why (each names exactly one block: checked below). */
const NOT_RUN = [
  {
    doc: 'docs/partner-guide.md',
    contains: 'npm run certify',
    why:
      'it builds the service (npm run build, rewriting dist/) and runs every certification flow with their real waits; ' +
      'test/integration/simulators/certify.int.test.ts runs the same command line (its main) against the service',
  },
];

/** Examples whose answer is not a 2xx by design. */
const EXPECTED = [{ doc: 'docs/partner-guide.md', contains: 'Sandbox-Simulate: service_unavailable', status: 503 }];

/** The variables every example may use without setting them (the quick start sets them, and says so). */
const CONVENTION = ['BASE', 'KEY'];

describe('The shell examples of the partner guide and the webhooks guide', () => {
  it('when they are read, then each uses BASE for the address and KEY for the key, or a variable an example before it set', () => {
    const set = new Set<string>();
    const unset: string[] = [];
    for (const b of BLOCKS) {
      // Assignments anywhere in the block count for the whole block (`H=…; E=$BASE/…` sets H and E before using them).
      for (const m of b.text.matchAll(/(?:^|[\s;(])(?:export\s+)?([A-Z_][A-Z0-9_]*)=/g)) set.add(m[1]);
      for (const m of b.text.matchAll(/\$\{?([A-Z_][A-Z0-9_]*)/g)) if (!CONVENTION.includes(m[1]) && !set.has(m[1])) unset.push(`${named(b)}: $${m[1]}`);
    }
    expect(unset).toEqual([]);
    // BASE ends in /transfers/v1: no example adds it again.
    expect(BLOCKS.filter((b) => /\$\{?BASE\}?\/transfers\/v1/.test(b.text)).map(named)).toEqual([]);
    // The convention is said once, where the examples start, with the address `npm start` serves.
    const first = BLOCKS[0];
    expect(first.doc).toBe('docs/partner-guide.md');
    expect(first.text).toMatch(/^export BASE=http:\/\/localhost:3000\/transfers\/v1$/m);
    expect(first.text).toMatch(/^export KEY=svc_sk_test_…$/m);
  });

  it('when an example is not run, then the test says which and why, and each exclusion names exactly one example', () => {
    for (const x of [...NOT_RUN, ...EXPECTED]) expect({ ...x, examples: matching(x).length }).toEqual({ ...x, examples: 1 });
    console.log(['Not run:', ...NOT_RUN.map((x) => `  ${named(matching(x)[0])}\n    because ${x.why}`)].join('\n'));
  });

  describeWithProgram('curl')('run by bash, in order, against the service', () => {
    describeIf(process.env.TEST_REQUIRE_SYSTEM_PROGRAMS === 'true' || hasProgram('jq'), 'needs jq, not found here: apt-get install jq')('with jq', () => {
      let app: TestApp;
      let receiver: WebhookReceiver;
      let key: string;
      let work: string;
      /** Per block run: its index in RUN, whether it ended, the status of each curl, and what it printed. */
      const results = new Map<number, { ended: boolean; statuses: number[]; stdout: string; stderr: string }>();
      let exit: { code: number | null; stdout: string; stderr: string };
      const RUN = BLOCKS.filter((b) => !NOT_RUN.some((x) => matching(x)[0] === b));

      /** What the test replaces in the examples' text. */
      const substituted = (b: Block) =>
        b.text
          .replaceAll('http://localhost:3000', app.url) // BASE, where npm start would be
          .replaceAll('svc_sk_test_…', key) // KEY: a sandbox key of a partner of the test's own
          .replaceAll('https://hooks.example.com/lanka-transfers', `${receiver.url}/${path.basename(b.doc, '.md')}`); // a webhook receiver of the test's own, a path per guide

      beforeAll(async () => {
        const port = await freePort();
        // The service's own address in what it serves (the Postman collection's baseUrl), and webhooks to this machine.
        app = await startTestApp({ env: { PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' } });
        receiver = await startWebhookReceiver({ respond: () => 200 });
        key = (await operator(app.url).partnerWithKeys('Guide Reader')).testKey;
        work = fs.mkdtempSync(path.join(os.tmpdir(), 'guide-examples-'));

        const script = [
          'set -eo pipefail',
          // Each curl fails on a status that is not a 2xx, and says its status on stderr (for the test to read).
          'curl() {',
          `  local w='%{stderr}::status %{http_code} %{method} %{url_effective}\\n'`,
          '  if [ -n "$GUIDE_EXPECT" ]; then command curl -w "$w" "$@"; else command curl --fail-with-body -w "$w" "$@"; fi',
          '}',
          // npx finds the repository's newman (a partner's npx fetches it).
          `npx() { command npx --prefix ${JSON.stringify(ROOT)} "$@"; }`,
          ...RUN.flatMap((b, i) => {
            const expected = EXPECTED.find((x) => matching(x)[0] === b)?.status;
            return [`echo "::block ${i}"; echo "::block ${i}" >&2`, `GUIDE_EXPECT=${expected ?? ''}`, substituted(b), 'GUIDE_EXPECT=', `echo "::end ${i}" >&2`];
          }),
        ].join('\n');
        exit = await new Promise((resolve) => {
          const child = execFile(
            'bash',
            ['-c', script],
            { cwd: work, env: { PATH: process.env.PATH, HOME: process.env.HOME }, maxBuffer: 64 << 20 },
            (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
          );
          child.stdin?.end();
        });
        const split = (text: string) => {
          const parts = new Map<number, string>();
          let current = -1;
          for (const line of text.split('\n')) {
            const m = /^::block (\d+)$/.exec(line);
            if (m) current = Number(m[1]);
            else parts.set(current, `${parts.get(current) ?? ''}${line}\n`);
          }
          return parts;
        };
        const [outs, errs] = [split(exit.stdout), split(exit.stderr)];
        for (const i of RUN.keys()) {
          const stderr = errs.get(i);
          if (stderr === undefined) continue;
          results.set(i, {
            ended: /^::end \d+$/m.test(stderr),
            statuses: [...stderr.matchAll(/^::status (\d{3}) /gm)].map((m) => Number(m[1])),
            stdout: outs.get(i) ?? '',
            stderr,
          });
        }
      }, 600_000);
      afterAll(async () => {
        if (work) fs.rmSync(work, { recursive: true, force: true });
        await receiver?.close();
        await app?.close();
      });

      it('when the examples run one after the other, then bash runs them all to the end and exits 0', () => {
        expect({ code: exit.code, tail: exit.code === 0 ? '' : exit.stderr.slice(-3000) }).toEqual({ code: 0, tail: '' });
        expect(results.size).toBe(RUN.length);
      });

      it.each(BLOCKS.filter((b) => !NOT_RUN.some((x) => matching(x)[0] === b)).map((b) => [title(b), b] as const))(
        'when %s runs, then each command exits 0 and each curl gets a 2xx (or the status EXPECTED names)',
        (_title, block) => {
          const i = RUN.indexOf(block);
          const r = results.get(i);
          const expected = EXPECTED.find((x) => matching(x)[0] === block)?.status;
          // Every curl of the example ran (a comment line is not one).
          const curls = block.text.split('\n').filter((l) => !l.trimStart().startsWith('#') && /(^|[\s($|])curl\s/.test(l)).length;
          const statuses = r?.statuses ?? [];
          const seen = {
            ran: r !== undefined,
            ended: r?.ended,
            curls: statuses.length,
            unexpected: statuses.filter((s) => (expected ? s !== expected : s < 200 || s > 299)),
          };
          if (!r?.ended || seen.curls !== curls || seen.unexpected.length)
            console.log(`${named(block)}\n--- stdout\n${r?.stdout.slice(-4000)}\n--- stderr\n${r?.stderr.slice(-4000)}`);
          expect(seen).toEqual({ ran: true, ended: true, curls, unexpected: [] });
        },
      );

      it('when newman runs with webhookUrl, then the endpoint it registers gets its ping', async () => {
        // (The webhooks guide's own ping may never be sent: its example deletes the endpoint at once, which drops it.)
        await receiver.waitFor((d) => d.some((x) => x.path === '/partner-guide' && x.body.includes('"type":"ping"')), 10_000);
      });
    });
  });
});
