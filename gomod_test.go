package permopa_test

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestGoModTidy fails when `go mod tidy` would change go.mod or go.sum, of
// the module or of the Regal tools module (tools/regal): a dependency
// imported directly is listed as direct, and nothing unused is listed.
// `go mod tidy -diff` changes nothing; it may need to download the test
// dependencies of dependencies, so without a network it can only skip
// (in CI, CI=true, it fails instead).
func TestGoModTidy(t *testing.T) {
	for _, dir := range []string{".", "tools/regal"} {
		cmd := exec.Command("go", "mod", "tidy", "-diff")
		cmd.Dir = dir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		switch {
		case err == nil:
		case strings.HasPrefix(stdout.String(), "diff "):
			t.Errorf("%s: `go mod tidy` would change go.mod or go.sum; run it there:\n%s", dir, stdout.String())
		case os.Getenv("CI") == "":
			t.Skipf("%s: go mod tidy -diff could not tell (no network?): %v\n%s", dir, err, stderr.String())
		default:
			t.Errorf("%s: go mod tidy -diff: %v\n%s", dir, err, stderr.String())
		}
	}
}
