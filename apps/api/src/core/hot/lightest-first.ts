/**
 * Members by weight, the lightest first: a binary min-heap with each member's place, so a weight can change
 * and a member can leave in O(log n). The in-process store's bounded families (`HotStore.boundedUpdate`)
 * keep their members in one, to find the one to let go at once, however many there are.
 */
export class LightestFirst {
  private readonly heap: { member: string; weight: number }[] = [];
  private readonly place = new Map<string, number>();

  get size(): number {
    return this.heap.length;
  }

  has(member: string): boolean {
    return this.place.has(member);
  }

  /** Adds the member, or gives it its new weight. */
  set(member: string, weight: number): void {
    const i = this.place.get(member);
    if (i === undefined) {
      this.heap.push({ member, weight });
      this.place.set(member, this.heap.length - 1);
      this.up(this.heap.length - 1);
      return;
    }
    const node = this.heap[i] as { member: string; weight: number };
    const before = node.weight;
    node.weight = weight;
    if (weight < before) this.up(i);
    else this.down(i);
  }

  /** Takes the lightest member out and answers it (undefined when empty). */
  popLightest(): string | undefined {
    const first = this.heap[0];
    if (!first) return undefined;
    this.removeAt(0);
    return first.member;
  }

  delete(member: string): void {
    const i = this.place.get(member);
    if (i !== undefined) this.removeAt(i);
  }

  private removeAt(i: number): void {
    this.place.delete((this.heap[i] as { member: string }).member);
    const last = this.heap.pop() as { member: string; weight: number };
    // It was the last one: nothing to move into its place.
    if (i === this.heap.length) return;
    this.heap[i] = last;
    this.place.set(last.member, i);
    this.up(i);
    this.down(i);
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.weightAt(parent) <= this.weightAt(i)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let least = i;
      if (l < this.heap.length && this.weightAt(l) < this.weightAt(least)) least = l;
      if (r < this.heap.length && this.weightAt(r) < this.weightAt(least)) least = r;
      if (least === i) return;
      this.swap(i, least);
      i = least;
    }
  }

  private weightAt(i: number): number {
    return (this.heap[i] as { weight: number }).weight;
  }

  private swap(a: number, b: number): void {
    const x = this.heap[a] as { member: string; weight: number };
    const y = this.heap[b] as { member: string; weight: number };
    this.heap[a] = y;
    this.heap[b] = x;
    this.place.set(y.member, a);
    this.place.set(x.member, b);
  }
}
