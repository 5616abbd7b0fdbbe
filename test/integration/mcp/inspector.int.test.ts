import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ManualClock } from '../../../src/shared/clock';
import { backend } from '../../support/test-app';
import { useTestApp } from '../../support/use-test-app';
import { describeIf } from '../../support/skip';

// The Inspector is installed from the registry on its own, pinned (scripts/mcp-inspector.js says why); here when missing.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const inspectorInstall = require('../../../scripts/mcp-inspector.js') as {
  LAUNCHER: string;
  INSTALL_COMMAND: string;
  install: (log?: (line: string) => void) => boolean;
};
/** Its launcher: `node <launcher> --cli …` is `npx @modelcontextprotocol/inspector --cli …`. */
const INSPECTOR = inspectorInstall.LAUNCHER;
const available = inspectorInstall.install(() => undefined);

const TOOLS = [
  'find_place',
  'quote_transfer',
  'prepare_booking',
  'confirm_booking',
  'get_booking',
  'list_bookings',
  'preview_cancellation',
  'cancel_booking',
  'amend_booking',
];

interface Run {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

interface AuditRow {
  status: number | null;
  partnerId: string | null;
  requestBody: unknown;
}

/**
 * The MCP server as a client nobody here wrote sees it: the MCP Inspector's command-line mode (a child process, over
 * Streamable HTTP, with a partner's key as a bearer token) lists the tools and quotes a transfer, and is turned away
 * without a key. Its output is read with `--format json`: the result on stdout, or an error envelope on stderr with
 * the Inspector's exit code (3: auth_required).
 */
describeIf(
  available || process.env.TEST_REQUIRE_SYSTEM_PROGRAMS === 'true',
  `needs the MCP Inspector, which could not be installed here: ${inspectorInstall.INSTALL_COMMAND}`,
)(`The MCP server under the MCP Inspector's CLI (${backend})`, () => {
  const clock = new ManualClock('2026-11-21T08:00:00Z');
  const svc = useTestApp({ clock, partner: 'Inspector Agents' });
  // The Inspector keeps a catalog, client config and secrets under ~/.mcp-inspector: a home of its own, dropped after.
  let home = '';
  beforeAll(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'lt-inspector-'));
  });
  afterAll(() => {
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  /** The key never reaches a failure message: the Inspector's output is read with it blanked out. */
  const scrub = (s: string) => (svc.partner ? s.split(svc.partner.testKey).join('<key>') : s);

  /** One run of the Inspector's CLI against /mcp (bounded, no shell, no proxy variables), with the key when given. */
  function inspector(args: string[], key?: string): Promise<Run> {
    const auth = key === undefined ? [] : ['--header', `Authorization: Bearer ${key}`];
    return new Promise((resolve) => {
      const child = execFile(
        process.execPath,
        [INSPECTOR, '--cli', `${svc.app.url}/mcp`, '--transport', 'http', ...auth, '--stored-auth-only', '--format', 'json', ...args],
        { env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1' }, timeout: 45_000, killSignal: 'SIGKILL', maxBuffer: 16 << 20, encoding: 'utf8' },
        // Only the exit code, the signal and the output are kept: an error's message would spell out the command line.
        (err, stdout, stderr) =>
          resolve({
            code: err ? (typeof err.code === 'number' ? err.code : null) : 0,
            signal: err?.signal ?? null,
            stdout: scrub(stdout),
            stderr: scrub(stderr),
          }),
      );
      child.stdin?.end();
    });
  }
  const succeeded = (r: Run) => expect({ code: r.code, signal: r.signal, stderr: r.code === 0 ? '' : r.stderr }).toEqual({ code: 0, signal: null, stderr: '' });

  const body = (r: AuditRow) =>
    (typeof r.requestBody === 'string' ? JSON.parse(r.requestBody) : r.requestBody) as { method?: string; params?: { name?: string } } | null;
  const audited = async () => (await svc.app.db('audit_log').where({ surface: 'mcp' })) as AuditRow[];

  it('tools/list names all nine tools, each with its input schema', async () => {
    const r = await inspector(['--method', 'tools/list'], svc.partner.testKey);
    succeeded(r);
    const { tools } = JSON.parse(r.stdout).result as { tools: Array<{ name: string; inputSchema: { type: string } }> };
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort());
    for (const t of tools) expect(t.inputSchema.type).toBe('object');

    const rows = (await audited()).filter((a) => a.partnerId === svc.partner.partner_id && body(a)?.method === 'tools/list');
    expect(rows.map((a) => a.status)).toEqual([200]);
  }, 90_000);

  it('tools/call quote_transfer with objects given as JSON --tool-arg values returns offers as structuredContent', async () => {
    const r = await inspector(
      [
        '--method',
        'tools/call',
        '--tool-name',
        'quote_transfer',
        '--tool-arg',
        'pickup={"iata":"CMB"}',
        'dropoff={"name":"Kandy"}',
        'pickup_datetime=2026-12-01T09:30:00+05:30',
        'passengers={"adults":2}',
      ],
      svc.partner.testKey,
    );
    succeeded(r);
    const { result } = JSON.parse(r.stdout) as { result: { isError?: boolean; structuredContent: any; content: Array<{ type: string; text: string }> } };
    expect(result.isError).toBeFalsy();
    const quote = result.structuredContent;
    expect(quote).toMatchObject({ quote_id: expect.any(String), declined: null });
    expect(quote.offers.length).toBeGreaterThan(0);
    for (const o of quote.offers) expect(o).toMatchObject({ offer_id: expect.any(String), price: expect.any(Number) });
    expect(result.content[0].text).toContain(quote.quote_id);

    const rows = (await audited()).filter((a) => a.partnerId === svc.partner.partner_id && body(a)?.method === 'tools/call');
    expect(rows.map((a) => [a.status, body(a)?.params?.name])).toEqual([[200, 'quote_transfer']]);
    // The audit log holds the key's prefix at most, never the key.
    expect(JSON.stringify(await audited()).includes(svc.partner.testKey)).toBe(false);
  }, 90_000);

  it("without a key, the Inspector exits 3 (auth_required) with the service's 401 answer", async () => {
    const before = (await audited()).filter((a) => a.status === 401).length;
    const r = await inspector(['--method', 'tools/list']);
    expect({ code: r.code, signal: r.signal, stdout: r.stdout }).toEqual({ code: 3, signal: null, stdout: '' });
    const { error } = JSON.parse(r.stderr) as { error: { code: string; message: string } };
    expect(error.code).toBe('auth_required');
    expect(error.message).toContain('-32001');
    expect(error.message).toContain('A valid API key is required');

    const refused = (await audited()).filter((a) => a.status === 401);
    expect(refused.length).toBeGreaterThan(before);
    for (const a of refused) expect(a.partnerId).toBeNull();
  }, 90_000);
});
