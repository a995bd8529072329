/** Its own module so mappings.ts and policy.ts both read it without importing each other. */

/** The claims of GitHub's tokens a rule may test; anything else is a typo, refused at start. */
export const POLICY_CLAIMS = [
  'sub',
  'repository',
  'repository_owner',
  'repository_id',
  'repository_owner_id',
  'repository_visibility',
  'ref',
  'ref_type',
  'ref_protected',
  'environment',
  'job_workflow_ref',
  'workflow_ref',
  'workflow',
  'event_name',
  'actor',
  'actor_id',
  'runner_environment',
  'base_ref',
  'head_ref',
] as const;
