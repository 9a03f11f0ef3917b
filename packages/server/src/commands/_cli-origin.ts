import type { ChangeOrigin } from '@fleet-hours/core';

/** Who makes a change from the CLI (D55): the operator, under no request. */
export const CLI_ORIGIN: ChangeOrigin = { actor: { kind: 'cli' }, requestId: null };
