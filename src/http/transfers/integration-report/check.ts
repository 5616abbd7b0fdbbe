import type { Evidence, Requirement, RequirementId, RequirementStatus, TrafficRequest, Webhooks } from './report-types';

/** Evidence kept per requirement (the newest of them). */
const MAX_EVIDENCE = 10;

/** What evidence points at: one of the partner's requests, or one of our webhook delivery attempts. */
export type Sighting = { requestId: string; at: Date };

/** What a check records about one request: it shows the requirement met, or broken. */
export interface Verdicts {
  pass: (r: Sighting, detail: string) => void;
  fail: (r: Sighting, detail: string) => void;
}

/**
 * One requirement of an integration: it looks for the situations it is about in the graded requests (oldest
 * first) and, when it needs them, the webhook deliveries to the partner, and records a verdict on each. `texts` word
 * the outcome; `{n}` stands for the number of verdicts. A check that `applies` only to some partners is reported
 * not seen with `texts.notApplicable` for the others.
 */
export interface Check {
  id: RequirementId;
  title: string;
  texts: { pass: string; fail: string; notSeen: string; notApplicable?: string };
  applies?(webhooks: Webhooks): boolean;
  judge(rows: TrafficRequest[], verdicts: Verdicts, webhooks: Webhooks): void;
}

/** Runs a check: failed if anything failed, else passed if anything passed, else not seen. */
export function runCheck(check: Check, rows: TrafficRequest[], webhooks: Webhooks): Requirement {
  const { texts } = check;
  if (check.applies && !check.applies(webhooks)) {
    return { id: check.id, title: check.title, status: 'not_seen', detail: texts.notApplicable ?? texts.notSeen, evidence: [] };
  }
  const failures: Evidence[] = [];
  const passes: Evidence[] = [];
  const evidence = (r: Sighting, detail: string): Evidence => ({ request_id: r.requestId, at: r.at.toISOString(), detail });
  check.judge(
    rows,
    {
      pass: (r, detail) => passes.push(evidence(r, detail)),
      fail: (r, detail) => failures.push(evidence(r, detail)),
    },
    webhooks,
  );
  const status: RequirementStatus = failures.length ? 'fail' : passes.length ? 'pass' : 'not_seen';
  const detail =
    status === 'fail'
      ? texts.fail.replace('{n}', String(failures.length))
      : status === 'pass'
        ? texts.pass.replace('{n}', String(passes.length))
        : texts.notSeen;
  return { id: check.id, title: check.title, status, detail, evidence: (failures.length ? failures : passes).slice(-MAX_EVIDENCE) };
}
