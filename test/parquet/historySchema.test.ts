import { parquetSchema } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import {
  HISTORY_COLUMN_NAMES,
  HISTORY_COLUMNS,
  HISTORY_PARQUET_SCHEMA,
} from '../../lib/archive/parquet/historySchema.ts';
import { toArchiveRow } from '../../lib/archive/records/toArchiveRow.ts';
import { baseRecord, TEST_TOKEN_KEY } from '../records/historyRecords.ts';

describe('HISTORY_COLUMNS', () => {
  it('lists every ArchiveRow field in row order', () => {
    const row = toArchiveRow(baseRecord(), {
      tokenPolicy: 'keep',
      tokenKey: TEST_TOKEN_KEY,
      archivedAt: new Date(0),
    });
    expect(HISTORY_COLUMNS.map((c) => c.name)).toEqual(Object.keys(row));
    expect(HISTORY_COLUMN_NAMES).toEqual(Object.keys(row));
  });

  it.each([
    ['record_id', 'string'],
    ['session_id', 'string'],
    ['start_time', 'timestamp'],
    ['end_time', 'timestamp'],
    ['user_email', 'string'],
    ['token_value', 'string'],
    ['virtual_token_value', 'string'],
    ['token_hmac', 'string'],
    ['virtual_token_hmac', 'string'],
    ['domains', 'array<string>'],
    ['mode', 'string'],
    ['mode_udp', 'string'],
    ['client_ip', 'string'],
    ['client_address', 'string'],
    ['client_port', 'int'],
    ['port', 'int'],
    ['extra_json', 'string'],
    ['archived_at', 'timestamp'],
  ])('gives %s the Athena type %s', (name, athenaType) => {
    expect(HISTORY_COLUMNS.find((c) => c.name === name)?.athenaType).toBe(athenaType);
  });
});

describe('HISTORY_PARQUET_SCHEMA', () => {
  const root = parquetSchema({ schema: HISTORY_PARQUET_SCHEMA } as Parameters<typeof parquetSchema>[0]);

  it('has one top-level field per column, in the same order', () => {
    expect(root.children.map((c) => c.element.name)).toEqual(HISTORY_COLUMNS.map((c) => c.name));
  });

  const REPETITION = {
    REQUIRED: ['record_id', 'session_id', 'archived_at'],
    OPTIONAL: ['token_hmac', 'end_time', 'token_value', 'client_port', 'port', 'extra_json'],
  };
  it.each(
    Object.entries(REPETITION).flatMap(([repetition, names]) => names.map((name) => ({ name, repetition }))),
  )('marks $name $repetition', ({ name, repetition }) => {
    expect(root.children.find((c) => c.element.name === name)?.element.repetition_type).toBe(repetition);
  });

  it('declares domains as a 3-level LIST of required UTF8 strings', () => {
    const domains = root.children.find((c) => c.element.name === 'domains');
    expect(domains?.element).toMatchObject({ converted_type: 'LIST', logical_type: { type: 'LIST' } });
    const list = domains?.children[0];
    expect(list?.element).toMatchObject({ name: 'list', repetition_type: 'REPEATED' });
    expect(list?.children[0]?.element).toMatchObject({
      name: 'element',
      type: 'BYTE_ARRAY',
      converted_type: 'UTF8',
      repetition_type: 'REQUIRED',
    });
  });
});
