-- lease-gate's reference fence checker for PostgreSQL (docs/fencing.md).
--
-- A store that refuses any fence lower than the highest it has seen for the resource: a
-- holder paused past its lease (a stopped process, a long GC, a partitioned runner) wakes
-- with an old fence, and its late write is refused instead of overwriting the newer
-- holder's. Run this once in the schema your deploy writes to.

-- The highest fence seen per resource (a lease-gate resource name, e.g. lock:deploy/production).
CREATE TABLE IF NOT EXISTS lease_fence (
  resource text PRIMARY KEY,
  fence bigint NOT NULL CHECK (fence >= 0)
);

-- An update may keep the fence or raise it, never lower it.
CREATE OR REPLACE FUNCTION lease_fence_refuse_lower() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.fence < OLD.fence THEN
    RAISE EXCEPTION 'stale fence % for %: fence % was already seen', NEW.fence, NEW.resource, OLD.fence
      USING ERRCODE = 'check_violation', CONSTRAINT = 'lease_fence_monotonic';
  END IF;
  RETURN NEW;
END $$;

DROP TRIGGER IF EXISTS lease_fence_monotonic ON lease_fence;
CREATE TRIGGER lease_fence_monotonic BEFORE UPDATE ON lease_fence
  FOR EACH ROW EXECUTE FUNCTION lease_fence_refuse_lower();

-- Call first in every transaction that reads or writes what the lease protects:
--   BEGIN;
--   SELECT lease_fence_check('lock:deploy/production', $1);  -- $1: LEASE_GATE_FENCE
--   UPDATE releases SET ...;
--   COMMIT;
-- It raises check_violation (SQLSTATE 23514) for a fence below the highest seen, and holds
-- the resource's row until COMMIT, so the check and the writes after it are one step: no
-- newer holder's transaction can pass in between.
CREATE OR REPLACE FUNCTION lease_fence_check(p_resource text, p_fence bigint) RETURNS void
LANGUAGE sql AS $$
  -- The update fires lease_fence_monotonic, which refuses a lower fence.
  INSERT INTO lease_fence (resource, fence) VALUES (p_resource, p_fence)
  ON CONFLICT (resource) DO UPDATE SET fence = EXCLUDED.fence;
$$;
