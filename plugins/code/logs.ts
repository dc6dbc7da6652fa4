/**
 * The `parseJson` rule of the code plugin (spec §4.8: "try to parse stdout and stderr as JSON"),
 * documented in the README: a stream whose whole text parses is returned parsed; otherwise, when
 * it has several lines, the last line that parses is returned; otherwise the lines stay as they
 * are. An empty stream stays `[]`. A stream the sandbox cut (it ends with the
 * `[output truncated: …]` note) is never parsed: its last JSON line may not be the last one the
 * code printed, and parsing would hide the note, so it stays lines, note included.
 */

/** The note line the sandboxes end a cut stream with (see the engines' StreamCollector). */
const TRUNCATION_NOTE = /^\[output truncated: the stream is limited to \d+ lines and \d+ bytes\]$/;

/** Applies the parseJson rule to one stream's lines. */
export function shapeLogs(lines: string[], parseJson: boolean | undefined): unknown {
  if (!parseJson || lines.length === 0) return lines;
  if (TRUNCATION_NOTE.test(lines[lines.length - 1]!)) return lines;
  const whole = tryParse(lines.join('\n'));
  if (whole.ok) return whole.value;
  if (lines.length > 1) {
    for (let i = lines.length - 1; i >= 0; i--) {
      const line = lines[i]!;
      if (line.trim() === '') continue;
      const one = tryParse(line);
      if (one.ok) return one.value;
    }
  }
  return lines;
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text.trim() === '') return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}
