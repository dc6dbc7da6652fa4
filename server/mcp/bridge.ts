/**
 * The stdio bridge's work (issue 17 §5): serves the tools of a running instance on a local
 * transport by forwarding every request to the instance's `/mcp` endpoint with an API key, so
 * listing, policy, credits, limits and usage rows are the instance's own. Only the SDK is
 * imported: the bridge runs anywhere Node and this package are installed, with no database or
 * engines. Each forwarded message is a stateless POST, so the bridge outlives instance restarts.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, CallToolResultSchema, ListToolsRequestSchema, ListToolsResultSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { setTimeout as sleep } from 'node:timers/promises';

/** How long a result waits after the last progress relayed before it, so the agent reads the two apart. */
const PROGRESS_SETTLE_MS = 50;

/** Where the bridge forwards to, from the environment. */
export interface BridgeSettings {
  url: URL;
  apiKey: string;
}

/** Reads `BASE_URL`, `API_KEY` and optional `MCP_TOOLS_MODE`; throws a message naming what is wrong. */
export function bridgeSettings(env: NodeJS.ProcessEnv): BridgeSettings {
  const base = env.BASE_URL?.trim();
  const apiKey = env.API_KEY?.trim();
  if (!base) throw new Error('BASE_URL is required: the address of a running instance, e.g. http://127.0.0.1:3000');
  if (!apiKey) throw new Error('API_KEY is required: an API key of that instance');
  let url: URL;
  try {
    url = new URL(base.replace(/\/+$/, '') + '/mcp');
  } catch {
    throw new Error(`BASE_URL is not a URL: ${base}`);
  }
  const mode = env.MCP_TOOLS_MODE?.trim();
  if (mode) {
    if (mode !== 'all' && mode !== 'discovery') throw new Error(`MCP_TOOLS_MODE must be 'all' or 'discovery' (got '${mode}')`);
    url.searchParams.set('tools', mode);
  }
  return { url, apiKey };
}

/** Connects to the instance and serves its tools on `transport` (stdio unless a test passes another). */
export async function startBridge(settings: BridgeSettings, transport = new StdioServerTransport()): Promise<{ close(): Promise<void> }> {
  const upstream = new Client({ name: 'content-intelligence-stdio-bridge', version: '1.0.0' });
  await upstream.connect(new StreamableHTTPClientTransport(settings.url, { requestInit: { headers: { authorization: `Bearer ${settings.apiKey}` } } }));
  const info = upstream.getServerVersion();
  const server = new Server(
    { name: info?.name ?? 'content-intelligence-api', version: info?.version ?? '1.0.0', title: info?.title },
    { capabilities: { tools: { listChanged: false } }, instructions: upstream.getInstructions() },
  );
  // Results are passed through as the instance gave them (no client-side schema checks here: the
  // agent's own client does those). The caller's cancellation travels on as the SDK's own
  // `notifications/cancelled` upstream.
  server.setRequestHandler(ListToolsRequestSchema, async (req, extra) => upstream.request({ method: 'tools/list', params: req.params }, ListToolsResultSchema, { signal: extra.signal }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    // Progress (issue 25): the upstream call carries a token of the bridge's own (the SDK's), and
    // each notification coming back is relayed to the agent under the token the agent chose.
    // The result goes out after the last progress, and not in the same read: the MCP SDK's client
    // handles a notification a turn later than a response it reads with it, and by then the
    // response has ended the request, so that progress is dropped as unknown (an agent on the SDK
    // lost its final `progress = total` about half the time when both left here back to back).
    const token = req.params._meta?.progressToken;
    let relayed: Promise<unknown> = Promise.resolve();
    let lastRelayAt = -Infinity;
    const onprogress =
      token === undefined
        ? undefined
        : (p: Progress) => {
            lastRelayAt = performance.now();
            relayed = relayed.then(() => extra.sendNotification({ method: 'notifications/progress', params: { ...p, progressToken: token } })).catch(() => undefined);
          };
    const result = await upstream.request({ method: 'tools/call', params: req.params }, CallToolResultSchema, { signal: extra.signal, timeout: 60 * 60 * 1000, resetTimeoutOnProgress: true, onprogress });
    await relayed;
    const sinceRelay = performance.now() - lastRelayAt;
    if (sinceRelay < PROGRESS_SETTLE_MS) await sleep(PROGRESS_SETTLE_MS - sinceRelay);
    return result;
  });
  await server.connect(transport);
  return {
    async close() {
      await server.close();
      await upstream.close();
    },
  };
}
