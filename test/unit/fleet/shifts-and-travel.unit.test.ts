import fc from 'fast-check';
import { shiftAt, shiftProblems, shiftsBetween, weekdayOf, type Shifts } from '../../../src/domain/drivers/shifts';
import { dayOf, insideShift, minutesShort, travelConflict, travelMin, TRAVEL_MARGIN_MIN, type Leg } from '../../../src/domain/fleet/travel';

const at = (local: string) => new Date(`${local}:00+05:30`);
const hhmm = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
  .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
const minutesOf = (t: string) => Number(t.slice(0, 2)) * 60 + Number(t.slice(3));

describe('Shifts', () => {
  it('knows the weekday of a Sri Lanka date (1 = Monday)', () => {
    expect(['2026-12-07', '2026-12-08', '2026-12-13'].map(weekdayOf)).toEqual([1, 2, 7]);
  });

  it('for any weekly shift, an instant inside it (past midnight too) finds it, from its start included to its end excluded', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 7 }), hhmm, hhmm, fc.double({ min: 0, max: 0.999, noNaN: true }), (weekday, starts, ends, f) => {
        fc.pre(starts !== ends);
        const shifts: Shifts = { weekly: [{ weekday, starts, ends }], exceptions: [] };
        const length = (minutesOf(ends) - minutesOf(starts) + 1440) % 1440;
        // The week of Monday 2026-12-07: the shift's own day.
        const start = at(`2026-12-${String(6 + weekday).padStart(2, '0')}T${starts}`);
        const inside = new Date(start.getTime() + Math.floor(f * length) * 60_000);
        expect(shiftAt(shifts, inside)).toEqual({ starts: start, ends: new Date(start.getTime() + length * 60_000) });
        expect(shiftAt(shifts, new Date(start.getTime() + length * 60_000))).toBeUndefined();
        expect(shiftAt(shifts, new Date(start.getTime() - 60_000))).toBeUndefined();
      }),
    );
  });

  it('an exception replaces its day: off leaves none, other hours replace the pattern; the night before still runs into it', () => {
    const shifts: Shifts = {
      weekly: [1, 2, 3].map((weekday) => ({ weekday, starts: '22:00', ends: '06:00' })),
      exceptions: [
        { date: '2026-12-08', off: true },
        { date: '2026-12-09', starts: '10:00', ends: '12:00' },
      ],
    };
    const found = shiftsBetween(shifts, at('2026-12-08T00:00'), at('2026-12-10T00:00'));
    expect(found).toEqual([
      { starts: at('2026-12-07T22:00'), ends: at('2026-12-08T06:00') },
      { starts: at('2026-12-09T10:00'), ends: at('2026-12-09T12:00') },
    ]);
    expect(shiftAt(shifts, at('2026-12-08T23:00'))).toBeUndefined();
  });

  it('names what is wrong: no length, overlaps within the week (Sunday night into Monday too) and within a day, a day off and worked', () => {
    expect(
      shiftProblems({
        weekly: [
          { weekday: 1, starts: '08:00', ends: '16:00' },
          { weekday: 2, starts: '08:00', ends: '16:00' },
        ],
        exceptions: [],
      }),
    ).toEqual([]);
    expect(shiftProblems({ weekly: [{ weekday: 1, starts: '08:00', ends: '08:00' }], exceptions: [] })).toEqual([expect.stringContaining('no length')]);
    expect(
      shiftProblems({
        weekly: [
          { weekday: 7, starts: '22:00', ends: '07:00' },
          { weekday: 1, starts: '06:00', ends: '12:00' },
        ],
        exceptions: [],
      }),
    ).toEqual([expect.stringContaining('weekday 7 22:00–07:00 and weekday 1 06:00–12:00')]);
    expect(
      shiftProblems({
        weekly: [],
        exceptions: [
          { date: '2026-12-26', starts: '08:00', ends: '12:00' },
          { date: '2026-12-26', starts: '11:00', ends: '13:00' },
        ],
      }),
    ).toEqual(['shifts on 2026-12-26 overlap.']);
    expect(
      shiftProblems({
        weekly: [],
        exceptions: [
          { date: '2026-12-25', off: true },
          { date: '2026-12-25', starts: '10:00', ends: '12:00' },
        ],
      }),
    ).toHaveLength(1);
  });

  it('for any two shifts of one weekday, overlapping ones are named and apart ones are not', () => {
    fc.assert(
      fc.property(hhmm, hhmm, hhmm, hhmm, (s1, e1, s2, e2) => {
        fc.pre(s1 !== e1 && s2 !== e2 && minutesOf(s1) < minutesOf(e1) && minutesOf(s2) < minutesOf(e2));
        const overlapping = minutesOf(s1) < minutesOf(e2) && minutesOf(s2) < minutesOf(e1);
        const problems = shiftProblems({
          weekly: [
            { weekday: 3, starts: s1, ends: e1 },
            { weekday: 3, starts: s2, ends: e2 },
          ],
          exceptions: [],
        });
        expect(problems.length > 0).toBe(overlapping);
      }),
    );
  });
});

