import type { Plan } from '../domain/kernel/plan';
import type { HandlerResult } from './types';

type Commit = Pick<HandlerResult, 'write' | 'ifLost' | 'afterCommit' | 'dataKeys'>;

/**
 * A use case's plan as the operation's answer: `reply` says the outcome in the surface's words (status, body,
 * headers), and the plan's write, careful path and memory go with it for the pipeline to commit.
 */
export function planned<O, R extends Pick<HandlerResult, 'status'>>(plan: Plan<O>, reply: (outcome: O) => R): R & Commit {
  const answer: R & Commit = reply(plan.outcome);
  if (plan.write) answer.write = plan.write;
  const careful = plan.ifLost;
  if (careful) answer.ifLost = async () => planned(await careful(), reply);
  if (plan.afterCommit) answer.afterCommit = plan.afterCommit;
  if (plan.dataKeys) answer.dataKeys = plan.dataKeys;
  return answer;
}
