// @ts-check
/*
 * The AI agents (MCP) section of the reference page: the server's address, its tools and the confirmation step are
 * filled in by the service (src/http/console/operations.ts, from the MCP server's own list); this copies the
 * client configuration, with the sandbox key in use in place of the placeholder when there is one (the key is
 * never shown on the page).
 */
import { $, held, onKeyChange } from './key.js';

const PLACEHOLDER = 'svc_sk_test_…';

export function setUpAgents() {
  const config = $('mcp-config');
  const button = $('mcp-copy', HTMLButtonElement);
  const note = $('mcp-copy-status');
  const label = () => {
    button.textContent = held.key ? 'Copy, with your key' : 'Copy';
    note.textContent = '';
  };
  onKeyChange(label);
  label();
  button.addEventListener('click', () => {
    const withKey = !!held.key;
    const text = (config.textContent || '').replace(PLACEHOLDER, held.key || PLACEHOLDER);
    const selectIt = () => {
      const range = document.createRange();
      range.selectNodeContents(config);
      getSelection()?.removeAllRanges();
      getSelection()?.addRange(range);
      note.textContent = 'The browser did not allow copying: the configuration is selected, press Ctrl+C (⌘C) and put your key in.';
    };
    const copied = () => {
      note.textContent = withKey
        ? 'Copied, with your sandbox key in it: keep the file to yourself.'
        : 'Copied: put your sandbox key in place of ' + PLACEHOLDER + '.';
    };
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(text).then(copied, selectIt);
    else selectIt();
  });
}
