-- Each workflow's summary, for the lists of a tenant's workflows: the bytes the engine
-- gave with its last append (the store does not read them), the head seq they were
-- written at, and the time of that append as a sort key (store.ActiveKey: 12 bytes, the
-- latest first in byte order, to the nanosecond). A summary whose summary_seq is not the
-- row's seq is not the head's: NULL in a row written before, until the engine gives it
-- one (SetSummary).
ALTER TABLE handoff_workflows
    ADD COLUMN summary     bytea,
    ADD COLUMN summary_seq bigint CHECK (summary_seq > 0),
    ADD COLUMN active_key  bytea CHECK (length(active_key) = 12);

-- A tenant's workflows, the latest activity first, ties by workflow id: a page is one
-- range of this index from its cursor, whatever the number of workflows before it.
CREATE INDEX handoff_workflows_active ON handoff_workflows (tenant, active_key, workflow)
    WHERE active_key IS NOT NULL;

-- The workflows still to summarize: empty once they all are, so that looking costs
-- nothing.
CREATE INDEX handoff_workflows_unsummarized ON handoff_workflows (tenant, workflow)
    WHERE summary IS NULL OR summary_seq IS DISTINCT FROM seq;
