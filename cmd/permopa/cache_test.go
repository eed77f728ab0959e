package main_test

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// `permopa decide --cache` answers the matrix the same as without it:
// every case twice, the second time from the cache where it can be, and
// each answer what the case expects (TestDecideMatrixConformance decides
// them without the cache).
func TestDecideCacheMatrix(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../engine/testdata/matrix-cases.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	out, stderr, code := permopa(t, string(raw)+string(raw), "decide", "--cache", "4096")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	ds := decisions(t, out)
	if len(ds) != 2*len(lines) {
		t.Fatalf("%d decisions for %d inputs", len(ds), 2*len(lines))
	}
	for i, line := range lines {
		var m map[string]any
		_ = json.Unmarshal([]byte(line), &m)
		for _, d := range []int{i, i + len(lines)} {
			if ds[d].Behavior != m["expect"] || ds[d].Step != m["expect_step"] {
				t.Errorf("%v (line %d): got %s/%s, want %v/%v", m["id"], d+1, ds[d].Behavior, ds[d].Step, m["expect"], m["expect_step"])
			}
		}
		if !reflect.DeepEqual(ds[i], ds[i+len(lines)]) {
			t.Errorf("%v: first %+v, repeated %+v", m["id"], ds[i], ds[i+len(lines)])
		}
	}
	if _, _, code := permopa(t, "", "decide", "--cache", "-1"); code == 0 {
		t.Error("decide --cache -1 was accepted")
	}
}
