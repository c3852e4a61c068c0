/** A terminal or a pipe the CLI reads a secret from (the process's stdin by default). */
export interface SecretInput extends AsyncIterable<Buffer | string> {
  isTTY?: boolean;
  setRawMode?(raw: boolean): unknown;
}

/**
 * Reads one secret without it ever being an argument (argv is visible to every user of the host in `ps`,
 * and kept in shell history): from a terminal, after `prompt` on stderr, with echo off (raw mode, up to
 * Enter; Ctrl-C or Ctrl-D gives up); from a pipe, its whole text.
 */
export async function readSecretLine(
  input: SecretInput,
  stderr: { write(s: string): unknown },
  prompt: string,
): Promise<string> {
  if (!input.isTTY || !input.setRawMode) {
    let text = '';
    for await (const chunk of input) text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    return text;
  }
  stderr.write(prompt);
  input.setRawMode(true);
  let line = '';
  try {
    for await (const chunk of input) {
      for (const c of typeof chunk === 'string' ? chunk : chunk.toString('utf8')) {
        if (c === '\r' || c === '\n') return line;
        if (c === '\u0003' || c === '\u0004') return '';
        if (c === '\u007f' || c === '\b') line = line.slice(0, -1);
        else line += c;
      }
    }
    return line;
  } finally {
    input.setRawMode(false);
    stderr.write('\n');
  }
}
