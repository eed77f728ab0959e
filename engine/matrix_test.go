package engine_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/settings"
)

// matrixCase is one line of testdata/matrix-cases.jsonl: a `permopa decide`
// input plus the expected behavior and step.
type matrixCase struct {
	ID         string `json:"id"`
	Expect     string `json:"expect"`
	ExpectStep string `json:"expect_step"`
	raw        map[string]any
}

// matrixKind is a case's kind for quickFirst: its tool and the step of
// the matrix that decides it.
func matrixKind(c matrixCase) string {
	tool, _ := c.raw["tool_name"].(string)
	return tool + "/" + c.ExpectStep
}

func loadMatrix(t testing.TB) []matrixCase {
	t.Helper()
	f, err := os.Open("testdata/matrix-cases.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []matrixCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c matrixCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(sc.Bytes(), &c.raw); err != nil {
			t.Fatal(err)
		}
		delete(c.raw, "expect")
		delete(c.raw, "expect_step")
		delete(c.raw, "id")
		cases = append(cases, c)
	}
	if len(cases) < 300 {
		t.Fatalf("only %d matrix cases loaded", len(cases))
	}
	return cases
}

// TestMatrixConformance runs every case of the AgentScope decision matrix
// through the Go API.
func TestMatrixConformance(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: "/root", Cwd: "/tmp/permopa-ws"}))
	if err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, c := range loadMatrix(t) {
		d := eng.Decide(ctx, c.raw)
		if d.Behavior != c.Expect || d.Step != c.ExpectStep {
			failed++
			t.Errorf("%s: got %s/%s (%s), want %s/%s", c.ID, d.Behavior, d.Step, d.Message, c.Expect, c.ExpectStep)
		}
	}
	t.Logf("matrix conformance: %d failed", failed)
}
