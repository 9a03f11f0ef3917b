/**
 * The interactive reference page served at `/docs`: one self-contained HTML document with the
 * OpenAPI document embedded, its own style and script inline, and nothing fetched from anywhere
 * but this server — it works with no internet access. A strict Content-Security-Policy admits
 * exactly the inline style and script by hash and lets the page call only its own origin.
 */

import { inlinePagePolicy } from './inline-page-policy.js';

const STYLE = `
:root { color-scheme: light dark; --line: #8884; --muted: #777; --accent: #2563eb; --ok: #15803d; --bad: #b91c1c; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
header, main { max-width: 68rem; margin: 0 auto; padding: 1rem 1.25rem; }
header { border-bottom: 1px solid var(--line); }
h1 { margin: 0 0 .25rem; font-size: 1.6rem; }
h2 { margin: 2rem 0 .5rem; font-size: 1.25rem; }
h3 { margin: 0; font-size: 1.05rem; font-weight: 600; }
code, pre, .path { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9em; }
pre { margin: .5rem 0; padding: .75rem; overflow: auto; border: 1px solid var(--line); border-radius: 6px; max-height: 28rem; }
.muted { color: var(--muted); }
.key { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; margin-top: .75rem; }
.key input { width: 28rem; max-width: 100%; }
input, button { font: inherit; padding: .3rem .5rem; border: 1px solid var(--line); border-radius: 4px; background: transparent; color: inherit; }
button { cursor: pointer; border-color: var(--accent); color: var(--accent); }
.operation { border: 1px solid var(--line); border-radius: 8px; margin: 1rem 0; padding: .75rem 1rem; }
.operation > summary { cursor: pointer; display: flex; gap: .75rem; align-items: baseline; flex-wrap: wrap; }
.method { font-weight: 700; color: var(--accent); text-transform: uppercase; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0; }
th, td { text-align: left; vertical-align: top; padding: .3rem .5rem; border-top: 1px solid var(--line); }
.try { display: grid; grid-template-columns: max-content 1fr; gap: .4rem .75rem; align-items: center; margin: .5rem 0; }
.status-ok { color: var(--ok); font-weight: 600; }
.status-bad { color: var(--bad); font-weight: 600; }
nav a { margin-right: 1rem; }
`;

