import type { ChangeOrigin } from '@fleet-hours/core';

/** Who makes the CLI's changes (D55): the operator at the CLI, under no request. */
export const CLI_ORIGIN: ChangeOrigin = { actor: { kind: 'cli' }, requestId: null };
