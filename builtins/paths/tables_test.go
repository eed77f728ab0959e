package paths

import (
	"strings"
	"testing"
)

// TestSystemLocationsAreTheSecretsList holds tree.go's systemLocations
// (the well-known places a recursive read is checked for without walking
// to them) to the one credential list, secrets.go and dangerous.go: every
// sample is a credential path of the default classifier, and every system
// secret (a name rooted at etc/, proc/, dev/ or root/) has a sample, so
// that removing the name in the settings is what stops the sample counting
// and adding a system secret without a sample fails here.
func TestSystemLocationsAreTheSecretsList(t *testing.T) {
	for _, l := range systemLocations {
		if _, cred, _ := Default().Classify(l.path); !cred {
			t.Errorf("systemLocations %s is not a credential path of the default lists", l.path)
		}
	}
	rooted := func(name string) bool {
		for _, p := range []string{"etc/", "proc/", "dev/"} {
			if strings.HasPrefix(name, p) {
				return true
			}
		}
		return false
	}
	check := func(kind string, specs []entrySpec, cfg func(name string) Config) {
		for _, s := range specs {
			if !s.credential || !rooted(s.name) || strings.Contains(s.name, "/task/") {
				continue // per-thread /proc entries share their process's samples
			}
			c, err := cfg(s.name).Compile()
			if err != nil {
				t.Fatal(err)
			}
			sampled := false
			for _, l := range systemLocations {
				if _, cred, _ := c.Classify(l.path); !cred {
					sampled = true // this sample stands for the removed name
				}
			}
			if !sampled {
				t.Errorf("secret %s %q has no sample in systemLocations (tree.go): a recursive read of / would not find it without walking", kind, s.name)
			}
		}
	}
	check("file", secretFiles, func(n string) Config { return Config{Files: Edits{Remove: []string{n}}} })
	check("directory", secretDirectories, func(n string) Config { return Config{Directories: Edits{Remove: []string{n}}} })
}
