import { client, type Call } from './http';
import { OPERATOR_TOKEN } from './test-app';

let vehicleSeq = 0;

/** Drives the operator API the way an operator would. */
export function operator(baseUrl: string) {
  const call = client(baseUrl);
  const op: Call = (method, path, opts = {}) =>
    call(method, `/ops/v1${path}`, { ...opts, headers: { Authorization: `Bearer ${OPERATOR_TOKEN}`, ...(opts.headers ?? {}) } });
  return {
    call: op,
    async partner(name = 'Test Partner', currency?: 'USD' | 'EUR' | 'LKR') {
      const r = await op('POST', '/partners', { body: currency ? { name, currency } : { name } });
      if (r.status !== 201) throw new Error(`createPartner ${r.status} ${r.text}`);
      return r.body as { partner_id: string; name: string; currency: string; paused: boolean };
    },
    async key(partnerId: string, env: 'sandbox' | 'production' = 'sandbox') {
      const r = await op('POST', `/partners/${partnerId}/keys`, { body: { env } });
      if (r.status !== 201) throw new Error(`createKey ${r.status} ${r.text}`);
      return r.body as { key: string; key_id: string; env: string };
    },
    /** A partner with a sandbox and a production key. */
    async partnerWithKeys(name = 'Test Partner', currency?: 'USD' | 'EUR' | 'LKR') {
      const p = await this.partner(name, currency);
      const test = await this.key(p.partner_id, 'sandbox');
      const live = await this.key(p.partner_id, 'production');
      return { ...p, testKey: test.key, testKeyId: test.key_id, liveKey: live.key, liveKeyId: live.key_id };
    },
    async vehicle(fleetCode: string, over: Record<string, unknown> = {}) {
      vehicleSeq += 1;
      const body = {
        fleet_code: fleetCode,
        plate: `T${process.pid % 100}-${String(vehicleSeq).padStart(4, '0')}`,
        brand: 'Toyota',
        model: 'Axio',
        colour: 'White',
        ...over,
      };
      const r = await op('POST', '/vehicles', { body });
      if (r.status !== 201) throw new Error(`createVehicle ${r.status} ${r.text}`);
      return r.body as {
        vehicle_id: string;
        fleet_code: string;
        plate: string;
        brand: string;
        model: string;
        colour: string;
        equipment: Record<string, number>;
        active: boolean;
      };
    },
    async driver(name = 'Test Driver', phone = '+94770000000') {
      const r = await op('POST', '/drivers', { body: { name, phone } });
      if (r.status !== 201) throw new Error(`createDriver ${r.status} ${r.text}`);
      return r.body as { driver_id: string; name: string; phone: string; languages: string[]; active: boolean };
    },
    /** A token for the driver's phone (POST /drivers/{id}/tokens): `token` is shown this once. */
    async driverToken(driverId: string) {
      const r = await op('POST', `/drivers/${driverId}/tokens`);
      if (r.status !== 201) throw new Error(`createDriverToken ${r.status} ${r.text}`);
      return r.body as { token_id: string; token: string; driver_id: string };
    },
    async jobs(query: Record<string, string>) {
      const r = await op('GET', `/jobs?${new URLSearchParams(query)}`);
      if (r.status !== 200) throw new Error(`jobs ${r.status} ${r.text}`);
      return r.body.data as Array<Record<string, any>>;
    },
    async audit(query: Record<string, string>) {
      const r = await op('GET', `/audit?${new URLSearchParams(query)}`);
      if (r.status !== 200) throw new Error(`audit ${r.status} ${r.text}`);
      return r.body.data as Array<Record<string, any>>;
    },
  };
}

/** The operator credential the test apps use, as request headers. */
export const OPS_HEADERS = { Authorization: `Bearer ${OPERATOR_TOKEN}` };
