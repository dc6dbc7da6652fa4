#!/usr/bin/env node
/**
 * Entry of the stdio bridge (issue 17 §5), for MCP clients that only start local programs:
 *
 *   BASE_URL=https://api.example.com API_KEY=cia_… npm run --silent mcp:stdio
 *
 * `MCP_TOOLS_MODE=discovery` asks for the three-tool mode. Stdout carries the protocol;
 * diagnostics go to stderr. See bridge.ts.
 */
import { bridgeSettings, startBridge } from './bridge.js';

try {
  const bridge = await startBridge(bridgeSettings(process.env));
  const stop = () => void bridge.close().finally(() => process.exit(0));
  // The client closing our stdin is how it ends the session (MCP stdio transport).
  process.stdin.once('end', stop);
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
} catch (err) {
  process.stderr.write(`mcp stdio bridge: ${(err as Error).message}\n`);
  process.exit(1);
}
