import { describe, expect, it } from 'vitest';
import { propsOf, synthApp } from '../../devkit/infra/testApp.ts';
import { STATE_TABLE } from '../../lib/archive/state/stateTableSpec.ts';

const synth = synthApp();

describe('the state table of the stack', () => {
  it('is the table `tunnel-archiver run` creates when one is missing (STATE_TABLE)', () => {
    const table = propsOf(synth, synth.stack.table);
    expect(table.KeySchema).toEqual([{ AttributeName: STATE_TABLE.partitionKey, KeyType: 'HASH' }]);
    expect(table.AttributeDefinitions).toEqual([
      { AttributeName: STATE_TABLE.partitionKey, AttributeType: STATE_TABLE.partitionKeyType },
    ]);
    expect(table.BillingMode).toBe(STATE_TABLE.billingMode);
    expect(table.Replicas).toEqual([
      expect.objectContaining({
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: STATE_TABLE.pointInTimeRecovery },
        DeletionProtectionEnabled: STATE_TABLE.deletionProtection,
      }),
    ]);
  });
});
