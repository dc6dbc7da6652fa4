/**
 * Code-execution capabilities kept on the direct lane (spec §4.8, §9.1: `visibility: 'legacy'`),
 * served by the managed `code` plugin. 50 credits per successful run (spec §8.1); a failed run
 * (exception, timeout, memory) answers 500 with the `{ name, value, traceback }` object and costs
 * nothing (spec §1: every *successful* operation consumes credits).
 */
import { Type, defineCapability, flat, type Static } from '../sdk.js';

/** Largest accepted `code`, in characters. */
export const MAX_CODE_CHARS = 1_000_000;
/** Largest accepted `commands`, in characters. */
export const MAX_COMMANDS_CHARS = 10_000;

/** The spec's 400 text for a missing or empty `code` (spec §4.8, §7.1). */
export const CODE_REQUIRED = 'code parameter is required';

/** Files a run may hand back with `saveOutputFiles` (their bytes count against the work dir's size). */
export const MAX_SAVED_FILES = 100;

const CodeInput = (language: string, install: string, memory: string) =>
  Type.Object({
    code: Type.String({ description: `${language} source to run (10-second limit, spec §8.2).` }),
    timeout: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        description:
          "Wall-clock limit in ms (at least 100), within the service's cap `SANDBOX_TIMEOUT_MS` (10 s by default); `limits.timeoutMs` in the answer says which applied.",
      }),
    ),
    memory: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        description: `Memory of the run in MB (${memory}); \`limits.memoryMb\` in the answer says which applied.`,
      }),
    ),
    saveOutputFiles: Type.Optional(
      Type.Boolean({
        description: `Return the files the code writes or changes in its working directory as \`files: [{ name, url, size }]\` (24-hour links; at most ${MAX_SAVED_FILES} files within the work-dir size, \`SANDBOX_TMPFS_MB\`).${language === 'JavaScript' ? ' JavaScript code has no file system, so its `files` is always empty.' : ''}`,
      }),
    ),
    commands: Type.Optional(
      Type.String({
        description: `Shell command run first in its own OS sandbox with network access, to install packages into the run's directory, e.g. \`${install}\`.`,
      }),
    ),
    parseJson: Type.Optional(
      Type.Boolean({
        description:
          'Return each stream parsed as JSON when possible: the whole stream if it parses, otherwise (for several lines) the last line that parses; a stream with no JSON stays an array of lines.',
      }),
    ),
  });

/** Input of run-js-code (spec §4.8). */
export const JsInput = CodeInput('JavaScript', 'npm install lodash', "the isolate's heap, at least 8, within the cap `SANDBOX_JS_MEMORY_MB`, 128 by default");
/** Input of run-python-code (spec §4.8). */
export const PythonInput = CodeInput('Python', 'pip install requests', 'at least 32, within the cap `SANDBOX_PYTHON_MEMORY_MB`, 512 by default');

/** `{ logs: { stdout, stderr }, limits, files? }` (spec §4.8, issue 19 item 2). */
export const LogsOutput = Type.Object({
  logs: Type.Object(
    {
      stdout: Type.Unknown({ description: 'Lines written to stdout (array of strings), or the parsed JSON value with parseJson.' }),
      stderr: Type.Unknown({ description: 'Lines written to stderr (array of strings), or the parsed JSON value with parseJson.' }),
    },
    { description: 'What the code printed. A stream cut at the output cap ends with an `[output truncated: …]` line.' },
  ),
  limits: Type.Optional(
    Type.Object(
      {
        timeoutMs: Type.Number({ description: 'Wall-clock limit the code ran under, ms.' }),
        memoryMb: Type.Number({ description: 'Memory limit the code ran under, MB.' }),
      },
      { description: "The limits the run had: the `timeout` and `memory` asked for within the service's caps, or the caps." },
    ),
  ),
  files: Type.Optional(
    Type.Array(
      Type.Object({
        name: Type.String({ description: 'Path of the file below the working directory, sanitised.' }),
        url: Type.String({ description: 'Signed download link, valid 24 hours.' }),
        size: Type.Integer({ description: 'Size in bytes.' }),
      }),
      { description: 'With `saveOutputFiles`: the files the code wrote or changed in its working directory, in name order.' },
    ),
  ),
  filesOmitted: Type.Optional(Type.Integer({ description: 'With `saveOutputFiles`: files not returned because the run\'s file caps were reached.' })),
});

