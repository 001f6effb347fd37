package handoff

// State is the materialized snapshot of one workflow (CUE core.#State). It is read with
// one key read and updated in the same transaction as every append, so policies see
// counters and indices instead of raw history.
type State struct {
	WorkflowID     string                      `json:"workflow_id"`
	TenantID       string                      `json:"tenant_id"`
	OrganizationID string                      `json:"organization_id,omitempty"`
	Pack           string                      `json:"pack"`
	SubjectID      string                      `json:"subject_id"`
	Status         string                      `json:"status"`
	Terminal       bool                        `json:"terminal"`
	StateVersion   uint64                      `json:"state_version"`
	CreatedAt      string                      `json:"created_at"`
	UpdatedAt      string                      `json:"updated_at"`
	Artifacts      map[string]*ArtifactHistory `json:"artifacts"`
	Counters       map[string]int              `json:"counters"`
	Edges          map[string]int              `json:"edges"`
	InputHashes    map[string]bool             `json:"input_hashes"`
	RecentEdges    []string                    `json:"recent_edges"`
	StageHandoffs  map[string]int              `json:"stage_handoffs"`
	Conflicts      map[string]*Conflict        `json:"conflicts"`
	OpenConflicts  int                         `json:"open_conflicts"`
	Approvals      map[string]*ApprovalRecord  `json:"approvals"`
	Defects        map[string]*DefectRecord    `json:"defects"`
	Effects        map[string]string           `json:"effects"`
	Tasks          map[string]*Task            `json:"tasks"`
}

// Task is one task of the workflow's task graph.
type Task struct {
	Status    string   `json:"status"`
	Agent     string   `json:"agent,omitempty"`
	DependsOn []string `json:"depends_on"`
}

// ArtifactHistory is every version of one artifact type in a workflow.
type ArtifactHistory struct {
	ID       string                      `json:"id"`
	Latest   int                         `json:"latest"`
	Approved int                         `json:"approved"`
	Versions map[string]*ArtifactVersion `json:"versions"`
}

// ArtifactVersion is one recorded version.
type ArtifactVersion struct {
	Ref         ArtifactRef    `json:"ref"`
	Status      string         `json:"status"`
	Producer    string         `json:"producer"`
	BasedOn     []ArtifactRef  `json:"based_on"`
	Assumptions []string       `json:"assumptions"`
	Limitations []string       `json:"limitations"`
	Content     map[string]any `json:"content"`
	Meta        map[string]any `json:"meta"`
	RecordedAt  string         `json:"recorded_at"`
}

// Conflict is a conflict only a person may resolve; both sides are preserved.
type Conflict struct {
	ID           string        `json:"id"`
	ConflictType string        `json:"conflict_type"`
	Status       string        `json:"status"`
	Artifacts    []ArtifactRef `json:"artifacts"`
	Description  string        `json:"description"`
	RaisedBy     string        `json:"raised_by"`
	ResolvedBy   string        `json:"resolved_by,omitempty"`
}

// ApprovalRecord is the last human decision on an artifact type or stage.
type ApprovalRecord struct {
	Decision  string        `json:"decision"`
	By        string        `json:"by"`
	Artifacts []ArtifactRef `json:"artifacts"`
}

// DefectRecord is a review defect and whether it is still open.
type DefectRecord struct {
	Defect Defect `json:"defect"`
	Status string `json:"status"`
}
