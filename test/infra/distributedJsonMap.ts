/**
 * A Distributed Map state as the fan-out and the verify job synthesize it: standard child executions, its
 * items read as JSON from the object its plan step names (`$.plan.itemsKey`), its results written under
 * `resultsPrefix`. What only AWS runs, so the template is where a test sees it.
 */
export function distributedJsonMap(resultsPrefix: string): Record<string, unknown> {
  return {
    Type: 'Map',
    ItemProcessor: { ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' } },
    ItemReader: {
      Resource: 'arn:aws:states:::s3:getObject',
      ReaderConfig: { InputType: 'JSON' },
      Parameters: { 'Key.$': '$.plan.itemsKey' },
    },
    ResultWriter: {
      Resource: 'arn:aws:states:::s3:putObject',
      Parameters: { Prefix: resultsPrefix },
    },
  };
}
