// @ts-check
/** The page's elements and small DOM helpers. */
/** @typedef {import('./types.js').Attributes} Attributes */
/** @typedef {import('./types.js').Child} Child */

/**
 * An element of the page by id. Every id the script asks for is in the page's HTML: a missing
 * one is a bug of the page, told at once rather than as a null dereference later.
 * @param {string} id
 * @returns {HTMLElement}
 */
export function $(id) {
  const element = document.getElementById(id);
  if (!element) throw new Error(`The page has no element #${id}`);
  return element;
}
/** @param {string} id @returns {HTMLInputElement} */
export const input = (id) => /** @type {HTMLInputElement} */ ($(id));
/** @returns {HTMLSelectElement} */
export const vehicleSelect = () => /** @type {HTMLSelectElement} */ ($('vehicle'));
/**
 * The element matching a selector inside another, which the page's HTML always holds.
 * @param {ParentNode} parent
 * @param {string} selector
 * @returns {Element}
 */
export function inside(parent, selector) {
  const element = parent.querySelector(selector);
  if (!element) throw new Error(`The page has no ${selector}`);
  return element;
}
// How often the vehicles and meters are read again, so open segments are seen counting up.
const SVG_NS = inside(document, 'svg.chart').namespaceURI;

// --- Small DOM helpers -------------------------------------------------------------------------
/**
 * @template {Element} T
 * @param {T} node
 * @param {Attributes} [attributes]
 * @param {Child[]} [children]
 * @returns {T}
 */
export function fill(node, attributes, children) {
  const given = attributes || {};
  Object.keys(given).forEach((name) => {
    const value = given[name];
    if (value !== null && value !== undefined) node.setAttribute(name, String(value));
  });
  (children || []).forEach((child) => {
    if (child === null || child === undefined || child === '') return;
    node.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  });
  return node;
}
/** @param {string} tag @param {Attributes} [attributes] @param {Child[]} [children] */
export const el = (tag, attributes, children) => fill(document.createElement(tag), attributes, children);
/** @param {string} tag @param {Attributes} [attributes] @param {Child[]} [children] */
export const svg = (tag, attributes, children) => fill(document.createElementNS(SVG_NS, tag), attributes, children);
