/** Which hosts of an input are checked before a third-party provider sees them, and what is refused. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SsrfGuard } from '../engines/http/guard.js';
import { guardProviderUrls, urlHostsIn } from './provider-urls.js';

describe('urlHostsIn', () => {
  it('reads top-level URLs, URL arrays, objects in arrays and bare hosts in URL fields only', () => {
    assert.deepEqual(urlHostsIn({ url: 'http://a.example/x', note: 'see https://b.example', urls: ['c.example/docs', 'https://d.example'], files: [{ url: 'https://e.example/f.pdf' }], query: 'f.example' }).sort(), ['a.example', 'c.example', 'd.example', 'e.example'].sort());
    assert.deepEqual(urlHostsIn({ startUrl: '127.0.0.1:8080/admin' }), ['127.0.0.1']);
    assert.deepEqual(urlHostsIn([1, 2]), []);
    assert.deepEqual(urlHostsIn(null), []);
  });
});

describe('guardProviderUrls', () => {
  const guard = (allowPrivate = false, hosts: string[] = []) =>
    new SsrfGuard({ allowPrivate, allowHosts: new Set(hosts) }, async (h) => (h === 'rebind.test' ? [{ address: '127.0.0.1', family: 4 }] : h === 'public.test' ? [{ address: '93.184.216.34', family: 4 }] : Promise.reject(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' }))));
  it('refuses loopback, private and names resolving to them; lets public and unresolvable names through', async () => {
    await assert.rejects(guardProviderUrls(guard(), { url: 'http://127.0.0.1/' }), /URL not allowed: 127\.0\.0\.1 resolves to a/);
    await assert.rejects(guardProviderUrls(guard(), { url: 'http://rebind.test/' }), /URL not allowed: rebind\.test/);
    await assert.rejects(guardProviderUrls(guard(), { urls: ['https://public.test', '10.0.0.1/x'] }), /URL not allowed/);
    await guardProviderUrls(guard(), { url: 'https://public.test/' });
    await guardProviderUrls(guard(), { url: 'https://nowhere.test/' });
  });
  it('honours ALLOW_PRIVATE_NETWORK and ALLOW_HOSTS', async () => {
    await guardProviderUrls(guard(true), { url: 'http://127.0.0.1/' });
    await guardProviderUrls(guard(false, ['rebind.test']), { url: 'http://rebind.test/' });
  });
});
