// What every import format (Plausible, Umami, Google Analytics 4) gives the import job: a check of each
// file's name and header, then its records turned into rows in the daily rollup format
// (analytics/catalogue.ts). The job owns files, batching, checkpoints and storage; a format owns only
// the meaning of its columns.

export type ImportSource = 'plausible' | 'umami' | 'ga4';

/** One imported figure in the rollup format: lane `human`; dimension '' and value '' is the day's total. */
export interface ImportedRow {
  /** The site-local day, `YYYY-MM-DD`. */
  day: string;
  metricSet: string;
  dimension: string;
  value: string;
  /** The set's primary count (pageviews, sessions, events), or a summed measure (catalogue: SUMMED_COUNTS, SUMMARY_ROLLUP_MEASURES). */
  count: number;
  /** Visitors that day for that value (0 where the figure has none). */
  visitors: number;
}

/**
 * A figure counted from raw records (Umami's events): one record's part, the job adds `count` per key
 * and counts distinct `visitKey`s per key as its visitors, for the whole file set, before storing.
 */
export interface StagedRecord {
  day: string;
  metricSet: string;
  dimension: string;
  value: string;
  /** Whose visit it was (Umami's session id): distinct ones per day and value are the visitors. */
  visitKey: string;
  count: number;
}

/** Where a format puts what it read. Rows of one day and key from several records or files are summed. */
export interface ImportSink {
  rows(rows: ImportedRow[]): Promise<void>;
  staged(records: StagedRecord[]): Promise<void>;
  /** One bad record: only that record is lost; `line` is the file's line (1 = the header). */
  bad(line: number, reason: string): void;
}

/** A CSV record with its line in the file. */
export interface NumberedRecord {
  line: number;
  record: Record<string, string>;
}

export interface ImportFormat {
  source: ImportSource;
  /**
   * Null when the file is one this format reads, else what is wrong, for the person who uploaded it: the
   * file names or columns expected. `header`: the first record's column names (after any comment lines).
   */
  check(fileName: string, header: string[]): string | null;
  /**
   * The format gives some records' figures only later (Umami: a visit's, once its file is read) and only
   * through `staged`: a run stopped inside one of its files drops that file's staged records and reads it
   * again from its start, instead of resuming after the last stored line.
   */
  holdsRecords?: boolean;
  /** Comment lines before the header (GA4's `#` lines) are skipped by the job when this says so. */
  commentPrefix?: string;
  /**
   * Give each record's figures to the sink (awaiting `rows` / `staged`) before asking for the next record:
   * the job cuts a batch, and checkpoints, when the next record is asked for.
   */
  read(fileName: string, records: AsyncIterable<NumberedRecord>, sink: ImportSink): Promise<void>;
}
