import { jobEndsAt } from '../../../src/domain/kernel/job-window';
import { sriLankaDay } from '../../../src/domain/kernel/sri-lanka-time';

const pickup = new Date('2026-12-01T04:00:00Z');
const minutes = (end: Date) => (end.getTime() - pickup.getTime()) / 60_000;

describe('A job window', () => {
  it('when an airport arrival drives 44 minutes, then it holds the car for the hour after landing, the drive and the way back: 145 minutes', () => {
    expect(minutes(jobEndsAt(pickup, 44, 'arrival'))).toBe(60 + 44 + 30 + 11);
  });

  it('when a hotel pickup drives 180 minutes, then a quarter-hour wait, the drive and 30 + 45 minutes back', () => {
    expect(minutes(jobEndsAt(pickup, 180, 'departure'))).toBe(15 + 180 + 75);
    expect(minutes(jobEndsAt(pickup, 180, 'point_to_point'))).toBe(270);
  });

  it('when the drive time is unknown, then two hours are assumed', () => {
    expect(minutes(jobEndsAt(pickup, null, 'departure'))).toBe(15 + 120 + 60);
  });

  it('when a Sri Lankan day is asked for, then it runs from midnight in Colombo (UTC+05:30)', () => {
    expect(sriLankaDay('2026-12-01')).toEqual({ from: new Date('2026-11-30T18:30:00Z'), to: new Date('2026-12-01T18:30:00Z') });
  });
});
