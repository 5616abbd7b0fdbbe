import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { launch } from '../../../src/launch';
import { ConfigError, loadConfig } from '../../../src/config/env';
import { makeLogger } from '../../../src/shared/logger';
import { startTestApp } from '../../support/test-app';
import { capturedLogger } from '../../support/logs';

const STRONG = 'op_Zq4e7T1mB9xK2wP5sR8vY3nA6cF0hJ4uL7dG';

/** Every file and folder under `dir`, with its permission bits. */
function modes(dir: string): Array<{ file: string; mode: number; folder: boolean }> {
  const out: Array<{ file: string; mode: number; folder: boolean }> = [];
  const walk = (p: string) => {
    const st = fs.lstatSync(p);
    out.push({ file: path.relative(dir, p) || '.', mode: st.mode & 0o777, folder: st.isDirectory() });
    if (st.isDirectory()) for (const n of fs.readdirSync(p)) walk(path.join(p, n));
  };
  walk(dir);
  return out;
}

describe('A production start is quiet and safe', () => {
  it('when OPERATOR_TOKEN is missing, or a secret is under 32 characters, then the configuration is refused naming it', () => {
    const base = { NODE_ENV: 'production', PORT: '0' };
    expect(() => loadConfig(base)).toThrow(ConfigError);
    expect(() => loadConfig(base)).toThrow(/OPERATOR_TOKEN: is required in production/);
    expect(() => loadConfig({ ...base, OPERATOR_TOKEN: 'op_short_but_16_chars' })).toThrow(/OPERATOR_TOKEN: is 21 characters; production needs at least 32/);
    expect(() => loadConfig({ ...base, OPERATOR_TOKEN: STRONG, MARKETPLACE_PRIVATE_KEY: 'weak-key', MARKETPLACE_CALLBACK_TOKEN: 'weak' })).toThrow(
      /MARKETPLACE_PRIVATE_KEY: is 8 characters[\s\S]*MARKETPLACE_CALLBACK_TOKEN: is 4 characters/,
    );
    // Outside production the same values start (a developer's machine).
    expect(loadConfig({ PORT: '0', OPERATOR_TOKEN: 'op_short_but_16_chars' }).operatorToken).toBe('op_short_but_16_chars');
    expect(() => loadConfig({ PORT: '0', TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY/);
  });

  it('when production starts on an empty embedded database, then no demo partner or fleet, no secret printed, a warning about the operator surface, and a private data directory', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lanka-production-'));
    const { logger, lines } = capturedLogger('info');
    const previous = process.umask(0); // the worst a deployment could have
    try {
      const config = loadConfig({ NODE_ENV: 'production', PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, OPERATOR_TOKEN: STRONG });
      const started = await launch(config, logger);
      try {
        expect(started.demoKey).toBeUndefined();
        expect(started.banner).not.toContain('Demo');
        expect(started.banner).not.toContain(STRONG);
        expect(started.banner).toContain('Operator token: from OPERATOR_TOKEN');
        const ops = { Authorization: `Bearer ${STRONG}` };
        const partners = (await (await fetch(`${started.running.url}/ops/v1/partners`, { headers: ops })).json()) as { data: unknown[] };
        expect(partners.data).toEqual([]);
        const vehicles = (await (await fetch(`${started.running.url}/ops/v1/vehicles`, { headers: ops })).json()) as { data: unknown[] };
        expect(vehicles.data).toEqual([]);
        expect(lines.join('')).toContain('set OPS_LISTEN');
        expect(lines.join('')).not.toContain(STRONG);
        // Timeouts and the connection cap.
        const server = started.running.server;
        // (The body's 30 s run from the head's arrival, kept by the pipeline; Node's whole-request timeout is the backstop.)
        const config = started.running.deps.config;
        expect([config.requestTimeoutMs, config.headersTimeoutMs, config.firstByteTimeoutMs]).toEqual([30_000, 20_000, 5_000]);
        expect(server.requestTimeout).toBeLessThanOrEqual(52_000);
        expect(server.headersTimeout).toBeLessThanOrEqual(20_000);
        expect(server.maxConnections).toBe(1024);
        expect(config.maxConnectionsPerClient).toBe(128);
        // While it runs, every folder is the service's user's only (files made meanwhile are behind them).
        expect(modes(dataDir).filter((m) => m.folder && m.mode !== 0o700)).toEqual([]);
      } finally {
        await started.running.stop();
      }
      // Key hashes, webhook secrets and passengers: the service's user only.
      expect(modes(dataDir).filter((m) => (m.folder ? m.mode !== 0o700 : (m.mode & 0o077) !== 0))).toEqual([]);
      expect(modes(dataDir).filter((m) => !m.folder).length).toBeGreaterThan(10);
    } finally {
      process.umask(previous);
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('when a data directory was left readable by an earlier version, then the next start makes it private', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lanka-loose-'));
    fs.chmodSync(dataDir, 0o777);
    fs.writeFileSync(path.join(dataDir, 'operator-token'), `${STRONG}\n`, { mode: 0o666 });
    fs.chmodSync(path.join(dataDir, 'operator-token'), 0o666);
    try {
      const started = await launch(loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), makeLogger('silent'));
      await started.running.stop();
      expect(modes(dataDir).filter((m) => (m.folder ? m.mode !== 0o700 : (m.mode & 0o077) !== 0))).toEqual([]);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('when more connections than MAX_CONNECTIONS are opened, then the extra one is closed at once and the others are served', async () => {
    const app = await startTestApp({ env: { MAX_CONNECTIONS: '2' } });
    const sockets: net.Socket[] = [];
    try {
      const open = () =>
        new Promise<net.Socket>((resolve) => {
          const s = net.connect(app.port, '127.0.0.1', () => resolve(s));
          s.on('error', () => undefined);
          sockets.push(s);
        });
      const [a, b] = [await open(), await open()];
      const third = await open();
      const closed = await new Promise<boolean>((resolve) => {
        third.on('close', () => resolve(true));
        third.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      });
      expect(closed).toBe(true);
      const answer = await new Promise<string>((resolve) => {
        a.once('data', (d) => resolve(String(d)));
        a.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      });
      expect(answer).toMatch(/^HTTP\/1.1 200/);
      expect(b.destroyed).toBe(false);
    } finally {
      for (const s of sockets) s.destroy();
      await app.close();
    }
  });
});
