import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultReportPath, reportHint } from '../../lib/cli/defaultReportPath.ts';

describe('reportHint', () => {
  it('with the default destination, names `npx tunnel-archiver report` and ./archive/report.html', () => {
    expect(reportHint('file://./archive', 'file://./archive')).toBe(
      `See the archive as one HTML page:\n  npx tunnel-archiver report\nwrites ${path.resolve('archive', 'report.html')}\n`,
    );
  });

  it('with another destination, passes it on, and writes beside it; an s3:// archive writes in the current folder', () => {
    expect(reportHint('file:///tmp/a', 'file://./archive')).toContain(
      "npx tunnel-archiver report --dest 'file:///tmp/a'",
    );
    expect(defaultReportPath('file:///tmp/a')).toBe('/tmp/a/report.html');
    expect(defaultReportPath('s3://bucket/p')).toBe(path.resolve('report.html'));
  });
});
