import { Verifier } from '@pact-foundation/pact';
import { startTestApp, type TestApp } from '../../support/test-app';
import { transfersStates } from '../../../harness/pact/state-handlers/transfers';
import { pactFile } from '../../support/pacts';

const PARTNER_PACT = pactFile('PartnerSimulator-TransfersApi');

describe('TransfersApi honours the PartnerSimulator pact', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  it('when the service runs on a real database, then every interaction verifies', async () => {
    const states = transfersStates({ baseUrl: app.url, operatorToken: app.operatorToken });
    await new Verifier({
      provider: 'TransfersApi',
      providerBaseUrl: app.url,
      pactUrls: [PARTNER_PACT],
      stateHandlers: states.stateHandlers,
      requestFilter: states.requestFilter,
      logLevel: 'warn',
    }).verifyProvider();
  });
});
