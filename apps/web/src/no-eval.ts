import { z } from 'zod';

// zod compiles its object parsers with `new Function` when it may. The dashboard's CSP forbids eval, and
// even zod's one probe for it would be reported as a violation: tell it not to try. main.tsx imports
// this first, before any schema is used.
z.config({ jitless: true });
