/** The console's entry: sign-in, the page frame with its navigation, and the pages by role. */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { currentSession, signIn, signOut, whenSignedOut, type Me } from './api.js';
import { linkClick, navigate, useRoute } from './router.js';
import { Overview } from './pages/admin-overview.js';
import { Keys } from './pages/admin-keys.js';
import { PolicyPage } from './pages/admin-policy.js';
import { UsagePage } from './pages/admin-usage.js';
import { Providers } from './pages/admin-providers.js';
import { Engines } from './pages/admin-engines.js';
import { Files } from './pages/admin-files.js';
import { KeyHome } from './pages/key-home.js';
import { Playground } from './pages/playground.js';
import { JobsPage } from './pages/jobs.js';

const ADMIN_PAGES: [string, string][] = [
  ['overview', 'Overview'],
  ['keys', 'Keys'],
  ['policy', 'Policy'],
  ['usage', 'Usage'],
  ['jobs', 'Jobs'],
  ['providers', 'Providers'],
  ['engines', 'Engines'],
  ['files', 'Files'],
];
const KEY_PAGES: [string, string][] = [
  ['home', 'Balance & usage'],
  ['playground', 'Playground'],
  ['jobs', 'Jobs'],
];

function SignIn(props: { onDone: (me: Me) => void }) {
  const adminOn = document.body.dataset.admin === 'on';
  const [role, setRole] = useState<'admin' | 'key'>(adminOn ? 'admin' : 'key');
  const [secret, setSecret] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    const r = await signIn(role, secret);
    setBusy(false);
    setSecret('');
    if (r.me) props.onDone(r.me);
    else setError(r.retryAfter ? `${r.error} Try again in ${r.retryAfter} s.` : r.error!);
  };
  return (
    <main class="signin" id="main">
      <h1>Console sign-in</h1>
      <form onSubmit={submit}>
        <fieldset>
          <legend>Sign in as</legend>
          {adminOn && (
            <label class="inline">
              <input type="radio" name="role" value="admin" checked={role === 'admin'} onChange={() => setRole('admin')} /> Administrator (ADMIN_TOKEN)
            </label>
          )}
          <label class="inline">
            <input type="radio" name="role" value="key" checked={role === 'key'} onChange={() => setRole('key')} /> Key holder (API key)
          </label>
        </fieldset>
        <label for="secret">{role === 'admin' ? 'Admin token' : 'API key'}</label>
        <input id="secret" type="password" autocomplete="off" required value={secret} onInput={(e) => setSecret((e.target as HTMLInputElement).value)} />
        <button type="submit" disabled={busy}>Sign in</button>
        {error && <p role="alert" class="error">{error}</p>}
      </form>
    </main>
  );
}

function Page(props: { me: Me; page: string; query: URLSearchParams }) {
  const { me, page, query } = props;
  if (me.role === 'admin') {
    switch (page) {
      case 'keys': return <Keys query={query} />;
      case 'policy': return <PolicyPage query={query} />;
      case 'usage': return <UsagePage query={query} />;
      case 'jobs': return <JobsPage me={me} query={query} />;
      case 'providers': return <Providers />;
      case 'engines': return <Engines />;
      case 'files': return <Files />;
      default: return <Overview />;
    }
  }
  if (page === 'jobs') return <JobsPage me={me} query={query} />;
  return page === 'playground' ? <Playground query={query} /> : <KeyHome me={me} />;
}

function App() {
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const route = useRoute();
  useEffect(() => {
    whenSignedOut(() => setMe(null));
    void currentSession().then(setMe);
  }, []);
  const pages = me?.role === 'admin' ? ADMIN_PAGES : KEY_PAGES;
  const current = pages.some(([p]) => p === route.page) ? route.page : pages[0]![0];
  const title = me ? pages.find(([p]) => p === current)![1] : 'Sign in';
  useEffect(() => {
    document.title = `${title} · Console`;
  }, [title]);
  if (me === undefined) return <p class="loading">Loading…</p>;
  if (me === null) return <SignIn onDone={(m) => { setMe(m); navigate(m.role === 'admin' ? '/console/app/overview' : '/console/app/home'); }} />;
  return (
    <div class="frame" onClick={linkClick}>
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <span class="brand">Content intelligence API · console</span>
        <span class="who">{me.role === 'admin' ? 'Administrator' : `Key ${me.name ?? ''}`}</span>
        <button type="button" class="link" onClick={async () => { await signOut(); setMe(null); history.replaceState(null, '', '/console'); }}>Sign out</button>
      </header>
      <nav aria-label="Console pages">
        <ul>
          {pages.map(([p, label]) => (
            <li key={p}><a href={`/console/app/${p}`} aria-current={p === current ? 'page' : undefined}>{label}</a></li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        <h1>{title}</h1>
        <Page me={me} page={current} query={route.query} />
      </main>
    </div>
  );
}

render(<App />, document.getElementById('root')!);
