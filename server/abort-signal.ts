/** The request's abort signal for the HTTP lanes (v1, v2, MCP), in one place none of them owns. */
import type { ServerResponse } from 'node:http';

/** An AbortSignal that fires when the client goes away before the response is sent. */
export function abortSignalOf(res: ServerResponse): AbortSignal {
  const ctl = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) ctl.abort(new Error('client disconnected'));
  });
  return ctl.signal;
}
