package wiregen

// definition maps one core definition to its Go type. A handWritten type is not
// generated; its fields are still derived, so a test can check the Go type against them.
type definition struct {
	cue         string
	goName      string
	handWritten string // why the Go type is written by hand; "" when generated
}

// definitions are the core definitions the vocabulary speaks, in the order wire_gen.go
// declares them.
var definitions = []definition{
	{cue: "#Decision", goName: "Decision", handWritten: "CUE orders the embedded #PolicyResult " +
		"first, recorded decisions put the request's identity first; it also holds unexported marks"},
	{cue: "#DecisionOutcome", goName: "Outcome", handWritten: "an enumeration: named constants"},
	{cue: "#Reason", goName: "Reason"},
	{cue: "#Next", goName: "Next"},
	{cue: "#Retry", goName: "RetryPlan"},
	{cue: "#Revise", goName: "Revision"},
	{cue: "#Event", goName: "Event"},
	{cue: "#ArtifactRef", goName: "ArtifactRef"},
	{cue: "#Defect", goName: "Defect"},
	{cue: "#State", goName: "State"},
	{cue: "#ArtifactHistory", goName: "ArtifactHistory"},
	{cue: "#ArtifactVersion", goName: "ArtifactVersion"},
	{cue: "#Waiting", goName: "Waiting"},
	{cue: "#Party", goName: "Party"},
	{cue: "#Step", goName: "Step"},
	{cue: "#Citation", goName: "Citation"},
	{cue: "#Lead", goName: "Lead"},
	{cue: "#VerifyReport", goName: "VerifyReport"},
	{cue: "#WorkflowSummary", goName: "WorkflowSummary"},
	{cue: "#WorkflowRow", goName: "WorkflowRow"},
	{cue: "#Error", goName: "Error", handWritten: "an error value: its methods match the error table, " +
		"and it keeps the HTTP status it came with, which is not in the body"},
}

// inline names the structs CUE writes in place, by their path: "[]" is a list's element,
// "{}" a map's value. CUE gives them no doc comment of their own, so the table does.
var inline = map[string]struct{ goName, doc string }{
	"#Decision.policy":      {"PolicyRef", "PolicyRef names the policy a decision was made with."},
	"#Next.context":         {"NextContext", nextContextDoc},
	"#Next.context.flags[]": {"TextHit", textHitDoc},
	"#State.conflicts{}":    {"Conflict", "Conflict is a conflict only a person may resolve; both sides are preserved."},
	"#State.approvals{}":    {"ApprovalRecord", "ApprovalRecord is the last human decision on an artifact type or stage."},
	"#State.defects{}":      {"DefectRecord", "DefectRecord is a review defect and whether it is still open."},
	"#State.tasks{}":        {"Task", "Task is one task of the workflow's task graph."},
}

const nextContextDoc = "NextContext is the context package of one routing answer: must-know fields " +
	"only, plus what the agent may know. Fields the contract marks as not needed never appear. " +
	"Every value is wrapped as {\"untrusted_data\": value}: it was written by an agent, a tool or " +
	"a person, and reaches the next agent as data, never as its instructions."

const textHitDoc = "TextHit is one pattern that matched one string of a request: the string's " +
	"path in the policies' notation (output.content.claims[2].text; a key's path ends with the " +
	"key) and the pattern's name (a gitleaks rule is \"gitleaks:<rule id>\")."

// typeOverrides are the Go types CUE's types do not determine, by field path. With doc,
// the reason also ends the field's doc comment, for the readers of the Go type.
var typeOverrides = map[string]struct {
	goType, why string
	doc         bool
}{
	"#Retry.delay_ms":                {goType: "int64", why: "milliseconds, of time.Duration's width"},
	"#State.state_version":           {goType: "uint64", why: "the store's versions and sequence numbers are uint64"},
	"#Decision.state_version":        {goType: "uint64", why: "the version of the state the decision left"},
	"#Waiting.state_version":         {goType: "uint64", why: "the store's versions are uint64"},
	"#VerifyReport.records":          {goType: "uint64", why: "the store's sequence numbers are uint64"},
	"#WorkflowSummary.state_version": {goType: "uint64", why: "the store's versions are uint64"},
	"#WorkflowSummary.standing":      {goType: "Outcome", why: "an outcome, or none"},
	"#WorkflowRow.state_version":     {goType: "uint64", why: "the store's versions are uint64"},
	"#WorkflowRow.standing":          {goType: "Outcome", why: "an outcome, or none"},
	"#WorkflowRow.decisions":         {goType: "uint64", why: "the store's sequence numbers are uint64"},
	"#VerifyReport.broken_seq":       {goType: "uint64", why: "the store's sequence numbers are uint64"},
	"#Event.delta": {goType: "*int", doc: true,
		why: "A pointer: a zero delta is still a delta, and absent is not 0."},
	"#Event.value": {goType: "*int", doc: true,
		why: "A pointer: a reset to 0 is still a reset, and absent is not 0."},
	"#Event.depends_on": {goType: "*[]string", doc: true,
		why: "A pointer, so that an explicit empty list survives the JSON round trip " +
			"through the log: absent keeps the task's dependencies, [] clears them."},
}

// orderOverrides move a field of a definition to just after another, where recorded
// JSON has it.
var orderOverrides = map[string]struct{ after, why string }{
	"#Event.status": {"version", "recorded events carry status after artifact_status's version, " +
		"not after artifact_recorded's ref; moving it would change their bytes"},
}
