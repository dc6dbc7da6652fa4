/**
 * Creates the embedded database cluster in a process of its own (`node pglite-init <dir>
 * <shared_buffers>`): initdb touches ~800 MB of WebAssembly memory that a thread would hand back
 * to the allocator but not all to the OS; a process that exits returns all of it (bench:idle).
 */
import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';

const [dir, sharedBuffers] = process.argv.slice(2);
await mkdir(dir!, { recursive: true });
const pg = await PGlite.create(dir!, { startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffers}`] });
await pg.close();
