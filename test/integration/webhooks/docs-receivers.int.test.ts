import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, backend, type TestApp } from '../../support/test-app';
import { client, type Call } from '../../support/http';
import { operator } from '../../support/fixtures';
import { bookTransfer, webhookDeliverer } from '../../support/webhooks';
import { itIf } from '../../support/skip';
import { freePort } from '../../support/net';
import { eventually } from '../../support/eventually';

/**
 * The receivers docs/webhooks.md shows partners, run as written against real deliveries: each must accept what the
 * service signs (a ping and a booking event) and refuse a forged delivery. Node always; Python and PHP where their
 * interpreter is installed.
 */
const DOC = fs.readFileSync(path.join(__dirname, '../../../docs/webhooks.md'), 'utf8');

function snippet(language: string): string {
  const blocks = [...DOC.matchAll(/```(\w+)\n([\s\S]*?)```/g)].filter((m) => m[1] === language);
  if (blocks.length !== 1) throw new Error(`docs/webhooks.md: expected one ${language} block, found ${blocks.length}`);
  return blocks[0][2];
}

const has = (command: string) => spawnSync(command, ['--version'], { stdio: 'ignore' }).status === 0;

const RECEIVERS: Array<{ language: string; file: string; command: string; available: boolean; run: (file: string, port: number) => [string, string[]] }> = [
  { language: 'js', file: 'webhook-receiver.js', command: 'node', available: true, run: (file) => [process.execPath, [file]] },
  { language: 'python', file: 'webhook_receiver.py', command: 'python3', available: has('python3'), run: (file) => ['python3', [file]] },
  { language: 'php', file: 'webhook_receiver.php', command: 'php', available: has('php'), run: (file, port) => ['php', ['-S', `127.0.0.1:${port}`, file]] },
];

async function listening(port: number, ms = 15_000): Promise<void> {
  await eventually(
    `a listener on ${port}`,
    () =>
      new Promise<true | undefined>((resolve) => {
        const s = net.connect(port, '127.0.0.1', () => (s.destroy(), resolve(true)));
        s.on('error', () => resolve(undefined));
      }),
    ms,
  );
}

describe(`The signature checks of docs/webhooks.md (${backend})`, () => {
  let app: TestApp;
  let call: Call;
  let deliver: () => Promise<unknown>;
  let dir: string;

  beforeAll(async () => {
    app = await startTestApp({ env: { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' }, outboxWorker: false });
    call = client(app.url);
    deliver = webhookDeliverer(app);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webhook-docs-'));
  });
  afterAll(async () => {
    await app.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const r of RECEIVERS) {
    itIf(r.available, `\`${r.command} --version\` fails here: install ${r.command} to run the ${r.language} receiver`)(
      `when the ${r.language} receiver is run as written, then it verifies a ping and a booking event and refuses a forgery`,
      async () => {
        const p = await operator(app.url).partnerWithKeys(`Docs ${r.language} Partner`);
        const port = await freePort();
        const created = await call('POST', '/transfers/v1/webhook_endpoints', { key: p.testKey, body: { url: `http://127.0.0.1:${port}/` } });
        expect(created.status).toBe(201);
        const file = path.join(dir, r.file);
        fs.writeFileSync(file, snippet(r.language));
        const [command, args] = r.run(file, port);
        const proc: ChildProcess = spawn(command, args, {
          env: { PATH: process.env.PATH, WEBHOOK_SECRET: created.body.secret, PORT: String(port) },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let output = '';
        proc.stdout!.on('data', (c: Buffer) => (output += c.toString()));
        proc.stderr!.on('data', (c: Buffer) => (output += c.toString()));
        try {
          await listening(port);
          const ping = await call('POST', `/transfers/v1/webhook_endpoints/${created.body.id}/test`, { key: p.testKey });
          await bookTransfer(call, p.testKey);
          expect(await deliver()).toEqual({ delivered: 2, retried: 0, failed: 0 });
          const confirmed = (await app.db('webhook_events').where({ partner_id: p.partner_id, type: 'booking.confirmed' }).first()).eventId;

          // A forged delivery: the ping's headers with another body.
          const forged = await fetch(`http://127.0.0.1:${port}/`, {
            method: 'POST',
            headers: {
              'Content-Type': 'application/json',
              'webhook-id': ping.body.id,
              'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
              'webhook-signature': 'v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
            },
            body: JSON.stringify({ id: ping.body.id, type: 'booking.cancelled' }),
          });
          expect(forged.status).toBe(400);

          // The receiver prints each verified delivery as it handles it: wait for both lines (or fail below, with what it printed).
          await eventually(
            'both deliveries printed',
            async () => (output.includes(confirmed) && output.includes(ping.body.id) ? true : undefined),
            10_000,
          ).catch(() => undefined);
          const verified = output.split('\n').filter((l) => l.includes('verified '));
          // The two were delivered in one pass, in parallel: in either order.
          expect(verified.map((l) => l.slice(l.indexOf('verified '))).sort()).toEqual([
            `verified booking.confirmed ${confirmed}`,
            `verified ping ${ping.body.id}`,
          ]);
        } finally {
          proc.kill();
        }
      },
    );
  }
});
