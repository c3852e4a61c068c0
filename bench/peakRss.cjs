// Preloaded (`node --require`) into a child the bench runs: prints the process's peak RSS and CPU time on exit.
process.on('exit', () => {
  const u = process.resourceUsage();
  process.stderr.write(`\npeak-rss-kib=${u.maxRSS} cpu-us=${u.userCPUTime + u.systemCPUTime}\n`);
});
