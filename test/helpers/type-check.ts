/**
 * Type-checks the files a tsconfig includes, in this process, through the TypeScript compiler API.
 * Like `tsc -p` it builds the whole program (every file they import, with the config's options)
 * and reports option, global, syntax and type errors; unlike it, it asks for the type errors of
 * the included files only, not of every file they import. The checker still resolves whatever
 * types those files use from their imports, so an error in an included file is found just the
 * same; the imported files are the repository's own, which `npm test` type-checks whole (beside
 * the first test files). On the scaffold's 46 generated providers it takes about 11 s of CPU where
 * `tsc -p` took about 19 (2026-11-27), and spares a process.
 */
import ts from 'typescript';

/** The errors, formatted as tsc prints them; empty when the files type-check. */
export function typeErrorsOf(tsconfigPath: string): string {
  const config = ts.getParsedCommandLineOfConfigFile(tsconfigPath, {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  });
  if (!config) throw new Error(`cannot read ${tsconfigPath}`);
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, projectReferences: config.projectReferences });
  const included = new Set(config.fileNames.map((f) => ts.sys.resolvePath(f)));
  const files = program.getSourceFiles().filter((f) => included.has(ts.sys.resolvePath(f.fileName)));
  if (files.length !== included.size) throw new Error(`${included.size - files.length} included files are missing from the program`);
  const diagnostics = [
    ...config.errors,
    ...program.getConfigFileParsingDiagnostics(),
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...files.flatMap((f) => [...program.getSyntacticDiagnostics(f), ...program.getSemanticDiagnostics(f)]),
  ];
  return ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: ts.sys.getCurrentDirectory, getNewLine: () => '\n' });
}
