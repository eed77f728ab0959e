package main_test

import (
	"path/filepath"

	"github.com/permopa/permopa/settings"
)

// recordTrust records, as `permopa trust` does, that the user of home
// trusts project's settings files as they are now (settings/trust.go).
func recordTrust(home, project string) error {
	digests, err := settings.ProjectFileDigests(project)
	if err != nil {
		return err
	}
	return settings.RecordTrust(filepath.Join(home, ".config", "permopa"), project, digests)
}
