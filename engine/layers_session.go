package engine

import (
	"context"
	"time"

	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// UpdateSettings changes the settings in force under the engine's lock:
// change gets a private copy of the current settings, and if it returns no
// error the copy replaces them in the store (the next Decide sees it).
// Concurrent updates never lose each other's changes.
func (e *Engine) UpdateSettings(ctx context.Context, change func(*settings.Settings) error) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.settings.Clone()
	if err := change(&s); err != nil {
		return err
	}
	return e.storeSettingsLocked(ctx, s)
}

// AddSessionRules adds rules accepted at runtime to a session
// (settings.Settings.AddSessionRules): they apply to later calls whose input has
// that session_id (session "": every call). They live in memory, survive
// settings reloads and mode switches, and stop matching at their expiry.
func (e *Engine) AddSessionRules(ctx context.Context, sessionID string, rules ...permission.Rule) error {
	return e.UpdateSettings(ctx, func(s *settings.Settings) error { return s.AddSessionRules(sessionID, rules...) })
}

// RevokeSessionRules removes a session's rules equal (settings.SameRule)
// to the given ones; it reports how many it removed.
func (e *Engine) RevokeSessionRules(ctx context.Context, sessionID string, rules ...permission.Rule) (int, error) {
	removed := 0
	err := e.UpdateSettings(ctx, func(s *settings.Settings) error {
		removed = s.RevokeSessionRules(sessionID, rules...)
		return nil
	})
	return removed, err
}

// SetSessionMode switches a session's mode at runtime ("" clears it;
// settings.Settings.SetSessionMode); an unknown mode name is an error.
func (e *Engine) SetSessionMode(ctx context.Context, sessionID, mode string) error {
	if err := new(settings.Settings).SetSessionMode(sessionID, mode); err != nil {
		return err
	}
	return e.UpdateSettings(ctx, func(s *settings.Settings) error { return s.SetSessionMode(sessionID, mode) })
}

// RemoveProject takes a project's rules (settings.Settings.Projects[key]) out of
// the settings in force.
func (e *Engine) RemoveProject(ctx context.Context, key string) error {
	return e.UpdateSettings(ctx, func(s *settings.Settings) error {
		delete(s.Projects, key)
		delete(s.ProjectUntrusted, key)
		return nil
	})
}

// storeSettingsLocked writes s to the store as of now and arms the expiry
// check for the next rule to expire. e.mu must be held.
func (e *Engine) storeSettingsLocked(ctx context.Context, s settings.Settings) error {
	s.FillDefaults()
	now := time.Now()
	if err := e.writeSettings(ctx, s.DocumentAt(now)); err != nil {
		return err
	}
	e.settings = s
	e.armExpiry(s, now)
	e.untrusted.Store(untrustedOf(s))
	return nil
}

// armExpiry records when the next rule expires; Decide rebuilds the
// settings document once that time has passed.
func (e *Engine) armExpiry(s settings.Settings, now time.Time) {
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
