/**
 * Code-execution capabilities kept on the direct lane (spec §4.8, §9.1). Owned by the code lane.
 */
import { Type, defineCapability, flat } from '../../core/sdk.js';

const CodeInput = (language: string) =>
  Type.Object({
    code: Type.String({ description: `${language} source to run.`, minLength: 1 }),
    commands: Type.Optional(Type.String({ description: 'Shell command run before the code, e.g. a package install.' })),
    parseJson: Type.Optional(Type.Boolean({ description: 'Try to parse stdout and stderr as JSON.' })),
  });

const Logs = Type.Object({
  logs: Type.Object({
    stdout: Type.Unknown({ description: 'Lines written to stdout, or the parsed JSON value.' }),
    stderr: Type.Unknown({ description: 'Lines written to stderr, or the parsed JSON value.' }),
  }, { description: 'What the code printed.' }),
});

export const runJsCode = defineCapability({
  id: 'run_js_code',
  title: 'Run JavaScript',
  summary: 'Run JavaScript in an isolated sandbox with a 10-second limit and return its output.',
  tags: ['code', 'javascript', 'sandbox'],
  visibility: 'legacy',
  input: CodeInput('JavaScript'),
  output: Logs,
  cost: flat(50),
  messages: { code: 'code parameter is required' },
});

export const runPythonCode = defineCapability({
  id: 'run_python_code',
  title: 'Run Python',
  summary: 'Run Python in an OS sandbox with a 10-second limit and return its output.',
  tags: ['code', 'python', 'sandbox'],
  visibility: 'legacy',
  input: CodeInput('Python'),
  output: Logs,
  cost: flat(50),
  messages: { code: 'code parameter is required' },
});

export default [runJsCode, runPythonCode];
