// @ts-check
/* Building the page: elements from data (text is always text, never HTML) and status lines. */

/** @typedef {string | number | boolean | null | undefined} AttrValue */
/** @typedef {{ [name: string]: AttrValue | ((e: Event) => void) }} Attrs */
/** @typedef {Node | string | number | null | undefined | false} Leaf nothing is added for null, undefined or false */
/** @typedef {Leaf | Leaf[] | (Leaf | Leaf[])[]} Child lists of children, two deep */

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

/**
 * An element: h('p', { class: 'x' }, 'text', child, …). Text is always text, never HTML; onclick, onsubmit, oninput
 * and ontoggle are listeners; an attribute that is undefined, null or false is left out.
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
      if (k === 'onclick' || k === 'onsubmit' || k === 'oninput' || k === 'ontoggle') el.addEventListener(k.slice(2), v);
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
 * @param {'ok' | 'error' | 'warn' | ''} [kind]
 */
export function say(el, text, kind) {
  el.hidden = !text;
  el.textContent = text || '';
  el.className = 'status' + (kind ? ' ' + kind : '');
  el.setAttribute('role', kind === 'error' ? 'alert' : 'status');
}
