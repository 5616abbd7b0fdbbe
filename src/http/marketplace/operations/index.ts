import { getBrandList, getLockedQuote, requoteVehicle, searchVehicles } from './search';
import { acknowledgeOrder, cancelOrder, createOrder, updateOrder } from './orders';
import { receiveCallback } from './callback';

/** operationId → handler. A test checks these keys equal the contract's operations. */
export const operations = {
  searchVehicles,
  getLockedQuote,
  requoteVehicle,
  createOrder,
  cancelOrder,
  updateOrder,
  acknowledgeOrder,
  getBrandList,
  receiveCallback,
};
