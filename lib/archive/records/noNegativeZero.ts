/**
 * An integer as the archive stores it: JSON may write zero as `-0`, which `JSON.parse` keeps as negative
 * zero, a value no Parquet integer holds (it reads back as 0). Every other number is returned as it is.
 */
export function noNegativeZero(n: number): number {
  return n === 0 ? 0 : n;
}
