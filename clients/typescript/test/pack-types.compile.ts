// The per-pack types refuse what the pack's contract refuses, at compile time. tsc is the
// test (npm test and npm run check compile test/): every `@ts-expect-error` below must
// meet an error, or the build fails with "Unused '@ts-expect-error' directive"; every
// other line must compile.
import type * as campaign from "../src/packs/campaign.js";
import type * as support from "../src/packs/support.js";
import type * as packs from "../src/packs/index.js";

const hash = `sha256:${"0".repeat(64)}`;

// support: a handoff that delivers a CLASSIFICATION, and its content alone.

const classification = {
  intent: "order_status",
  confidence: 0.92,
  order_ref: "ORD-1001",
} satisfies support.Content<"CLASSIFICATION">;

const classify = {
  kind: "handoff",
  request_id: "wf-1:classify",
  tenant_id: "acme",
  actor: { type: "agent", id: "intake_classifier" },
  source_agent: "intake_classifier",
  target_agent: "supervisor",
  task_type: "classify_request",
  task_id: "T1",
  sender: "intake_classifier",
  recipient: "supervisor",
  objective: "Classify the customer's request",
  input_artifacts: [{ id: "case", type: "CASE", version: 1, hash }],
  input_refs: ["CASE"],
  required_output: { intent: "string", confidence: "number" },
  state_version: 1,
  authorization_context: { status: "not_required" },
  completion_criteria: ["intent chosen"],
  usage: { cost_micros: 0, model_calls: 1, tool_calls: 0 },
  output: { id: "classification", type: "CLASSIFICATION", version: 1, content: classification },
  assumptions: [],
  limitations: [],
  confidence_score: 0.92,
} satisfies support.HandoffRequest;

export const supportRequests: support.Request[] = [
  classify,
  { kind: "review", request_id: "wf-1:review", tenant_id: "acme", actor: { type: "agent", id: "qa" }, verdict: "ACCEPT", artifacts: [{ id: "draft", type: "RESPONSE_DRAFT", version: 1, hash }] },
  // @ts-expect-error an unknown field of a request
  { kind: "review", request_id: "wf-1:review", tenant_id: "acme", actor: { type: "agent", id: "qa" }, verdict: "ACCEPT", artifacts: [], grade: "A" },
  // @ts-expect-error a verdict the contract does not have
  { kind: "review", request_id: "wf-1:review", tenant_id: "acme", actor: { type: "agent", id: "qa" }, verdict: "MAYBE", artifacts: [] },
  // @ts-expect-error a review without its verdict
  { kind: "review", request_id: "wf-1:review", tenant_id: "acme", actor: { type: "agent", id: "qa" }, artifacts: [] },
  // @ts-expect-error a kind the pack does not have
  { kind: "escalate", request_id: "wf-1:x", tenant_id: "acme", actor: { type: "agent", id: "qa" } },
];

export const supportContents: support.Content<"CLASSIFICATION">[] = [
  // @ts-expect-error confidence is a number
  { intent: "faq", confidence: "high" } satisfies support.Content<"CLASSIFICATION">,
  // @ts-expect-error an intent the contract does not have
  { intent: "chit_chat", confidence: 0.5 } satisfies support.Content<"CLASSIFICATION">,
  // @ts-expect-error a CLASSIFICATION without its confidence
  { intent: "faq" } satisfies support.Content<"CLASSIFICATION">,
  // @ts-expect-error a field CLASSIFICATION does not have
  { intent: "faq", confidence: 0.5, mood: "calm" } satisfies support.Content<"CLASSIFICATION">,
];

export const supportHandoffs: support.HandoffRequest[] = [
  // @ts-expect-error the content of the output's type, CLASSIFICATION, has a number for confidence
  { ...classify, output: { id: "classification", type: "CLASSIFICATION", version: 1, content: { intent: "faq", confidence: "high" } } },
  // @ts-expect-error a field CLASSIFICATION's content does not have, in a handoff's output
  { ...classify, output: { id: "classification", type: "CLASSIFICATION", version: 1, content: { ...classification, mood: "calm" } } },
  // @ts-expect-error the content of another artifact type than the output's
  { ...classify, output: { id: "classification", type: "CLASSIFICATION", version: 1, content: { kind: "faq", message: "Hello", channel: "chat", draft: { id: "d", type: "RESPONSE_DRAFT", version: 1, hash } } } },
  // @ts-expect-error an output type the pack does not have
  { ...classify, output: { id: "x", type: "HOROSCOPE", version: 1, content: {} } },
  // @ts-expect-error a handoff without its objective
  (({ objective: _, ...rest }) => rest)(classify),
];

// campaign: an approval, and the APPROVAL_RECORD it records.

export const approve: campaign.RequestOf<"approval"> = {
  kind: "approval",
  request_id: "wf-2:approve",
  tenant_id: "acme",
  actor: { type: "human", id: "maria", roles: ["campaign_approver"] },
  decision: "APPROVE",
  stage: "STRATEGY_APPROVAL",
  artifacts: [{ id: "strategy", type: "STRATEGY_BRIEF", version: 1, hash }],
};

export const campaignRequests: campaign.Request[] = [
  approve,
  // @ts-expect-error an unknown field of a request
  { ...approve, urgency: "high" },
  // @ts-expect-error a decision the contract does not have
  { ...approve, decision: "MAYBE" },
  // @ts-expect-error an approval without its decision
  { kind: "approval", request_id: "wf-2:approve", tenant_id: "acme", actor: { type: "human", id: "maria" } },
];

export const approvalRecord: campaign.Content<"APPROVAL_RECORD"> = {
  approver: "maria",
  artifacts: [{ id: "strategy", type: "STRATEGY_BRIEF", version: 1, hash }],
  decided_at: "2026-12-05T10:00:00Z",
  decision: "APPROVE",
  revise: [],
  roles: ["campaign_approver"],
  stage: "STRATEGY_APPROVAL",
};

export const campaignContents: campaign.Content<"APPROVAL_RECORD">[] = [
  // @ts-expect-error roles is a list of ids
  { ...approvalRecord, roles: "campaign_approver" },
  // @ts-expect-error a stage the contract does not have
  { ...approvalRecord, stage: "LEGAL_APPROVAL" },
  // @ts-expect-error an APPROVAL_RECORD without its approver
  { artifacts: [], decided_at: "2026-12-05T10:00:00Z", decision: "APPROVE", revise: [], roles: [], stage: "STRATEGY_APPROVAL" },
];

// @ts-expect-error an artifact type campaign does not have
export type NoSuchContent = campaign.Content<"CUSTOMER_RESPONSE">;

// The same types through the index of all packs.
export const fromIndex: packs.support.Content<"CUSTOMER_RESPONSE">["channel"] = "email";
// @ts-expect-error a channel the contract does not have
export const wrongFromIndex: packs.support.Content<"CUSTOMER_RESPONSE">["channel"] = "pigeon";
