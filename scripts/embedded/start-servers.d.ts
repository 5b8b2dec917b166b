export interface EmbeddedServersOptions {
  /** Where their data is kept: postgres/ and redis/ inside it. */
  dataDir: string;
  postgres: boolean;
  redis: boolean;
  /** Kept across starts (npm start), or removed at stop (npm test). */
  persistent: boolean;
}

export interface EmbeddedServers {
  databaseUrl?: string;
  redisUrl?: string;
  /** The host process's pid. */
  pid: number;
  stop(): Promise<void>;
}

export function startEmbeddedServers(options: EmbeddedServersOptions): Promise<EmbeddedServers>;

/** A start that failed for a reason its message says in words. */
export class EmbeddedServersError extends Error {}
