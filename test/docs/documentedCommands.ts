/**
 * The commands the docs give a reader: every line of a fenced `sh`/`bash`/`shell`/`console` block (`$ `
 * prompts dropped), continuation lines joined, `a && b` split into two, each classified by the program it
 * starts. A comment line right after a command that is one word (`# f5cfe08b…`) is the output the page shows.
 */
export type CommandKind = 'tunnel-archiver' | 'npm' | 'aws' | 'cdk' | 'export' | 'other';

export interface DocCommand {
  /** `README.md`, `docs/cli.md`, or the name of what printed it (`stack output RunNowCommand`). */
  page: string;
  /** 1-based line of the page where the command starts. */
  line: number;
  /** The command as a reader pastes it: no trailing comment, continuations joined. */
  text: string;
  /** The comment the page writes after it, if any (without `#`). */
  comment: string;
  kind: CommandKind;
  /** Shell words of `text` (quotes removed, nothing expanded); for `npx X`, `npx` dropped. */
  argv: string[];
  /** The output the page shows under the command, if any. */
  output?: string;
  /** The lines of the block before this command (a recipe's earlier steps), in order. */
  before: string[];
  /** The line of the block's opening fence: commands of one block share a shell. */
  block: number;
}

const FENCE = /^```(sh|bash|shell|console)\s*$/;

/** Splits `s` at `sep` where it is outside quotes; returns the pieces (untrimmed). */
function splitOutsideQuotes(s: string, at: (s: string, i: number) => number): string[] {
  const parts: string[] = [];
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"') i++;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      continue;
    }
    if (c === '\\') {
      i++;
      continue;
    }
    const n = at(s, i);
    if (n > 0) {
      parts.push(s.slice(start, i));
      start = i + n;
      i += n - 1;
    }
  }
  parts.push(s.slice(start));
  return parts;
}

/** `cmd  # comment` → [`cmd`, `comment`]; a `#` inside quotes or a word is not a comment. */
export function splitComment(line: string): [string, string] {
  const parts = splitOutsideQuotes(line, (s, i) =>
    s[i] === '#' && (i === 0 || /\s/.test(s[i - 1] ?? '')) ? 1 : 0,
  );
  const [code = '', ...rest] = parts;
  return [code.trim(), rest.join('#').trim()];
}

/** Shell words, quotes removed (single and double), nothing expanded. */
export function shellWords(s: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && /["\\$`]/.test(s[i + 1] ?? '')) word = (word ?? '') + s[++i];
      else word = (word ?? '') + c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word = word ?? '';
    } else if (c === '\\') word = (word ?? '') + (s[++i] ?? '');
    else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? '') + c;
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** The program a command starts, for choosing its runner. */
export function classify(argv: string[]): CommandKind {
  const [program] = argv;
  if (program === 'tunnel-archiver') return 'tunnel-archiver';
  if (program === 'npm') return 'npm';
  if (program === 'aws') return 'aws';
  if (program === 'cdk') return 'cdk';
  if (program === 'export') return 'export';
  return 'other';
}

/** One command line as a DocCommand (`npx` dropped from argv, never from text). */
export function docCommand(
  page: string,
  line: number,
  text: string,
  comment = '',
  before: string[] = [],
  block = line,
): DocCommand {
  const all = shellWords(text);
  // `VAR=value cmd`: the variables are the command's environment, the program is what follows.
  const words = all.slice(all.findIndex((w) => !/^[A-Za-z_]\w*=(?!.*\$\()/.test(w) || all.length === 1));
  const argv = words[0] === 'npx' ? words.slice(1) : words;
  return { page, line, text, comment, kind: classify(argv), argv, before, block };
}

/** Every command in the shell blocks of one page, in order. */
export function docCommands(page: string, markdown: string): DocCommand[] {
  const lines = markdown.split('\n');
  const out: DocCommand[] = [];
  let inBlock = false;
  let block: string[] = [];
  let fence = 0;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] as string;
    if (!inBlock) {
      if (FENCE.test(raw)) {
        inBlock = true;
        block = [];
        fence = i + 1;
      }
      continue;
    }
    if (raw.startsWith('```')) {
      inBlock = false;
      continue;
    }
    const start = i;
    let joined = raw.replace(/^\$ /, '');
    while (joined.endsWith('\\') && i + 1 < lines.length)
      joined = `${joined.slice(0, -1)} ${lines[++i]?.trim()}`;
    const [code, comment] = splitComment(joined);
    if (code === '') {
      const last = out.at(-1);
      // A one-word comment right under a command: the output the page shows for it.
      if (comment !== '' && !/\s/.test(comment) && last !== undefined && last.line === start)
        last.output = comment;
      if (comment !== '') block.push(joined);
      continue;
    }
    const steps = splitOutsideQuotes(code, (s, j) => (s.startsWith('&&', j) ? 2 : 0)).map((p) => p.trim());
    for (const step of steps) out.push(docCommand(page, start + 1, step, comment, [...block], fence));
    block.push(code);
  }
  return out;
}

/** A command a page writes inline (`` `npx tunnel-archiver status --dest …` ``), and what it says it prints. */
export interface InlineCommand {
  page: string;
  line: number;
  text: string;
  argv: string[];
  kind: CommandKind;
  /** The output the sentence gives it: `` `cmd` prints `output` ``. */
  prints?: string;
}

const INLINE = /`((?:npx |npm |aws |cdk |tunnel-archiver )[^`]*)`( prints `([^`]*)`)?/g;

/**
 * The commands in a page's prose: code spans starting with a program the docs give commands for, spaces
 * and line breaks collapsed. Shell blocks are left out (docCommands reads them).
 */
export function inlineCommands(page: string, markdown: string): InlineCommand[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, (block) => block.replace(/[^\n]/g, ' '));
  return [...prose.matchAll(INLINE)].map((m) => {
    const text = (m[1] as string).replace(/\s+/g, ' ').trim();
    const { argv, kind } = docCommand(page, 0, text);
    return {
      page,
      line: prose.slice(0, m.index).split('\n').length,
      text,
      argv,
      kind,
      ...(m[3] === undefined ? {} : { prints: m[3].replace(/\s+/g, ' ') }),
    };
  });
}
