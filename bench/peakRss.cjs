// Preloaded (`node --require`) into a child the bench runs: prints the process's peak RSS on exit.
process.on('exit', () => process.stderr.write(`\npeak-rss-kib=${process.resourceUsage().maxRSS}\n`));
