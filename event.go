package handoff

// Event is one state change a decision makes (CUE core.#Event). Type selects which of
// the other fields are set; the engine folds events into the workflow State.
type Event struct {
	Type string `json:"type"`

	// artifact_recorded
	Ref         *ArtifactRef   `json:"ref,omitempty"`
	Producer    string         `json:"producer,omitempty"`
	BasedOn     []ArtifactRef  `json:"based_on,omitempty"`
	Assumptions []string       `json:"assumptions,omitempty"`
	Limitations []string       `json:"limitations,omitempty"`
	Content     map[string]any `json:"content,omitempty"`
	Meta        map[string]any `json:"meta,omitempty"`

	// artifact_status (and the status of artifact_recorded, defect, effect)
	Artifact string `json:"artifact,omitempty"`
	Version  int    `json:"version,omitempty"`
	Status   string `json:"status,omitempty"`

	// handoff_accepted
	Source    string `json:"source,omitempty"`
	Target    string `json:"target,omitempty"`
	InputHash string `json:"input_hash,omitempty"`
	Stage     string `json:"stage,omitempty"`

	// counter
	Name  string `json:"name,omitempty"`
	Delta *int   `json:"delta,omitempty"`
	Value *int   `json:"value,omitempty"`

	// conflict_opened, conflict_resolved, effect
	ID           string        `json:"id,omitempty"`
	ConflictType string        `json:"conflict_type,omitempty"`
	Artifacts    []ArtifactRef `json:"artifacts,omitempty"`
	Description  string        `json:"description,omitempty"`
	RaisedBy     string        `json:"raised_by,omitempty"`
	By           string        `json:"by,omitempty"`
	Chosen       *ArtifactRef  `json:"chosen,omitempty"`
	Rationale    string        `json:"rationale,omitempty"`

	// approval_recorded
	Decision string `json:"decision,omitempty"`

	// defect
	Defect *Defect `json:"defect,omitempty"`

	// task (ID and Status above)
	Agent string `json:"agent,omitempty"`
	// DependsOn is a pointer so that an explicit empty list survives the JSON round
	// trip through the log: absent keeps the task's dependencies, [] clears them.
	DependsOn *[]string `json:"depends_on,omitempty"`
}

// ArtifactRef points at one immutable version of an artifact.
type ArtifactRef struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Version int    `json:"version"`
	Hash    string `json:"hash"`
}

// Defect is one review finding.
type Defect struct {
	ID          string `json:"id"`
	Severity    string `json:"severity"`
	Artifact    string `json:"artifact"`
	Origin      string `json:"origin,omitempty"`
	Check       string `json:"check,omitempty"`
	Description string `json:"description"`
}
