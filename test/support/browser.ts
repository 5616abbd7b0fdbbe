import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { describeWithProgram } from './skip';
import type { Operator } from './use-test-app';

/** Debian's chromium (installed by .ci/run), driven by playwright-core: no browser download. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** A browser test's block: skipped, saying how to install chromium, on a machine without it (never in CI). */
export const describeInBrowser = describeWithProgram(CHROMIUM);
/** Where browser tests leave their screenshots (kept by CI as test artifacts; not committed). */
export const ARTIFACTS_DIR = path.resolve(__dirname, '../../test-artifacts');

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
}

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/**
 * A page that records every request it makes (so a test can show nothing came from outside the service) and every
 * console error or uncaught exception.
 */
export async function watchedPage(browser: Browser, viewport = DESKTOP, opts: { timezoneId?: string } = {}) {
  const context = await browser.newContext({ viewport, ...opts });
  const page = await context.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  return {
    page,
    requests,
    errors,
    /** Requests to anywhere but `origin` (data: and blob: URLs are in the page itself). */
    outside: (origin: string) => requests.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:') && !u.startsWith(`blob:${origin}/`)),
    close: () => context.close(),
  };
}

/** Saves a screenshot under test-artifacts/<name>.png (and returns its path). */
export async function screenshot(page: Page, name: string, fullPage = false): Promise<string> {
  fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const file = path.join(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage });
  return file;
}

/**
 * Moves the page's clock on by `roundMs` at a time until `done` holds (bounded), instead of waiting out the page's
 * polling or sending rounds in real time: the rounds, not the time between them, are what a test is about. The page's
 * context needs Playwright's clock installed first (`context.clock.install()`; it runs as a real one does until moved).
 */
export async function clockRounds(page: Page, roundMs: number, done: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await done()) && Date.now() < until) {
    await page.clock.fastForward(roundMs);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Whether the element's text matches now (for clockRounds). */
export const shows = (locator: Locator, expected: RegExp) => async (): Promise<boolean> =>
  expected.test(
    await locator
      .first()
      .innerText({ timeout: 1000 })
      .catch(() => ''),
  );

/** Waits until the element's text matches (what a person would wait to read); fails with the text last seen. */
export async function textSoon(locator: Locator, expected: RegExp, timeoutMs = 15_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    last =
      (await locator
        .first()
        .innerText({ timeout: Math.max(1, until - Date.now()) })
        .catch(() => last)) ?? '';
    if (expected.test(last)) return last;
    if (Date.now() > until) throw new Error(`expected text ${expected} but saw: ${last.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits until the element is visible. */
export const visibleSoon = (locator: Locator, timeoutMs = 15_000) => locator.first().waitFor({ state: 'visible', timeout: timeoutMs });

/**
 * Polls an expression in the page until its value satisfies `done`, and returns the last value (for the failure
 * message). Not `page.waitForFunction`: that compiles the predicate with `new Function` inside the page, which a page
 * with a strict Content-Security-Policy (no 'unsafe-eval') refuses and reports as an error of its own;
 * `page.evaluate` goes through the DevTools protocol, which the policy does not govern.
 */
export async function evaluateSoon<T>(page: Page, expression: string, done: (value: T) => boolean, timeoutMs = 5_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = (await page.evaluate(expression)) as T;
    if (done(value) || Date.now() > until) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Signs in to the operator console at `base` with `token` through its form and waits for the dispatch board. */
export async function signInToConsole(page: Page, base: string, token: string): Promise<void> {
  await page.goto(`${base}/ops/`);
  await page.fill('#token-input', token);
  await page.click('#signin-form button[type="submit"]');
  await visibleSoon(page.locator('#board-title'));
  await textSoon(page.locator('#board-status'), /jobs?\b/);
}

/**
 * The page as it is, at 1280×800 and at a phone width, saved as `<name>-desktop.png` and `<name>-phone.png`; returns
 * how far the phone-width page scrolls sideways (it must not).
 */
export async function shotsAtBothSizes(page: Page, name: string): Promise<number> {
  await screenshot(page, `${name}-desktop`);
  await page.setViewportSize(PHONE);
  await page.waitForTimeout(100);
  await screenshot(page, `${name}-phone`, true);
  const overflow = (await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number;
  await page.setViewportSize(DESKTOP);
  return overflow;
}

/** The console's two named operators of the browser tests: a dispatcher and a viewer, with their tokens. */
export async function dispatcherAndViewer(ops: Operator): Promise<{ dispatcher: { token: string }; viewer: { token: string } }> {
  const named = async (name: string, role: string) => {
    const o = await ops.call('POST', '/operators', { body: { name, role } });
    if (o.status !== 201) throw new Error(`createOperator ${o.status} ${o.text}`);
    return o.body as { token: string };
  };
  return { dispatcher: await named('Dilani Wickramasinghe', 'dispatcher'), viewer: await named('Ravi Jayasuriya', 'viewer') };
}
