import { type Clock, systemClock } from './clock.ts';

/** Real time shifted so that it reads `start` now (CLI `--now`): simulations and replays. */
export function offsetClock(start: Date, base: Clock = systemClock): Clock {
  const offset = start.getTime() - base.now().getTime();
  return {
    now: () => new Date(base.now().getTime() + offset),
    sleep: (ms, signal) => base.sleep(ms, signal),
  };
}
