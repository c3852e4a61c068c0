import type * as z from 'zod';

/** zod issues as one readable line: `path: message; path: message`. */
export function formatIssues(error: z.ZodError, max = 5): string {
  const lines = error.issues
    .slice(0, max)
    .map((issue) => `${issue.path.length === 0 ? '(root)' : issue.path.join('.')}: ${issue.message}`);
  const more = error.issues.length > max ? `; and ${error.issues.length - max} more` : '';
  return `${lines.join('; ')}${more}`;
}
