import { describe, expect, it } from 'vitest';
import { lakeConfig } from '../../../functions/security-lake-export/lakeConfig.ts';
import { loadConfig } from '../../../lib/config/loadConfig.ts';

const SOURCE = {
  cls: 'findings',
  bucket: 'aws-security-data-lake-eu-west-1-abcdef',
  prefix: 'ext/tunnel-archiver-findings/',
  roleArn: 'arn:aws:iam::123456789012:role/AmazonSecurityLake-Provider-findings',
  externalId: 'ext-findings',
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
          externalId: SOURCE.externalId,
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
