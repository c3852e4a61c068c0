import { type ActiveState, activeStateSchema } from '../active/activeState.ts';
import { chunkRefOf, chunksLost, deleteChunks, putChunkedHead, readChunks } from './activeChunks.ts';
import { decodeActiveData, encodeActiveData } from './activeStateItem.ts';
import type { LiveStore } from './statePorts.ts';
import { decodeItem, versionConflict } from './versionedConcerns.ts';
import type { VersionedItem, VersionedItems } from './versionedItems.ts';

/** The live state's head item; its chunks, when big, are `ACTIVE#…` items (`activeChunks.ts`). */
export const ACTIVE_PK = 'ACTIVE';

/** Compressed live-session state kept inline in the `ACTIVE` item's `bytes`; more goes to chunk items. */
const MAX_COMPRESSED_ITEM_BYTES = 390_000;

/**
 * The live-session state, written once on the versioned-item primitive, gzip-compressed: inline in the
 * `ACTIVE` item's bytes while it fits, else in chunk items that the `ACTIVE` item then names, by the same
 * conditional write as every other item (`putChunkedHead`). So thousands of live sessions never hit
 * DynamoDB's 400 KB item limit. The chunks of the state it replaced are deleted after; a reader that
 * finds them deleted (a newer state replaced them mid-read) reads the head again. An `ACTIVE` item that
 * holds its state as plain `data` JSON (an older release) is read as well.
 */
export function liveStateConcern(items: VersionedItems): LiveStore {
  const decode = (head: VersionedItem, bytes: Uint8Array | undefined): ActiveState =>
    decodeItem(head, activeStateSchema, items.where, bytes && (() => decodeActiveData(bytes)));

  return {
    async getActiveState() {
      for (let attempt = 1; ; attempt++) {
        const head = await items.get(ACTIVE_PK);
        if (head === undefined) return undefined;
        const ref = chunkRefOf(head);
        if (ref === undefined) return decode(head, head.bytes);
        const bytes = await readChunks(items, ref);
        if (bytes !== undefined) return decode(head, bytes);
        if (attempt >= 3) throw chunksLost(ACTIVE_PK, items.where, ref);
      }
    },

    async putActiveState(state) {
      const { version, ...data } = state;
      const bytes = encodeActiveData(data);
      const before = await items.get(ACTIVE_PK);
      if ((before?.version ?? 0) !== version) throw versionConflict(ACTIVE_PK, version);
      if (bytes.byteLength <= MAX_COMPRESSED_ITEM_BYTES) await items.put(ACTIVE_PK, version, '{}', bytes);
      else await putChunkedHead(items, ACTIVE_PK, version, bytes);
      const replaced = chunkRefOf(before);
      if (replaced !== undefined) await deleteChunks(items, replaced);
      return { ...state, version: version + 1 };
    },
  };
}
