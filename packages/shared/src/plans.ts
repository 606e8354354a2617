/** Plan allowances (spec §8). null = unlimited. */
export const PLANS = ['Free', 'Starter', 'Growth', 'Business'] as const;
export type Plan = (typeof PLANS)[number];

/** A workspace's plan as stored; an unknown or missing value is treated as Free (the smallest allowances). */
export function planOf(stored: string | null | undefined): Plan {
  return (PLANS as readonly string[]).includes(stored ?? '') ? (stored as Plan) : 'Free';
}

export interface PlanLimits {
  sites: number | null;
  members: number | null;
  proxyHostnames: number | null;
  humanPageviewsPerMonth: number;
  serverRequestsPerMonth: number;
}

export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  Free: { sites: 5, members: 2, proxyHostnames: 1, humanPageviewsPerMonth: 100_000, serverRequestsPerMonth: 1_000_000 },
  Starter: { sites: 20, members: 5, proxyHostnames: 3, humanPageviewsPerMonth: 250_000, serverRequestsPerMonth: 5_000_000 },
  Growth: { sites: null, members: 15, proxyHostnames: 10, humanPageviewsPerMonth: 1_000_000, serverRequestsPerMonth: 20_000_000 },
  Business: {
    sites: null,
    members: null,
    proxyHostnames: 50,
    humanPageviewsPerMonth: 5_000_000,
    serverRequestsPerMonth: 75_000_000,
  },
};
