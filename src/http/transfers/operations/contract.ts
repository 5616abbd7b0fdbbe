import { contractDocuments } from '../contract-documents';
import type { TransfersHandler } from './types';

/** The contract, served without a key, naming this deployment (see contract-documents.ts). */
const documents = (ctx: Parameters<TransfersHandler<'getContractJson'>>[1]) => contractDocuments(ctx.deps.config.publicBaseUrl);

export const getContractJson: TransfersHandler<'getContractJson'> = async (_call, ctx) => ({ status: 200, document: documents(ctx).json });
export const getContractYaml: TransfersHandler<'getContractYaml'> = async (_call, ctx) => ({ status: 200, document: documents(ctx).yaml });
export const getPostmanCollection: TransfersHandler<'getPostmanCollection'> = async (_call, ctx) => ({ status: 200, document: await documents(ctx).postman() });
