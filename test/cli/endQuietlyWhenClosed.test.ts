import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { endQuietlyWhenClosed } from '../../lib/cli/endQuietlyWhenClosed.ts';

class FakeStream extends EventEmitter {
  destroyed = false;
  written: string[] = [];
  write(chunk: string): boolean {
    this.written.push(chunk);
    return true;
  }
}

const errno = (code: string) => Object.assign(new Error(code), { code });

describe('endQuietlyWhenClosed', () => {
  it('takes EPIPE as "nobody reads any more": no throw, later writes dropped', () => {
    const stream = new FakeStream();
    const write = endQuietlyWhenClosed(stream);
    expect(write('a')).toBe(true);
    expect(() => stream.emit('error', errno('EPIPE'))).not.toThrow();
    stream.destroyed = true;
    expect(write('b')).toBe(false);
    expect(() => stream.emit('error', errno('ERR_STREAM_DESTROYED'))).not.toThrow();
    expect(stream.written).toEqual(['a']);
  });

  it('still throws any other stream error', () => {
    const stream = new FakeStream();
    endQuietlyWhenClosed(stream);
    expect(() => stream.emit('error', errno('EIO'))).toThrow('EIO');
  });

  it('guards a stream once, however often the io is built', () => {
    const stream = new FakeStream();
    endQuietlyWhenClosed(stream);
    endQuietlyWhenClosed(stream);
    expect(stream.listenerCount('error')).toBe(1);
  });

  it('without the guard, the same EPIPE is an unhandled error (the control)', () => {
    const stream = new FakeStream();
    expect(() => stream.emit('error', errno('EPIPE'))).toThrow('EPIPE');
  });
});
