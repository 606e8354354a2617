import { describe, expect, it } from 'vitest';
import { API_NODE_FLAGS, missingNodeFlags } from '../../src/core/node-flags.ts';

describe('the API process flags', () => {
  it('lists the memory reducer off (its watchdog collection paused the API 70–94 ms under steady load)', () => {
    expect(API_NODE_FLAGS).toContain('--no-memory-reducer');
  });

  it('names the flags a process was started without, in either spelling V8 takes', () => {
    expect(missingNodeFlags(['--import', 'tsx'])).toEqual(['--no-memory-reducer']);
    expect(missingNodeFlags(['--memory-reducer', '--import', 'tsx'])).toEqual(['--no-memory-reducer']);
    expect(missingNodeFlags(['--no-memory-reducer', '--import', 'tsx'])).toEqual([]);
    expect(missingNodeFlags(['--no_memory_reducer'])).toEqual([]);
  });
});
