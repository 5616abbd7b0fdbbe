// @ts-check
/* Instants as the console shows them: in this browser's local time, with the offset. */

const pad = (/** @type {number} */ n) => String(n).padStart(2, '0');

/** An instant in this browser's local time with its UTC offset, e.g. "2026-11-26 19:02:07 UTC+05:30". @param {string} iso */
export function localTime(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const offset = -d.getTimezoneOffset();
  const a = Math.abs(offset);
  const day = d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate());
  const time = pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds());
  return day + ' ' + time + ' UTC' + (offset < 0 ? '-' : '+') + pad(Math.floor(a / 60)) + ':' + pad(a % 60);
}
