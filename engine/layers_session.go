package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/permopa/permopa/permission"
)

// UpdateSettings changes the settings in force under the engine's lock:
// change gets a private copy of the current settings, and if it returns no
// error the copy replaces them in the store (the next Decide sees it).
// Concurrent updates never lose each other's changes.
func (e *Engine) UpdateSettings(ctx context.Context, change func(*Settings) error) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.settings.clone()
	if err := change(&s); err != nil {
		return err
	}
	return e.storeSettingsLocked(ctx, s)
}

// AddSessionRules adds rules accepted at runtime to a session: they apply to
// later calls whose input has that session_id (session "" : every call).
// They live in memory, survive settings reloads and mode switches, and
// stop matching at their expiry. Under allow_managed_rules_only an allow
// rule is an error: it would have no effect.
func (e *Engine) AddSessionRules(ctx context.Context, sessionID string, rules ...permission.Rule) error {
	for _, r := range rules {
		if err := ValidateRule(r); err != nil {
			return err
		}
	}
	return e.UpdateSettings(ctx, func(s *Settings) error {
		for _, r := range rules {
			if s.AllowManagedRulesOnly && strings.EqualFold(r.Behavior, permission.Allow) {
				return fmt.Errorf("rule %s: managed settings allow only managed allow rules; a session allow rule would have no effect", r)
			}
		}
		if s.SessionRules == nil {
			s.SessionRules = map[string][]permission.Rule{}
		}
		for _, r := range rules {
			r.Behavior = strings.ToUpper(r.Behavior)
			r.Source = SourceSession
			r.Layer = sessionLayer(sessionID)
			s.SessionRules[sessionID] = mergeRule(s.SessionRules[sessionID], r)
		}
		return nil
	})
}

// RevokeSessionRules removes a session's rules equal (SameRule) to the given
// ones; it reports how many it removed.
func (e *Engine) RevokeSessionRules(ctx context.Context, sessionID string, rules ...permission.Rule) (int, error) {
	removed := 0
	err := e.UpdateSettings(ctx, func(s *Settings) error {
		kept := s.SessionRules[sessionID][:0:0]
		for _, have := range s.SessionRules[sessionID] {
			if slices.ContainsFunc(rules, func(r permission.Rule) bool { return SameRule(r, have) }) {
				removed++
				continue
			}
			kept = append(kept, have)
		}
		if s.SessionRules != nil {
			s.SessionRules[sessionID] = kept
		}
		return nil
	})
	return removed, err
}

// SetSessionMode switches a session's mode at runtime ("" clears it); its
// rules are kept. Session "" sets the mode of every call that names none.
// An unknown mode name is an error.
func (e *Engine) SetSessionMode(ctx context.Context, sessionID, mode string) error {
	if mode != "" && !ValidMode(mode) {
		return fmt.Errorf("session %q: unknown mode %q", sessionID, mode)
	}
	return e.UpdateSettings(ctx, func(s *Settings) error {
		if s.SessionModes == nil {
			s.SessionModes = map[string]string{}
		}
		if mode == "" {
			delete(s.SessionModes, sessionID)
		} else {
			s.SessionModes[sessionID] = mode
		}
		return nil
	})
}

// WithExpiry returns copies of rules that expire ttl from now (ttl 0:
// never), behaviors upper-cased, each checked with ValidateRule.
func WithExpiry(rules []permission.Rule, ttl time.Duration) ([]permission.Rule, error) {
	var expires string
	if ttl > 0 {
		// Whole seconds, rounded up: a rule lives at least ttl.
		at := time.Now().Add(ttl)
		if t := at.Truncate(time.Second); t.Before(at) {
			at = t.Add(time.Second)
		}
		expires = at.UTC().Format(time.RFC3339)
	}
	out := make([]permission.Rule, 0, len(rules))
	for _, r := range rules {
		r.Behavior = strings.ToUpper(r.Behavior)
		r.Expires = expires
		if err := ValidateRule(r); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// SessionLayer is the Layer of a session's rules: "session", or "session:ID".
func SessionLayer(id string) string { return sessionLayer(id) }

func sessionLayer(id string) string {
	if id == "" {
		return "session"
	}
	return "session:" + id
}

// mergeRule adds r to rs unless the same rule is there; when it is, the
// longer lifetime wins (no expiry beats any expiry).
func mergeRule(rs []permission.Rule, r permission.Rule) []permission.Rule {
	for i, have := range rs {
		if !SameRule(have, r) {
			continue
		}
		if have.Expires != "" && (r.Expires == "" || laterExpiry(r, have)) {
			rs[i].Expires = r.Expires
		}
		return rs
	}
	return append(rs, r)
}

func laterExpiry(a, b permission.Rule) bool {
	ta, _ := a.ExpiresAt()
	tb, _ := b.ExpiresAt()
	return ta.After(tb)
}

// clone copies the settings deeply enough that changing the copy's slices
// and maps never shows through to readers of the original.
func (s Settings) clone() Settings {
	s.Rules = slices.Clone(s.Rules)
	s.WorkingDirectories = slices.Clone(s.WorkingDirectories)
	s.Unreadable = slices.Clone(s.Unreadable)
	s.DangerousPaths.Files.Add = slices.Clone(s.DangerousPaths.Files.Add)
	s.DangerousPaths.Files.Remove = slices.Clone(s.DangerousPaths.Files.Remove)
	s.DangerousPaths.Directories.Add = slices.Clone(s.DangerousPaths.Directories.Add)
	s.DangerousPaths.Directories.Remove = slices.Clone(s.DangerousPaths.Directories.Remove)
	s.DangerousPaths.CodeRunning.Add = slices.Clone(s.DangerousPaths.CodeRunning.Add)
	s.DangerousPaths.CodeRunning.Remove = slices.Clone(s.DangerousPaths.CodeRunning.Remove)
	s.ProtectedPaths = slices.Clone(s.ProtectedPaths)
	if s.SessionRules != nil {
		rules := make(map[string][]permission.Rule, len(s.SessionRules))
		for id, rs := range s.SessionRules {
			rules[id] = slices.Clone(rs)
		}
		s.SessionRules = rules
	}
	s.SessionModes = maps.Clone(s.SessionModes)
	if s.Projects != nil {
		projects := make(map[string][]permission.Rule, len(s.Projects))
		for dir, rs := range s.Projects {
			projects[dir] = slices.Clone(rs)
		}
		s.Projects = projects
	}
	return s
}

// storeSettingsLocked writes s to the store as of now and arms the expiry
// check for the next rule to expire. e.mu must be held.
func (e *Engine) storeSettingsLocked(ctx context.Context, s Settings) error {
	s.fillDefaults()
	now := time.Now()
	if err := e.writeSettings(ctx, s.DocumentAt(now)); err != nil {
		return err
	}
	e.settings = s
	e.armExpiry(s, now)
	return nil
}

// armExpiry records when the next rule expires; Decide rebuilds the
// settings document once that time has passed.
func (e *Engine) armExpiry(s Settings, now time.Time) {
	next := s.NextExpiry(now)
	if next.IsZero() {
		e.nextExpiry.Store(0)
		return
	}
	e.nextExpiry.Store(next.UnixNano())
}

// expireRules rebuilds the settings document without the rules that have
// expired. A failure to write leaves the check armed, and Decide fails
// closed until it succeeds.
func (e *Engine) expireRules(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	at := e.nextExpiry.Load()
	if at == 0 || time.Now().UnixNano() < at {
		return nil // another Decide did it
	}
	return e.storeSettingsLocked(ctx, e.settings)
}