describe('Travel between jobs', () => {
  const KANDY = { lat: 7.2906, lon: 80.6337 };
  const CMB = { lat: 7.1808, lon: 79.8841 };
  const COLOMBO = { lat: 6.9271, lon: 79.8612 };
  const leg = (jobId: string, pickupAt: string, dropoffAt: string, pickup = COLOMBO, dropoff = COLOMBO): Leg => ({
    jobId,
    pickupAt: at(pickupAt),
    dropoffAt: at(dropoffAt),
    pickup,
    dropoff,
  });

  it('a next pickup needs the drive from the drop-off plus the 15-minute margin; one minute less is one minute short', () => {
    const drive = travelMin(KANDY, CMB);
    expect(drive).toBeGreaterThan(120);
    const first = leg('1', '2026-12-03T08:00', '2026-12-03T08:20', KANDY, KANDY);
    const enough = new Date(first.dropoffAt.getTime() + (drive + TRAVEL_MARGIN_MIN) * 60_000);
    const next = { ...leg('2', '2026-12-03T12:00', '2026-12-03T13:00', CMB, COLOMBO), pickupAt: enough };
    expect(minutesShort(first, next)).toBe(0);
    expect(minutesShort(first, { ...next, pickupAt: new Date(enough.getTime() - 60_000) })).toBe(1);
  });

  it('checks the job just before and the job just after, not the ones it overlaps (the database names those)', () => {
    const job = leg('me', '2026-12-03T10:00', '2026-12-03T10:30');
    const kandyBefore = leg('before', '2026-12-03T08:00', '2026-12-03T09:00', KANDY, KANDY);
    const kandyAfter = leg('after', '2026-12-03T11:00', '2026-12-03T12:00', KANDY, KANDY);
    const overlapping = leg('overlap', '2026-12-03T10:15', '2026-12-03T11:00', KANDY, KANDY);
    expect(travelConflict(job, [kandyBefore])).toMatchObject({ jobId: 'before' });
    expect(travelConflict(job, [kandyAfter])).toMatchObject({ jobId: 'after' });
    expect(travelConflict(job, [overlapping])).toBeUndefined();
    // A near job in between shields the far one: only neighbours count.
    const kandyEarly = leg('early', '2026-12-03T07:00', '2026-12-03T07:30', KANDY, KANDY);
    const near = leg('near', '2026-12-03T09:00', '2026-12-03T09:30');
    expect(travelConflict(job, [kandyEarly])).toMatchObject({ jobId: 'early' });
    expect(travelConflict(job, [kandyEarly, near])).toBeUndefined();
  });

  it('a day runs from leaving the base for the first pickup to being back after the last drop-off, and fits a shift only whole', () => {
    const legs = [leg('a', '2026-12-07T08:00', '2026-12-07T09:00', CMB, COLOMBO), leg('b', '2026-12-07T11:00', '2026-12-07T12:00', COLOMBO, KANDY)];
    const day = dayOf(legs, CMB);
    expect(day.leaves).toEqual(at('2026-12-07T08:00'));
    expect(day.returns.getTime()).toBe(at('2026-12-07T12:00').getTime() + travelMin(KANDY, CMB) * 60_000);
    expect(dayOf(legs, null)).toEqual({ leaves: at('2026-12-07T08:00'), returns: at('2026-12-07T12:00') });
    expect(insideShift(day, { starts: at('2026-12-07T06:00'), ends: at('2026-12-07T18:00') })).toBe(true);
    expect(insideShift(day, { starts: at('2026-12-07T06:00'), ends: at('2026-12-07T14:00') })).toBe(false);
  });
});