const SCRIPT = `
(function () {
  'use strict';
  var spec = JSON.parse(document.getElementById('openapi-document').textContent);
  var base = location.pathname.replace(/\\/docs\\/?$/, '');
  var keyInput = document.getElementById('api-key');

  function el(tag, attributes, children) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (name) { node.setAttribute(name, attributes[name]); });
    (children || []).forEach(function (child) {
      node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
    });
    return node;
  }

  function resolve(node) {
    var seen = 0;
    while (node && node.$ref && seen++ < 20) {
      node = node.$ref.slice(2).split('/').reduce(function (object, part) { return object && object[part]; }, spec);
    }
    return node;
  }

  // Descriptions use a little Markdown: \`code\`, **bold** and "- " list lines. Rendered as text nodes only.
  function inline(text) {
    var fragment = document.createDocumentFragment();
    text.split(/(\`[^\`]*\`|\\*\\*[^*]+\\*\\*)/).forEach(function (part) {
      if (part.charAt(0) === '\`' && part.length > 1) fragment.appendChild(el('code', {}, [part.slice(1, -1)]));
      else if (part.indexOf('**') === 0) fragment.appendChild(el('strong', {}, [part.slice(2, -2)]));
      else if (part) fragment.appendChild(document.createTextNode(part));
    });
    return fragment;
  }

  function rich(text) {
    var box = el('div');
    var list = null;
    String(text || '').split('\\n').forEach(function (line) {
      if (/^- /.test(line)) {
        if (!list) { list = el('ul'); box.appendChild(list); }
        list.appendChild(el('li', {}, [inline(line.slice(2))]));
      } else {
        list = null;
        if (line.trim()) box.appendChild(el('p', {}, [inline(line)]));
      }
    });
    return box;
  }

  function expand(schema, depth) {
    schema = resolve(schema);
    if (!schema || typeof schema !== 'object' || depth > 8) return schema;
    if (Array.isArray(schema)) return schema.map(function (item) { return expand(item, depth + 1); });
    var copy = {};
    Object.keys(schema).forEach(function (name) { copy[name] = expand(schema[name], depth + 1); });
    return copy;
  }

  function schemaBlock(title, schema) {
    return el('details', {}, [el('summary', {}, [title]), el('pre', {}, [JSON.stringify(expand(schema, 0), null, 2)])]);
  }

  function responsesTable(responses) {
    var rows = Object.keys(responses).map(function (status) {
      var response = resolve(responses[status]);
      var cell = el('td', {}, [rich(response.description)]);
      var headers = Object.keys(response.headers || {});
      if (headers.length) cell.appendChild(el('p', { class: 'muted' }, ['Headers: ' + headers.join(', ')]));
      var content = response.content && (response.content['application/json'] || response.content['text/html']);
      if (content && content.schema) cell.appendChild(schemaBlock('Body schema', content.schema));
      return el('tr', {}, [el('td', {}, [el('code', {}, [status])]), cell]);
    });
    return el('table', {}, [el('thead', {}, [el('tr', {}, [el('th', {}, ['Status']), el('th', {}, ['Meaning'])])]), el('tbody', {}, rows)]);
  }

  function tryIt(path, operation, parameters) {
    var form = el('form', { class: 'try' });
    var inputs = {};
    parameters.forEach(function (parameter) {
      var input = el('input', { name: parameter.name, placeholder: parameter.in === 'path' ? 'required' : 'optional', autocomplete: 'off' });
      if (parameter.schema && parameter.schema.format === 'date') input.setAttribute('placeholder', 'YYYY-MM-DD (optional)');
      else if (parameter.schema && parameter.schema.examples) input.setAttribute('placeholder', 'e.g. ' + parameter.schema.examples[0] + ' (optional)');
      inputs[parameter.name] = { input: input, parameter: parameter };
      form.appendChild(el('label', {}, [parameter.name + (parameter.in === 'path' ? ' (path)' : ' (query)')]));
      form.appendChild(input);
    });
    var send = el('button', { type: 'submit' }, ['Send request']);
    form.appendChild(el('span'));
    form.appendChild(send);
    var output = el('div');

    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var url = base + path;
      var query = [];
      Object.keys(inputs).forEach(function (name) {
        var value = inputs[name].input.value.trim();
        if (inputs[name].parameter.in === 'path') url = url.replace('{' + name + '}', encodeURIComponent(value));
        else if (value) query.push(encodeURIComponent(name) + '=' + encodeURIComponent(value));
      });
      if (query.length) url += '?' + query.join('&');
      var headers = {};
      var needsKey = !(operation.security && operation.security.length === 0);
      if (needsKey && keyInput.value.trim()) headers.Authorization = 'Bearer ' + keyInput.value.trim();
      output.textContent = 'Sending…';
      var curl = 'curl -i ' + (needsKey ? '-H "Authorization: Bearer $FLEET_HOURS_API_KEY" ' : '') + "'" + location.origin + url + "'";
      fetch(url, { headers: headers, credentials: 'omit', cache: 'no-store' }).then(function (response) {
        return response.text().then(function (text) {
          var body = text;
          try { body = JSON.stringify(JSON.parse(text), null, 2); } catch (ignored) { /* not JSON */ }
          var shown = ['content-type', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'retry-after', 'x-ratelimit-reset', 'x-request-id', 'allow', 'www-authenticate'];
          var headerText = shown.filter(function (name) { return response.headers.has(name); })
            .map(function (name) { return name + ': ' + response.headers.get(name); }).join('\\n');
          output.textContent = '';
          output.appendChild(el('p', {}, [
            el('span', { class: response.ok ? 'status-ok' : 'status-bad' }, [String(response.status) + (response.statusText ? ' ' + response.statusText : '')]),
            ' ', el('code', {}, ['GET ' + url]),
          ]));
          output.appendChild(el('pre', {}, [curl]));
          output.appendChild(el('pre', {}, [headerText]));
          output.appendChild(el('pre', {}, [body.length > 200000 ? body.slice(0, 200000) + '\\n… (cut)' : body]));
        });
      }).catch(function (error) {
        output.textContent = 'Request failed: ' + error.message;
      });
    });
    return el('div', {}, [el('h4', {}, ['Try it']), form, output]);
  }

  document.title = spec.info.title + ' reference';
  document.getElementById('title').textContent = spec.info.title;
  document.getElementById('version').textContent = 'Version ' + spec.info.version + ' · OpenAPI ' + spec.openapi + ' · ';
  document.getElementById('version').appendChild(el('a', { href: base + '/api/v1/openapi.json' }, ['openapi.json']));
  var main = document.getElementById('content');
  main.appendChild(rich(spec.info.description));

  var toc = el('nav');
  main.appendChild(toc);
  Object.keys(spec.paths).forEach(function (path, index) {
    var item = spec.paths[path];
    // GET operations (HEAD is told as a note), and the write operations: the routes that change the fleet (removals included), ingestion.
    ['get', 'post', 'put', 'patch', 'delete'].forEach(function (method) {
    var operation = item[method];
    if (!operation) return;
    var anchor = 'operation-' + index + (method === 'get' ? '' : '-' + method);
    toc.appendChild(el('a', { href: '#' + anchor }, [operation.summary]));
    var parameters = (item.parameters || []).concat(operation.parameters || []).map(resolve);
    var card = el('details', { class: 'operation', id: anchor }, [
      el('summary', {}, [el('span', { class: 'method' }, [method.toUpperCase()]), el('span', { class: 'path' }, [path]), el('h3', {}, [operation.summary])]),
    ]);
    card.appendChild(rich(operation.description));
    // Methods that are not served are no operations: the path item's description says how they are answered.
    var notes = (method === 'get' && item.head ? 'HEAD answers the same headers without a body. ' : '') + (item.description || '');
    if (notes) card.appendChild(el('p', { class: 'muted' }, [notes]));
    if (parameters.length) {
      card.appendChild(el('table', {}, [
        el('thead', {}, [el('tr', {}, [el('th', {}, ['Parameter']), el('th', {}, ['In']), el('th', {}, ['Description'])])]),
        el('tbody', {}, parameters.map(function (parameter) {
          return el('tr', {}, [el('td', {}, [el('code', {}, [parameter.name])]), el('td', {}, [parameter.in + (parameter.required ? ', required' : '')]), el('td', {}, [rich(parameter.description)])]);
        })),
      ]));
    }
    if (operation.requestBody) {
      var body = resolve(operation.requestBody);
      card.appendChild(el('h4', {}, ['Request body' + (body.required ? '' : ' (optional)')]));
      if (body.description) card.appendChild(rich(body.description));
      Object.keys(body.content || {}).forEach(function (type) {
        var media = body.content[type];
        card.appendChild(el('p', {}, [el('code', {}, [type])]));
        if (media.example !== undefined) card.appendChild(el('pre', {}, [typeof media.example === 'string' ? media.example : JSON.stringify(media.example, null, 2)]));
      });
    }
    card.appendChild(responsesTable(operation.responses));
    // A write is not sent from this page: it would store data with a credential typed into a reference.
    if (method === 'get') card.appendChild(tryIt(path, operation, parameters));
    main.appendChild(card);
    });
  });

  main.appendChild(el('h2', {}, ['Schemas']));
  Object.keys(spec.components.schemas).forEach(function (name) {
    main.appendChild(schemaBlock(name, spec.components.schemas[name]));
  });
})();
`;

