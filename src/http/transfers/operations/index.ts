import { getPing } from './get-ping';

/** operationId → handler. A test checks these keys equal the contract's operations. */
export const operations = {
  getPing,
};
