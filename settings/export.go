package settings

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/permopa/permopa/permission"
)

// SourceOrg is the Source of the rules an organisation ships as an OPA data
// bundle at data.permopa.rules (bundle root permopa/rules), made with
// `permopa rules export`. A decision decided by such a rule names it in
// matched_rule.source, with the bundle and file in matched_rule.layer.
const SourceOrg = "orgRules"

// RulesRoot is the bundle root of an organisation's rules data bundle: the
// policy reads the document RulesDocument builds at data.permopa.rules.
const RulesRoot = "permopa/rules"

// RulesDocument is the document an organisation ships at data.permopa.rules:
// the rules, index and tool_pattern_rules parts of the settings document
// (Settings.DocumentAt), in the shape the policy reads. Only s.Rules are
// exported, with their Source and Layer as set; rules expired at now are
// left out (a bundle is a snapshot: rebuild it to drop rules that expire
// later). Settings other than rules (mode, directories, locks, dangerous
// paths) are not part of a rules bundle.
func RulesDocument(s Settings, now time.Time) RuleSet {
	return ruleIndex(s.Rules, func(r permission.Rule) bool { return !r.ExpiredAt(now) })
}

// ExportOptions configure ExportRules.
type ExportOptions struct {
	// Layer labels every exported rule (matched_rule.layer). Default:
	// "permopa/rules:" followed by the base name of the rule's file.
	Layer string
	// Now decides which rules have expired (default: time.Now()).
	Now time.Time
}

// ExportRules reads settings files (YAML, JSON or TOML, as LoadSettingsFile
// does) and returns the rules document of an organisation's rules bundle
// (RulesDocument), each rule with Source SourceOrg. Unlike a settings layer,
// which keeps its valid rules and reports the others, an export fails on any
// rule it cannot read, naming the file and the field: a rules bundle must
// not silently lose a deny rule. It also fails on an allow rule that expires
// later (a bundle cannot expire it; it would stay in force until the bundle
// is rebuilt) and on the managed locks, which a rules bundle cannot carry.
// Warnings report settings of the files that a rules bundle does not carry.
func ExportRules(files []string, opts ExportOptions) (doc RuleSet, warnings []string, err error) {
	if len(files) == 0 {
		return RuleSet{}, nil, errors.New("export: no settings file given")
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	var all []permission.Rule
	var errs []error
	for _, file := range files {
		s, problems, err := LoadSettingsFile(file, SourceOrg)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, problems...)
		layer := opts.Layer
		if layer == "" {
			layer = RulesRoot + ":" + filepath.Base(file)
		}
		for _, r := range s.Rules {
			if r.ExpiredAt(now) {
				warnings = append(warnings, fmt.Sprintf("%s: %s rule %s expired at %s; not exported", file, r.Behavior, r, r.Expires))
				continue
			}
			if r.Behavior == allow && r.Expires != "" {
				errs = append(errs, fmt.Errorf("%s: allow rule %s: expires %s: a rules bundle cannot expire a rule; drop the expiry, or give the rule to a settings layer", file, r, r.Expires))
				continue
			}
			if r.Expires != "" {
				warnings = append(warnings, fmt.Sprintf("%s: %s rule %s expires at %s, but a bundle keeps it until it is rebuilt", file, r.Behavior, r, r.Expires))
			}
			// A bundle's rules apply to whatever project a call comes
			// from: "/path" is read from the call's cwd, not from the
			// exporting machine's project (docs/rules.md).
			r.Source, r.Layer, r.Project = SourceOrg, layer, ""
			all = append(all, r)
		}
		if len(s.Rules) == 0 && len(problems) == 0 {
			warnings = append(warnings, fmt.Sprintf("%s: no rules (permissions.allow, .ask, .deny or allow_rules, ask_rules, deny_rules)", file))
		}
		for _, w := range notExported(s) {
			warnings = append(warnings, fmt.Sprintf("%s: %s is not part of a rules bundle; not exported", file, w))
		}
	}
	if len(errs) > 0 {
		return RuleSet{}, warnings, errors.Join(errs...)
	}
	return RulesDocument(Settings{Rules: all}, now), warnings, nil
}

// notExported names the settings of s that a rules bundle does not carry.
func notExported(s Settings) []string {
	var out []string
	if s.DefaultMode != "" {
		out = append(out, "permissions.defaultMode")
	}
	if len(s.WorkingDirectories) > 0 {
		out = append(out, "permissions.additionalDirectories (working_directories)")
	}
	if s.BypassHonoursSafety {
		out = append(out, "bypass_honours_safety")
	}
	if s.NetworkReads != "" {
		out = append(out, "network_reads")
	}
	if !s.DangerousPaths.empty() {
		out = append(out, "dangerous_paths")
	}
	if s.EnvironmentIsSecret != nil {
		out = append(out, "environment_is_secret")
	}
	return out
}