function _page(documentJson: string): string {
  // Inside <script type="application/json"> only "</" could end the element early; "<" can only
  // occur inside JSON strings, where "\u003c" means the same.
  const embedded = documentJson.replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1 id="title">API reference</h1>
<div class="muted" id="version"></div>
<div class="key">
<label for="api-key">API key</label>
<input id="api-key" type="password" autocomplete="off" spellcheck="false" placeholder="fh_…">
<span class="muted">Sent as <code>Authorization: Bearer …</code> with the requests below; kept in this page only.</span>
</div>
</header>
<main id="content"><noscript>This page needs JavaScript; the document itself is at api/v1/openapi.json.</noscript></main>
<script type="application/json" id="openapi-document">${embedded}</script>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

/** The page and the Content-Security-Policy that admits exactly its inline style and script. */
export interface DocsPage {
  readonly html: string;
  readonly contentSecurityPolicy: string;
}

/**
 * Builds the reference page for an OpenAPI document (as JSON text).
 *
 * @param documentJson The document, serialized.
 * @returns The HTML and its Content-Security-Policy.
 */
export async function createDocsPage(documentJson: string): Promise<DocsPage> {
  return {
    html: _page(documentJson),
    contentSecurityPolicy: await inlinePagePolicy({ script: SCRIPT, style: STYLE, imgSrc: "'self' data:" }),
  };
}
