/**
 * The browser's ways out of its network namespace (issue 24: Chromium reached loopback and LAN
 * services directly, PostgreSQL, Redis, the service's own port, whatever a page or an exploit
 * chose to ignore the proxy setting for). A jailed browser has a network namespace with only its
 * own loopback in it; the engine's guard proxies (the direct one, and one per operator proxy)
 * are its exits. Each exit has a slot: the proxy listens on a Unix socket `<slot>.sock` in a
 * folder of each jailed browser (reachable by that browser's uid only, bound into its jail), and
 * a forwarder inside the jail listens on the jail's own `127.0.0.1:<EXIT_PORT_BASE + slot>` and
 * pipes each connection to that socket. Unix sockets are file-system objects, so they join
 * network namespaces without any route between them: the guard proxy is the only way out.
 *
 * Exits are kept here, not in a launch, because an operator proxy's exit may appear after the
 * browser started (its first job through that proxy): it is then attached to every live jail.
 */
import { join } from 'node:path';
import type { GuardProxy } from './guard-proxy.js';

/** The jail's port of slot 0 (the direct guard proxy); slot n listens on `EXIT_PORT_BASE + n`. */
export const EXIT_PORT_BASE = 3128;
/** The direct guard proxy and three operator proxies (an instance has one `WEB_PROXY_URL`; a change of it takes a slot). */
export const EXIT_SLOTS = 4;

interface Jail {
  uid: number | null;
  /** Per slot: stops that exit's listener on this jail's socket. */
  detach: Map<number, () => void>;
}

/** The exits of one browser engine and the jails they are attached to. */
export class BrowserExits {
  private readonly exits = new Map<number, GuardProxy>();
  private readonly jails = new Map<string, Jail>();
  /** Whether browsers run in a network namespace of their own (set once the jail was probed). */
  jailed = false;

  /** The forwarder's ports, one per slot, as the jail's launcher starts them. */
  static ports(): number[] {
    return Array.from({ length: EXIT_SLOTS }, (_, slot) => EXIT_PORT_BASE + slot);
  }

  /** The socket a jail's forwarder for `slot` connects to, inside `dir`. */
  static socket(dir: string, slot: number): string {
    return join(dir, `${slot}.sock`);
  }

  /** Makes `proxy` the exit of `slot` in every jail, now and later (a previous one there is detached). */
  set(slot: number, proxy: GuardProxy): void {
    this.clear(slot);
    this.exits.set(slot, proxy);
    for (const [dir, jail] of this.jails) jail.detach.set(slot, proxy.listenUnix(BrowserExits.socket(dir, slot), jail.uid));
  }

  /** Detaches the exit of `slot` from every jail. */
  clear(slot: number): void {
    this.exits.delete(slot);
    for (const jail of this.jails.values()) {
      jail.detach.get(slot)?.();
      jail.detach.delete(slot);
    }
  }

  /** Serves every exit on sockets in `dir` (a jail's, connectable by `uid`) until the returned function is called. */
  attach(dir: string, uid: number | null): () => void {
    const jail: Jail = { uid, detach: new Map() };
    this.jails.set(dir, jail);
    for (const [slot, proxy] of this.exits) jail.detach.set(slot, proxy.listenUnix(BrowserExits.socket(dir, slot), uid));
    return () => {
      if (this.jails.get(dir) !== jail) return;
      this.jails.delete(dir);
      for (const stop of jail.detach.values()) stop();
    };
  }

  /** The proxy URL Chromium is given for `slot`: the jail's forwarder, or the proxy's own port when browsers share the host's network. */
  url(slot: number, proxy: GuardProxy): string {
    return this.jailed ? `http://127.0.0.1:${EXIT_PORT_BASE + slot}` : proxy.url;
  }
}
