import { describe, expect, it } from 'vitest';
import { type Annotation, allAnnotations } from '../src/pages/sites/dashboard/notes/data.ts';

const note = (n: number) => ({ id: `a${n}`, day: '2026-11-01', text: `note ${n}` }) as unknown as Annotation;

describe('the annotations the chart marks', () => {
  // The defect: the dashboard asked for one page of 500, and a site may keep 1,000: the oldest went missing.
  it('follows next through every page, in order', async () => {
    const asked: (string | null)[] = [];
    const pages: Record<string, { annotations: Annotation[]; next: string | null }> = {
      first: { annotations: [note(1), note(2)], next: 'c2' },
      c2: { annotations: [note(3)], next: 'c3' },
      c3: { annotations: [note(4)], next: null },
    };
    const all = await allAnnotations(async (cursor) => {
      asked.push(cursor);
      return pages[cursor ?? 'first'] as (typeof pages)[string];
    });
    expect(all.annotations.map((a) => a.id)).toEqual(['a1', 'a2', 'a3', 'a4']);
    expect(asked).toEqual([null, 'c2', 'c3']);
  });

  it('stops after 20 pages when the listing never ends', async () => {
    let asked = 0;
    const all = await allAnnotations(async () => ({ annotations: [note(++asked)], next: 'again' }));
    expect(asked).toBe(20);
    expect(all.annotations).toHaveLength(20);
  });
});
