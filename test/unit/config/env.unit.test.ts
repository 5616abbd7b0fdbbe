import { ConfigError, loadConfig } from '../../../src/config/env';

describe('Configuration is read once and fails fast', () => {
  it('when nothing is set, then the documented defaults apply', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      databaseUrl: undefined,
      publicBaseUrl: 'http://localhost:3000',
      marketplace: { inUrl: 'http://localhost:3000/marketplace' },
      fxFromUsd: { USD: '1', EUR: '0.92', LKR: '300' },
      responseValidation: 'enforce',
      webhooks: { allowPrivateTargets: true, timeoutMs: 15_000 },
    });
    expect(c.dataDir).toMatch(/\/data$/);
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('when PORT and PUBLIC_BASE_URL are set, then MARKETPLACE_IN_URL follows them; production does not check responses (the tests do)', () => {
    const c = loadConfig({
      PORT: '8080',
      PUBLIC_BASE_URL: 'https://api.example.lk/',
      NODE_ENV: 'production',
      OPERATOR_TOKEN: 'op_production_bootstrap_token_0123456789',
    });
    expect(c.publicBaseUrl).toBe('https://api.example.lk');
    expect(c.marketplace.inUrl).toBe('https://api.example.lk/marketplace');
    expect(c.responseValidation).toBe('off');
  });

  it('when a value is invalid, then loading fails naming each variable', () => {
    expect(() => loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', FX_USD_EUR: '-1', OPERATOR_TOKEN: 'short' })).toThrow(ConfigError);
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', FX_USD_EUR: '-1', OPERATOR_TOKEN: 'short' });
    } catch (e) {
      for (const name of ['PORT', 'DATABASE_URL', 'FX_USD_EUR', 'OPERATOR_TOKEN']) expect((e as Error).message).toContain(name);
    }
  });

  it('when WEBHOOKS_ALLOW_PRIVATE_TARGETS is anything but true or false, then loading fails naming it', () => {
    expect(loadConfig({ WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOKS_TIMEOUT_MS: '2000' }).webhooks).toEqual({
      allowPrivateTargets: true,
      timeoutMs: 2000,
      allowedPorts: null,
    });
    expect(() => loadConfig({ WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'yes' })).toThrow(/WEBHOOKS_ALLOW_PRIVATE_TARGETS/);
    expect(() => loadConfig({ WEBHOOKS_TIMEOUT_MS: '0' })).toThrow(/WEBHOOKS_TIMEOUT_MS/);
  });

  it('when WEBHOOKS_ALLOW_PRIVATE_TARGETS is unset, then sandbox endpoints may target private addresses outside production only; set, it decides', () => {
    const prod = { NODE_ENV: 'production', OPERATOR_TOKEN: 'op_0123456789abcdefghijklmnopqrstuvwxyz' };
    const allowed = (env: Record<string, string>) => loadConfig(env).webhooks.allowPrivateTargets;
    expect([allowed({}), allowed({ NODE_ENV: 'development' }), allowed({ NODE_ENV: 'test' }), allowed(prod)]).toEqual([true, true, true, false]);
    expect(allowed({ ...prod, WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' })).toBe(true);
    expect(allowed({ NODE_ENV: 'development', WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'false' })).toBe(false);
    // An empty value is unset, as for every variable.
    expect(allowed({ ...prod, WEBHOOKS_ALLOW_PRIVATE_TARGETS: '' })).toBe(false);
  });

  it('when WEBHOOKS_ALLOWED_PORTS is set, then production allows public targets 443, 80 and those ports; outside production any port; a bad list stops the start', () => {
    const prod = { NODE_ENV: 'production', OPERATOR_TOKEN: 'op_0123456789abcdefghijklmnopqrstuvwxyz' };
    const ports = (env: Record<string, string>) => loadConfig(env).webhooks.allowedPorts;
    expect(ports(prod)).toEqual([443, 80]);
    expect(ports({ ...prod, WEBHOOKS_ALLOWED_PORTS: '8443, 9443,443' })).toEqual([443, 80, 8443, 9443]);
    expect(ports({ WEBHOOKS_ALLOWED_PORTS: '8443' })).toBeNull();
    for (const bad of ['80;443', 'https', '0', '70000', '8443,'])
      expect(() => loadConfig({ ...prod, WEBHOOKS_ALLOWED_PORTS: bad })).toThrow(/WEBHOOKS_ALLOWED_PORTS/);
  });

  it('when OPS_LISTEN is set, then it is HOST:PORT on another port than PORT; anything else stops the start naming it', () => {
    expect(loadConfig({}).opsListen).toBeUndefined();
    expect(loadConfig({ OPS_LISTEN: '127.0.0.1:3001' }).opsListen).toEqual({ host: '127.0.0.1', port: 3001 });
    expect(loadConfig({ OPS_LISTEN: '[::1]:3001' }).opsListen).toEqual({ host: '::1', port: 3001 });
    expect(loadConfig({ OPS_LISTEN: 'ops.internal:3001' }).opsListen).toEqual({ host: 'ops.internal', port: 3001 });
    expect(() => loadConfig({ OPS_LISTEN: '3001' })).toThrow(/OPS_LISTEN: must be HOST:PORT/);
    expect(() => loadConfig({ OPS_LISTEN: 'http://127.0.0.1:3001' })).toThrow(/OPS_LISTEN: must be HOST:PORT/);
    expect(() => loadConfig({ OPS_LISTEN: '127.0.0.1:70000' })).toThrow(/OPS_LISTEN: the port must be at most 65535/);
    expect(() => loadConfig({ PORT: '3000', OPS_LISTEN: '127.0.0.1:3000' })).toThrow(/OPS_LISTEN: must use another port than PORT/);
  });

  it('when DATABASE_DIRECT_URL names another server than DATABASE_URL, then the service treats DATABASE_URL as a pooler; a schema or a direct URL alone is refused', () => {
    const pooler = 'postgres://app@127.0.0.1:6432/transfers';
    const server = 'postgres://app@10.0.3.7:5432/transfers';
    expect(loadConfig({ DATABASE_URL: server })).toMatchObject({ databasePooled: false, databaseDirectUrl: undefined });
    expect(loadConfig({ DATABASE_URL: pooler, DATABASE_DIRECT_URL: server })).toMatchObject({ databasePooled: true, databaseDirectUrl: server });
    // The same address twice is a direct connection.
    expect(loadConfig({ DATABASE_URL: server, DATABASE_DIRECT_URL: server }).databasePooled).toBe(false);
    expect(() => loadConfig({ DATABASE_URL: pooler, DATABASE_DIRECT_URL: server, DATABASE_SCHEMA: 't_1' })).toThrow(
      /DATABASE_SCHEMA: sets search_path per session/,
    );
    expect(() => loadConfig({ DATABASE_DIRECT_URL: server })).toThrow(/DATABASE_DIRECT_URL: only with DATABASE_URL/);
    expect(() => loadConfig({ DATABASE_URL: pooler, DATABASE_DIRECT_URL: 'mysql://x' })).toThrow(/DATABASE_DIRECT_URL: must be a postgres:\/\/ URL/);
  });

  it('when REDIS_URL is set, then the anonymous limit is shared there under REDIS_KEY_PREFIX; anything but a redis URL stops the start', () => {
    expect(loadConfig({})).toMatchObject({ redisUrl: undefined, redisKeyPrefix: 'lanka-transfers' });
    expect(loadConfig({ REDIS_URL: 'redis://10.0.3.9:6379', REDIS_KEY_PREFIX: 'staging' })).toMatchObject({
      redisUrl: 'redis://10.0.3.9:6379',
      redisKeyPrefix: 'staging',
    });
    expect(() => loadConfig({ REDIS_URL: 'http://10.0.3.9:6379' })).toThrow(/REDIS_URL: must be a redis:\/\//);
    expect(() => loadConfig({ REDIS_KEY_PREFIX: 'a b' })).toThrow(/REDIS_KEY_PREFIX/);
  });

  it('when a variable is set but empty, then it counts as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', PORT: '' })).toMatchObject({ databaseUrl: undefined, port: 3000 });
  });
});
