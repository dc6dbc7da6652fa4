/**
 * The snapshot tag of a monitor's runs. A file of its own: the runner writes under it and the
 * store deletes under it when the monitor goes, and neither may import the other.
 */

/** The snapshot history a monitor keeps apart from its key's own scrapes of the same page. */
export function monitorTag(id: string): string {
  return `monitor:${id}`;
}
