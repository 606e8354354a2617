// Compile-time check (packages/edge `npm run typecheck`): the SDK's own record and batch types, written out so
// its published declarations stand alone, say exactly what the service's collect schema accepts.
import type { RequestBatch as SchemaBatch, RequestRecord as SchemaRecord } from '../../shared/src/schemas/collect.ts';
import type { RequestBatch, RequestRecord } from '../src/records.ts';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

export const recordMatchesSchema: Same<RequestRecord, SchemaRecord> & Same<Required<RequestRecord>, Required<SchemaRecord>> =
  true;
export const batchMatchesSchema: Same<RequestBatch, SchemaBatch> = true;
