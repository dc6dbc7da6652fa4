/**
 * The environment Chromium starts with (issue 24, rule "confined"): puppeteer hands a browser the
 * service's whole environment unless told otherwise, and that holds ADMIN_TOKEN, every provider
 * key and the files secret, readable by anything that runs in a renderer (`/proc/<pid>/environ`).
 * Chromium needs only a PATH, a HOME it may write (its font and config caches), the locale, the
 * time zone and where fontconfig looks. No proxy variables: the one proxy it must use, the SSRF
 * guard's, is given as a flag, and the service's own fetches ignore proxy variables too.
 */
import { officeEnv } from '../office/jail.js';

/** Variables of the service's environment the browser may see: locale, time zone, fontconfig's. */
const PASSED = /^(LANG|LANGUAGE|LC_[A-Z_]+|TZ|FONTCONFIG_FILE|FONTCONFIG_PATH)$/;

/** The service's variables the browser keeps, picked once at boot (no secret is held past this). */
export function browserEnvVars(serviceEnv: Record<string, string | undefined>): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const [k, v] of Object.entries(serviceEnv)) if (PASSED.test(k) && v) vars[k] = v;
  return vars;
}

/** The whole environment of one browser: the office worker's (PATH, HOME, TMPDIR, locale, TZ) plus fontconfig's. */
export function browserEnv(vars: Record<string, string>, home: string): Record<string, string> {
  const fonts = Object.entries(vars).filter(([k]) => k.startsWith('FONTCONFIG_'));
  return { ...officeEnv(vars, home), ...Object.fromEntries(fonts) };
}
