import { join } from 'node:path';
import * as ts from 'typescript';

const CONFIG = join(__dirname, '..', 'libs', 'integrations', 'tsconfig.json');

/** The compiler's messages for a project, as tsc prints them; empty when it type-checks. */
function typeErrors(configPath: string): string {
  const host: ts.ParseConfigFileHost = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (diagnostic) => { throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')); } };
  const config = ts.getParsedCommandLineOfConfigFile(configPath, undefined, host)!;
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, projectReferences: config.projectReferences });
  const diagnostics = [...config.errors, ...ts.getPreEmitDiagnostics(program)];
  return ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (name) => name, getCurrentDirectory: ts.sys.getCurrentDirectory, getNewLine: () => '\n' });
}

describe('login-system adapters and snippets', () => {
  it('type-check against the client and the login systems’ types (libs/integrations/tsconfig.json)', () => {
    expect(typeErrors(CONFIG)).toBe('');
  }, 120_000);
});
