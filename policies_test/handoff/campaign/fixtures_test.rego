# Fixtures for the campaign pack tests: realistic artifact contents (a cold brew launch),
# versions and workflow snapshots for every stage, and one valid request for every step
# of the flow. Each test takes a fixture, changes one thing and checks the decision. The
# pack's tables are the real exported ones (data.handoff.campaign.contract).
package handoff.campaign_test

import data.handoff.campaign

now := "2026-04-01T10:00:00.000Z"

limitation := "Survey covers EU markets only"

hash(s) := sprintf("sha256:%s", [crypto.sha256(s)])

ids := {
	"RESEARCH_BRIEF": "research-brief",
	"STRATEGY_BRIEF": "strategy-brief",
	"COPY_PACKAGE": "copy-package",
	"VISUAL_PACKAGE": "visual-package",
	"QA_REPORT": "qa-report",
	"APPROVAL_RECORD": "approval-record",
	"CLIENT_PACKAGE": "client-package",
}

ref(type, n) := {"id": ids[type], "type": type, "version": n, "hash": hash(sprintf("%s@%d", [type, n]))}

# --- contents ------------------------------------------------------------------------

research := {
	"business_objective": "Grow Brightbrew trial sign-ups among remote workers by 20% in Q2",
	"target_audience_evidence": [{"finding": "62% of surveyed remote workers drink coffee at home before 10am", "sources": ["src-survey"]}],
	"competitor_observations": [{"finding": "Two competitors advertise subscription discounts of 15%", "sources": ["src-competitors"]}],
	"market_findings": [{"finding": "Ready-to-drink cold brew sales grew 18% year over year", "sources": ["src-market"]}],
	"source_references": [
		{"id": "src-survey", "title": "Remote work coffee habits survey 2026"},
		{"id": "src-competitors", "title": "Competitor ad audit, March 2026"},
		{"id": "src-market", "title": "Ready-to-drink coffee market report 2026"},
	],
	"known_unknowns": ["Price sensitivity above 4 EUR per bottle"],
	"unsupported_assumptions": [{"statement": "Remote workers prefer home delivery", "label": "UNVERIFIED"}],
	"claims": [
		{"id": "C-1", "statement": "Most remote workers start the day with coffee at home", "major": true, "sources": ["src-survey"]},
		{"id": "C-2", "statement": "Cold brew is the fastest-growing coffee format", "major": true, "sources": ["src-market"]},
		{"id": "C-3", "statement": "Competitors compete on subscription discounts", "major": false, "sources": ["src-competitors"]},
	],
	"contradictions": [{"description": "One panel reports lower at-home coffee consumption in summer", "claims": ["C-1"]}],
	"research_log": ["Reviewed 14 sources; 3 retained"],
}

# with_claim replaces claim i of the research.
with_claim(i, claim) := json.patch(research, [{"op": "replace", "path": sprintf("/claims/%d", [i]), "value": claim}])

strategy := {
	"campaign_objective": "Grow Brightbrew trial sign-ups among remote workers by 20% in Q2",
	"target_audience": "Remote workers aged 25-40 in the EU who make coffee at home",
	"core_proposition": "Cafe-quality cold brew at your desk, without the commute",
	"offer": "First box of six bottles at 30% off",
	"messaging_hierarchy": ["Cafe quality at home", "No commute needed", "30% off the first box"],
	"approved_claims": [
		{"id": "AC-1", "statement": "Most remote workers start the day with coffee at home", "research_claim": "C-1"},
		{"id": "AC-2", "statement": "Cold brew is the fastest-growing coffee format", "research_claim": "C-2"},
	],
	"cta": "Start your trial box",
	"restrictions": ["No health claims", "Brightbrew blue palette only"],
	"product": {"name": "Brightbrew Cold Brew", "description": "Ready-to-drink cold brew in 250 ml bottles"},
	"required_deliverables": {"copy": ["email", "social"], "visual": ["instagram_square", "web_banner"]},
	"assumptions": [{"statement": "A 30% discount triggers a first order", "label": "UNVERIFIED"}],
	"selected_supporting_research": ["62% of surveyed remote workers drink coffee at home before 10am"],
	"rejected_alternatives": ["Office delivery partnership"],
}

