/**
 * The CPU share Lambda gives the function that runs the engine, as the stack ships it: its `MemorySize` read
 * from the synthesized template (the real app, as `cdk synth` builds it, no bundling) over the 1,769 MB at
 * which Lambda gives a full vCPU, capped at the machine's cores.
 */
import { availableParallelism } from 'node:os';
import { FULL_VCPU_MEMORY_MB } from '../infra/constructs/archiveFunction.ts';
import { shippedSettings } from './shippedSettings.ts';

export interface ShippedCpuShare {
  /** The engine function's `MemorySize` in the synthesized template (MB). */
  memoryMb: number;
  /** `memoryMb ÷ 1769`, capped at the machine's cores. */
  share: number;
}

let cached: ShippedCpuShare | undefined;

export function shippedCpuShare(): ShippedCpuShare {
  if (cached) return cached;
  const { memoryMb } = shippedSettings().archiver;
  cached = { memoryMb, share: Math.min(memoryMb / FULL_VCPU_MEMORY_MB, availableParallelism()) };
  return cached;
}
