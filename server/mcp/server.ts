/**
 * The MCP server one HTTP request talks to (issue 17 §1–3). Stateless: a fresh server and
 * transport per POST, built around the calling key, so any instance serves any request and
 * nothing is kept between requests but the running-call table used for cancellation.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { KeyRecord } from '../../core/keys/types.js';
import type { Registry } from '../../core/registry/registry.js';
import type { ServiceError } from '../../core/errors.js';
import { runCall, type CallDeps, type CallTarget } from './call.js';
import type { ToolCatalog } from './catalog.js';
import type { RunningCalls } from './cancel.js';
import { DISCOVERY_TOOLS, discoveryCall } from './discovery-tools.js';
import { withoutBlanks } from '../blank-fields.js';
import { screenToolCalls } from './invalid-params.js';
import type { JobService } from '../../core/jobs/service.js';
import { runJobCall, runsAsJob } from './job-call.js';
import { startHeartbeat } from './heartbeat.js';

/** `all`: one tool per job; `discovery`: `search`, `details` and `run` only. */
export type ToolsMode = 'all' | 'discovery';

/** What the lane holds for all requests. */
export interface McpLane {
  registry: Registry;
  catalog: ToolCatalog;
  running: RunningCalls;
  deps: CallDeps;
  /** The job service: long tools with a progress token run as jobs (job-call.ts). */
  jobs?: () => JobService;
}

/** What one HTTP request brings. */
export interface McpRequest {
  key: KeyRecord;
  mode: ToolsMode;
  /** The client's `Mcp-Session-Id` (a name for its calls; no state behind it). */
  sessionId: string | undefined;
  /** A `Request-Source` header, if the client sent one. */
  headerSource: string | undefined;
  /** The key's rate limit refused this request: tool calls fail with it (issue 17: a tool error). */
  limited: ServiceError | undefined;
  /** Aborted when the client goes away before the answer. */
  disconnect: AbortSignal;
  /** A fresh request id for the ledger and the usage row of each tool call. */
  nextRequestId(): string;
}

const SERVER_INFO = { name: 'content-intelligence-api', title: 'Content intelligence API', version: '1.0.0' };

const INSTRUCTIONS = [
  'Tools of the content-intelligence API: scraping, crawling, screenshots, search, reviews, transcripts, video/clip/company data, PDF conversion and merging, AI images, sandboxed JavaScript/Python, extraction.',
  'Every successful call spends credits of your API key (the price is in each tool description); failed calls are free.',
  'Produced files (PDFs, screenshots, images) come back as download links valid for 24 hours; small images also inline.',
].join(' ');

/** Spec §2.1 requestSource: the arguments' own, else the header, else `mcp`; cleaned as the other lanes clean it. */
function sourceOf(...candidates: unknown[]): string {
  for (const c of candidates) {
    if (typeof c !== 'string') continue;
    // Control characters (NUL above all) are dropped: PostgreSQL text cannot store NUL.
    const clean = c.replace(/[\u0000-\u001f\u007f]/g, '').trim();
    if (clean) return clean.slice(0, 64);
  }
  return 'mcp';
}

/** Builds the server and its transport for one request, connected and ready for `handleRequest`. */
export async function createMcpServer(lane: McpLane, req: McpRequest): Promise<{ server: Server; transport: StreamableHTTPServerTransport }> {
  const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS });
  // Stateless (issue 17 §1): no session id generated or checked by the transport.
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  const scope = { keyId: req.key.id, sessionId: req.sessionId };

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: req.mode === 'discovery' ? DISCOVERY_TOOLS : lane.catalog.visible(req.key.policy).map((e) => e.tool),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name } = request.params;
    // Blank optional fields are "not given", as on the v1 lane (issue 28): agents fill every field.
    const { requestSource, ...args } = (withoutBlanks(request.params.arguments ?? {}) as Record<string, unknown>);
    let target: CallTarget | undefined;
    if (req.mode === 'discovery') target = discoveryCall(lane.registry, lane.catalog.discovery(req.key.policy), name, args);
    else {
      const entry = lane.catalog.byToolName(name);
      if (entry) target = { kind: 'registry', type: entry.type, id: entry.id, resolved: entry.target, input: args };
    }
    // An unknown name is a protocol error (MCP: "Unknown tool"), not a failed job.
    if (!target) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);

    const signal = AbortSignal.any([extra.signal, req.disconnect]);
    // A cancellation that arrives on another request is handed to this server's own protocol
    // handling, which aborts `extra.signal` and sends no response (see cancel.ts).
    const unregister = lane.running.add(scope, extra.requestId, (reason) => deliverCancel(transport, extra.requestId, reason));
    try {
      const facts = { requestId: req.nextRequestId(), key: req.key, requestSource: sourceOf(requestSource, req.headerSource), signal, limited: req.limited };
      // A client that asks for progress on long work gets it through the job service (issue 25).
      const progressToken = request.params._meta?.progressToken;
      if (progressToken !== undefined && !req.limited && lane.jobs && runsAsJob(target)) {
        return await runJobCall({ ...lane.deps, jobs: lane.jobs() }, facts, target, progressToken, (n) => extra.sendNotification(n));
      }
      // Other work with a token hears that the call is alive every few seconds.
      const stop = progressToken === undefined ? undefined : startHeartbeat(progressToken, (n) => extra.sendNotification(n));
      try {
        return await runCall(lane.deps, facts, target);
      } finally {
        stop?.();
      }
    } finally {
      unregister();
      // Nothing will be written for a cancelled call: end its response stream instead of leaving it open.
      if (extra.signal.aborted) setImmediate(() => void transport.close().catch(() => undefined));
    }
  });

  await server.connect(transport);
  screenToolCalls(transport);
  return { server, transport };
}

function deliverCancel(transport: StreamableHTTPServerTransport, requestId: RequestId, reason: string | undefined): void {
  transport.onmessage?.({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, ...(reason ? { reason } : {}) } });
}
