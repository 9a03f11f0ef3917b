/**
 * The Fleet Hours reference server and operator CLI `fleet-hours`: the composition root that puts
 * `@fleet-hours/http` on `@fleet-hours/storage-kysely` (PostgreSQL or embedded PGlite), plus
 * account, key and device administration, NDJSON/CSV imports and the demo fleet.
 *
 * What an embedder needs: {@link runCli} (the whole CLI in-process), {@link startServer} (the
 * server in your own process) and {@link openDatabase} (a database as the CLI opens it), with the
 * errors they throw; {@link readImportFile} reads an import file as the CLI does; {@link aempSourcePoller}
 * polls AEMP (ISO 15143-3) sources.
 *
 * @module
 */
export { runCli, type RunCliDependencies } from './run-cli.js';
export { processIo, type CliIo, type TextSink } from './cli/cli-io.js';
export { CommandError, EXIT_CODES, UsageError } from './cli/cli-errors.js';
export { startServer, type StartedServer, type StartServerOptions } from './server/start-server.js';
export type { ServerMetrics } from './server/server-metrics.js';
export { startWebhookSender, type WebhookAttemptEntry, type WebhookSender, type WebhookSenderOptions } from './webhooks/webhook-sender.js';
export type { RunningServer } from '@fleet-hours/http';
export { openDatabase, type DatabaseOpener, type OpenDatabaseOptions, type OpenedDatabase } from './database/open-database.js';
export type { DatabaseTarget } from './database/database-target.js';
export {
  ImportFileError,
  readImportFile,
  type ImportFileContents,
  type ImportFormat,
  type ImportProblem,
  type ReadImportFileInput,
} from './import/read-import-file.js';
export { mulberry32 } from './simulate/mulberry32.js';
export { aempPageReader, type AempAuth, type AempReaderOptions } from './aemp/aemp-page-reader.js';
export { aempSourcePoller, type AempSourcePollerOptions, type AempSourceSettings } from './aemp/aemp-source-poller.js';
