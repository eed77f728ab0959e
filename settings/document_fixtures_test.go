package settings

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var updateDocuments = flag.Bool("update-documents", false, "rewrite testdata/documents from the current code")

// TestDocumentUnchangedOnFixtures: the settings document the policy reads
// (data.permopa.settings) built from the repository's settings fixtures is
// byte for byte what testdata/documents holds, for a managed and a project
// file. The goldens were written before the typed decoder (decode.go)
// replaced the map read through viper (issue 29): reading settings through
// it changes no decision.
func TestDocumentUnchangedOnFixtures(t *testing.T) {
	files, _ := filepath.Glob("testdata/files/*")
	files = append(files, "../engine/testdata/readme-rules.yaml", "../adapter/testdata/hooks/settings.yaml")
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, file := range files {
		var out bytes.Buffer
		for _, source := range []string{SourceManaged, SourceProject} {
			s, _, err := LoadSettingsFile(file, source)
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			s.Home, s.Cwd = "/home/u", "/w"
			b, err := json.Marshal(s.DocumentAt(now))
			if err != nil {
				t.Fatal(err)
			}
			out.WriteString(source + " " + string(b) + "\n")
		}
		golden := filepath.Join("testdata/documents", filepath.Base(file)+".golden")
		if *updateDocuments {
			if err := os.MkdirAll("testdata/documents", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Errorf("%s: the document changed\n got %s\nwant %s", file, out.Bytes(), want)
		}
	}
}
