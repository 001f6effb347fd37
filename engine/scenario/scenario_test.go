package scenario

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStepTimes(t *testing.T) {
	parse := func(steps ...string) (*Scenario, error) {
		body := `{"name": "s", "pack": "p", "steps": [`
		for i, s := range steps {
			if i > 0 {
				body += ","
			}
			body += s
		}
		return Parse([]byte(body + "]}"))
	}
	at := func(now string) string {
		if now == "" {
			return `{"name": "x", "request": {}, "expect": {"outcome": "allow", "reasons": []}}`
		}
		return `{"name": "x", "now": "` + now + `", "request": {}, "expect": {"outcome": "allow", "reasons": []}}`
	}

	s, err := parse(at(""), at(""))
	require.NoError(t, err)
	assert.True(t, s.Steps[0].At().IsZero(), "no time: the engine's clock")
	assert.True(t, s.Steps[1].At().IsZero())

	s, err = parse(at("2026-11-02T09:00:00Z"), at(""), at("2026-11-02T10:45:00+01:00"), at("2026-11-02T09:45:00.5Z"))
	require.NoError(t, err)
	t0 := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	assert.True(t, s.Steps[0].At().Equal(t0))
	assert.True(t, s.Steps[1].At().Equal(t0), "a step without now keeps the time before")
	assert.True(t, s.Steps[2].At().Equal(t0.Add(45*time.Minute)), "zones are honoured")
	assert.True(t, s.Steps[3].At().Equal(t0.Add(45*time.Minute+500*time.Millisecond)))

	for name, steps := range map[string][]string{
		"earlier":        {at("2026-11-02T09:00:00Z"), at("2026-11-02T08:59:59Z")},
		"not first":      {at(""), at("2026-11-02T09:00:00Z")},
		"no zone":        {at("2026-11-02T09:00:00")},
		"not a time":     {at("45m")},
		"date only":      {at("2026-11-02")},
		"earlier 2 back": {at("2026-11-02T09:00:00Z"), at(""), at("2026-11-01T09:00:00Z")},
	} {
		_, err := parse(steps...)
		assert.Error(t, err, name)
	}
}
