/** WAV files made in the test run, for the media tools' tests. */
import { randomBytes } from 'node:crypto';

/** A mono 8 kHz WAV of `seconds`: 8-bit silence, or 16-bit noise (unique bytes, to find its copy on disk). */
export function wav(seconds: number, noise = false): Buffer {
  const bits = noise ? 16 : 8;
  const data = noise ? randomBytes(seconds * 8000 * 2) : Buffer.alloc(seconds * 8000, 128);
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(36 + data.length, 4);
  h.write('WAVEfmt ', 8, 'latin1');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(8000, 24);
  h.writeUInt32LE((8000 * bits) / 8, 28);
  h.writeUInt16LE(bits / 8, 32);
  h.writeUInt16LE(bits, 34);
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(data.length, 40);
  return Buffer.concat([h, data]);
}
