/**
 * What a failed conversion tells the caller (spec §4.6): the input's faults are 400s naming the
 * problem, everything on our side (LibreOffice failing, hanging, dying, unusable job files) the
 * spec's 500 `Failed to convert to PDF: <details>`.
 */
import { InputError, OperationFailedError } from '../../errors.js';
import { JobFailure } from './job.js';

/** The public text of a failed conversion (spec §4.6: `Failed to convert to PDF: [error details]`). */
export function conversionFailed(details: string, cause?: unknown): OperationFailedError {
  return new OperationFailedError(`Failed to convert to PDF: ${details}`, { cause });
}

/** The catalogue error for a job that failed; `ext` is the input's extension (null: detected). */
export function publicError(err: unknown, ext: string | null): Error {
  if (!(err instanceof JobFailure)) return conversionFailed('an unexpected error occurred.', err);
  const what = ext ? `.${ext}` : 'a document';
  switch (err.kind) {
    case 'load':
      return new InputError(`The file could not be opened as ${what}: it is corrupt, password-protected or not a valid ${ext ? what : 'document'}.`, { cause: err });
    case 'type':
      if (err.reason === 'unsupported') return new InputError(`Unsupported file format: LibreOffice reads the file as ${err.message}, which is not in the supported list.`, { cause: err });
      if (err.reason === 'noimport') return new InputError(`The LibreOffice installed on this server cannot import ${ext ? `.${ext} files` : 'this format'}.`, { cause: err });
      if (!ext) return new InputError('Unrecognised file format: neither its signature nor LibreOffice recognises the contents.', { cause: err });
      return new InputError(
        err.reason === 'plain'
          ? `The file is not a valid ${what} file: LibreOffice could only read it as plain text.`
          : `The file is not a valid ${what} file: LibreOffice does not recognise its contents.`,
        { cause: err },
      );
    case 'internal':
      // Our own job files were unusable (a configuration fault): a 500, never the caller's input.
      return conversionFailed('the converter could not use its work directory.', err);
    case 'timeout':
      return conversionFailed(`${err.message}.`, err);
    case 'dead':
      return conversionFailed('LibreOffice stopped during the conversion. Please retry.', err);
    case 'memory':
      return new InputError(`The document needs more than the ${err.message} of memory one conversion may use.`, { cause: err });
    default:
      return conversionFailed(err.message, err);
  }
}
