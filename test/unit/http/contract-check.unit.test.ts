import { checkContract, loadContract } from '../../../src/http/surface';

describe('the contracts a surface serves', () => {
  it('when a contract is not valid OpenAPI, then the service refuses to start, naming the file and what is wrong', () => {
    const broken = { openapi: '3.0.3', info: { title: 'x' }, paths: { '/a': { get: { responses: 'none' } } } };
    expect(() => checkContract('broken.yaml', broken as never)).toThrow(/^contracts\/broken\.yaml is not valid OpenAPI\. \d+ validation errors:[\s\S]*version/);
  });

  it('when every contract is loaded, then each passes, and each load is a document of its own', () => {
    for (const file of ['transfers-v1.yaml', 'ops-v1.yaml', 'marketplace-inbound.yaml', 'driver-v1.yaml', 'mcp.yaml']) {
      const a = loadContract(file);
      expect(() => checkContract(file, a)).not.toThrow();
      const b = loadContract(file);
      expect(b).toEqual(a);
      expect(b).not.toBe(a);
      expect(b.paths).not.toBe(a.paths);
    }
  });
});
