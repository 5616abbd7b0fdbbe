import fs from 'node:fs';
import path from 'node:path';
import { loadContract } from '../../../src/http/surface';
import { consoleOperations } from '../../../src/http/console/operations';
import { ROOT_DIR } from '../../../src/shared/paths';

/**
 * The sandbox helper `POST /test_helpers/bookings/{booking_ref}/advance` takes `{to}`, one of the states of the
 * contract's enum. The console and the guides that list those states list every one of them (issue 33: they listed
 * 3 of the 6), so a partner never has to read the contract to learn that `driver_en_route` exists.
 */
function contractTargets(): string[] {
  const contract = loadContract('transfers-v1.yaml') as any;
  const targets = contract.paths['/test_helpers/bookings/{booking_ref}/advance'].post.requestBody.content['application/json'].schema.properties.to.enum;
  expect(Array.isArray(targets)).toBe(true);
  return targets as string[];
}

/** The passage of a Markdown document that starts with `start`: up to the next blank line, or (a table's row) its line. */
function passage(file: string, start: string): string {
  const md = fs.readFileSync(path.join(ROOT_DIR, file), 'utf8');
  const at = md.indexOf(start);
  expect(at).toBeGreaterThanOrEqual(0);
  const end = md.indexOf(start.startsWith('|') ? '\n' : '\n\n', at);
  return md.slice(at, end < 0 ? undefined : end);
}

/** The targets `text` names, each once, in the order it first names them. */
const named = (text: string, targets: string[]) => [...new Set(text.match(/[a-z_]+/g) ?? [])].filter((w) => targets.includes(w));

describe("the sandbox advance helper's targets, everywhere they are listed", () => {
  const targets = contractTargets();

  it('the contract lists (at least) the six states of a ride a partner must handle', () => {
    expect(targets).toEqual(expect.arrayContaining(['driver_assigned', 'driver_en_route', 'driver_arrived', 'passenger_on_board', 'completed', 'no_show']));
  });

  it("when the reference console's page is served, then its test-helper hint names every target, in the contract's order", async () => {
    const { getConsole } = consoleOperations({ config: { publicBaseUrl: 'http://localhost:3000' } } as never);
    const reply = (await getConsole({ params: {}, query: {}, body: undefined } as never, { headers: {} } as never)) as { document: { bytes: Buffer } };
    const html = reply.document.bytes.toString('utf8');
    const hint = /<p class="hint">Test helpers[\s\S]*?<\/p>/.exec(html)?.[0] ?? '';
    expect(hint).not.toBe('');
    expect(named(hint, targets)).toEqual(targets);
    expect(html).not.toContain('{{');
  });

  it.each([
    ['docs/operator-guide.md', '**Sandbox test helper.**'],
    ['docs/partner-guide.md', '| `POST /test_helpers/bookings/{booking_ref}/advance`'],
  ])('when %s describes the helper, then it names every target', (file, start) => {
    expect(named(passage(file, start), targets)).toEqual(targets);
  });
});
