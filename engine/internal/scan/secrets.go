package scan

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
)

// secretRules is gitleaks' default rule set but the excluded rules, built in the
// background from the moment the scanner is made: reading its configuration and
// compiling its some 220 expressions is the largest part of a cold start, and it runs
// beside the compilation of the contracts and policies instead of before them.
type secretRules struct {
	built func() (*detect.Detector, error)
}

// secretRuleSets are the rule sets built in this process, by their exclusions: every
// scanner of the process with the same exclusions shares one (a detector holds some
// 10 MB and keeps no state between calls).
var secretRuleSets sync.Map // exclusions joined by "\n" -> *secretRules

// buildSecretRules starts building the rules, or returns those already built or being
// built for the same exclusions.
func buildSecretRules(exclude []string) *secretRules {
	key := strings.Join(slices.Sorted(slices.Values(exclude)), "\n")
	if r, ok := secretRuleSets.Load(key); ok {
		return r.(*secretRules)
	}
	r := &secretRules{built: sync.OnceValues(func() (*detect.Detector, error) {
		d, err := gitleaksDetector(exclude)
		if err != nil {
			return nil, fmt.Errorf("engine: secret rule set gitleaks: %w", err)
		}
		return d, nil
	})}
	if prev, loaded := secretRuleSets.LoadOrStore(key, r); loaded {
		return prev.(*secretRules)
	}
	go r.built() //nolint:errcheck // the result is kept by the once and read by detector
	return r
}

// detector waits for the rules and returns them, or why they could not be built.
func (r *secretRules) detector() (*detect.Detector, error) { return r.built() }

// gitleaksDefault is gitleaks' default configuration, translated once per process.
var gitleaksDefault = sync.OnceValues(func() (config.Config, error) {
	// A viper instance of its own: the package-level one is shared process-wide.
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(config.DefaultConfig)); err != nil {
		return config.Config{}, err
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return config.Config{}, err
	}
	return vc.Translate()
})

// gitleaksDetector is a detector of gitleaks' default rules but the excluded ones. An
// exclusion that names no rule is an error: it would hide a typo that keeps a rule on.
func gitleaksDetector(exclude []string) (*detect.Detector, error) {
	cfg, err := gitleaksDefault()
	if err != nil {
		return nil, err
	}
	rules := maps.Clone(cfg.Rules)
	for _, id := range exclude {
		if _, ok := rules[id]; !ok {
			return nil, fmt.Errorf("no rule %q to exclude", id)
		}
		delete(rules, id)
	}
	cfg.Rules = rules
	cfg.Keywords = map[string]struct{}{}
	for _, r := range rules {
		for _, k := range r.Keywords {
			cfg.Keywords[strings.ToLower(k)] = struct{}{}
		}
	}
	return detect.NewDetector(cfg), nil
}
