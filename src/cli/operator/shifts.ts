/** `driver shifts`: a driver's working hours, shown, or set in the compact form of ./shift-forms.ts or from a file. */
import fs from 'node:fs';
import type { Command } from 'commander';
import { id, type Body, type Cli, type Schemas } from './api';
import { fields, table } from './output';
import { ShiftFormError, WEEKDAYS, hoursText, parseException, parseOff, parseWeekly, weekdayOfDate } from './shift-forms';

const HELP = `
Days: mon … sun, a range (mon-fri; fri-mon wraps), a list (mon,wed), daily, weekdays or weekend.
Times: HH:MM, Sri Lanka time. An end earlier than the start runs past midnight (the shift belongs
to the day it starts on); 24:00 ends at midnight. Several ranges make a split day. Overlaps are
the API's to refuse: it names each.

Examples:
  $ operator driver shifts drv_4q7k2m9x --weekly "mon-fri 06:00-18:00" --weekly "sat 20:00-06:00"
  $ operator driver shifts drv_4q7k2m9x --off 2026-12-25 --exception "2026-12-26 10:00-16:00"
  $ operator driver shifts drv_4q7k2m9x --weekly "tue,thu 06:00-10:00 14:00-18:00"
  $ operator driver shifts drv_4q7k2m9x --file shifts.json
`;

const collect = (value: string, previous: string[]) => [...previous, value];

interface ShiftsOptions {
  weekly: string[];
  off: string[];
  exception: string[];
  file?: string;
}

export function registerShifts(driver: Command, cli: Cli): void {
  driver
    .command('shifts <driver_id>')
    .description(
      "show a driver's working hours (Sri Lanka time), or set them: --weekly replaces the weekly hours, --off and --exception " +
        'replace the exceptions (what is not given stays as it is); --file sends a whole set, as the API takes it',
    )
    .option('--weekly <days hours>', 'weekly hours, e.g. "mon-fri 06:00-18:00" (repeat it; --weekly none: no weekly hours)', collect, [])
    .option('--off <date>', 'a day off, e.g. 2026-12-25 (repeat it)', collect, [])
    .option('--exception <date hours>', 'a day\'s own hours, e.g. "2026-12-26 10:00-16:00" (repeat it; --exception none: no exceptions)', collect, [])
    .option('--file <path>', 'the JSON body of PUT /drivers/{driver_id}/shifts: {"weekly": […], "exceptions": […]}')
    .addHelpText('after', HELP)
    .action((d: string, o: ShiftsOptions, cmd: Command) => shifts(cli, d, o, cmd));
}

async function shifts({ api, print }: Cli, d: string, o: ShiftsOptions, cmd: Command): Promise<void> {
  const show = (s: Schemas['DriverShifts']) => print(s, () => shiftsView(s));
  const compact = o.weekly.length > 0 || o.off.length > 0 || o.exception.length > 0;
  if (o.file !== undefined && compact) cmd.error('error: give --file, or --weekly, --off and --exception, not both');
  if (o.file !== undefined) return show(await api('putDriverShifts', 'PUT', `/drivers/${id(d)}/shifts`, readBody(o.file, cmd)));
  if (!compact) return show(await api('getDriverShifts', 'GET', `/drivers/${id(d)}/shifts`));

  const none = (flag: string, values: string[]) => {
    if (values.includes('none') && values.length > 1) cmd.error(`error: ${flag} none stands alone`);
    return values.includes('none');
  };
  const noWeekly = none('--weekly', o.weekly);
  const noExceptions = none('--exception', o.exception);
  if (noExceptions && o.off.length) cmd.error('error: --exception none stands alone (no --off with it)');
  let weekly: Schemas['WeeklyShift'][] | undefined, exceptions: Schemas['ShiftException'][] | undefined;
  try {
    if (o.weekly.length) weekly = noWeekly ? [] : o.weekly.flatMap(parseWeekly);
    if (o.off.length || o.exception.length) exceptions = noExceptions ? [] : [...o.off.map(parseOff), ...o.exception.flatMap(parseException)];
  } catch (err) {
    if (err instanceof ShiftFormError) cmd.error(err.message);
    throw err;
  }
  // What the options do not name is kept: read, then sent back with the rest.
  const current = weekly && exceptions ? undefined : await api('getDriverShifts', 'GET', `/drivers/${id(d)}/shifts`);
  const body: Body<'putDriverShifts'> = { weekly: weekly ?? current!.weekly, exceptions: exceptions ?? current!.exceptions };
  show(await api('putDriverShifts', 'PUT', `/drivers/${id(d)}/shifts`, body));
}

/** The file's JSON, sent as is: the API names what is wrong in it. */
function readBody(file: string, cmd: Command): Body<'putDriverShifts'> {
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    cmd.error(`error: cannot read --file ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  try {
    return JSON.parse(text) as Body<'putDriverShifts'>;
  } catch (err) {
    return cmd.error(`error: --file ${file} is not JSON (${(err as Error).message})`);
  }
}

/** The hours as two tables: the weekly ones by day, the exceptions by date. */
function shiftsView(s: Schemas['DriverShifts']): string {
  const head = fields({ driver_id: s.driver_id, updated_at: s.updated_at });
  if (s.updated_at === null) return `${head}\nNo hours set: the driver is not held to any.\n`;
  const weekly = s.weekly.map((w) => ({ weekday: WEEKDAYS[w.weekday - 1] ?? String(w.weekday), hours: hoursText(w) }));
  const exceptions = s.exceptions.map((e) => ({ date: e.date, weekday: weekdayOfDate(e.date), hours: 'off' in e ? 'off' : hoursText(e) }));
  return `${head}\nWeekly (Sri Lanka time):\n${table(weekly, ['weekday', 'hours'])}\nExceptions:\n${table(exceptions, ['date', 'weekday', 'hours'])}`;
}
