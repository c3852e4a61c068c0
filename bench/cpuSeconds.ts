/** User + system CPU seconds of this process (all its threads) since `start`, a `process.cpuUsage()`. */
export function cpuSecondsSince(start: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1e6;
}
