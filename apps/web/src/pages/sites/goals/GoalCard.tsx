import { Card } from '../../../components/Card.tsx';
import { ChartTable } from '../../../components/charts/ChartTable.tsx';
import { type ChartLine, SeriesChart } from '../../../components/charts/SeriesChart.tsx';
import { formatCount, formatPeriod } from '../../../lib/format.ts';
import type { GoalResult } from './data.ts';
import { GoalFigures } from './GoalFigures.tsx';

/** One goal: its figures and its completions per day. */
export function GoalCard({ goal, from, to }: { goal: GoalResult; from: string; to: string }) {
  const days = goal.series.map((d) => d.day);
  const lines: ChartLine[] = [
    { key: 'completions', label: 'Completions', tone: 'primary', values: goal.series.map((d) => d.completions), previous: null },
  ];
  const what = goal.type === 'event' ? 'event' : 'page';
  return (
    <Card title={goal.name} aside={<code className="muted">{`${what} ${goal.match}`}</code>}>
      <div className="goal-card" data-goal={goal.id}>
        <GoalFigures goal={goal} />
        {goal.completions > 0 && (
          <>
            <SeriesChart
              name={`Completions of ${goal.name} per day, ${formatPeriod(from, to)}`}
              days={days}
              previousDays={null}
              lines={lines}
            />
            <ChartTable name={`Completions of ${goal.name} per day`} days={days} lines={lines} />
          </>
        )}
        {goal.completions === 0 && (
          <p className="site-none">No completions in this period. {formatCount(goal.visits ?? 0)} visits did not reach it.</p>
        )}
      </div>
    </Card>
  );
}
