/**
 * Settings for a test server whose callers hang up mid-call. After a `fetch` is aborted, the test
 * process's HTTP client opens a fresh connection to the server that never carries a request; a
 * stopping server counts a connection still waiting for its first request as busy (Node closes
 * only connections idle between requests), so `close()` waited out the whole SHUTDOWN_GRACE_MS
 * (15 s by default) before it cut that connection. The tests read what happens to the hung-up
 * call while the server runs, never at its shutdown, so a grace of a second only shortens their
 * teardown.
 */
export const HUNG_UP_SHUTDOWN = { SHUTDOWN_GRACE_MS: '1000' };
