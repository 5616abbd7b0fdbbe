// @ts-check
/*
 * The reference console: the Transfers contract rendered by Swagger UI (served by the service itself), a key box
 * that takes sandbox keys only (key.js), a four-step flow (flow.js), how AI agents connect (agents.js), and the
 * workbench's tabs (workbench.js): the partner's own requests (requests.js), webhooks (webhooks.js) and a booking's
 * timeline (timeline.js). Native ES modules, served as they are; Swagger UI's bundle is a classic script that runs
 * before them. `npm run typecheck:web` checks them.
 */
import { setUpAgents } from './agents.js';
import { setUpFlow } from './flow.js';
import { $, API, guard, haveKey, held, keyInput, LIVE_KEY, LIVE_REFUSED, logout, ROOT, say, call, setKey, useKey } from './key.js';
import { requestsPanel } from './requests.js';
import { timelinePanel } from './timeline.js';
import { webhooksPanel } from './webhooks.js';
import { setUpTabs } from './workbench.js';

/** @typedef {import('../../src/generated/transfers-v1').components['schemas']} Schemas */
/** @typedef {import('./key.js').HeaderMap} HeaderMap */
/** @typedef {import('./key.js').SwaggerUI} SwaggerUI */
/** @typedef {{ url: string, headers?: HeaderMap }} SwaggerRequest */
/** @typedef {(payload: Record<string, { value?: unknown }>) => unknown} Authorize */
/** @typedef {(hash: string) => unknown} ParseHash */
/**
 * @typedef {{ statePlugins: { auth: { wrapActions: { authorize: (original: Authorize) => Authorize } } } }
 *   | { statePlugins: { layout: { wrapActions: { parseDeepLinkHash: (original: ParseHash) => ParseHash } } } }} SwaggerPlugin
 */
/**
 * Swagger UI's entry point (window.SwaggerUIBundle), as far as the page uses it.
 * @typedef {{ (options: Record<string, unknown> & { requestInterceptor: (req: SwaggerRequest) => SwaggerRequest, plugins: (() => SwaggerPlugin)[] }): SwaggerUI, presets: { apis: unknown } }} SwaggerUIBundle
 */

/**
 * A plugin for Swagger UI's own Authorize dialog: a live key never enters its state, so no try-it request can
 * carry one; the dialog says why.
 * @returns {SwaggerPlugin}
 */
function refuseLiveKeysPlugin() {
  return {
    statePlugins: {
      auth: {
        wrapActions: {
          authorize: (original) => (payload) => {
            const live = Object.keys(payload || {}).some((name) => {
              const v = payload[name] && payload[name].value;
              return LIVE_KEY.test(typeof v === 'string' ? v : JSON.stringify(v || ''));
            });
            if (!live) return original(payload);
            say(LIVE_REFUSED, 'error');
            const dialog = document.querySelector('.dialog-ux .modal-ux-content');
            if (dialog && !dialog.querySelector('.console-refusal')) {
              const p = document.createElement('p');
              p.className = 'console-refusal';
              p.setAttribute('role', 'alert');
              p.textContent = LIVE_REFUSED;
              dialog.insertBefore(p, dialog.firstChild);
            }
            return original({});
          },
        },
      },
    },
  };
}

/**
 * A plugin that keeps Swagger UI's deep links to its own hashes (#/Tag/operation): the page's other anchors
 * (#ai-agents, the workbench's #requests…) are not taken for a tag, nor rewritten to #/… in the address bar.
 * @returns {SwaggerPlugin}
 */
function ownDeepLinksPlugin() {
  return {
    statePlugins: {
      layout: {
        wrapActions: {
          parseDeepLinkHash: (original) => (hash) => (/^#!?\//.test(hash) ? original(hash) : undefined),
        },
      },
    },
  };
}

// --- the key box -----------------------------------------------------------------------------------------------
$('key-form').addEventListener('submit', (e) => {
  e.preventDefault();
  useKey(keyInput.value);
});
$('forget-button').addEventListener('click', () => {
  setKey(null);
  keyInput.value = '';
  logout();
  say('Key forgotten.', '');
});
$('ping-button').addEventListener('click', () => {
  if (!haveKey()) return;
  call('GET', '/ping').then(
    (r) => {
      const ping = /** @type {Schemas['Ping'] | undefined} */ (r.json);
      const refused = /** @type {{ error?: { message?: string } } | undefined} */ (r.json);
      if (r.status === 200) say('Ping OK: ' + (ping && ping.partner) + ' on ' + r.env + ' (request ' + r.requestId + ').', 'ok');
      else say('Ping answered ' + r.status + ': ' + ((refused && refused.error && refused.error.message) || r.text), 'error');
    },
    (err) => {
      say(err instanceof Error ? err.message : String(err), 'error');
    },
  );
});

// --- the flow --------------------------------------------------------------------------------------------------
setUpFlow();

// --- AI agents (MCP) -------------------------------------------------------------------------------------------
setUpAgents();

// --- the workbench ---------------------------------------------------------------------------------------------
setUpTabs({ requests: requestsPanel(), webhooks: webhooksPanel(), timeline: timelinePanel() });

// --- the reference ---------------------------------------------------------------------------------------------
const SwaggerUIBundle = /** @type {Window & { SwaggerUIBundle?: SwaggerUIBundle }} */ (window).SwaggerUIBundle;
fetch(ROOT + '/openapi.json')
  .then((r) => r.json())
  .then((/** @type {{ servers?: unknown }} */ spec) => {
    // Try-it requests go to this page's own origin, whatever address the deployment advertises.
    spec.servers = [{ url: API, description: 'This deployment (the console sends sandbox requests only)' }];
    if (!SwaggerUIBundle) throw new Error('Swagger UI did not load');
    const ui = SwaggerUIBundle({
      spec,
      dom_id: '#swagger-ui',
      deepLinking: true,
      validatorUrl: null,
      docExpansion: 'list',
      defaultModelsExpandDepth: 0,
      displayRequestDuration: true,
      persistAuthorization: false,
      tryItOutEnabled: true,
      presets: [SwaggerUIBundle.presets.apis],
      plugins: [refuseLiveKeysPlugin, ownDeepLinksPlugin],
      layout: 'BaseLayout',
      // The second line of defence: were a live key to reach a request anyway, it goes nowhere (an address the
      // browser cannot fetch), and the page says why. Throwing here would break Swagger UI's response panel.
      requestInterceptor: (req) => {
        try {
          req.headers = guard(req.headers || {});
        } catch (refusal) {
          say(refusal instanceof Error ? refusal.message : String(refusal), 'error');
          req.url = 'about:blank#refused-live-key';
          req.headers = {};
        }
        return req;
      },
    });
    held.ui = ui;
    if (held.key) ui.preauthorizeApiKey('bearerKey', held.key);
  })
  .catch((err) => {
    say('Could not load the contract: ' + (err instanceof Error ? err.message : String(err)), 'error');
  });
