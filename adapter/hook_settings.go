package adapter

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/permopa/permopa/engine"
)

// SettingsLayer is one settings file a hook consults, highest layer first.
type SettingsLayer struct {
	Path string
	// Source names the layer in decisions (localSettings, projectSettings,
	// userSettings, cliSettings).
	Source string
}

// CwdSettingsLayers are the settings files that apply to a call made in
// cwd, highest first: the command line's files, then
// <cwd>/.permopa/settings.local.yaml, <cwd>/.permopa/settings.yaml and
// <home>/.config/permopa/settings.yaml. Only files that exist are listed.
//
// This is the one place hooks learn where settings live; the layered
// loader (managed settings, PERMOPA_* overrides) replaces it later.
func CwdSettingsLayers(cwd, home string, cli []string) []SettingsLayer {
	var out []SettingsLayer
	for _, f := range cli {
		out = append(out, SettingsLayer{Path: f, Source: "cliSettings"})
	}
	add := func(p, source string) {
		if p == "" {
			return
		}
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			out = append(out, SettingsLayer{Path: p, Source: source})
		}
	}
	if cwd != "" {
		add(filepath.Join(cwd, ".permopa", "settings.local.yaml"), "localSettings")
		add(filepath.Join(cwd, ".permopa", "settings.yaml"), "projectSettings")
	}
	if home != "" {
		add(filepath.Join(home, ".config", "permopa", "settings.yaml"), "userSettings")
	}
	return out
}

// LoadCwdSettings loads and merges CwdSettingsLayers: every rule keeps its
// file as layer and the layer's name as source. Invalid rules are returned
// as problems (the valid ones are kept); a file that exists but cannot be
// read is an error, so that a hook fails closed instead of deciding without
// the user's deny rules.
func LoadCwdSettings(cwd, home string, cli []string) (engine.Settings, []error, error) {
	var layers []engine.Settings
	var problems []error
	for _, l := range CwdSettingsLayers(cwd, home, cli) {
		s, probs, err := engine.LoadSettingsFile(l.Path, "")
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && l.Source != "cliSettings" {
				continue // removed since it was listed
			}
			return engine.Settings{}, problems, err
		}
		for i := range s.Rules {
			s.Rules[i].Source = l.Source
			s.Rules[i].Layer = l.Path
		}
		problems = append(problems, probs...)
		layers = append(layers, s)
	}
	merged := engine.Merge(layers...)
	if cwd != "" {
		merged.Cwd = cwd
	}
	if home != "" {
		merged.Home = home
	}
	return merged, problems, nil
}

// BlockingProblems is the error a hook fails closed with when a deny or ask
// rule of the settings could not be read: deciding without it could allow
// what the user meant to deny. Unreadable allow rules only make permopa ask
// more, so they are reported and skipped. nil when there is none.
func BlockingProblems(problems []error) error {
	var bad []string
	for _, p := range problems {
		msg := p.Error()
		if strings.Contains(msg, "permissions.deny:") || strings.Contains(msg, "permissions.ask:") {
			bad = append(bad, msg)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("a deny or ask rule cannot be read, so no call is let through until it is fixed: %s", strings.Join(bad, "; "))
}
