// @ts-check
/**
 * The forwarder that runs inside the `commands` sandbox as the commands' parent (passed to
 * `node -e` by commands.ts; type-checked with jsconfig.json). The sandbox has a network namespace
 * of its own with nothing in it: the forwarder listens on the sandbox's 127.0.0.1:3128 (where
 * HTTPS_PROXY points), pipes each connection to the egress proxy's Unix socket bound at
 * /run/egress.sock, and runs the commands with `/bin/sh -c`, exiting with their status.
 */
const net = require('net');
const { spawn } = require('child_process');
const server = net.createServer((c) => {
  const up = net.connect('/run/egress.sock');
  c.pipe(up); up.pipe(c);
  c.on('error', () => up.destroy()); up.on('error', () => c.destroy());
});
server.listen(3128, '127.0.0.1', () => {
  const env = { ...process.env };
  delete env.SANDBOX_COMMANDS;
  const child = spawn('/bin/sh', ['-c', /** @type {string} */ (process.env.SANDBOX_COMMANDS)], { stdio: 'inherit', env });
  child.on('exit', (code, signal) => process.exit(code === null ? 128 : code));
});
