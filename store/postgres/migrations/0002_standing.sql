-- Each workflow's standing record: the seq of the last record of the last append that
-- named one (the engine names every decision that is not a block) and the tag it gave
-- it, kept in the head's row so that it is read with the head, whatever came after it.
-- NULL in a row written before: unknown until the engine, having found the record by
-- reading the log once, fills it in (SetStanding).
ALTER TABLE handoff_workflows
    ADD COLUMN standing_seq bigint CHECK (standing_seq >= 0),
    ADD COLUMN standing     bytea;

-- The record ids of a tenant, for verify's check of a tenant's ids against its records.
CREATE INDEX handoff_record_ids_tenant ON handoff_record_ids (tenant);