/** The capability input types. */
export type CodeInputValue = Static<typeof JsInput>;

/**
 * Rejects blank or oversized input with the spec's words where the spec has them, and text a
 * process cannot be handed: a NUL character cannot travel in an argument or environment variable
 * (`commands` reaches the shell through one) and no Python source may hold one, so a NUL in
 * either field is the caller's error, answered before any sandbox starts (issue 18, finding 1).
 */
export function validateCode(input: CodeInputValue): string | undefined {
  if (typeof input.code !== 'string' || input.code.trim() === '') return CODE_REQUIRED;
  if (input.code.length > MAX_CODE_CHARS) return `code must be at most ${MAX_CODE_CHARS} characters.`;
  if (input.commands !== undefined && input.commands.length > MAX_COMMANDS_CHARS) return `commands must be at most ${MAX_COMMANDS_CHARS} characters.`;
  if (input.code.includes('\u0000')) return nulMessage('code');
  if (input.commands?.includes('\u0000')) return nulMessage('commands');
  return undefined;
}

/** The 400 text for a NUL character in `code` or `commands`. */
function nulMessage(field: 'code' | 'commands'): string {
  return `${field} must not contain NUL characters (\\u0000): they cannot be passed to a process.`;
}

/** The 400 texts of the code inputs' fields (spec §4.8, §7.1 for `code`). */
const CODE_MESSAGES = {
  code: CODE_REQUIRED,
  commands: 'commands must be a string.',
  parseJson: 'parseJson must be a boolean.',
  timeout: 'timeout must be a number of milliseconds greater than 0.',
  memory: 'memory must be a number of megabytes greater than 0.',
  saveOutputFiles: 'saveOutputFiles must be a boolean.',
};

export const runJsCode = defineCapability({
  id: 'run_js_code',
  title: 'Run JavaScript',
  summary: 'Run JavaScript in an isolated V8 sandbox (10-second limit) and return what it printed.',
  tags: ['code', 'javascript', 'sandbox'],
  visibility: 'legacy',
  input: JsInput,
  output: LogsOutput,
  cost: flat(50),
  validate: validateCode,
  messages: CODE_MESSAGES,
  examples: [
    { title: 'Hello world', input: { code: 'console.log("Hello, world!")' }, output: { logs: { stdout: ['Hello, world!'], stderr: [] }, limits: { timeoutMs: 10_000, memoryMb: 128 } } },
    {
      title: 'JSON output, within 2 seconds',
      input: { code: 'console.log(JSON.stringify({ sum: 1 + 2 }))', parseJson: true, timeout: 2000 },
      output: { logs: { stdout: { sum: 3 }, stderr: [] }, limits: { timeoutMs: 2000, memoryMb: 128 } },
    },
  ],
});

export const runPythonCode = defineCapability({
  id: 'run_python_code',
  title: 'Run Python',
  summary: 'Run Python 3 in an OS sandbox without network (10-second limit) and return what it printed.',
  tags: ['code', 'python', 'sandbox'],
  visibility: 'legacy',
  input: PythonInput,
  output: LogsOutput,
  cost: flat(50),
  validate: validateCode,
  messages: CODE_MESSAGES,
  examples: [
    { title: 'Hello world', input: { code: 'print("Hello, world!")' }, output: { logs: { stdout: ['Hello, world!'], stderr: [] }, limits: { timeoutMs: 10_000, memoryMb: 512 } } },
    {
      title: 'JSON output, with 256 MB',
      input: { code: 'import json\nprint(json.dumps({"sum": 1 + 2}))', parseJson: true, memory: 256 },
      output: { logs: { stdout: { sum: 3 }, stderr: [] }, limits: { timeoutMs: 10_000, memoryMb: 256 } },
    },
  ],
});

export default [runJsCode, runPythonCode];
