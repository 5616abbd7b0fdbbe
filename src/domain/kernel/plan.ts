import type { Write } from '../../data/write';

/**
 * What a use case decided, for the request pipeline to make true. A use case never commits: it returns its outcome
 * and how to commit it, and the pipeline (the only code that commits) runs the write with the request's audit row
 * in one statement, or commits the request's transaction with it, and only then answers.
 */
export interface Plan<Outcome> {
  outcome: Outcome;
  /** The write that makes the outcome true, committed with the audit row in one statement. */
  write?: Write;
  /**
   * The write is guarded and can lose a race (its guard found the row taken meanwhile, or a uniqueness was lost):
   * nothing of it counted, and this decides again, carefully, in the request's transaction.
   */
  ifLost?: () => Promise<Plan<Outcome>>;
  /** Once committed (never before, never otherwise): what this instance remembers of it. */
  afterCommit?: () => void;
  /**
   * Data keys for the subjects the write creates: the request's audit row seals with them, and the pipeline stores
   * those it sealed with in the write's statement (kernel/data-keys newSubjectKeys).
   */
  dataKeys?: ReadonlyMap<string, Buffer>;
}
