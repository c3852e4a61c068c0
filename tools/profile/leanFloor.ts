/**
 * `node bin/run-ts.js tools/profile/leanFloor.ts [runs] [stages] [workers,...]`: how far the archive's own code
 * for a record, with nothing of a walk around it, stands from the script. The 1M backfill's pages
 * (`backfill:57`, replayed from memory, 2000 rows a page) are read, in turn and `runs` times (default 3), by
 * the script (`bench/scriptChild.ts`), the archiver (`bench/archiverChild.ts`, PAGE_SIZE 2000, as the bench
 * runs it) and the lean floor (`leanFloorChild.ts`) at each stage (default `parse,check,archive`) and number of
 * worker threads (default 2). Prints every run, then each one's medians and its ratio to the script's.
 */
import { median } from '../../bench/median.ts';
import { benchChild } from './benchChild.ts';
import { startReplayedDataset } from './replayedDataset.ts';

const [runs = '3', stages = 'parse,check,archive', counts = '2'] = process.argv.slice(2);

const child = (file: string, args: object) => benchChild<Record<string, number>>(file, args);

const data = await startReplayedDataset('backfill:57');
try {
  const base = { url: data.replay.url, days: data.days, pageSize: 2000, concurrency: 2 };
  const figures = new Map<string, { s: number[]; cpu: number[] }>();
  const keep = (name: string, run: number, r: Record<string, number>) => {
    const f = figures.get(name) ?? { s: [], cpu: [] };
    f.s.push(r.seconds as number);
    f.cpu.push((r.cpuSeconds ?? r.duckdbCpuSeconds) as number);
    figures.set(name, f);
    console.log(
      JSON.stringify({ name, run, seconds: r.seconds, cpuSeconds: r.cpuSeconds, records: r.records }),
    );
  };
  for (let run = 0; run < Number(runs); run++) {
    keep('script', run, await child('bench/scriptChild.ts', base));
    keep('archiver', run, await child('bench/archiverChild.ts', { url: data.replay.url }));
    for (const stage of stages.split(','))
      for (const workers of counts.split(',').map(Number))
        keep(
          `lean-${stage}-${workers}`,
          run,
          await child('tools/profile/leanFloorChild.ts', { ...base, workers, stage }),
        );
  }
  const script = median(figures.get('script')?.s ?? []);
  for (const [name, f] of figures) {
    const seconds = median(f.s);
    const cpuSeconds = name === 'script' ? undefined : median(f.cpu);
    console.log(
      JSON.stringify({ name, seconds, cpuSeconds, ratio: Math.round((seconds / script) * 100) / 100 }),
    );
  }
} finally {
  await data.close();
}
