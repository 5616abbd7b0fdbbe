import OpenAPIBackend from 'openapi-backend';
import addFormats from 'ajv-formats';
import { loadContract } from '../../../src/http/surface';
import { operations as transfersOperations } from '../../../src/http/transfers/operations';
import { operations as opsOperations } from '../../../src/http/ops/operations';
import { operations as marketplaceOperations } from '../../../src/http/marketplace/operations';
import { consoleOperations } from '../../../src/http/console/operations';
import { opsConsoleOperations } from '../../../src/http/ops-console/operations';
import { driverOperations } from '../../../src/http/driver/operations';
import { driverAppOperations } from '../../../src/http/driver-app/operations';
import { testConfig } from '../../support/test-app';

describe('Every contract operation has exactly one handler', () => {
  it.each([
    ['transfers-v1.yaml', transfersOperations],
    ['ops-v1.yaml', opsOperations],
    ['marketplace-inbound.yaml', marketplaceOperations],
    ['console.yaml', consoleOperations({ config: testConfig() } as never)],
    ['ops-console.yaml', opsConsoleOperations('')],
    ['driver-v1.yaml', driverOperations],
    ['driver-app.yaml', driverAppOperations('')],
    ['tracking.yaml', { getTrackingPage: undefined }],
    ['metrics.yaml', { getMetrics: undefined }],
  ])('when %s is loaded, then its operationIds equal the registered handlers', async (file, handlers) => {
    const api = new OpenAPIBackend({
      definition: loadContract(file),
      strict: true,
      customizeAjv: (ajv) => (addFormats(ajv as never), ajv),
    });
    await api.init();
    const ids = api
      .getOperations()
      .map((o) => o.operationId)
      .sort();
    expect(Object.keys(handlers).sort()).toEqual(ids);
  });
});
