import { amendBooking, cancelBooking, confirmBookingTool, prepareBookingTool, previewCancellation } from './booking-tools';
import { findPlace, getBooking, listBookings, quoteTransfer } from './reading-tools';
import type { Tool } from './tool';

export { accessRefusal, outputSchemaOf, type Tool } from './tool';

/** The MCP server's tools, in the order tools/list names them: find, quote, book, read, cancel, change. */
export const TOOLS: Tool[] = [
  findPlace,
  quoteTransfer,
  prepareBookingTool,
  confirmBookingTool,
  getBooking,
  listBookings,
  previewCancellation,
  cancelBooking,
  amendBooking,
];
