// @ts-check
/* Building the page: elements from data (text is always text, never HTML), time fields, status lines, the clipboard. */

import { tidyTime } from './format.js';

/** @typedef {string | number | boolean | null | undefined} AttrValue */
/** @typedef {{ [name: string]: AttrValue | ((e: Event) => void) }} Attrs */
/** @typedef {Node | string | number | null | undefined | false} Leaf nothing is added for null, undefined or false */
/** @typedef {Leaf | Leaf[] | (Leaf | Leaf[])[]} Child lists of children, two deep (a JSDoc type may not refer to itself) */

/**
 * The element with this id, which the page has (it throws otherwise); with `type`, also of that kind.
 * @template {HTMLElement} [E=HTMLElement]
 * @param {string} id
 * @param {{ new (): E, prototype: E }} [type]
 * @returns {E}
 */
export function $(id, type) {
  const el = document.getElementById(id);
  if (!el || !(el instanceof (type ?? HTMLElement))) throw new Error(`#${id}: no such ${type ? type.name : 'element'} on the page`);
  return /** @type {E} */ (el);
}

/** The element with this id, when the page has it now. @param {string} id */
export function maybe(id) {
  return document.getElementById(id);
}

/** The rows of a table of the page. @param {string} tableId */
export function tbody(tableId) {
  return $(tableId, HTMLTableElement).tBodies[0];
}

/**
 * An element: h('td', { class: 'x', 'data-label': 'Kind' }, 'text', child, …). Text is always text, never HTML;
 * onclick, onsubmit and onchange are listeners; an attribute that is undefined, null or false is left out.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attrs} [attrs]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (typeof v === 'function') {
      if (k === 'onclick' || k === 'onsubmit' || k === 'onchange') el.addEventListener(k.slice(2), v);
    } else if (k === 'text') el.textContent = String(v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  children.forEach((c) => append(el, c));
  return el;
}

/** @param {Node} el @param {Child} child */
export function append(el, child) {
  if (child === undefined || child === null || child === false) return;
  if (Array.isArray(child)) child.forEach((c) => append(el, c));
  else el.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
}

/**
 * A field for a time of day as the API takes it, HH:MM on the 24-hour clock (not the browser's time picker, which
 * may show AM and PM): what is typed is tidied when the field is left ("6" is 06:00, "1830" 18:30).
 * @param {Attrs} attrs its id, value and the like
 */
export function timeField(attrs) {
  const input = h('input', {
    type: 'text',
    class: 'time',
    inputmode: 'numeric',
    pattern: '([01][0-9]|2[0-3]):[0-5][0-9]',
    placeholder: 'HH:MM',
    maxlength: '5',
    autocomplete: 'off',
    spellcheck: 'false',
    title: 'A time on the 24-hour clock, HH:MM',
    ...attrs,
  });
  input.addEventListener('change', () => {
    input.value = tidyTime(input.value);
    input.dispatchEvent(new Event('input'));
  });
  return input;
}

/**
 * Empties an element (and returns it).
 * @template {Node} N
 * @param {N} el
 * @returns {N}
 */
export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

/**
 * A status line: its text (hidden when there is none), as an alert when it is an error.
 * @param {HTMLElement} el
 * @param {string} [text]
 * @param {'ok' | 'error' | ''} [kind]
 */
export function say(el, text, kind) {
  el.hidden = !text;
  el.textContent = text || '';
  el.className = 'status' + (kind ? ' ' + kind : '');
  el.setAttribute('role', kind === 'error' ? 'alert' : 'status');
}

/** An empty status line a form's answer goes to. @param {string} id */
export function resultArea(id) {
  return h('p', { id, class: 'status', role: 'status', 'aria-live': 'polite', hidden: true });
}

/**
 * Copies an input's text to the clipboard, else selects it for the operator to copy; says which.
 * @param {HTMLInputElement} input
 * @param {HTMLElement} status
 */
export function copy(input, status) {
  const done = () => {
    status.textContent = 'Copied to the clipboard.';
  };
  const manual = () => {
    input.focus();
    input.select();
    let ok = false;
    try {
      ok = document.execCommand('copy');
    } catch {
      ok = false;
    }
    if (ok) done();
    else status.textContent = 'The browser did not allow copying: the text is selected, press Ctrl+C (⌘C).';
  };
  if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(input.value).then(done, manual);
  else manual();
}

/**
 * A secret shown once (a new key or operator token): a warning, the secret, a copy button and one to hide it.
 * Nothing keeps it after this.
 * @param {HTMLElement} box
 * @param {{ id: string, value: string, ariaLabel: string, label: string, heading: string, warning: string, copyId: string, doneId: string, statusId: string }} o
 */
export function showSecret(box, o) {
  clear(box);
  const input = h('input', { id: o.id, type: 'text', readonly: true, value: o.value, spellcheck: 'false', 'aria-label': o.ariaLabel });
  const copied = h('p', { id: o.statusId, class: 'meta', role: 'status', 'aria-live': 'polite' });
  append(box, [
    h('p', { class: 'warning', role: 'alert' }, h('strong', {}, o.heading), o.warning),
    h('label', { for: o.id }, o.label),
    h(
      'div',
      { class: 'row' },
      input,
      h('button', { type: 'button', id: o.copyId, class: 'primary', onclick: () => copy(input, copied) }, 'Copy'),
      h(
        'button',
        {
          type: 'button',
          id: o.doneId,
          onclick: () => {
            clear(box);
            box.hidden = true;
          },
        },
        'Done, hide it',
      ),
    ),
    copied,
  ]);
  box.hidden = false;
  input.focus();
  input.select();
}
