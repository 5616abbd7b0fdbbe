import type { Evidence, Requirement, RequirementId, RequirementStatus, TrafficRequest } from './report-types';

/** Evidence kept per requirement (the newest of them). */
const MAX_EVIDENCE = 10;

/** What a check records about one request: it shows the requirement met, or broken. */
export interface Verdicts {
  pass: (r: TrafficRequest, detail: string) => void;
  fail: (r: TrafficRequest, detail: string) => void;
}

/**
 * One requirement of an integration: it looks for the situations it is about in the graded requests (oldest
 * first) and records a verdict on each. `texts` word the outcome; `{n}` stands for the number of verdicts.
 */
export interface Check {
  id: RequirementId;
  title: string;
  texts: { pass: string; fail: string; notSeen: string };
  judge(rows: TrafficRequest[], verdicts: Verdicts): void;
}

/** Runs a check: failed if anything failed, else passed if anything passed, else not seen. */
export function runCheck(check: Check, rows: TrafficRequest[]): Requirement {
  const failures: Evidence[] = [];
  const passes: Evidence[] = [];
  const evidence = (r: TrafficRequest, detail: string): Evidence => ({ request_id: r.requestId, at: r.at.toISOString(), detail });
  check.judge(rows, {
    pass: (r, detail) => passes.push(evidence(r, detail)),
    fail: (r, detail) => failures.push(evidence(r, detail)),
  });
  const status: RequirementStatus = failures.length ? 'fail' : passes.length ? 'pass' : 'not_seen';
  const { texts } = check;
  const detail =
    status === 'fail'
      ? texts.fail.replace('{n}', String(failures.length))
      : status === 'pass'
        ? texts.pass.replace('{n}', String(passes.length))
        : texts.notSeen;
  return { id: check.id, title: check.title, status, detail, evidence: (failures.length ? failures : passes).slice(-MAX_EVIDENCE) };
}
