package wiregen

import "testing"

func TestGoName(t *testing.T) {
	for label, want := range map[string]string{
		"decision_id": "DecisionID", "delay_ms": "DelayMS", "id": "ID", "based_on": "BasedOn",
		"requires_human_review": "RequiresHumanReview", "input_hash": "InputHash",
	} {
		if got := goName(label); got != want {
			t.Errorf("goName(%q) = %q, want %q", label, got, want)
		}
	}
}
