/** The JavaScript pool's queue is the service-wide fair queue (core/util/fair-queue.ts), shared with the tool gates. */
export { FairQueue, type Owned } from '../../../util/fair-queue.js';