copy := {
	"target_audience": "Remote workers aged 25-40 in the EU who make coffee at home",
	"offer": "First box of six bottles at 30% off",
	"campaign_promise": "Cafe-quality cold brew at your desk, without the commute",
	"cta": "Start your trial box",
	"claims_used": [{"id": "AC-1", "statement": "Most remote workers start the day with coffee at home"}],
	"deliverables": [
		{"id": "email-1", "channel": "email", "headline": "Your cafe, minus the commute", "body": "Most remote workers start the day with coffee at home. 30% off your first box.", "cta": "Start your trial box"},
		{"id": "social-1", "channel": "social", "body": "Cafe-quality cold brew at your desk. 30% off your first box.", "cta": "Start your trial box"},
	],
}

visual := {
	"target_audience": "Remote workers aged 25-40 in the EU who make coffee at home",
	"core_proposition": "Cafe-quality cold brew at your desk, without the commute",
	"product": "Brightbrew Cold Brew",
	"creative_direction": "Bright home office in morning light, Brightbrew blue palette",
	"prompts": [
		{"id": "v-1", "format": "instagram_square", "prompt": "A remote worker at a sunny desk holding a Brightbrew Cold Brew bottle", "aspect_ratio": "1:1"},
		{"id": "v-2", "format": "web_banner", "prompt": "Wide shot of a home office desk with a Brightbrew Cold Brew bottle", "aspect_ratio": "16:9"},
	],
}

validation_report := {
	"scope": "research_validation", "verdict": "ACCEPT", "result": "pass",
	"reviewed": [ref("RESEARCH_BRIEF", 1)], "defects": [], "gates": [], "policy_findings": [],
}

production_report := {
	"scope": "production", "verdict": "ACCEPT", "result": "pass",
	"reviewed": [ref("COPY_PACKAGE", 1), ref("VISUAL_PACKAGE", 1)], "defects": [], "gates": [], "policy_findings": [],
}

client_package := {
	"recipient": "Brightbrew marketing team",
	"copy": copy.deliverables,
	"visual_prompts": visual.prompts,
}

approval_content(stage, decision, refs) := {
	"stage": stage, "decision": decision, "approver": "maria.lopez", "roles": ["campaign_approver"],
	"artifacts": refs, "revise": [], "decided_at": now,
}

# --- state ---------------------------------------------------------------------------

version(type, n, status, producer, content, based_on) := {
	"ref": ref(type, n), "status": status, "producer": producer, "based_on": based_on,
	"assumptions": [], "limitations": [limitation], "content": content, "recorded_at": now,
}

history(type, versions) := {
	"id": ids[type],
	"latest": max({v.ref.version | some v in versions}),
	"approved": max({0} | {v.ref.version | some v in versions; v.status in {"approved", "final"}}),
	"versions": {format_int(v.ref.version, 10): v | some v in versions},
}

state(status, artifacts) := {
	"workflow_id": "wf-brightbrew", "tenant_id": "acme", "organization_id": "acme-marketing",
	"pack": "campaign", "subject_id": "brightbrew-q2-launch", "status": status, "terminal": false,
	"state_version": 7, "created_at": now, "updated_at": now,
	"artifacts": artifacts, "counters": {}, "edges": {}, "input_hashes": {}, "recent_edges": [],
	"stage_handoffs": {}, "conflicts": {}, "open_conflicts": 0, "approvals": {}, "defects": {}, "effects": {},
}

with_state(st, patch) := object.union(st, patch)

brief_v1(status) := history("RESEARCH_BRIEF", [version("RESEARCH_BRIEF", 1, status, "research_agent", research, [])])

report_v1 := version("QA_REPORT", 1, "under_review", "qa_agent", validation_report, [ref("RESEARCH_BRIEF", 1)])

strategy_v1(status) := history("STRATEGY_BRIEF", [version("STRATEGY_BRIEF", 1, status, "strategy_agent", strategy, [ref("RESEARCH_BRIEF", 1)])])

copy_v(n, status) := version("COPY_PACKAGE", n, status, "copywriter", copy, [ref("STRATEGY_BRIEF", 1)])

visual_v(n, status) := version("VISUAL_PACKAGE", n, status, "visual_prompt_agent", visual, [ref("STRATEGY_BRIEF", 1)])

strategy_record := version("APPROVAL_RECORD", 1, "approved", "maria.lopez", approval_content("STRATEGY_APPROVAL", "APPROVE", [ref("STRATEGY_BRIEF", 1)]), [ref("STRATEGY_BRIEF", 1)])

st_research := state("RESEARCH", {})

st_validation := state("RESEARCH_VALIDATION", {"RESEARCH_BRIEF": brief_v1("under_review")})

