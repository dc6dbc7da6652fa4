/**
 * The snapshot tag of a monitor's runs. A file of its own: the runner writes under it, the store
 * deletes under it when the monitor goes, and the page store keeps a snapshot under it only while
 * the monitor exists; none of them may import another.
 */

const PREFIX = 'monitor:';

/** The snapshot history a monitor keeps apart from its key's own scrapes of the same page. */
export function monitorTag(id: string): string {
  return `${PREFIX}${id}`;
}

/**
 * The monitor whose history `tag` names (`monitor:mon_…`, as monitorTag makes it), or undefined
 * for any other tag, a key's own (`monitor:homepage` included: monitor ids start with `mon_`).
 */
export function monitorOfTag(tag: string): string | undefined {
  return tag.startsWith(`${PREFIX}mon_`) ? tag.slice(PREFIX.length) : undefined;
}
