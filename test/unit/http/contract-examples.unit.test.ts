import OpenAPIBackend from 'openapi-backend';
import { loadContract } from '../../../src/http/surface';
import { addContractFormats } from '../../../src/http/formats';

type Json = Record<string, any>;

/** Every example a contract shows, with where it sits, after $refs are resolved. */
function responseExamples(definition: Json) {
  const out: Array<{ where: string; operationId: string; status: number; example: unknown }> = [];
  for (const [path, item] of Object.entries<Json>(definition.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      if (!op?.operationId) continue;
      for (const [status, response] of Object.entries<Json>(op.responses ?? {})) {
        const media = response.content?.['application/json'];
        if (!media) continue;
        const examples = [
          ...(media.example !== undefined ? [['example', media.example]] : []),
          ...Object.entries<Json>(media.examples ?? {}).map(([name, e]) => [name, e.value]),
        ];
        for (const [name, example] of examples) {
          out.push({ where: `${method.toUpperCase()} ${path} ${status} ${name}`, operationId: op.operationId, status: Number(status), example });
        }
      }
    }
  }
  return out;
}

describe.each([
  'transfers-v1.yaml',
  'ops-v1.yaml',
  'marketplace-inbound.yaml',
  'marketplace-outbound.yaml',
  'console.yaml',
  'ops-console.yaml',
  'driver-v1.yaml',
  'driver-app.yaml',
  'tracking.yaml',
])('Examples in %s', (file) => {
  let api: OpenAPIBackend;
  beforeAll(async () => {
    api = new OpenAPIBackend({ definition: loadContract(file), strict: true, customizeAjv: (ajv) => (addContractFormats(ajv as never), ajv) });
    await api.init();
  });

  it('when each response example is checked against its schema, then it is valid', () => {
    const found = responseExamples(api.definition as Json);
    const invalid = found
      .map((e) => ({ where: e.where, errors: api.validateResponse(e.example, api.getOperation(e.operationId)!, e.status).errors }))
      .filter((r) => r.errors?.length);
    expect(invalid).toEqual([]);
    if (file === 'transfers-v1.yaml') expect(found.length).toBeGreaterThanOrEqual(10);
  });
});