st_strategy := state("STRATEGY", {
	"RESEARCH_BRIEF": brief_v1("approved"),
	"QA_REPORT": history("QA_REPORT", [report_v1]),
})

st_strategy_approval := state("STRATEGY_APPROVAL", object.union(st_strategy.artifacts, {"STRATEGY_BRIEF": strategy_v1("under_review")}))

st_production := state("PRODUCTION", object.union(st_strategy.artifacts, {
	"STRATEGY_BRIEF": strategy_v1("approved"),
	"APPROVAL_RECORD": history("APPROVAL_RECORD", [strategy_record]),
}))

st_copy_in := state("PRODUCTION", object.union(st_production.artifacts, {"COPY_PACKAGE": history("COPY_PACKAGE", [copy_v(1, "under_review")])}))

st_qa := state("QA", object.union(st_copy_in.artifacts, {"VISUAL_PACKAGE": history("VISUAL_PACKAGE", [visual_v(1, "under_review")])}))

# st_qa_cycle is QA after n revision cycles of the copy, with defect D-1 still open.
st_qa_cycle(n) := with_state(
	state("QA", object.union(st_qa.artifacts, {"COPY_PACKAGE": history("COPY_PACKAGE", [copy_v(v, s) |
		some v in numbers.range(1, n + 1)
		s := cycle_status(v, n + 1)
	])})),
	{
		"counters": {"qa_cycles": n},
		"defects": {"D-1": {"defect": d1, "status": "open"}},
	},
)

cycle_status(v, last) := "under_review" if v == last

else := "superseded"

final_report := version("QA_REPORT", 2, "under_review", "qa_agent", production_report, [ref("COPY_PACKAGE", 1), ref("VISUAL_PACKAGE", 1)])

st_human := state("HUMAN_APPROVAL", object.union(st_qa.artifacts, {"QA_REPORT": history("QA_REPORT", [object.union(report_v1, {"status": "superseded"}), final_report])}))

final_refs := [ref("COPY_PACKAGE", 1), ref("VISUAL_PACKAGE", 1), ref("QA_REPORT", 2)]

final_record := version("APPROVAL_RECORD", 2, "approved", "maria.lopez", approval_content("HUMAN_APPROVAL", "APPROVE", final_refs), final_refs)

st_delivery := with_state(
	state("DELIVERY", object.union(st_human.artifacts, {
		"COPY_PACKAGE": history("COPY_PACKAGE", [copy_v(1, "approved")]),
		"VISUAL_PACKAGE": history("VISUAL_PACKAGE", [visual_v(1, "approved")]),
		"QA_REPORT": history("QA_REPORT", [object.union(report_v1, {"status": "superseded"}), object.union(final_report, {"status": "approved"})]),
		"APPROVAL_RECORD": history("APPROVAL_RECORD", [strategy_record, final_record]),
	})),
	{"approvals": {"HUMAN_APPROVAL": {"decision": "APPROVE", "by": "maria.lopez", "artifacts": final_refs}}},
)

st_delivering(effect_status) := with_state(state("DELIVERY", object.union(st_delivery.artifacts, {"CLIENT_PACKAGE": history("CLIENT_PACKAGE", [version("CLIENT_PACKAGE", 1, "approved", "delivery_agent", client_package, array.concat(final_refs, [ref("APPROVAL_RECORD", 2)]))])})), {
	"approvals": st_delivery.approvals,
	"effects": {"client-package@v1": effect_status},
})

# --- requests ------------------------------------------------------------------------

envelope(kind, actor) := {
	"request_id": sprintf("req-%s", [kind]), "kind": kind, "tenant_id": "acme", "organization_id": "acme-marketing",
	"workflow_id": "wf-brightbrew", "trace_id": "trace-1", "actor": actor,
}

system := {"type": "system", "id": "orchestrator"}

approver := {"type": "human", "id": "maria.lopez", "roles": ["campaign_approver"]}

agent(id) := {"type": "agent", "id": id}

output(type, n, content) := {"id": ids[type], "type": type, "version": n, "content": content} if n == 1

else := {"id": ids[type], "type": type, "version": n, "content": content, "supersedes": n - 1, "justification": "Answers the returned defects"}

handoff(source, target, task, inputs, out) := object.union(envelope("handoff", agent(source)), {
	"source_agent": source, "target_agent": target, "task_type": task, "input_artifacts": inputs,
	"output": out, "output_summary": "Delivered work", "assumptions": [], "limitations": [limitation],
	"confidence_score": 0.8,
})

