-- The log of a Handoff store. Identifiers, record types and payloads are bytea: they are
-- kept byte for byte as the store received them (the record hash covers those bytes)
-- and sort in byte order, as on every backend. Every uniqueness rule of the store is a
-- constraint of these tables, so it holds whatever the processes writing them do.

-- One row per workflow: its head and its state snapshot. The key is the workflow id
-- alone: an id belongs to one tenant, forever.
CREATE TABLE handoff_workflows (
    workflow      bytea  NOT NULL,
    tenant        bytea  NOT NULL,
    seq           bigint NOT NULL CHECK (seq >= 0),
    state_version bigint NOT NULL CHECK (state_version >= 0),
    hash          text   NOT NULL,
    snapshot      bytea,
    CONSTRAINT handoff_workflows_pkey PRIMARY KEY (workflow)
);
CREATE INDEX handoff_workflows_tenant ON handoff_workflows (tenant, workflow);

-- Workflow records. The key makes one seq of one workflow one record: of two writers
-- that computed the same next record, one commits and the other fails.
CREATE TABLE handoff_records (
    tenant    bytea  NOT NULL,
    workflow  bytea  NOT NULL,
    seq       bigint NOT NULL CHECK (seq > 0),
    time      text   NOT NULL,
    type      bytea  NOT NULL,
    payload   bytea  NOT NULL,
    prev_hash text   NOT NULL,
    hash      text   NOT NULL,
    CONSTRAINT handoff_records_pkey PRIMARY KEY (tenant, workflow, seq)
);

-- Idempotency keys, kept forever, each bound to the record that answers it.
CREATE TABLE handoff_idempotency (
    tenant   bytea  NOT NULL,
    key      bytea  NOT NULL,
    digest   bytea  NOT NULL,
    workflow bytea  NOT NULL,
    seq      bigint NOT NULL,
    hash     text   NOT NULL,
    CONSTRAINT handoff_idempotency_pkey PRIMARY KEY (tenant, key)
);

-- The security audit stream of each tenant and its head.
CREATE TABLE handoff_audit_heads (
    tenant bytea  NOT NULL,
    seq    bigint NOT NULL CHECK (seq > 0),
    hash   text   NOT NULL,
    CONSTRAINT handoff_audit_heads_pkey PRIMARY KEY (tenant)
);
CREATE TABLE handoff_audit (
    tenant    bytea  NOT NULL,
    seq       bigint NOT NULL CHECK (seq > 0),
    time      text   NOT NULL,
    type      bytea  NOT NULL,
    payload   bytea  NOT NULL,
    prev_hash text   NOT NULL,
    hash      text   NOT NULL,
    CONSTRAINT handoff_audit_pkey PRIMARY KEY (tenant, seq)
);

-- The record index: a record id (the engine's decision id) names one record of the
-- whole store. workflow is empty for a record of the audit stream.
CREATE TABLE handoff_record_ids (
    id       bytea  NOT NULL,
    tenant   bytea  NOT NULL,
    workflow bytea  NOT NULL,
    seq      bigint NOT NULL,
    hash     text   NOT NULL,
    CONSTRAINT handoff_record_ids_pkey PRIMARY KEY (id)
);
