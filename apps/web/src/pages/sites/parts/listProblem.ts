import { fieldMessage, type Problem } from '../../../problem.ts';

/**
 * A problem about one item of a list (`hostnames[2]`, `variants[0]`) re-aimed at the form field holding
 * the whole list, naming the item: "Line 3: …". Returns false so the form goes on to show it.
 */
export function aimAtList(p: Problem, list: string, itemLabel: (index: number) => string): false {
  const m = p.field ? /^([A-Za-z]+)\[(\d+)\]/.exec(p.field) : null;
  if (m && m[1] === list) {
    const message = fieldMessage(p);
    p.field = list;
    p.title = `${itemLabel(Number(m[2]))}: ${message}`;
  }
  return false;
}
