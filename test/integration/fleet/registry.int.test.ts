import { useTestApp } from '../../support/use-test-app';

/** The fleet's vehicles and drivers: what operators register, list and take out of service. */
describe('Fleet registry', () => {
  const svc = useTestApp();

  it('when a vehicle is registered, then 201 with its id, listed by class; its plate cannot be registered twice in any spelling', async () => {
    const r = await svc.ops.call('POST', '/vehicles', {
      body: { fleet_code: 'standard_car', plate: 'cab-4821', brand: 'Toyota', model: 'Axio', colour: 'white' },
    });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      vehicle_id: expect.stringMatching(/^veh_[a-z0-9]+$/),
      fleet_code: 'standard_car',
      plate: 'CAB-4821',
      brand: 'Toyota',
      model: 'Axio',
      colour: 'white',
      equipment: { infant_seat: 0, child_seat: 0, booster_seat: 0 },
      active: true,
      created_at: expect.any(String),
    });
    const again = await svc.ops.call('POST', '/vehicles', { body: { fleet_code: 'suv', plate: 'CAB 4821', brand: 'Honda', model: 'Vezel', colour: 'red' } });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'already_exists', details: { plate: 'CAB 4821' } });
    await svc.ops.vehicle('standard_van', { plate: 'PH-6218' });
    expect((await svc.ops.call('GET', '/vehicles?fleet_code=standard_car')).body.data.map((v: any) => v.plate)).toEqual(['CAB-4821']);
    expect((await svc.ops.call('GET', '/vehicles')).body.data.map((v: any) => v.fleet_code)).toEqual(['standard_car', 'standard_van']);
    expect(await svc.app.db('vehicles')).toHaveLength(2);
  });

  it('when a vehicle is not from our brand list or its class is unknown, then 400 and nothing is stored', async () => {
    const before = (await svc.app.db('vehicles')).length;
    const brand = await svc.ops.call('POST', '/vehicles', {
      body: { fleet_code: 'standard_car', plate: 'CAB-0001', brand: 'Trabant', model: '601', colour: 'blue' },
    });
    expect(brand.status).toBe(400);
    expect(JSON.stringify(brand.body.error)).toContain('brand');
    const code = await svc.ops.call('POST', '/vehicles', {
      body: { fleet_code: 'tuk_tuk', plate: 'CAB-0002', brand: 'Toyota', model: 'Axio', colour: 'blue' },
    });
    expect(code.status).toBe(400);
    expect((await svc.app.db('vehicles')).length).toBe(before);
  });

  it('when a vehicle is deactivated, then it is listed inactive; repeating it changes nothing; an unknown one is 404', async () => {
    const v = await svc.ops.vehicle('suv');
    const off = await svc.ops.call('POST', `/vehicles/${v.vehicle_id}/deactivate`);
    expect(off.body).toMatchObject({ vehicle_id: v.vehicle_id, active: false });
    expect((await svc.ops.call('POST', `/vehicles/${v.vehicle_id}/deactivate`)).body).toEqual(off.body);
    expect((await svc.ops.call('GET', '/vehicles?active=true')).body.data.map((x: any) => x.vehicle_id)).not.toContain(v.vehicle_id);
    expect((await svc.ops.call('POST', '/vehicles/veh_nosuch/deactivate')).status).toBe(404);
  });

  it('when a driver is registered, then 201 with languages, listed by name; deactivation takes them off the active roster', async () => {
    const r = await svc.ops.call('POST', '/drivers', { body: { name: 'Sunil Fernando', phone: '+94 77 123 4567', languages: ['si', 'en', 'si'] } });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      driver_id: expect.stringMatching(/^drv_[a-z0-9]+$/),
      name: 'Sunil Fernando',
      phone: '+94 77 123 4567',
      languages: ['si', 'en'],
      active: true,
      created_at: expect.any(String),
      base: null,
      usual_vehicle_id: null,
    });
    const arun = await svc.ops.driver('Arun Kumar', '+94 75 456 7890');
    expect((await svc.ops.call('GET', '/drivers')).body.data.map((d: any) => d.name)).toEqual(['Arun Kumar', 'Sunil Fernando']);
    await svc.ops.call('POST', `/drivers/${arun.driver_id}/deactivate`);
    expect((await svc.ops.call('GET', '/drivers?active=true')).body.data.map((d: any) => d.name)).toEqual(['Sunil Fernando']);
    expect((await svc.ops.call('POST', '/drivers', { body: { name: 'X', phone: 'call me' } })).status).toBe(400);
    expect((await svc.ops.call('POST', '/drivers/drv_nosuch/deactivate')).status).toBe(404);
  });

  it('when the registry is called without the operator token, then 401 and nothing changes', async () => {
    const r = await fetch(`${svc.app.url}/ops/v1/vehicles`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ fleet_code: 'suv', plate: 'NOPE-1', brand: 'Toyota', model: 'Prado', colour: 'black' }),
    });
    expect(r.status).toBe(401);
    expect(await svc.app.db('vehicles').where({ plate: 'NOPE-1' })).toHaveLength(0);
  });
});
