/**
 * `tools/call` requests whose params are not what MCP defines (issue 24 finding 10). The SDK
 * parses a request with its schema before any handler runs and answers a failure as −32603
 * (internal error) with the schema library's dump; JSON-RPC says invalid params are −32602, and
 * an agent needs one short sentence. Such requests are answered here and never reach the server.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** What is wrong with a `tools/call`'s params, in one sentence; `undefined` when they are fine. */
export function toolCallParamsProblem(params: unknown): string | undefined {
  if (!params || typeof params !== 'object' || Array.isArray(params)) return "Invalid params: tools/call needs an object with 'name' and 'arguments'.";
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  if (typeof name !== 'string' || name.length === 0) return "Invalid params: 'name' must be the tool's name (a non-empty string).";
  if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) return "Invalid params: 'arguments' must be an object of the tool's input fields.";
  return undefined;
}

/**
 * Wraps the transport's delivery to the server: a `tools/call` with invalid params is answered
 * −32602 at once. Call after `server.connect(transport)` (which installs `onmessage`).
 */
export function screenToolCalls(transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) return;
  transport.onmessage = (message, extra) => {
    const m = message as { method?: unknown; id?: unknown; params?: unknown };
    if (m.method === 'tools/call' && (typeof m.id === 'string' || typeof m.id === 'number')) {
      const problem = toolCallParamsProblem(m.params);
      if (problem) {
        const answer: JSONRPCMessage = { jsonrpc: '2.0', id: m.id, error: { code: ErrorCode.InvalidParams, message: problem } };
        void transport.send(answer, { relatedRequestId: m.id }).catch(() => undefined);
        return;
      }
    }
    deliver.call(transport, message, extra);
  };
}
