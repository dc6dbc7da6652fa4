/**
 * A site of fixed files for one test file (issue 29): the inputs a caller points a capability at
 * (an image, a page, a document), served from 127.0.0.1. Tests kept writing this as a server with
 * an `if` per path; a table of path → file says it once, and anything not in it is a 404.
 */
import { before, after } from 'node:test';
import { serveLoopback, type LoopbackServer } from './loopback.js';

/** One file: its content type and bytes (a `SampleImage` is one). */
export interface OriginFile {
  type: string;
  bytes: Buffer | string;
}

/** Serves `files` by path (the query string aside) from the file's `before()` to its `after()`. */
export function fileOrigin(files: Record<string, OriginFile>): { readonly url: string } {
  let server: LoopbackServer | undefined;
  before(async () => {
    server = await serveLoopback((req, res) => {
      const file = files[new URL(req.url ?? '/', 'http://origin').pathname];
      if (!file) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': file.type, 'content-length': String(Buffer.byteLength(file.bytes)) }).end(file.bytes);
    });
  });
  after(() => server?.close());
  return {
    get url() {
      if (!server) throw new Error('fileOrigin: the origin starts in before(); use its url inside a test.');
      return server.url;
    },
  };
}
