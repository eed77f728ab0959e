package settings

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// Every key a settings file may hold has a trust class (KeyTrust): a key
// added to the schema without one fails here, so that nothing a
// repository ships loosens the decisions by a key nobody classified.
func TestEveryKeyHasATrustClass(t *testing.T) {
	var keys []string
	for k := range topKeys {
		switch k {
		case "permissions":
			for pk := range permissionsKeys {
				keys = append(keys, "permissions."+pk)
			}
		case "dangerous_paths":
			for _, list := range []string{"files", "directories", "code_running"} {
				for e := range pathEditKeys {
					keys = append(keys, "dangerous_paths."+list+"."+e)
				}
			}
		default:
			keys = append(keys, k)
		}
	}
	// The environment layer's keys are the same settings, spelt lower-case.
	for _, e := range envKeys {
		found := false
		for k := range KeyTrust {
			if strings.EqualFold(k, e.key) {
				found = true
			}
		}
		if !found {
			t.Errorf("environment key %s (%s) has no trust class", e.key, e.name)
		}
	}
	for _, k := range keys {
		if KeyTrust[k] == "" {
			t.Errorf("settings key %s has no trust class in KeyTrust", k)
		}
	}
	for k := range KeyTrust {
		if !slices.Contains(keys, k) {
			t.Errorf("KeyTrust classifies %s, which no settings file holds", k)
		}
	}
	classes := []string{TrustAlways, TrustOnceTrusted, TrustPartly, TrustManagedOnly, TrustNotRead}
	for k, c := range maps.All(KeyTrust) {
		if !slices.Contains(classes, c) {
			t.Errorf("%s: unknown class %q", k, c)
		}
	}
}
