import { describe, expect, it } from 'vitest';
import { lakeConfig, withExternalIds } from '../../../functions/security-lake-export/lakeConfig.ts';
import { loadConfig } from '../../../lib/archive/config/loadConfig.ts';

const SOURCE = {
  cls: 'findings',
  bucket: 'aws-security-data-lake-eu-west-1-abcdef',
  prefix: 'ext/tunnel-archiver-findings/',
  roleArn: 'arn:aws:iam::123456789012:role/AmazonSecurityLake-Provider-findings',
  externalIdSecret: 'tunnel-archiver/lake-external-id-findings',
};

describe('lakeConfig', () => {
  it("takes the sources and the spec's settings from the parsed config", () => {
    const config = loadConfig({
      env: { SECURITY_LAKE_SOURCES: JSON.stringify([SOURCE]), SECURITY_LAKE_SETTLE_HOURS: '2' },
    });
    expect(lakeConfig(config)).toEqual({
      sources: [
        {
          cls: 'findings',
          location: { bucket: SOURCE.bucket, prefix: SOURCE.prefix },
          roleArn: SOURCE.roleArn,
          externalIdSecret: SOURCE.externalIdSecret,
        },
      ],
      settleHours: 2,
      maxHours: 48,
      lookbackDays: 7,
    });
  });

  it.each([
    [undefined, /Set SECURITY_LAKE_SOURCES/],
    ['[]', /SECURITY_LAKE_SOURCES/],
    [JSON.stringify([{ ...SOURCE, prefix: 'tunnels/' }]), /SECURITY_LAKE_SOURCES: .*ext\/<source name>/s],
    [JSON.stringify([SOURCE, SOURCE]), /one source per class/],
  ])('refuses SECURITY_LAKE_SOURCES %s with CONFIG_INVALID', (sources, message) => {
    const config = loadConfig({ env: sources === undefined ? {} : { SECURITY_LAKE_SOURCES: sources } });
    expect(() => lakeConfig(config)).toThrow(message);
    expect(() => lakeConfig(config)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });
});

describe('lakeConfig, the roles and the external ids', () => {
  it.each([
    ['role/*', /SECURITY_LAKE_SOURCES: .*roleArn/s],
    ['role/AmazonSecurityLake-?', /SECURITY_LAKE_SOURCES: .*roleArn/s],
  ])('refuses a provider role %s: one role ARN, no wildcard', (role, message) => {
    const config = loadConfig({
      env: {
        SECURITY_LAKE_SOURCES: JSON.stringify([{ ...SOURCE, roleArn: `arn:aws:iam::123456789012:${role}` }]),
      },
    });
    expect(() => lakeConfig(config)).toThrow(message);
  });

  it('refuses an external id given in plain text, saying to put it in a secret', () => {
    const config = loadConfig({
      env: { SECURITY_LAKE_SOURCES: JSON.stringify([{ ...SOURCE, externalId: 'ext-findings' }]) },
    });
    expect(() => lakeConfig(config)).toThrow(/externalIdSecret/);
  });

  it('reads each external id from its secret, once', async () => {
    const config = lakeConfig(loadConfig({ env: { SECURITY_LAKE_SOURCES: JSON.stringify([SOURCE]) } }));
    const asked: string[] = [];
    const lake = await withExternalIds(config, async (id) => {
      asked.push(id);
      return ' ext-findings\n';
    });
    expect(asked).toEqual([SOURCE.externalIdSecret]);
    expect(lake.sources[0]).toMatchObject({ roleArn: SOURCE.roleArn, externalId: 'ext-findings' });
    expect(lake.sources[0]).not.toHaveProperty('externalIdSecret');
  });

  it.each([[undefined], [''], [' ']])(
    'refuses a secret that holds %j, naming the secret, not a value',
    async (value) => {
      const config = lakeConfig(loadConfig({ env: { SECURITY_LAKE_SOURCES: JSON.stringify([SOURCE]) } }));
      await expect(withExternalIds(config, async () => value)).rejects.toThrow(
        expect.objectContaining({
          code: 'CONFIG_INVALID',
          message: expect.stringContaining(SOURCE.externalIdSecret),
        }),
      );
    },
  );
});
