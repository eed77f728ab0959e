package adapter

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/permopa/permopa/engine"
)

// LoadCwdSettings loads every settings layer that applies to a call made
// in cwd (engine.LoadLayers: managed, the command line's files, PERMOPA_*
// variables, <cwd>/.permopa/settings.local.yaml and settings.yaml, and
// <home>/.config/permopa/settings.yaml): every rule keeps its file as layer
// and the layer's name as source. Invalid rules are returned as problems
// (the valid ones are kept); a settings file that exists but cannot be read
// is an error, so that a hook fails closed instead of deciding without the
// user's deny rules.
func LoadCwdSettings(cwd, home string, cli []string) (engine.Settings, []error, error) {
	for _, f := range cli {
		if _, err := os.Stat(f); err != nil {
			return engine.Settings{}, nil, fmt.Errorf("settings %s: %w", f, err)
		}
	}
	opts := engine.LayerOptions{ProjectDir: cwd, CommandLine: cli, Home: home, Cwd: cwd}
	if home != "" {
		opts.UserDir = filepath.Join(home, ".config", "permopa")
	}
	s, problems := engine.LoadLayers(opts)
	var rest []error
	for _, p := range problems {
		var fp *engine.FileProblem
		if errors.As(p, &fp) {
			return engine.Settings{}, problems, p
		}
		rest = append(rest, p)
	}
	return s, rest, nil
}

// BlockingProblems is the error a hook fails closed with when a deny or ask
// rule of the settings could not be read (engine.UnsafeProblems, in any
// settings shape): deciding without it could allow what the user meant to
// deny. Unreadable allow rules only make permopa ask more, so they are
// reported and skipped. nil when there is none.
func BlockingProblems(problems []error) error {
	unsafe := engine.UnsafeProblems(problems)
	if len(unsafe) == 0 {
		return nil
	}
	msgs := make([]string, len(unsafe))
	for i, p := range unsafe {
		msgs[i] = p.Error()
	}
	return fmt.Errorf("a deny or ask rule cannot be read, so no call is let through until it is fixed: %s", strings.Join(msgs, "; "))
}
