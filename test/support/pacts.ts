import path from 'node:path';

/**
 * Where the contract consumers write their pacts and the verifiers read them: contracts/pacts, or TEST_PACT_DIR
 * (relative to the repository, as scripts/test.js, which clears it before the consumers, resolves it).
 * CI's PostgreSQL pass runs beside the embedded one and writes its own (pact files merge: two writers of one file
 * would mix their interactions).
 */
export const PACT_DIR = path.resolve(__dirname, '../..', process.env.TEST_PACT_DIR || 'contracts/pacts');

/** A pact file by its consumer and provider, e.g. `pactFile('Marketplace-SupplierApi')`. */
export const pactFile = (name: string): string => path.join(PACT_DIR, `${name}.json`);
