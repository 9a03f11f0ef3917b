import { CompiledQuery, type DatabaseConnection, type Driver, type TransactionSettings } from 'kysely';

/**
 * What the drivers of this package share: savepoints are plain SQL on the connection that holds
 * the transaction, and `BEGIN`'s modes are spelled the same for every PostgreSQL. A driver brings
 * how it connects, begins, ends and releases.
 */
export abstract class PostgresDriverBase implements Driver {
  abstract init(): Promise<void>;
  abstract acquireConnection(): Promise<DatabaseConnection>;
  abstract beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void>;
  abstract commitTransaction(connection: DatabaseConnection): Promise<void>;
  abstract rollbackTransaction(connection: DatabaseConnection): Promise<void>;
  abstract releaseConnection(connection: DatabaseConnection): Promise<void>;
  abstract destroy(): Promise<void>;

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${_identifier(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to savepoint ${_identifier(name)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release savepoint ${_identifier(name)}`));
  }
}

/** The modes of a `BEGIN`, e.g. `isolation level serializable read only`; empty for the defaults. */
export function transactionModes(settings: TransactionSettings): string {
  const modes: string[] = [];
  if (settings.isolationLevel) modes.push(`isolation level ${settings.isolationLevel}`);
  if (settings.accessMode) modes.push(settings.accessMode);
  return modes.join(' ');
}

function _identifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
