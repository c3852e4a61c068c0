/**
 * The most file names a cut walk's state keeps (about 70 bytes each, in one state item): past it the
 * oldest are dropped, and the next run reads their ids back, as it would any other file's.
 */
export const MAX_WALK_FILES = 500;

/**
 * The files a cut walk's state lists as held by the walk's saved ids (`WalkProgress.files`): those the
 * earlier runs listed, when this run carried their ids (absent: it did not, and its saved ids start again
 * from its own), and the files this run committed, whose rows were all taken by this walk.
 */
export function nextWalkFiles(
  carried: readonly string[] | undefined,
  committed: readonly string[],
): string[] {
  return [...(carried ?? []), ...committed].slice(-MAX_WALK_FILES);
}