start := object.union(envelope("start", system), {
	"pack": "campaign", "subject_id": "brightbrew-q2-launch",
	"brief": {"client": "Brightbrew", "business_objective": "Grow trial sign-ups by 20%", "product": "Brightbrew Cold Brew"},
})

research_handoff(n, content) := handoff("research_agent", "strategy_agent", "research", [], output("RESEARCH_BRIEF", n, content))

strategy_handoff(n, inputs) := handoff("strategy_agent", "campaign_approver", "strategy", inputs, output("STRATEGY_BRIEF", n, strategy))

copy_handoff(n, inputs, content) := handoff("copywriter", "qa_agent", "copy", inputs, output("COPY_PACKAGE", n, content))

visual_handoff(n, inputs, content) := handoff("visual_prompt_agent", "qa_agent", "visual_prompts", inputs, output("VISUAL_PACKAGE", n, content))

delivery_handoff(inputs, content) := handoff("delivery_agent", "client", "delivery", inputs, output("CLIENT_PACKAGE", 1, content))

delivery_inputs := array.concat(final_refs, [ref("APPROVAL_RECORD", 2)])

review(refs, verdict, defects) := object.union(envelope("review", agent("qa_agent")), {
	"verdict": verdict, "artifacts": refs, "defects": defects, "gates": [],
	"report": {"checks_performed": checks_of(refs), "notes": ["checked"]},
})

# checks_of are the contract checks of the reviewed artifacts: what a review runs.
checks_of(refs) := sort({c | some r in refs; some c in object.get(data.handoff.campaign.contract, ["artifacts", r.type, "gates"], [])})

validation(verdict, defects) := review([ref("RESEARCH_BRIEF", 1)], verdict, defects)

qa(copy_n, verdict, defects) := review([ref("COPY_PACKAGE", copy_n), ref("VISUAL_PACKAGE", 1)], verdict, defects)

defect(id, severity, artifact, check) := {"id": id, "severity": severity, "artifact": artifact, "check": check, "description": "Contract check failed"}

d1 := defect("D-1", "S2", "COPY_PACKAGE", "unsupported_claims")

approval(decision, refs, revise) := object.union(envelope("approval", approver), {
	"decision": decision, "artifacts": refs, "revise": revise, "comment": "Reviewed",
})

outcome(effect, result) := object.union(envelope("outcome", system), {"effect_id": effect, "result": result})

failure(task, agent_id, class) := object.union(envelope("failure", system), {"task": task, "agent": agent_id, "class": class})

# --- input and decision --------------------------------------------------------------

input_of(request, st) := {
	"pack": "campaign",
	"request": request,
	"validation": {"errors": []},
	"state": st,
	"derived": derived(request),
	"now": now,
}

derived(request) := {
	"output_hash": hash(json.marshal(request.output.content)),
	"input_hash": hash(json.marshal(object.get(request, "input_artifacts", []))),
	"context_bytes": 0,
	"payload_bytes": 2048,
} if {
	request.output
} else := {
	"output_hash": "",
	"input_hash": hash(json.marshal(object.get(request, "input_artifacts", []))),
	"context_bytes": 0,
	"payload_bytes": 1024,
}

decide(request, st) := d if {
	d := campaign.decision with input as input_of(request, st)
}

codes(d) := {r.code | some r in d.reasons}

next_agents(d) := {n.agent | some n in d.next}

event_types(d) := [e.type | some e in d.events]

# status_events are the artifact_status events of a decision as "TYPE vN status".
status_events(d) := {sprintf("%s v%d %s", [e.artifact, e.version, e.status]) | some e in d.events; e.type == "artifact_status"}

recorded(d) := {sprintf("%s v%d %s", [e.ref.type, e.ref.version, e.status]) | some e in d.events; e.type == "artifact_recorded"}

campaign_contract := data.handoff.campaign.contract

# decide_with evaluates the decision against other campaign tables.
decide_with(request, st, contract) := d if {
	d := campaign.decision with input as input_of(request, st) with data.handoff.campaign.contract as contract
}

# config is the pack's own tables, exported from contracts/campaign/config.cue.
config := data.handoff.campaign.config

# decide_without_config evaluates the decision with one configuration table removed.
decide_without_config(request, st, name) := d if {
	d := campaign.decision with input as input_of(request, st) with data.handoff.campaign.config as json.remove(config, [name])
}
