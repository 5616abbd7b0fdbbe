const COMBINING_MARKS = /[\u0300-\u036f]/g;
const APOSTROPHES = /['\u2018\u2019\u02bc`´]/g;
const NON_ALNUM = /[^a-z0-9]+/g;

/**
 * Case-, accent- and punctuation-insensitive form used for every name lookup:
 * "Nuwara-Eliya" → "nuwara eliya", "Adam's Peak" → "adams peak", "Kolamba" stays "kolamba".
 */
export function normalizeText(s: string): string {
  return s.normalize('NFKD').replace(COMBINING_MARKS, '').toLowerCase().replace(APOSTROPHES, '').replace(/&/g, ' and ').replace(NON_ALNUM, ' ').trim();
}

export function tokenize(s: string): string[] {
  const n = normalizeText(s);
  return n === '' ? [] : n.split(' ');
}
